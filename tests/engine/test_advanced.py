"""The advanced game: its position keys, the rules check() sees, scoring with arrows and reinforcements."""

from __future__ import annotations

import json
from typing import Any

import pytest
from positions import document

from engine import Cell, Position, PositionError, check, score
from engine.report import score_text

ADVANCED = {"variant": "armadora-advanced", "characters": {"orange": "goblin", "blue": "elf"}}


def advanced(warriors: list[dict[str, Any]], **keys: Any) -> dict[str, Any]:
    """An advanced 2-player document on the issue's gold, with these warrior entries."""
    return {**document(), **ADVANCED, "warriors": warriors, **keys}


def w(cell: tuple[int, int], player: str, value: int | None, **keys: Any) -> dict[str, Any]:
    return {"cell": list(cell), "player": player, "value": value, **keys}


def codes(doc: dict[str, Any]) -> list[str]:
    return [p.code for p in check(Position.from_json(doc)).problems]


# --------------------------------------------------------------------------------------------------
# Position


def test_advanced_keys_load_and_round_trip() -> None:
    doc = advanced(
        [w((2, 2), "orange", 3, face_up=True, arrows=1, note="x"), w((2, 3), "blue", None, reinforced=True)],
        powers_left={"orange": 0, "blue": 1},
        reinforcements_left={"orange": 1},
    )
    pos = Position.from_json(doc)
    assert pos.characters == ("goblin", "elf")
    assert pos.powers_left == (0, 1)
    assert pos.reinforcements_left == (1, None)  # blue's is unknown
    first, second = pos.warriors
    assert (first.face_up, first.arrows, first.reinforced) == (True, 1, False)
    assert (second.face_up, second.arrows, second.reinforced) == (False, 0, True)
    again = pos.to_json()
    assert again["warriors"][0]["note"] == "x", "a warrior's unknown key is kept"
    assert Position.from_json(again) == pos and Position.from_json(again).to_json() == again
    assert again["reinforcements_left"] == {"orange": 1}


def test_base_game_positions_load_as_before() -> None:
    doc = document(warriors=[("orange", 3, (2, 2))])
    pos = Position.from_json(doc)
    assert pos.characters == () and pos.powers_left == () and pos.reinforcements_left == ()
    assert pos.warriors[0].strength == 3 and not pos.warriors[0].face_up
    assert pos.to_json()["warriors"] == doc["warriors"]
    assert "characters" not in pos.to_json()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"characters": {"orange": "wizard"}}, "characters.orange: one of goblin, orc, elf, mage expected"),
        ({"characters": ["goblin"]}, "characters: an object colour -> value expected, got a list"),
        ({"characters": {"red": "orc"}}, "characters.red: not a colour of this game"),
        ({"powers_left": {"blue": 3}}, "powers_left.blue: 0..2 expected, got 3"),
        ({"powers_left": {"blue": True}}, "powers_left.blue: 0..2 expected, got true"),
        ({"reinforcements_left": {"orange": 2}}, "reinforcements_left.orange: 0..1 expected, got 2"),
        ({"warriors": [w((2, 2), "orange", 3, arrows=3)]}, "warriors[0].arrows: 0..2 expected, got 3"),
        ({"warriors": [w((2, 2), "orange", 3, arrows="1")]}, 'warriors[0].arrows: 0..2 expected, got "1"'),
        (
            {"warriors": [w((2, 2), "orange", 3, face_up=1)]},
            "warriors[0].face_up: true or false expected, got 1",
        ),
        ({"warriors": [w((2, 2), "orange", 3, reinforced=None)]}, "warriors[0].reinforced: true or false"),
    ],
)
def test_every_malformed_advanced_entry_is_named(change: dict[str, Any], message: str) -> None:
    with pytest.raises(PositionError) as caught:
        Position.from_json({**advanced([]), **change})
    assert str(caught.value).startswith(message)


# --------------------------------------------------------------------------------------------------
# check


def test_a_legal_advanced_position_has_no_problem() -> None:
    doc = advanced([w((2, 2), "orange", 3, arrows=2), w((2, 3), "blue", 2)], powers_left={"blue": 0})
    assert codes(doc) == []


