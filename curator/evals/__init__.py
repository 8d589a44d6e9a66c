"""The eval runner behind `curator eval`: cases, checks, modes, runs, reports and LoCoMo.

It owns the case file format (`cases`) and its checks (`kinds`), the state a run's checks
read (`state`) and the checkers (`expectations`, `expectations_evolution`), the three ways a
case is decided (`modes`: fallback, replay, live), playing and scoring cases (`runner`),
comparing runs and baselines (`diff`), the HTML report (`report`), and the LoCoMo retrieval
eval (`locomo`) scored leaving one conversation out (`locomo_tuning`).

May import: the public API only (`curator`, and `curator.testing` for replayed and recorded
answers), as a game's own tests would. Never curator's internals.
"""
