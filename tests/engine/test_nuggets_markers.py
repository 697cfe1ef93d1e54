"""A Nuggets game's declared gold-mine markers: any cells and positive values, in rules and kernel."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_kernel import full_state

import engine.kernel_core as core
from engine import GOLD_CELLS, Cell, Position, PositionError, check, score
from engine.encoding import kernel_state
from engine.game import GameState, PlaceWarrior, playout
from engine.kernel import Kernel
from engine.knowledge import Knowledge, KnowledgeError
from engine.position import sides_of

MARKERS = [((0, 0), 12), ((0, 7), 1), ((2, 3), 9), ((4, 0), 3), ((4, 7), 200), ((2, 6), 5)]
CELLS = tuple(Cell(*c) for c, _ in MARKERS)
VALUES = tuple(v for _, v in MARKERS)


def nuggets(**keys: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "variant": "nuggets",
        "players": ["orange", "blue"],
        "markers": [{"cell": list(c), "value": v} for c, v in MARKERS],
        "gold": [{"cell": list(c), "value": v} for c, v in MARKERS],
    }
    return {**doc, **keys}


def test_markers_load_round_trip_and_place_the_gold() -> None:
    position = Position.from_json(nuggets())
    assert position.gold_cells == tuple(sorted(CELLS)) and len(position.markers) == 6
    assert Position.from_json(position.to_json()) == position
    assert position.to_json()["markers"][0] == {"cell": [0, 0], "value": 12}
    assert check(position).legal
    assert Position.from_json({"players": ["orange", "blue"]}).gold_cells == GOLD_CELLS  # the default


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"variant": "armadora"},
            "markers: only a nuggets game declares its gold-mine markers, not armadora",
        ),
        ({"markers": [{"cell": [0, 0], "value": 0}]}, "markers[0].value: a positive integer expected, got 0"),
        (
            {"markers": [{"cell": [0, 0], "value": 2}, {"cell": [0, 0], "value": 3}]},
            "markers[1].cell: [0, 0]",
        ),
        ({"markers": [{"cell": [9, 0], "value": 2}]}, "markers[0].cell: [9, 0] is off the board"),
        ({"gold": [{"cell": [0, 0], "value": 201}]}, "gold[0].value: 1..200 or null expected, got 201"),
    ],
)
def test_malformed_markers_are_named(change: dict[str, Any], message: str) -> None:
    with pytest.raises(PositionError) as caught:
        Position.from_json(nuggets(**change))
    assert str(caught.value).startswith(message)


def test_check_holds_the_gold_to_the_declared_markers() -> None:
    gold = [{"cell": list(c), "value": v} for c, v in MARKERS[1:]] + [{"cell": [1, 1], "value": 4}]
    gold[0]["value"] = 2  # h5's marker is worth 1
    doc = nuggets(gold=gold, warriors=[{"cell": [0, 0], "player": "orange", "value": 1}])
    problems = {p.code: p.cells for p in check(Position.from_json(doc)).problems}
    assert problems == {
        "warrior_on_gold": (Cell(0, 0),),
        "gold_off_gold_cell": (Cell(1, 1),),
        "missing_gold": (Cell(0, 0),),
        "gold_not_marker": (Cell(0, 7),),
    }


def test_a_marker_above_seven_scores_in_full() -> None:
    doc = nuggets(warriors=[{"cell": [4, 6], "player": "orange", "value": 1}])
    result = score(Position.from_json(doc))
    assert result.scores == {"orange": sum(VALUES), "blue": 0}


def test_a_game_on_the_markers_plays_scores_and_reads_back() -> None:
    state = GameState.new(("orange", "blue"), VALUES, "nuggets", gold_cells=CELLS)
    assert state.why_illegal(PlaceWarrior(Cell(2, 3), 1)) == "d3 holds gold"
    final = playout(state, random.Random(5))
    position = final.to_position()
    assert position.markers and check(position).legal
    assert GameState.from_position(position) == GameState.from_position(
        Position.from_json(position.to_json())
    )
    assert sum(score(position).scores.values()) + score(position).unclaimed <= sum(VALUES)
    with pytest.raises(ValueError, match="only a nuggets game lays its gold off the Armadöra cells"):
        GameState.new(("orange", "blue"), VALUES, "armadora", gold_cells=CELLS)


@pytest.mark.parametrize("seed", range(4))
def test_the_kernel_holds_marker_values_above_seven(kernel: Kernel, seed: int) -> None:
    start = GameState.new(("orange", "blue"), VALUES, "nuggets", gold_cells=CELLS)
    position = playout(start, random.Random(seed)).to_position()
    st = full_state(kernel, GameState.from_position(position))
    sc, rew = kernel.ints(core.SCRATCH_SIZE), kernel.floats(4)
    kernel.core.rewards(st, sc, rew)
    result = score(position)
    sides = sides_of(position.players)
    assert [int(sc[s]) for s in range(2)] == [int(2 * result.scores[side]) for side in sides]
    at_start = kernel_state(kernel, Knowledge.of(start, "orange"))
    assert int(kernel.core.empty_cells(at_start)) == core.ALL & ~sum(c.bit for c in CELLS)


def test_a_marker_beyond_the_kernel_is_refused_by_name(kernel: Kernel) -> None:
    state = GameState.new(("orange", "blue"), (256, 3), "nuggets", gold_cells=(Cell(0, 0), Cell(4, 7)))
    with pytest.raises(KnowledgeError, match="gold values below 256, not 256"):
        kernel_state(kernel, Knowledge.of(state, "orange"))
