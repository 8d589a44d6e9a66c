"""Migration m012's statements: who knows what (issue #18). Shipped with m012: never edit; a later
change is a later migration. Kept out of migrations.py only for that file's length.

- `memory_sources`: one row per memory (live or archived, keyed by its id, which a memory keeps
  when it is archived): how its owner came to know it (domain/knowing.py has the words and
  the confidence rule). Triggers drop a row when its memory leaves both tables.
- `group_members`: which characters belong to a group (a place or a faction).
- `group_knowledge`: what a group holds (the great storm, the poacher); each member holds it
  as a memory of its own whose source row names the group (origin 'shared').
- Existing memories get their origin from their first source turn: 'did' where the owner was
  its actor, 'witnessed' where it observed it. A memory whose turn is not logged gets no row
  (unknown origin).
"""

M012_SCRIPT = """
create table memory_sources (
    memory_id text primary key,
    owner text not null,
    origin text not null check (origin in ('did', 'witnessed', 'told', 'rumour', 'shared')),
    confidence real not null check (confidence between 0 and 1),
    hops integer not null default 0,
    mouths text not null default '[]',  -- JSON list of who passed it on, first teller first
    about text,                         -- the turn the memory is of
    told_in text,                       -- the turn it was told in (told, rumour)
    held_by text                        -- the group whose knowledge it is (shared)
);
create index memory_sources_owner on memory_sources (owner, origin);
create index memory_sources_about on memory_sources (about, owner);
create trigger memory_sources_live_gone after delete on memories
    when not exists (select 1 from memory_archive where id = old.id) begin
    delete from memory_sources where memory_id = old.id;
end;
create trigger memory_sources_archived_gone after delete on memory_archive
    when not exists (select 1 from memories where id = old.id) begin
    delete from memory_sources where memory_id = old.id;
end;
create table group_members (
    grp text not null,
    character text not null references characters(id) on delete cascade,
    since text not null,
    primary key (grp, character)
) without rowid;
create index group_members_character on group_members (character, grp);
create table group_knowledge (
    id integer primary key,
    grp text not null,
    content text not null,
    subject text,
    kind text not null,
    importance real not null,
    added_at text not null
);
create index group_knowledge_group on group_knowledge (grp, id);
create trigger group_members_character_gone after delete on characters begin
    delete from group_members where character = old.id;
end;
insert or ignore into memory_sources (memory_id, owner, origin, confidence, hops, mouths, about)
    select m.id, m.owner,
           case when json_extract(t.payload, '$.actor') = m.owner then 'did' else 'witnessed' end,
           1.0, 0, '[]', t.id
    from (select id, owner, source_turns from memories
          union all select id, owner, source_turns from memory_archive) m
    join turns t on t.id = json_extract(m.source_turns, '$[0]');
"""
