"""The store: the world file, one SQLite database per world (a save).

It owns the connection (WAL, busy timeout, foreign keys) and opening a file safely under
concurrency (`opening`), the schema and its numbered migrations (`migrations`), one write
transaction per unit of work (`transactions`) taken in the writers' first-come queue
(`writelock`), what SQLite's errors mean for a world (`failures`), the memories,
relationships, per-character clocks and turn log as the domain names them (`world`), a
memory as a row and back (`rows`), the write-ahead log's checkpoints off the turn's
path (`checkpoint`), the operations log a rewind replays (`oplog`), the rewinds' record and
the swap of a rebuilt world (`saves`, its schema `saves_schema`), and a designer's hand edits
of memories (`edits`).

May import: `curator.domain`. Never prompts, decisions or the model gateway: the store knows
nothing of how a memory was decided.
"""
