"""What SQLite's and the file system's errors mean for a world: the one place they become typed
`CuratorError`s that name the real cause ("disk is full", "read-only", "damaged").

SQLite reports a full disk, a read-only file or a damaged page as a result code on the error
(`sqlite_errorcode`); the message alone is not enough (a full disk during a transaction can be
followed by "cannot rollback - no transaction is active", which says nothing of the cause).
Everything that opens, reads or writes a world passes its errors through `translate`; an
error about a statement (a constraint that failed) is not about the file and stays as it is.
"""

from __future__ import annotations

import errno
import sqlite3

from curator.domain.errors import (
    CuratorError,
    DiskFull,
    WorldCorrupt,
    WorldFormatError,
    WorldLocked,
    WorldReadOnly,
    WorldStorageError,
)

# SQLite's primary result codes (sqlite.org/rescode.html); the extended code's low byte.
_PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT = 3, 5, 6, 8, 10, 11
_FULL, _CANTOPEN, _NOTADB = 13, 14, 26
_ABOUT_THE_FILE = {_PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB}
# Extended I/O errors that mean the disk is full or the file read-only, not a damaged disk.
_IOERR_WRITE_FULL = {errno.ENOSPC, errno.EDQUOT}


def is_locked(error: sqlite3.Error) -> bool:
    """Another connection holds the lock this one needed (and the busy timeout ran out)."""
    code = _primary(error)
    if code is not None:
        return code in (_BUSY, _LOCKED)
    text = str(error).lower()
    return "locked" in text or "busy" in text


def about_the_file(error: sqlite3.Error) -> bool:
    """Whether the error is about the world file (full, read-only, damaged, locked, cannot be
    opened) rather than about the statement (a constraint, a bug), which stays as it is."""
    code = _primary(error)
    if code is not None:
        return code in _ABOUT_THE_FILE
    text = str(error).lower()
    return any(word in text for word in ("disk is full", "readonly", "malformed", "locked", "busy",
                                         "unable to open", "not a database", "disk i/o"))


def translate(error: BaseException, path: str, *, doing: str = "write") -> CuratorError:
    """The typed error for a failure while `doing` something to the world at `path`."""
    if isinstance(error, CuratorError):
        return error
    if isinstance(error, OSError):
        return _os_error(error, path)
    if not isinstance(error, sqlite3.Error):
        return WorldStorageError(f"world {path}: cannot {doing}: {error}")
    code = _primary(error)
    detail = str(error)
    if code == _FULL or "disk is full" in detail.lower():
        return DiskFull(f"world {path}: disk is full; nothing of this {doing} was kept ({detail})")
    if code in (_READONLY, _PERM) or "readonly" in detail.lower():
        return WorldReadOnly(f"world {path} is read-only; cannot {doing} ({detail})")
    if code in (_BUSY, _LOCKED):
        return WorldLocked(f"world {path} stayed locked by another writer ({detail})")
    if code == _CORRUPT or "malformed" in detail.lower():
        return WorldCorrupt(f"world {path} is damaged ({detail}); restore it from a backup "
                            f"({path}.bak-before-*) or an export")
    if code == _NOTADB:
        return WorldFormatError(f"{path} is not a curator world ({detail})")
    if code == _CANTOPEN:
        return WorldStorageError(f"cannot open world {path} ({detail}): check that its folder "
                                 "exists and is writable", cause="cannot open")
    if code == _IOERR:
        return WorldStorageError(f"world {path}: disk I/O error during {doing} ({detail})",
                                 cause="disk I/O error")
    return WorldStorageError(f"world {path}: cannot {doing} ({detail})")


def _os_error(error: OSError, path: str) -> CuratorError:
    reason = error.strerror or str(error)
    if error.errno in _IOERR_WRITE_FULL:
        return DiskFull(f"{error.filename or path}: disk is full ({reason})")
    if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return WorldReadOnly(f"{error.filename or path} is read-only ({reason})")
    if error.errno in (errno.ENOTDIR, errno.EEXIST):
        return WorldStorageError(f"cannot create world {path}: a part of its path is a file, "
                                 f"not a folder ({reason})", cause="not a folder")
    return WorldStorageError(f"world {path}: {reason}")


def _primary(error: sqlite3.Error) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF
