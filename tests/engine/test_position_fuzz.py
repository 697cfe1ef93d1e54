"""Whatever JSON arrives, reading a position either succeeds or raises PositionError naming the entry."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from positions import document

from engine import Position, PositionError, check, draw

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def read(doc: Any) -> Position | PositionError:
    """The position, or the error refusing it; any other exception fails the test."""
    try:
        return Position.from_json(doc)
    except PositionError as err:
        return err


def usable(position: Position) -> None:
    """What was accepted must serve everything downstream."""
    check(position)
    draw(position)
    assert Position.from_json(position.to_json()) == position


@pytest.mark.slow
@given(json_values)
def test_any_json_value_is_read_or_refused(value: Any) -> None:
    outcome = read(value)
    if isinstance(outcome, Position):
        usable(outcome)


@settings(max_examples=300)
@given(key=st.sampled_from(["variant", "players", "gold", "warriors", "palisades"]), value=json_values)
def test_one_damaged_key_is_refused_by_its_name(key: str, value: Any) -> None:
    doc = document(warriors=[("orange", 1, (2, 2))], palisades=[((0, 0), (0, 1))])
    doc[key] = value
    outcome = read(doc)
    if isinstance(outcome, PositionError):
        assert str(outcome).startswith(key), str(outcome)
    else:
        usable(outcome)


@settings(max_examples=300)
@given(entry=st.sampled_from(["gold", "warriors", "palisades"]), index=st.integers(0, 7), value=json_values)
def test_one_damaged_entry_is_refused_by_its_index(entry: str, index: int, value: Any) -> None:
    doc = document(warriors=[("orange", 1, (2, 2)), ("blue", None, (2, 3))], palisades=[((0, 0), (0, 1))])
    index %= len(doc[entry])
    doc[entry][index] = value
    outcome = read(doc)
    if isinstance(outcome, PositionError):
        assert str(outcome).startswith(f"{entry}[{index}]"), str(outcome)
    else:
        usable(outcome)


@given(st.binary(max_size=64))
def test_arbitrary_bytes_are_read_or_refused(raw: bytes) -> None:
    try:
        usable(Position.loads(raw))
    except PositionError as err:
        assert str(err)


def test_deeply_nested_json_is_refused_not_crashed() -> None:
    text = "[" * 100_000 + "]" * 100_000
    with pytest.raises(PositionError, match=r"nested too deeply|a position is a JSON object"):
        Position.loads(text)
