"""The SQL of migration m011 (migrations.py): saves and hands-on editing (issue #18).

A memory may be pinned (never fades, never leaves the live tiers by itself) or written by a
designer (`written_by`, the same protection): those two columns are added by the migration
itself. Here: every hand edit is logged in `memory_edits`; whatever changes a world besides a
turn is logged in `operations` (after which turn, what, with which arguments), so a rewind can
rebuild the world from the turn log (store/oplog.py); `rewinds` and `set_aside` keep what a
rewind took out of the world, so that it can be undone (store/saves.py). Never edit it once
shipped: the next change is a new migration.
"""

SAVES_SCHEMA = """
    create table memory_edits (
        id integer primary key,
        memory_id text not null,
        owner text not null,
        action text not null,
        before text,
        after text,
        by text not null,
        at text not null,
        world_time text
    );
    create index memory_edits_memory on memory_edits (memory_id, id);
    create index memory_edits_owner on memory_edits (owner, id);
    -- after_turn: the seq of the last turn logged when it ran (0: before any turn).
    create table operations (
        seq integer primary key,
        after_turn integer not null,
        kind text not null,
        args text not null,
        at text not null
    );
    -- A world made before this log existed may hold changes no log can replay.
    insert into operations (after_turn, kind, args, at)
        select coalesce((select max(seq) from turns), 0), 'unlogged', '{}', strftime('%Y-%m-%dT%H:%M:%SZ')
        where exists (select 1 from characters);
    create table rewinds (
        id integer primary key,
        action text not null,
        to_turn text,
        kept_through integer not null,
        reason text not null default '',
        by text not null,
        at text not null,
        world_time text,
        undone_by integer
    );
    -- What a rewind took out of the world, in the order it happened: turns (with their
    -- payload, as the game sent them) and operations.
    create table set_aside (
        rewind_id integer not null references rewinds(id),
        position integer not null,
        kind text not null check (kind in ('turn', 'operation')),
        ref text not null,
        payload text not null,
        received_at text,
        result text,
        primary key (rewind_id, position)
    );
    """