@pytest.mark.parametrize(
    ("doc", "expected", "cells"),
    [
        ({**advanced([]), "characters": {"orange": "goblin"}}, "missing_character", []),
        ({**advanced([]), "characters": {"orange": "elf", "blue": "elf"}}, "character_twice", []),
        ({**advanced([]), "powers_left": {"orange": 2}}, "too_many_powers", []),
        (advanced([w((2, 2), "blue", 3, arrows=1)]), "arrow_on_elf", [(2, 2)]),
        (
            {
                **advanced([w((2, 2), "orange", 3, arrows=1)]),
                "characters": {"orange": "goblin", "blue": "orc"},
            },
            "arrow_without_elf",
            [(2, 2)],
        ),
        (
            advanced([w((2, 2), "orange", 3, arrows=2), w((2, 4), "orange", 3, arrows=1)]),
            "too_many_arrows",
            [(2, 2), (2, 4)],
        ),
        (advanced([w((2, 2), "orange", 3, arrows=1)], powers_left={"blue": 2}), "too_many_arrows", [(2, 2)]),
        (advanced([w((2, 2), "orange", 3, reinforced=True)]), "reinforcement_not_full", [(2, 2)]),
        (
            advanced(
                [
                    w((2, 2), "orange", 3, face_up=True),
                    w((2, 4), "orange", 3, face_up=True),
                    w((2, 5), "blue", 1),
                ]
            ),
            "too_many_face_up",
            [(2, 2), (2, 4)],
        ),
        (
            advanced([w((2, 2), "blue", 3, face_up=True), w((2, 4), "orange", 3)]),
            "face_up_not_goblin",
            [(2, 2)],
        ),
        (
            advanced([w((2, 2), "orange", 3, face_up=True), w((2, 4), "blue", 3)], powers_left={"orange": 1}),
            "too_many_face_up",
            [(2, 2)],
        ),
        (
            {**document(warriors=[("orange", 3, (2, 2))]), "characters": {"orange": "orc", "blue": "elf"}},
            "advanced_in_base_game",
            [],
        ),
    ],
)
def test_each_advanced_rule_has_its_code_and_cells(
    doc: dict[str, Any], expected: str, cells: list[tuple[int, int]]
) -> None:
    problems = [p for p in check(Position.from_json(doc)).problems if p.code == expected]
    assert len(problems) == 1, codes(doc)
    assert [tuple(c) for c in problems[0].cells] == cells
    assert problems[0].message


CORNER = [((0, 0), (1, 0)), ((0, 1), (1, 1)), ((0, 2), (1, 2)), ((0, 3), (1, 3)), ((0, 3), (0, 4))]


def corner(warriors: list[dict[str, Any]], **keys: Any) -> dict[str, Any]:
    """The top-left four cells a5 b5 c5 d5 (d5 gold) walled off as one territory."""
    doc = advanced(warriors, **keys)
    doc["palisades"] = [[list(a), list(b)] for a, b in CORNER]
    return doc


def test_reinforcements_in_a_full_territory_one_each_and_one_per_territory() -> None:
    full = [w((0, 0), "orange", 1, reinforced=True), w((0, 1), "blue", 2), w((0, 2), "orange", 1)]
    assert codes(corner(full)) == []
    two = [
        w((0, 0), "orange", 1, reinforced=True),
        w((0, 1), "blue", 2, reinforced=True),
        w((0, 2), "orange", 1),
    ]
    assert codes(corner(two)) == ["reinforcements_in_territory"]
    twice = [*full, w((2, 2), "orange", 1, reinforced=True)]
    assert codes(corner(twice)) == ["too_many_reinforcements", "reinforcement_not_full"]
    assert codes(corner(full, reinforcements_left={"orange": 1})) == ["too_many_reinforcements"]
    assert codes(corner(full[:2])) == ["reinforcement_not_full"]


def test_arrow_on_the_elf_partner_in_the_four_player_game() -> None:
    players = ["orange", "green", "blue", "purple"]
    doc = {
        **document(players),
        "variant": "armadora-advanced",
        "characters": dict(zip(players, ["goblin", "orc", "elf", "mage"], strict=True)),
        "warriors": [w((2, 2), "orange", 3, arrows=1), w((2, 3), "green", 1, arrows=1)],
    }
    problems = [p for p in check(Position.from_json(doc)).problems]
    assert [(p.code, p.cells) for p in problems] == [("arrow_on_partner", (Cell(2, 2),))]


def test_after_the_reveal_every_warrior_lies_face_up() -> None:
    doc = advanced([w((2, 2), "orange", 3, face_up=True), w((2, 3), "blue", 2, face_up=True)])
    assert codes(doc) == []


# --------------------------------------------------------------------------------------------------
# score


def test_arrows_and_reinforcements_decide_a_territory_and_are_explained() -> None:
    # The corner (a5 b5 c5 and the gold on d5): a tie, until the arrows and the reinforcement.
    plain = [w((0, 0), "orange", 3), w((0, 1), "blue", 4), w((0, 2), "orange", 1)]
    assert score(Position.from_json(corner(plain))).territories[0].winners == ("orange", "blue")  # 4 each
    doc = corner(
        [w((0, 0), "orange", 3), w((0, 1), "blue", 4, arrows=2), w((0, 2), "orange", 1, reinforced=True)],
        characters={"orange": "elf", "blue": "goblin"},
    )
    result = score(Position.from_json(doc))
    first = result.territories[0]
    assert first.totals == {"orange": 5, "blue": 2} and first.winners == ("orange",)
    assert [str(a) for a in first.adjustments] == ["b5: 4, -2 arrows", "c5: 1, +1 reinforcement"]
    text = score_text(result)
    assert "   b5: 4, -2 arrows" in text and "   c5: 1, +1 reinforcement" in text
    data = json.loads(json.dumps(result.to_json()))
    assert data["territories"][0]["adjustments"][0] == {
        "cell": [0, 1], "player": "blue", "value": 4, "arrows": 2, "reinforced": False, "counts": 2,
        "text": "b5: 4, -2 arrows",
    }  # fmt: skip


def test_arrows_never_take_a_warrior_below_zero() -> None:
    doc = corner(
        [w((0, 0), "orange", 1, arrows=2), w((0, 1), "blue", 1)],
        characters={"orange": "goblin", "blue": "elf"},
    )
    result = score(Position.from_json(doc))
    assert result.territories[0].totals == {"orange": 0, "blue": 1}
    assert str(result.territories[0].adjustments[0]) == "a5: 1, -2 arrows (never below 0) = 0"
