"""Recall: what a character brings to mind, and the text its next prompt carries.

It owns the full-text indexes (`index`), reading a situation or question without a model
(`query`; the times it speaks of, `when`; verbs' irregular forms, `forms`), how well a
memory matches it (`relevance`), scoring and ranking memories for a situation (`ranking`),
the memory network that recall follows one hop (`network`), core memory blocks
(`blocks`), archival passages (`passages`), and the token-budgeted memory context
(`context`).

May import: `curator.evolution` (a character's identity, goals, abilities and mood are
layers of its context), `curator.model` (the context template and token counting),
`curator.store`, `curator.domain`. Never the turn flow or the API.
"""
