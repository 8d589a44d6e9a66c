"""The store: the world file, one SQLite database per world (a save).

It owns the connection (WAL, busy timeout, foreign keys) and opening a file safely under
concurrency (`opening`), the schema and its numbered migrations (`migrations`), one write
transaction per unit of work (`transactions`) taken in the writers' first-come queue
(`writelock`), what SQLite's errors mean for a world (`failures`), the memories,
relationships, per-character clocks and turn log as the domain names them (`world`), a
memory as a row and back (`rows`), and the write-ahead log's checkpoints off the turn's
path (`checkpoint`).

May import: `curator.domain`. Never prompts, decisions or the model gateway: the store knows
nothing of how a memory was decided.
"""
