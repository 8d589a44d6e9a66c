"""Migrations: the world database's schema, one numbered function per change (sqlite-utils Migrations).

Never edit a migration that has shipped; add the next one. `curator.store.opening.open_world` backs the
file up before applying any migration to a world that already has data.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from curator.store.m004_recall import M004_SCRIPT
from curator.store.m012_knowing import M012_SCRIPT
from curator.store.m013_budgets import create_budgets
from curator.store.m014_vectors import M014_SCRIPT
from curator.store.m015_staging import M015_SCRIPT
from curator.store.m019_text_index import M019_SCRIPT, MARKS
from curator.store.saves_schema import SAVES_SCHEMA

migrations = Migrations("curator")

_MEMORY_COLUMNS: dict[str, Any] = {
    "id": str, "seq": int, "owner": str, "subject": str, "content": str, "kind": str,
    "emotional_impact": str, "valence": float, "importance": float, "tier": str,
    "strength": float, "strength_at": str, "recall_count": int, "last_recalled": str,
    "created_at": str, "source_turns": str, "traits": str, "place": str, "domain": str,
}


@migrations()
def m001_initial(db: Database) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key")
    db.table("characters").create(
        {"id": str, "name": str, "persona": str, "immediate_context": str, "created_at": str,
         "last_seen": str},
        pk="id", not_null={"name"}, defaults={"persona": "", "immediate_context": ""})
    db.table("relationships").create(
        {"owner": str, "other": str, "immediate_context": str, "long_term_summary": str,
         "current_sentiment": float, "overall_bond": float, "interactions": int, "traits": str,
         "first_met": str, "last_interaction": str},
        pk=("owner", "other"),
        foreign_keys=[("owner", "characters", "id"), ("other", "characters", "id")])
    db.table("memories").create(_MEMORY_COLUMNS, pk="id", not_null={"owner", "content", "kind", "tier"},
                          foreign_keys=[("owner", "characters", "id")])
    db.table("memories").create_index(["owner", "subject", "tier", "seq"])
    db.table("memory_archive").create({**_MEMORY_COLUMNS, "archived_at": str, "archived_reason": str},
                                pk="id", foreign_keys=[("owner", "characters", "id")])
    db.table("memory_archive").create_index(["owner", "subject", "seq"])
    db.table("turns").create(
        {"id": str, "seq": int, "world_time": str, "digest": str, "payload": str, "result": str,
         "received_at": str},
        pk="id", not_null={"seq", "world_time", "digest", "payload"})
    db.table("turns").create_index(["seq"], unique=True)


@migrations()
def m002_sequence_indexes(db: Database) -> None:
    # next_memory_seq() takes max(seq) on every turn; without these it scans a growing index.
    db.table("memories").create_index(["seq"])
    db.table("memory_archive").create_index(["seq"])


@migrations()
def m003_model_calls(db: Database) -> None:
    # One row per model call (a step asked of a model, its retries included), like llm's log.
    db.table("calls").create(
        {"id": str, "seq": int, "turn_id": str, "character": str, "step": str, "template": str,
         "template_hash": str, "model": str, "messages": str, "response": str, "decision": str,
         "error": str, "outcome": str, "reason": str, "attempts": int, "prompt_tokens": int,
         "completion_tokens": int, "cost": float, "latency_ms": float, "started_at": str},
        pk="id", not_null={"seq", "step", "model", "outcome"})
    db.table("calls").create_index(["seq"], unique=True)
    db.table("calls").create_index(["turn_id"])


@migrations()
def m004_recall(db: Database) -> None:
    """Recall: full-text indexes kept by triggers, blocks (own and shared) and passages."""
    conn = db.conn
    # Neighbours of a memory are the owner's memories just before and after it (recall.py).
    db.table("memories").create_index(["owner", "seq"])
    db.table("memory_archive").create_index(["owner", "seq"])
    # One index over live and archived memories: the rowid is the memory's seq, which it
    # keeps when it is archived, so archiving moves nothing here. `about` holds who the
    # memory is about and where; `owner` only filters (weighted 0 in bm25).
    _run_script(conn, M004_SCRIPT)
    # Worlds made before this migration: index what they already hold.
    for table in ("memories", "memory_archive"):
        conn.execute(
            f"insert or replace into memory_fts (rowid, text, about, owner) select seq, content, "
            "trim(coalesce(subject, '') || ' ' || coalesce(place, '') || ' ' || coalesce(domain, '')), "
            f"owner from {table}")
    conn.execute("insert into summary_fts (rowid, text, other, owner) select rowid, "
                 "coalesce(long_term_summary, ''), other, owner from relationships")


@migrations()
def m005_evolution(db: Database) -> None:
    """Evolution: attributes and their change log, trust and rapport, personality
    snapshots, each character's high-water mark, and the evolution reports."""
    conn = db.conn
    _run_script(conn, """
    create table attributes (
        character text not null references characters(id) on delete cascade,
        name text not null,
        value real not null,
        updated_at text not null,
        primary key (character, name)
    );
    -- Every drift of an attribute (other is null) or of trust/rapport in another character
    -- (other names it), with the memory that caused it and why.
    create table attribute_changes (
        id integer primary key,
        character text not null references characters(id) on delete cascade,
        attribute text not null,
        other text,
        delta real not null,
        value_after real not null,
        memory_id text not null,
        reason text not null,
        world_time text not null
    );
    create index attribute_changes_character on attribute_changes (character, id);
    create table personality_snapshots (
        id integer primary key,
        character text not null references characters(id) on delete cascade,
        world_time text not null,
        work_style text not null,
        risk_tolerance text not null,
        social_orientation text not null,
        learning_style text not null,
        stress_response text not null,
        identity_summary text not null,
        narrative_by text not null,
        defining_memories text not null default '[]',
        attributes text not null default '{}',
        avg_trust real not null default 0.5,
        avg_rapport real not null default 0.5,
        through_change integer not null default 0
    );
    create index personality_snapshots_character on personality_snapshots (character, id);
    -- The last memory (by seq) each character's cycles have drawn on, and when.
    create table evolution_marks (
        character text primary key references characters(id) on delete cascade,
        through_seq integer not null,
        world_time text not null
    );
    create table evolution_reports (
        id integer primary key,
        world_time text not null,
        report text not null,
        created_at text not null
    );
    """)
    db.table("relationships").add_column("trust", float, not_null_default=0.5)
    db.table("relationships").add_column("rapport", float, not_null_default=0.5)


