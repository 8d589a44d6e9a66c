"""The Python API behind `from curator import Curator`: what a game server holds, one per world.

It owns `Curator` (`curator`: observe turns in rounds, end episodes, fade, evolve, edit) and
its reading half (`reads`: characters, search, context, export, goals, mood), and turn
parsing (`parsing`: a turn or a typed error for anything a caller sends), saves (`saves`:
rewind, undo, branch; `replay`: rebuilding a world from its history) and a designer's hand
edits of memories (`editing`). User code imports these from `curator` itself.

May import: `curator.turn`, `curator.recall`, `curator.evolution`, `curator.export`,
`curator.model`, `curator.store`, `curator.domain`. Never the command line or the evals.
"""
