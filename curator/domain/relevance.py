"""Relevance weights: how much each cue beyond the bare words lends a memory's relevance.

Recall (curator/recall/relevance.py) reads a memory's relevance to a situation as bm25 plus
cues a memory system knows of: its neighbours, its episode, who it is about, the time it is
of. These are the weights of those cues. They are data, not code, so that an eval can choose
them on some conversations and score them on others (`curator eval locomo` does so, leaving
one conversation out); the defaults are what that choice makes on the LoCoMo development set.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class RelevanceWeights(BaseModel):
    """The weights of relevance's cues (0 turns a cue off)."""

    coverage: float = Field(default=0.6, ge=0.0, le=10.0,
                            description="share of the query's words (by idf) the memory holds")
    window: float = Field(default=0.8, ge=0.0, le=10.0,
                          description="bm25 of the memory read with its two neighbours as one text")
    date: float = Field(default=1.0, ge=0.0, le=10.0,
                        description="formed on, or speaking of, a day the query names")
    when: float = Field(default=1.0, ge=0.0, le=10.0,
                        description="'when …?' and the memory holds a time: relevance × (1 + this)")
    neighbour: float = Field(default=0.5, ge=0.0, le=10.0,
                             description="how much the best-matching neighbour lends")
    answer: float = Field(default=2.0, ge=0.0, le=10.0,
                          description="the memory answers a question someone else asked just before")
    episode: float = Field(default=0.7, ge=0.0, le=10.0,
                           description="the best match in the memory's episode lends this much")
    named: float = Field(default=0.35, ge=0.0, le=10.0,
                         description="the memory is about the character the query names first")
    cue: float = Field(default=0.5, ge=0.0, le=10.0,
                       description="'how long'/'how many' and the memory holds a duration/number")