@migrations()
def m006_appraisal(db: Database) -> None:
    """Appraisal: each memory's priority per lens, and the links between a
    character's memories (the memory network recall follows one hop)."""
    _run_script(db.conn, """
    -- One row per memory: the lenses as JSON ({"moral": [0.7, "a theft: 'stole'"], …}). A
    -- row per lens wrote five index entries per memory formed, on the turn's hot path.
    create table appraisals (
        memory_id text primary key,
        lenses text not null
    ) without rowid;
    -- A link from a memory to an older memory of the same owner. Recall works by seq (the
    -- full-text rowid, kept when a memory is archived), so both seqs are kept beside the ids.
    create table memory_links (
        memory_id text not null,
        other_id text not null,
        memory_seq integer not null,
        other_seq integer not null,
        owner text not null,
        strength real not null,
        by text not null check (by in ('text', 'subject')),
        created_at text not null,
        primary key (memory_id, other_id)
    ) without rowid;
    create index memory_links_memory_seq on memory_links (memory_seq);
    create index memory_links_other_seq on memory_links (other_seq);
    """)



@migrations()
def m007_quiet_fts_triggers(db: Database) -> None:
    """Re-index text only when it changed. m004's update triggers fired on every write of
    the column (a reinforced memory, a relationship saved with the same summary), and each
    firing is a delete and an insert in an FTS5 index: the bulk of a busy turn's writes."""
    _run_script(db.conn, """
    drop trigger memories_fts_update;
    create trigger memories_fts_update after update of content on memories
        when old.content is not new.content begin
        update memory_fts set text = new.content where rowid = new.seq;
    end;
    drop trigger archive_fts_update;
    create trigger archive_fts_update after update of content on memory_archive
        when old.content is not new.content begin
        update memory_fts set text = new.content where rowid = new.seq;
    end;
    drop trigger summary_fts_update;
    create trigger summary_fts_update after update of long_term_summary on relationships
        when old.long_term_summary is not new.long_term_summary begin
        update summary_fts set text = coalesce(new.long_term_summary, '') where rowid = new.rowid;
    end;
    """)


