"""Evolution: who a character becomes over many turns.

It owns attributes that drift with experience, and trust and rapport in others
(`attributes`); personality snapshots, drift between them and the identity narrative
(`personality`, `identity`); the evolution cycle that reads a period's memories into drift,
snapshots and a narrative (`cycle`) and its Markdown report (`report`); the goals a game sets
(`goals`); what a character has practised, by skill (`practice`); and its mood from what it
just lived (`mood`).

May import: `curator.model` (to decide the identity step), `curator.store`, `curator.domain`.
Never the turn flow, recall or the API above it.
"""
