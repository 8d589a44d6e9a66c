"""Typed errors: every way curator refuses input or work, with what the caller needs to fix it.

The CLI turns any `CuratorError` into one line on stderr and a non-zero exit status;
the library raises them so a game server can tell bad input from a busy save.
"""

from __future__ import annotations


class CuratorError(Exception):
    """Base of every error curator raises on purpose."""

    exit_code = 1


class InvalidInput(CuratorError):
    """An argument or document failed validation; `field` names the offending field."""

    exit_code = 2
    what = "input"

    def __init__(self, message: str, *, field: str | None = None, turn_id: str | None = None):
        self.field = field
        self.turn_id = turn_id
        where = f"turn {turn_id!r}: " if turn_id else ""
        at = f"field {field!r}: " if field else ""
        super().__init__(f"invalid {self.what}: {where}{at}{message}")


class InvalidTurn(InvalidInput):
    """A turn failed validation; `field` names the first offending field."""

    what = "turn"


class CaseError(InvalidInput):
    """An eval case file is malformed: `path` names the file, `field` the place in it (a path
    like `checks.2.owner`, from pydantic's loc)."""

    what = "case"

    def __init__(self, message: str, *, path: str, field: str | None = None):
        super().__init__(message, field=field)
        self.path = path
        at = f"field {field!r}: " if field else ""
        self.args = (f"invalid case {path}: {at}{message}",)


class TimeWentBackwards(InvalidTurn):
    """A turn's world_time is earlier than a turn the world already holds."""


class ConflictingTurn(InvalidTurn):
    """The same turn id was delivered again with different content."""


class UnknownCharacter(CuratorError):
    """A command named a character the world has never seen."""

    def __init__(self, character: str, *, known: list[str] | None = None):
        self.character = character
        hint = ""
        if known:
            shown = ", ".join(known[:8]) + (" …" if len(known) > 8 else "")
            hint = f" (known: {shown})"
        super().__init__(f"unknown character {character!r}{hint}")


class WorldLocked(CuratorError):
    """Other writers held the world's write lock for longer than the busy timeout (30 s by
    default, `CuratorConfig.busy_timeout_ms`)."""

    exit_code = 3


class CharacterImporting(WorldLocked):
    """A turn or write names a character that an import under way is writing: it is the import's
    until that import's last transaction makes it part of the world (or it is abandoned and
    cleaned up). Try again once the import is done."""


class ImportCancelled(CuratorError):
    """An import's record went away while it was writing (a rewind swapped the world in
    meanwhile, or its leftovers were cleaned up as abandoned): nothing of it is kept."""


class WorldFormatError(CuratorError):
    """A world file or an export document is not something curator can read."""


class OutputError(CuratorError):
    """A report or export could not be written where `--out` said (a missing folder, a full
    disk); nothing was left half-written there."""


class WorldCorrupt(WorldFormatError):
    """The world file is damaged (SQLite found a malformed page); restore it from a backup."""


class WorldTooNew(WorldFormatError):
    """The world was written by a newer curator: its schema has migrations this one does not
    know. It is refused, never written to; `found` and `known` are the two schema versions."""

    def __init__(self, message: str, *, found: str, known: str):
        self.found, self.known = found, known
        super().__init__(message)


class ForeignDatabase(WorldFormatError):
    """`--db` names an SQLite database that is not a curator world (it has tables of its own).
    Refused unless the caller asks (`force=True`, `--force`) to add a world's tables to it."""

    exit_code = 2


class WorldNotFound(CuratorError):
    """A command that only reads a world was pointed at a file that does not exist (a typo in
    `--db`, most often); nothing was created."""

    exit_code = 2


class WorldStorageError(CuratorError):
    """The file system refused the world: it cannot be opened or written. `cause` says why in
    a few words ("disk is full", "read-only"); nothing of the interrupted work was kept."""

    cause = "the file system refused it"

    def __init__(self, message: str, *, cause: str | None = None):
        if cause is not None:
            self.cause = cause
        super().__init__(message)


class DiskFull(WorldStorageError):
    """The disk (or the world's size limit) is full."""

    cause = "disk is full"


class WorldReadOnly(WorldStorageError):
    """The world file, its directory or its connection is read-only."""

    cause = "read-only"


class MalformedExport(WorldFormatError):
    """An export document failed validation on import, so nothing of it was written.

    `field` is the path to the offending value from the document's root, dotted like
    pydantic's loc (`characters.0.personality_snapshots.2.work_style`); `character` is the
    id of the character whose part it is in, when there is one."""

    exit_code = 2  # the document was handed in: bad input, like a malformed turn

    def __init__(self, message: str, *, field: str | None = None, character: str | None = None):
        self.field, self.character = field, character
        who = f"character {character!r}: " if character else ""
        at = f"field {field!r}: " if field else ""
        super().__init__(f"malformed export: {who}{at}{message}")