@migrations()
def m008_goals_and_practice(db: Database) -> None:
    """The evolution system's goals and abilities layers: the goals a game sets for a character (with
    every change of progress logged) and the tally of what each character has tried and
    how it went, by skill."""
    _run_script(db.conn, """
    create table goals (
        character text not null references characters(id) on delete cascade,
        label text not null,
        description text not null,
        progress real not null default 0 check (progress between 0 and 1),
        priority integer not null default 0,
        active integer not null default 1,
        set_at text not null,
        updated_at text not null,
        done_at text,
        primary key (character, label)
    );
    -- Each change of a goal's progress, so a cycle's report can say how far it moved.
    create table goal_history (
        id integer primary key,
        character text not null references characters(id) on delete cascade,
        label text not null,
        progress real not null,
        note text not null default '',
        world_time text not null
    );
    create index goal_history_goal on goal_history (character, label, id);
    -- What a character tried, by skill (the game's domain, else the verb of its intent).
    create table practice (
        character text not null references characters(id) on delete cascade,
        skill text not null,
        attempts integer not null,
        went_as_meant integer not null,
        went_wrong integer not null,
        named integer not null default 0,  -- 1: the game named it (a turn's domain)
        last_turn text not null,
        last_at text not null,
        primary key (character, skill)
    ) without rowid;
    """)
    # The last goal_history row each character's cycles have reviewed (goals.review_goals).
    db.table("evolution_marks").add_column("through_goal", int, not_null_default=0)


@migrations()
def m009_archive_keeps_its_index_row(db: Database) -> None:
    """Archiving a memory leaves its full-text row alone. The row is keyed by seq, which the
    memory keeps, but m004's archive insert trigger deleted it and indexed the same words
    again: two FTS5 writes for each of the ~1.3 memories a busy turn fades or pushes out.
    Skipped only when the live row it comes from holds exactly the indexed columns (so the
    index row is already right); an import or any other archive insert is indexed as before."""
    _run_script(db.conn, """
    drop trigger archive_fts_insert;
    create trigger archive_fts_insert after insert on memory_archive
        when not exists (select 1 from memories m where m.seq = new.seq and m.owner = new.owner
            and m.content is new.content and m.subject is new.subject and m.place is new.place
            and m.domain is new.domain) begin
        delete from memory_fts where rowid = new.seq;
        insert into memory_fts (rowid, text, about, owner) values (new.seq, new.content,
            trim(coalesce(new.subject, '') || ' ' || coalesce(new.place, '') || ' '
                 || coalesce(new.domain, '')), new.owner);
    end;
    """)


@migrations()
def m010_character_clocks(db: Database) -> None:
    """Each character's own clock: the game time of the last turn it perceived (as the actor or
    an observer). A turn is refused only if it is earlier than its perceivers' clocks, so
    writers whose game clocks interleave, each playing its own characters, are not refused
    (issue #16). A world made before keeps its rule for the characters it has: their clocks
    start at its world clock."""
    db.table("characters").add_column("clock", str)
    db.conn.execute("update characters set clock = (select value from meta where key = 'clock')")


