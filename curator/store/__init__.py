"""The store: the world file, one SQLite database per world (a save).

It owns the connection (WAL, busy timeout, foreign keys), the schema and its numbered
migrations (`migrations`), one write transaction per unit of work, the memories, relationships
and turn log as the domain names them (`world`), a memory as a row and back (`rows`), and the
write-ahead log's checkpoints off the turn's path (`checkpoint`).

May import: `curator.domain`. Never prompts, decisions or the model gateway: the store knows
nothing of how a memory was decided.
"""
