"""Import limits: what an export document may hold before anything of it is read.

An import document comes from outside (another world, a tool, a hand-edited file), so it gets
the bounds a turn gets, checked in one walk before the import writes anything:

- Text: every string is capped, by its key where the key has a cap of its own (a persona is
  sent in every prompt of its character, so it has the turn's `MAX_TEXT`, as `set_persona`
  does; a memory's text, a summary or a context the same; a trait, place or domain what a
  turn's tag, place and domain may be), else at `MAX_REALITY`, the longest text a turn may
  carry. Only the world's stored evolution reports (Markdown nobody prompts with) may be longer.
- Shape: nesting deeper than `MAX_DEPTH` (no export nests more than 6) is refused, so a
  document built in Python cannot take the import into a RecursionError.
- The clock (`clock_of`): a document's clock (`clock`, a character's `as_of`) becomes the
  importing world's clock, and a world's clock is a floor under every later turn. A clock
  more than `MAX_CLOCK_LEAD` past the latest time the document holds (a memory, a meeting, a
  passage, a snapshot; or the importing world's clock) would lock the world out of every turn
  until then, so it is refused unless the caller says which clock to use: `clock="latest"`
  (the latest time the document holds) or an explicit time.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from curator.domain.models import MAX_PERSONA, MAX_REALITY, MAX_TEXT, iso, parse_time
from curator.export.fields import FieldError

MAX_DEPTH = 24
MAX_KEY = 200  # a dict key: a character id, a lens, a trait, a label
MAX_CLOCK_LEAD = timedelta(days=366)
# A document read whole (its values all in memory, ~10 times its size): a larger one is
# refused before it is read.
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
# A world export's file, read a character at a time (export/lazy.py): its text is held, so
# importing one takes about twice its size in memory while it is decoded. A world of 10,000
# characters with full memories exports as ~520 MB.
MAX_IMPORT_FILE_BYTES = 2 * 1024 * 1024 * 1024
# A stored evolution report: Markdown for people, never prompted with, and as long as its cycle
# was wide (a cycle over 4,420 characters of the scale benchmark's world wrote 2.5 MB). A world
# must take back what it exported, so only the file's own cap bounds it.
MAX_REPORT = MAX_DOCUMENT_BYTES

# Keys whose strings have a cap of their own (anywhere in the document).
TEXT_CAPS: dict[str, int] = {
    "persona": MAX_PERSONA, "name": 200, "immediate_context": MAX_TEXT, "long_term_summary": MAX_TEXT,
    "event": MAX_TEXT, "content": MAX_REALITY, "emotional_impact": 100, "traits": 64, "place": 200,
    "domain": 100, "id": 200, "kind": 64, "label": 64, "reason": MAX_TEXT, "archived_reason": MAX_TEXT,
    # hand edits (m011): who, what, the text before and after
    "written_by": 200, "by": 200, "memory_id": 200, "action": 16, "before": MAX_TEXT, "after": MAX_TEXT,
    "at": 64,
}
# Keys that hold a world time, whose latest is the time a document's clock is checked against:
# what happened in the game. Not `created_at`/`updated_at`: a character, block or passage made
# before the world's first turn is dated by the wall clock, not by the game.
TIME_KEYS = frozenset({"timestamp", "last_recalled", "archived_at", "first_met", "last_interaction",
                       "world_time", "last_at"})


def check_texts(document: Mapping[str, Any], *, path: str = "", depth: int = 0) -> None:
    """Refuse the first string over its cap or the first nesting past MAX_DEPTH (FieldError
    naming its path). Iterative, so depth itself cannot overflow the stack. `path` and `depth`
    say where `document` is in a larger one (a world's character read on its own)."""
    stack: list[tuple[Any, str, str | None, int]] = [(document, path, None, depth)]
    while stack:
        value, path, key, depth = stack.pop()
        if isinstance(value, str):
            reports = path.startswith("evolution_reports.")
            cap = MAX_REPORT if reports else TEXT_CAPS.get(key or "", MAX_REALITY)
            if len(value) > cap:
                raise FieldError(path, f"at most {cap:,} characters, got {len(value):,}")
            continue
        if not isinstance(value, Mapping | list):
            continue
        if depth >= MAX_DEPTH:
            raise FieldError(path, f"nested more than {MAX_DEPTH} deep")
        if isinstance(value, list):
            # A list's items are capped like its key's value ("traits": ["brave"]).
            stack.extend((item, _join(path, str(n)), key, depth + 1) for n, item in enumerate(value))
            continue
        for name, item in value.items():
            name_text = str(name) if isinstance(name, str | int) else repr(name)
            most = TEXT_CAPS["traits"] if key == "traits" else MAX_KEY  # a trait is its key
            if len(name_text) > most:
                raise FieldError(path, f"a key of {len(name_text):,} characters (at most {most})")
            # A relationship's traits are counted by trait: the keys are the traits.
            child_key = "traits" if key == "traits" else name_text
            stack.append((item, _join(path, name_text), child_key, depth + 1))


def _join(path: str, part: str) -> str:
    return f"{path}.{part}" if path else part


def latest_time(document: Any) -> datetime | None:
    """The latest world time anywhere in a (checked) document part, from its TIME_KEYS."""
    latest: datetime | None = None
    stack: list[Any] = [document]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, Mapping):
            for key, item in value.items():
                if key in TIME_KEYS and isinstance(item, str):
                    try:
                        when = parse_time(item)
                    except ValueError:
                        continue  # refused where it is read, with its path
                    latest = when if latest is None or when > latest else latest
                elif isinstance(item, Mapping | list):
                    stack.append(item)
    return latest


def clock_of(stated: str | None, latest: datetime | None, world_clock: datetime | None,
             option: str | None, *, field: str) -> str | None:
    """The clock a document part is read as of: `stated` (its `clock` or `as_of`, already in
    curator's form) unless `option` says otherwise ("latest", or an ISO time). A stated clock
    more than MAX_CLOCK_LEAD past `latest`, the latest time the part holds (`latest_time`), or
    `world_clock` is refused, naming the option that accepts the document."""
    if option == "latest":
        return iso(latest) if latest is not None else None
    if option is not None:
        try:
            return iso(parse_time(option))
        except ValueError as error:
            raise FieldError("", f"the clock option: {error}") from error
    if stated is None:
        return None
    floor = max((t for t in (latest, world_clock) if t is not None), default=None)
    when = parse_time(stated)
    if floor is None:
        # Nothing in the document (nor the world) dates it: its clock dates nothing either.
        return None
    if when - floor > MAX_CLOCK_LEAD:
        raise FieldError(field, f"{stated} is {(when - floor).days} days past the latest time the "
                                f"document holds ({iso(floor)}); a world's clock never goes back, so "
                                f"this would refuse every turn until then. Import with "
                                f"clock='latest' (curator import --clock latest) or an explicit time")
    return stated
