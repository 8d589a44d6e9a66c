"""The domain: the nouns every other part of curator speaks in, and nothing else.

It owns the turn a game sends and the memories, relationships and characters curator keeps
(`models`), the typed errors (`errors`), the configuration (`config`, with recall's cue
weights in `relevance`), what a unit of work
changed and who decided each step (`results`), how memory strength fades and is refreshed
(`fading`), the English word lists the rule-based reader reads with (`lexicon`), and the
traits deeds show and texts name (`traits`).

May import: nothing of curator outside this package (pydantic and the standard library only).
"""
