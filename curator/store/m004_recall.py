"""Migration m004's statements: the full-text index over live and archived memories and the
triggers that keep it (shipped with m004: never edit; a later change is a later migration).
Kept out of migrations.py only for that file's length.
"""

M004_SCRIPT = """
    create virtual table memory_fts using fts5(text, about, owner,
        tokenize = 'porter unicode61 remove_diacritics 2');
    create trigger memories_fts_insert after insert on memories begin
        delete from memory_fts where rowid = new.seq;
        insert into memory_fts (rowid, text, about, owner) values (new.seq, new.content,
            trim(coalesce(new.subject, '') || ' ' || coalesce(new.place, '') || ' '
                 || coalesce(new.domain, '')), new.owner);
    end;
    create trigger memories_fts_update after update of content on memories begin
        update memory_fts set text = new.content where rowid = new.seq;
    end;
    create trigger memories_fts_delete after delete on memories
        when not exists (select 1 from memory_archive where seq = old.seq) begin
        delete from memory_fts where rowid = old.seq;
    end;
    create trigger archive_fts_insert after insert on memory_archive begin
        delete from memory_fts where rowid = new.seq;
        insert into memory_fts (rowid, text, about, owner) values (new.seq, new.content,
            trim(coalesce(new.subject, '') || ' ' || coalesce(new.place, '') || ' '
                 || coalesce(new.domain, '')), new.owner);
    end;
    create trigger archive_fts_update after update of content on memory_archive begin
        update memory_fts set text = new.content where rowid = new.seq;
    end;
    create trigger archive_fts_delete after delete on memory_archive
        when not exists (select 1 from memories where seq = old.seq) begin
        delete from memory_fts where rowid = old.seq;
    end;

    create virtual table summary_fts using fts5(text, other, owner,
        tokenize = 'porter unicode61 remove_diacritics 2');
    create trigger summary_fts_insert after insert on relationships begin
        insert into summary_fts (rowid, text, other, owner)
        values (new.rowid, coalesce(new.long_term_summary, ''), new.other, new.owner);
    end;
    create trigger summary_fts_update after update of long_term_summary on relationships begin
        update summary_fts set text = coalesce(new.long_term_summary, '') where rowid = new.rowid;
    end;
    create trigger summary_fts_delete after delete on relationships begin
        delete from summary_fts where rowid = old.rowid;
    end;

    -- The core memory blocks design: labelled blocks always in a character's prompt. A shared block has one
    -- owner and is attached to others through block_links; deleting the owner deletes it.
    create table blocks (
        id integer primary key,
        owner text not null references characters(id) on delete cascade,
        label text not null,
        content text not null default '',
        char_limit integer not null default 2000,
        description text not null default '',
        shared integer not null default 0,
        created_at text not null,
        updated_at text not null,
        unique (owner, label)
    );
    create table block_links (
        block_id integer not null references blocks(id) on delete cascade,
        character text not null references characters(id) on delete cascade,
        attached_at text not null,
        primary key (block_id, character)
    );
    create index block_links_character on block_links (character);

    -- The core memory blocks design: archival passages, searchable text with tags (lore, past episodes).
    create table passages (
        id integer primary key,
        owner text not null references characters(id) on delete cascade,
        content text not null,
        tags text not null default '[]',
        created_at text not null
    );
    create index passages_owner on passages (owner, id);
    create virtual table passage_fts using fts5(text, tags, owner,
        tokenize = 'porter unicode61 remove_diacritics 2');
    create trigger passages_fts_insert after insert on passages begin
        insert into passage_fts (rowid, text, tags, owner) values (new.id, new.content, new.tags, new.owner);
    end;
    create trigger passages_fts_update after update on passages begin
        update passage_fts set text = new.content, tags = new.tags where rowid = new.id;
    end;
    create trigger passages_fts_delete after delete on passages begin
        delete from passage_fts where rowid = old.id;
    end;
"""
