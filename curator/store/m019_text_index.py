"""Migration m019's statements: the full-text index over memories is written when it is read
(store/text_index.py). Shipped with m019: never edit; a later change is a later migration. Kept
out of migrations.py only for that file's length.

- `characters.fts_through`: the seq up to which each character's memories are indexed. Every
  memory a world holds when it migrates is indexed (m004's triggers), so every character starts
  at the world's highest seq.
- The insert triggers of m004 (memories) and m009 (the archive) index at once only a memory at or
  below its owner's mark: one brought back from the archive, an import of old memories. A memory
  formed since waits for the owner's next search, which indexes it then (text_index.py).
"""

MARKS = """
alter table characters add column fts_through integer not null default 0;
update characters set fts_through = max(coalesce((select max(seq) from memories), 0),
                                        coalesce((select max(seq) from memory_archive), 0));
"""

M019_SCRIPT = """
drop trigger if exists memories_fts_insert;
create trigger memories_fts_insert after insert on memories
    when new.seq <= (select fts_through from characters where id = new.owner) begin
    delete from memory_fts where rowid = new.seq;
    insert into memory_fts (rowid, text, about, owner) values (new.seq, new.content,
        trim(coalesce(new.subject, '') || ' ' || coalesce(new.place, '') || ' '
             || coalesce(new.domain, '')), new.owner);
end;
drop trigger if exists archive_fts_insert;
create trigger archive_fts_insert after insert on memory_archive
    when new.seq <= (select fts_through from characters where id = new.owner)
    and not exists (select 1 from memories m where m.seq = new.seq and m.owner = new.owner
        and m.content is new.content and m.subject is new.subject and m.place is new.place
        and m.domain is new.domain) begin
    delete from memory_fts where rowid = new.seq;
    insert into memory_fts (rowid, text, about, owner) values (new.seq, new.content,
        trim(coalesce(new.subject, '') || ' ' || coalesce(new.place, '') || ' '
             || coalesce(new.domain, '')), new.owner);
end;
"""
