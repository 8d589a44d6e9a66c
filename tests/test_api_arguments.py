"""Every public API method holds its arguments to its type hints: a wrong type is an
`InvalidInput` naming the argument, never a raw TypeError/AttributeError from deep inside
(curator/api/arguments.py)."""

from __future__ import annotations

import contextlib
import inspect
from typing import Any

import pytest

from curator import Curator
from curator.api.arguments import PARSE_THEIR_OWN
from curator.domain.errors import CuratorError, InvalidInput

TURN = {"id": "t1", "actor": "bear", "intent": {"thought": "hungry", "action": "fish"},
        "reality": "Bear catches a trout while Wolf watches", "others": ["wolf"],
        "world_time": "2026-01-01T00:00:00Z"}
WRONG: list[Any] = [123, 1.5, True, ["x"], {"a": 1}, b"bear", object(), "x"]


@pytest.fixture
def curator() -> Curator:
    c = Curator(":memory:")
    c.observe(TURN)
    return c


def _methods() -> list[tuple[str, inspect.Parameter]]:
    found = []
    for name, method in inspect.getmembers(Curator, predicate=inspect.isfunction):
        if name.startswith("_") or name in PARSE_THEIR_OWN or name == "close":
            continue
        if inspect.iscoroutinefunction(method):
            continue
        found += [(name, p) for p in list(inspect.signature(method).parameters.values())[1:]
                  if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return found


def test_the_fuzz_reaches_the_methods_a_game_calls() -> None:
    names = {name for name, _ in _methods()}
    assert {"context", "end_episode", "fade", "evolve", "set_persona", "calls"} <= names


@pytest.mark.parametrize(("name", "parameter"), _methods(), ids=lambda v: getattr(v, "name", v))
def test_a_wrong_type_for_any_argument_is_a_typed_error(curator: Curator, name: str,
                                                        parameter: inspect.Parameter) -> None:
    signature = inspect.signature(getattr(Curator, name))
    required = [p for p in signature.parameters.values()
                if p.name != "self" and p.default is inspect.Parameter.empty
                and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    for value in WRONG:
        arguments = {p.name: ("bear" if "character" in p.name else "wolf") for p in required}
        arguments[parameter.name] = value
        # refused with a typed error (or a value of the right type that means nothing); anything
        # else (TypeError, AttributeError, sqlite3 errors, ValidationError) fails the test
        with contextlib.suppress(CuratorError):
            getattr(curator, name)(**arguments)


def test_end_episode_with_a_number_names_the_argument(curator: Curator) -> None:
    with pytest.raises(InvalidInput) as caught:
        curator.end_episode("bear", with_=3)  # type: ignore[arg-type]
    assert caught.value.field == "with"
    assert "end_episode() was given int 3" in str(caught.value)


def test_context_refuses_a_situation_that_is_not_text(curator: Curator) -> None:
    with pytest.raises(InvalidInput, match="field 'situation'"):
        curator.context("bear", situation=5)  # type: ignore[arg-type]


def test_a_string_is_not_a_collection_of_layers_or_turn_ids(curator: Curator) -> None:
    # a str is a collection of letters: it used to be read as the layers "m", "e", "m", …
    with pytest.raises(InvalidInput, match="field 'layers'"):
        curator.context("bear", layers="memories")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="field 'turn_ids'"):
        curator.observed("t1")


def test_checking_neither_consumes_nor_converts(curator: Curator) -> None:
    # a generator of turn ids is read once, by the method, not by the check
    assert curator.observed(x for x in ["t1", "t9"]) == {"t1"}
    # a tuple, a set or a list of layers, a list of those present: each is what the hint allows
    as_tuple = curator.context("bear", "trout", layers=("memories",), with_=["wolf"], peek=True)
    as_set = curator.context("bear", "trout", layers={"memories"}, with_=("wolf",), peek=True)
    assert as_tuple.present == as_set.present == ["wolf"]
    assert as_tuple.text == as_set.text and as_tuple.items


def test_a_call_that_does_not_fit_the_signature_is_a_typed_error(curator: Curator) -> None:
    with pytest.raises(InvalidInput, match="context"):
        curator.context("bear", "river", "extra")  # type: ignore[misc]