@migrations()
def m011_saves_and_edits(db: Database) -> None:
    """Saves and hands-on editing (issue #18): pins and designer marks on memories, the log of
    hand edits, the operations log, rewinds and what they set aside (saves_schema.py)."""
    for table in ("memories", "memory_archive"):
        db.table(table).add_column("pinned", int, not_null_default=0)
        db.table(table).add_column("written_by", str)
    _run_script(db.conn, SAVES_SCHEMA)


@migrations()
def m012_who_knows_what(db: Database) -> None:
    """How each memory's owner knows it, and groups with what they hold (m012_knowing.py)."""
    _run_script(db.conn, M012_SCRIPT)


@migrations()
def m013_model_budgets(db: Database) -> None:
    """Model budgets per character or group, and the game day each call is charged to
    (m013_budgets.py)."""
    create_budgets(db)


@migrations()
def m014_vectors(db: Database) -> None:
    """Embedding vectors by memory seq and by passage (m014_vectors.py)."""
    _run_script(db.conn, M014_SCRIPT)


@migrations()
def m015_staged_imports(db: Database) -> None:
    """Imports written in short batches, hidden until their last transaction (m015_staging.py)."""
    _run_script(db.conn, M015_SCRIPT)


@migrations()
def m016_no_summary_index(db: Database) -> None:
    """Drop the full-text index over relationship summaries (m004): nothing ever searched it,
    and keeping it was about a fifth of a turn's statements on a world of 10,000 characters
    (every new relationship indexed an empty summary; issue #17)."""
    _run_script(db.conn, """
    drop trigger if exists summary_fts_insert;
    drop trigger if exists summary_fts_update;
    drop trigger if exists summary_fts_delete;
    drop table if exists summary_fts;
    """)


@migrations()
def m017_relationships_by_other(db: Database) -> None:
    """Index relationships by their other character. Deleting a character checks the foreign
    key of every relationship naming it, and with no index that is a scan of the whole table
    (250,000 relationships at 10,000 characters, ~13 ms a character), twice more for the
    clean-up of an import cut short, which deletes by `other` too: ~50 ms a character, minutes
    for a large import, at the opening of the world (issue #17)."""
    _run_script(db.conn, "create index if not exists relationships_other on relationships (other);")


@migrations()
def m018_import_publishing(db: Database) -> None:
    """An import that overwrites many characters the world has (`replace`) writes them after it
    has committed, a few a transaction, from rows it kept while its batches ran: `import_pending`
    holds each character's document until it is written, and `imports.publishing` marks an
    import past its commit, which the next opening of the world finishes rather than undoes
    (store/staging.py; issue #17)."""
    if "publishing" not in {row[1] for row in db.conn.execute("pragma table_info(imports)")}:
        db.conn.execute("alter table imports add column publishing integer not null default 0")
    db.conn.execute("create table if not exists import_pending (import_id text not null, "
                    "n integer not null, as_of text, doc text not null, "
                    "primary key (import_id, n))")


@migrations()
def m019_index_when_searched(db: Database) -> None:
    """A turn's new memories are indexed for full-text search when their owner's memories are
    next searched, not by the turn (m019_text_index.py, store/text_index.py; issue #17)."""
    if "fts_through" not in {row[1] for row in db.conn.execute("pragma table_info(characters)")}:
        _run_script(db.conn, MARKS)
    _run_script(db.conn, M019_SCRIPT)


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    """Run statements one by one: executescript() would commit the migration's transaction."""
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            lines = [line for line in pending.splitlines() if not line.strip().startswith("--")]
            statement = "\n".join(lines).strip()
            if statement != ";":
                conn.execute(statement)
            pending = ""


def known_names() -> list[str]:
    """The names of every migration this curator knows, in order (the last is its schema)."""
    return [m.name for m in migrations._migrations]
