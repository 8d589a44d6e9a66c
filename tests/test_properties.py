"""Property tests (hypothesis): any input to turn parsing, `observe` or import gives a stored
turn (or imported characters) or a typed `CuratorError`, and a refusal writes nothing.
Examples are bounded (a few dozen each, small sizes) so the file runs in a few seconds."""

from __future__ import annotations

import copy
import json
from datetime import timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curator import Curator
from curator.api.curator import parse_turn
from curator.domain.errors import CuratorError, InvalidTurn
from curator.domain.models import Turn

FEW = settings(max_examples=40, deadline=None, database=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# Text as a hostile caller writes it: any code point, lone surrogates included.
TEXT = st.text(st.characters(codec=None), max_size=40)
NUMBERS = st.one_of(st.integers(min_value=-(10**40), max_value=10**40),
                    st.floats(allow_nan=True, allow_infinity=True))
JSON = st.recursive(st.one_of(st.none(), st.booleans(), NUMBERS, TEXT),
                    lambda inner: st.one_of(st.lists(inner, max_size=4),
                                            st.dictionaries(TEXT, inner, max_size=4)),
                    max_leaves=12)
ZONES = st.builds(lambda m: timezone(timedelta(minutes=m)), st.integers(-23 * 60 - 59, 23 * 60 + 59))
TIMES = st.one_of(st.builds(lambda d, z: d.replace(tzinfo=z).isoformat(), st.datetimes(), ZONES),
                  st.datetimes().map(lambda d: d.isoformat()), TEXT, NUMBERS)

BASE = {"id": "t1", "world_time": "2025-03-01T08:00:00Z", "actor": "wolf",
        "intent": {"thought": "", "action": "Howl at the moon"}, "reality": "You howl and Bear wakes.",
        "others": ["bear"], "observers": ["owl"], "place": "hill", "tags": ["night"],
        "outcome": {"result": "succeeded", "importance": 0.5}}
FIELD = st.sampled_from(["id", "world_time", "actor", "intent", "reality", "others", "observers",
                         "place", "domain", "tags", "outcome", "extra"])


def turn_or_typed_error(data: Any) -> Turn | None:
    try:
        return parse_turn(data)
    except InvalidTurn:
        return None


@FEW
@given(JSON)
def test_any_json_value_parses_to_a_turn_or_an_invalid_turn(value: Any) -> None:
    turn_or_typed_error(value)
    try:
        text = json.dumps(value)
    except ValueError:  # a NaN or an Infinity inside: json.dumps writes them, allow_nan is on
        return
    turn_or_typed_error(text)
    turn_or_typed_error(text.encode("utf-8", errors="surrogatepass"))


@FEW
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_any_text_or_bytes_parse_to_a_turn_or_an_invalid_turn(data: str | bytes) -> None:
    turn_or_typed_error(data)


@FEW
@given(FIELD, st.one_of(JSON, TIMES))
def test_observe_stores_the_turn_or_refuses_it_and_writes_nothing(field: str, value: Any) -> None:
    turn = {**BASE, field: value}
    with Curator(":memory:") as world:
        try:
            result = world.observe(turn)
        except CuratorError:
            assert world.world.turn_count() == 0 and world.characters() == []
            return
        assert world.world.turn_count() == 1 and result.turn_id == parse_turn(turn).id
        again = world.observe(turn)  # the same turn again changes nothing
        assert again.duplicate and world.world.turn_count() == 1


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    with Curator(":memory:") as world:
        world.set_persona("wolf", "A grey wolf.")
        world.observe(BASE)
        world.passages.store("wolf", "The river freezes in winter.")
        world.evolve()
        return world.export_world()


def places(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a document a value sits at."""
    found = [path] if path else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += places(value, (*path, key))
    elif isinstance(node, list):
        for n, value in enumerate(node):
            found += places(value, (*path, n))
    return found


@FEW
@given(data=st.data())
def test_an_import_with_any_value_anywhere_imports_or_refuses_and_writes_nothing(
        document: dict[str, Any], data: st.DataObject) -> None:
    doc = copy.deepcopy(document)
    path = data.draw(st.sampled_from(places(doc)))
    node = doc
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = data.draw(st.one_of(JSON, TIMES))
    with Curator(":memory:") as world:
        try:
            imported = world.import_document(doc)
        except CuratorError:
            assert world.characters() == [] and world.world.clock() is None
            return
        assert set(imported) <= set(world.characters())
