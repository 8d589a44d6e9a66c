"""Arguments: what a caller hands the API's methods, held to their type hints before any work.

The API is called from game code in any language binding, from scripts and from the MCP
server, and a wrong type used to surface deep inside as a raw `TypeError` or
`AttributeError` (`end_episode("bear", with_=3)`: "'int' object has no attribute 'strip'",
`context(situation=5)`: "object of type 'int' has no len()"). Each public method's arguments
are now checked against its own type hints, strictly (no coercion: `5` is not a `str`, `1` is
not a `bool`), and a mismatch is an `InvalidInput` naming the argument, exit status 2 in the
CLI, before the world is touched. The values are checked, never converted: the method gets
exactly what the caller passed. Text holding a lone surrogate (player text cut inside an emoji
by a UTF-16 client, a non-UTF-8 terminal's bytes) is refused the same way: stored, it would
raise a raw UnicodeEncodeError.

Methods that parse what they receive themselves, with messages of their own (a turn, an
import document), are listed in `PARSE_THEIR_OWN` and keep them.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections import abc
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import ConfigDict, PlainValidator, TypeAdapter, ValidationError

from curator.domain.errors import InvalidInput

# These parse their input with their own, more telling errors (InvalidTurn, MalformedExport).
PARSE_THEIR_OWN = frozenset({"observe", "observe_many", "aobserve", "aobserve_many", "import_document"})

_STRICT = ConfigDict(strict=True, arbitrary_types_allowed=True)


class ArgumentCheck:
    """The type check of one method's arguments, built on its first call (building the
    validators for every method at import would slow `import curator` for no use)."""

    def __init__(self, method: Callable[..., Any]):
        self.method = method
        self._built: tuple[inspect.Signature, dict[str, TypeAdapter[Any]], dict[str, Any]] | None = None

    def _build(self) -> tuple[inspect.Signature, dict[str, TypeAdapter[Any]], dict[str, Any]]:
        if self._built is None:
            signature = inspect.signature(self.method)
            hints = typing.get_type_hints(self.method)
            adapters = {
                name: TypeAdapter(checkable(hints[name]), config=_STRICT)
                for name, parameter in signature.parameters.items()
                if name in hints and parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
            }
            self._built = (signature, adapters, hints)
        return self._built

    def __call__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Raise InvalidInput naming the first argument that is not of its hinted type (or a
        call that does not fit the signature at all)."""
        signature, adapters, hints = self._build()
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise InvalidInput(f"{self.method.__name__}(): {error}") from error
        for name, value in bound.arguments.items():
            adapter = adapters.get(name)
            if adapter is None:
                continue
            try:
                adapter.validate_python(value)
            except ValidationError as error:
                raise InvalidInput(f"{self.method.__name__}() was given {_kind(value)}; "
                                   f"{_expected(error, hints[name], value)}",
                                   field=name.rstrip("_")) from None
            if (at := _surrogate_at(value)) is not None:
                raise InvalidInput(
                    f"{self.method.__name__}(): {name.rstrip('_')} holds a lone surrogate at character "
                    f"{at} (half of a UTF-16 pair, as text cut inside an emoji or a terminal in another "
                    "encoding gives), which is no text the world can store", field=name.rstrip("_"))


def _surrogate_at(value: Any) -> int | None:
    """Where text (or text in a list, tuple or set) holds a lone surrogate, which SQLite and
    the tokenizer refuse with a raw UnicodeEncodeError; None when there is none."""
    texts = [value] if isinstance(value, str) else (
        [v for v in value if isinstance(v, str)] if isinstance(value, list | tuple | set | frozenset) else [])
    for text in texts:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            return error.start
    return None


def checkable(hint: Any) -> Any:
    """`hint` as pydantic can check it without consuming or converting the value: pydantic has
    no schema for `Collection[X]` (and would let a `str` through as a collection of letters), so
    it becomes "a list, tuple, set or frozenset of X"; an `Iterable` may be a one-shot generator
    that checking would consume, so only that it is not text is checked."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return typing.Union[tuple(checkable(arg) for arg in args)]  # noqa: UP007 - built from a tuple
    if origin is abc.Collection:
        item = checkable(args[0]) if args else Any
        return list[item] | tuple[item, ...] | set[item] | frozenset[item]  # type: ignore[valid-type]
    if origin is abc.Iterable or hint is abc.Iterable:
        return _NotText
    if hint in (typing.TextIO, typing.BinaryIO, typing.IO) or origin is typing.IO:
        return _Writable  # typing's IO classes are not the io module's: check the duck
    if origin is not None and args and origin not in (typing.Literal, typing.Annotated):
        try:
            return origin[tuple(checkable(arg) for arg in args)]
        except TypeError:
            return hint
    return hint


def _not_text(value: Any) -> Any:
    if isinstance(value, str | bytes) or not isinstance(value, abc.Iterable):
        raise ValueError("input should be a list or other iterable, not text or a single value")
    return value


_NotText = Annotated[Any, PlainValidator(_not_text)]


def _writable(value: Any) -> Any:
    if not callable(getattr(value, "write", None)):
        raise ValueError("input should be a file open for writing (something with a write method)")
    return value


_Writable = Annotated[Any, PlainValidator(_writable)]


def _kind(value: Any) -> str:
    shown = repr(value)
    return f"{type(value).__name__} {shown[:40]}{'…' if len(shown) > 40 else ''}"


def _expected(error: ValidationError, hint: Any, value: Any) -> str:
    """What was expected: the kinds the hint allows when the value is none of them ("expected
    datetime, str or None"), else pydantic's word on what is wrong inside it (an item of a list)."""
    members = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    kinds = [typing.get_origin(m) or m for m in members]
    if not any(isinstance(value, k) for k in kinds if isinstance(k, type)):
        names = ["None" if k is type(None) else getattr(k, "__name__", str(k)) for k in kinds]
        return "expected " + (", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0])
    first = error.errors(include_url=False)[0]
    message = str(first["msg"])
    return f"{message[0].lower()}{message[1:]}"


def checked(method: Callable[..., Any]) -> Callable[..., Any]:
    """`method` with its arguments checked first (see the module's docstring)."""
    if method.__name__ in PARSE_THEIR_OWN:
        return method
    check = ArgumentCheck(method)
    if inspect.iscoroutinefunction(method):
        @functools.wraps(method)
        async def checked_async(self: Any, *args: Any, **kwargs: Any) -> Any:
            check((self, *args), kwargs)
            return await method(self, *args, **kwargs)
        return checked_async

    @functools.wraps(method)
    def checked_sync(self: Any, *args: Any, **kwargs: Any) -> Any:
        check((self, *args), kwargs)
        return method(self, *args, **kwargs)
    return checked_sync
