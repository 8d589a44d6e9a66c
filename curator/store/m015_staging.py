"""Migration m015's statements: imports staged in short batches (issue #17). Shipped with m015:
never edit; a later change is a later migration. Kept out of migrations.py for its length.

- `characters.import_id`: null for a character of the world; the id of an import under way for
  a character that import is writing (store/staging.py). Every row an import writes belongs to
  such a character until the import's last, short transaction clears the mark.
- `imports`: the imports under way, with the process that runs each and when its last batch
  committed, so that one whose process died is known and its rows deleted.
- `import_parts`: a large imported document kept for the operations log in parts, one part a
  batch, so that no transaction writes hundreds of MB at once (store/oplog.py joins them).
"""

M015_SCRIPT = """
alter table characters add column import_id text;
create index characters_import on characters (import_id) where import_id is not null;
create table imports (id text primary key, pid integer not null, host text not null,
    started_at text not null, heartbeat text not null);
create table import_parts (import_id text not null, part integer not null, text text not null,
    primary key (import_id, part));
"""
