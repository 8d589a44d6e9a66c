"""The Python API behind `from curator import Curator`: what a game server holds, one per world.

It owns `Curator` (`curator`: observe turns in rounds, end episodes, fade, evolve, edit) and
its reading half (`reads`: characters, search, context, export, goals, mood), model budgets
and spend (`budget`: a mixin, and the gate's view of how significant a turn is), who knows
what (`knowing`: provenance and groups), saves (`saves`: rewind, undo, branch; `replay`:
rebuilding a world from its history), a designer's hand edits of memories (`editing`), the
type check of every method's arguments (`arguments`) and turn parsing (`parsing`: a turn or a
typed error for anything a caller sends). User code imports these from `curator` itself.

May import: `curator.turn`, `curator.recall`, `curator.evolution`, `curator.export`,
`curator.model`, `curator.store`, `curator.domain`. Never the command line or the evals.
"""