class BlockTooLarge(InvalidInput):
    """A write would make a block longer than its `char_limit`; nothing was written."""

    def __init__(self, owner: str, label: str, *, limit: int, size: int):
        self.owner, self.label, self.limit, self.size = owner, label, limit, size
        super().__init__(f"block {owner}/{label} holds at most {limit} characters; this write "
                         f"would make it {size}", field="content")


class BlockExists(InvalidInput):
    """A character already owns a block with this label."""

    def __init__(self, owner: str, label: str):
        self.owner, self.label = owner, label
        super().__init__(f"{owner} already has a block {label!r}", field="label")


class BlockNotShared(InvalidInput):
    """Only a block created as shared can be attached to other characters."""

    def __init__(self, owner: str, label: str):
        self.owner, self.label = owner, label
        super().__init__(f"block {owner}/{label} is not shared; create it with shared=True "
                         "to attach it to others", field="label")


class UnknownBlock(CuratorError):
    """A command named a block that does not exist (or that the character cannot see)."""

    def __init__(self, character: str, label: str, *, known: list[str] | None = None):
        self.character, self.label = character, label
        hint = f" (its blocks: {', '.join(known)})" if known else ""
        super().__init__(f"{character} has no block {label!r}{hint}")


class UnknownPassage(CuratorError):
    """A command named a passage id that is not one of this character's passages."""

    def __init__(self, owner: str, passage_id: int):
        self.owner, self.passage_id = owner, passage_id
        super().__init__(f"{owner} has no passage {passage_id}")


class NotKnown(InvalidTurn):
    """A turn's actor tells about a turn it did not perceive (nor was told of) or a memory it
    does not own, or one that does not exist: a character can only tell what it knows.
    `field` names the tell (`tells.0.about`); nothing of the turn was written."""


class UnknownGroup(CuratorError):
    """A command named a group (a place or faction) the world has no members or knowledge for."""

    def __init__(self, group: str, *, known: list[str] | None = None):
        self.group = group
        hint = f" (known: {', '.join(known[:8])})" if known else " (the world has no groups yet)"
        super().__init__(f"unknown group {group!r}{hint}")


class UnknownTurn(CuratorError):
    """A command named a turn id the world's turn log does not hold (`who-knows`, `rewind --to`,
    `branch --at`): an unknown name, like an unknown character (exit 1)."""

    def __init__(self, turn_id: str, *, hint: str = ""):
        self.turn_id = turn_id
        super().__init__(f"unknown turn {turn_id!r} (not in the turn log){hint}")


class UnknownGoal(CuratorError):
    """A command named a goal the character does not have."""

    def __init__(self, character: str, label: str, *, known: list[str] | None = None):
        self.character, self.label = character, label
        hint = f" (its goals: {', '.join(known)})" if known else " (it has no goals)"
        super().__init__(f"{character} has no goal {label!r}{hint}; create it with a description")


class FixtureMissing(CuratorError):
    """Replay found no fixture for a request (a test harness error, never a model failure): the
    template, model or messages changed since the case was recorded, so re-record it."""

    def __init__(self, key: str, where: str, *, strict: bool = True):
        self.key = key
        self.strict = strict  # False: the step falls back ("not recorded") instead of stopping
        super().__init__(f"no recorded fixture for key {key} (looked in {where}); "
                         f"record it with --record, or check the template, model and messages")


class FixtureUnreadable(FixtureMissing):
    """A fixture file that is not one (not JSON: conflict markers a merge left, a file cut
    short): named, where it would otherwise pass for a server error. Replay treats it as a
    missing fixture (a strict replay stops, a lenient one falls back); recording asks again
    and writes the file afresh."""

    def __init__(self, path: str, reason: str, *, strict: bool = True):
        CuratorError.__init__(self, f"fixture file {path} cannot be read ({reason}); delete it and "
                                    "record it again")
        self.key, self.path, self.strict = path, path, strict


class ModelUnavailable(CuratorError):
    """A model is configured but cannot be asked at all: curator's model extra is not installed,
    or the provider's API key is missing. Said at once, instead of a fallback on every call."""

    def __init__(self, message: str, *, model: str):
        self.model = model
        super().__init__(f"model {model}: {message}")


class UnknownMemory(CuratorError):
    """A memory command named a memory id that is neither live nor archived in this world."""

    def __init__(self, memory_id: str):
        super().__init__(f"no memory {memory_id!r} in this world")
        self.memory_id = memory_id


class RewindRefused(InvalidInput):
    """A rewind, undo or branch that cannot be done as asked (nothing to undo, a target file that
    exists, an operation in the world's history that cannot be replayed)."""

    what = "rewind"
