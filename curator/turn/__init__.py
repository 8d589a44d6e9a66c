"""The flow of a turn: what a character makes of what it meant to do and what happened.

For each character who perceived a turn, `pipeline.Curation` runs interpret → appraise →
remember (dedup, the memory network) → promote → overflow → reconcile → feel, and also ends
episodes and fades memories. Each judgement is a step (`steps`): a template, a decision
(`decisions`, told `inputs`) and a rule-based fallback (`fallback`, which reads the game
master's text with `reading` and phrases memories in the character's own voice with
`narration` and `phrasing`). A model is asked for a small judgement (`judgement`) that `judging` turns into
the same interpretation the fallback makes. `appraisal` judges each drafted memory through
several lenses; `dedup` turns a repeat into reinforcement. How the lasting view of another
changes (fade review, reconcile, first impression, episode end) is `views`'s, and `copying`
finds a model's answer that copies what its prompt showed it.

May import: `curator.recall` (the memory network a new memory is linked into),
`curator.evolution` (practice, the attributes that weight the lenses, the identity step),
`curator.model`, `curator.store`, `curator.domain`. Never the API or the command line.
"""
