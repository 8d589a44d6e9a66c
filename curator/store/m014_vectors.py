"""Migration m014's statements: embedding vectors for semantic recall (issue #19). Shipped with
m014: never edit; a later change is a later migration. Kept out of migrations.py only for that
file's length.

- `memory_vectors`: one row per memory (live or archived) by its seq, which a memory keeps
  when it is archived, with its id (a vector whose id no longer matches the memory at its seq
  is ignored), its owner, the embedder that made it and the vector (float32 bytes).
- `passage_vectors`: the same per passage.
- A memory whose text or subject changes loses its vector; so does a deleted passage.
"""

M014_SCRIPT = """
create table memory_vectors (seq integer primary key, memory_id text not null, owner text not null,
    model text not null, vector blob not null);
create index memory_vectors_owner on memory_vectors (owner, model);
create table passage_vectors (passage_id integer primary key, owner text not null,
    model text not null, vector blob not null);
create trigger memory_vectors_stale after update of content, subject on memories begin
    delete from memory_vectors where seq = new.seq; end;
create trigger passage_vectors_gone after delete on passages begin
    delete from passage_vectors where passage_id = old.id; end;
"""
