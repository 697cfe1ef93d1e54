"""The rules: the issue's own cases first, then each rule on its own."""

from __future__ import annotations

import dataclasses

import pytest
from positions import document, position

from engine import (
    GOLD_CELLS,
    SLOTS,
    TOTAL_PALISADES,
    Build,
    Cell,
    GameState,
    IllegalMove,
    Pass,
    PlaceWarrior,
    Position,
    PositionError,
    ScoringError,
    Slot,
    Walls,
    check,
    draw,
    score,
)
from engine.scoring import rank


def slot(a: tuple[int, int], b: tuple[int, int]) -> Slot:
    return Slot.between(Cell(*a), Cell(*b))


def walls(*pairs: tuple[tuple[int, int], tuple[int, int]]) -> Walls:
    return Walls.from_slots(slot(a, b) for a, b in pairs)


def codes(pos: Position) -> list[str]:
    return [p.code for p in check(pos).problems]


# The cases the foundation issue names.


def test_closing_three_cells_in_a_corner_is_illegal() -> None:
    board = walls(((0, 0), (0, 1)), ((1, 0), (1, 1)), ((2, 0), (2, 1)))
    assert board.is_legal(slot((2, 0), (3, 0))) is False
    assert slot((2, 0), (3, 0)) not in board.legal_slots()
    assert board.is_legal(slot((3, 0), (4, 0))) is True  # closes a5..a4: 4 cells


def test_three_cell_pocket_at_the_bottom_is_illegal() -> None:
    pos = position(palisades=[((4, 4), (4, 5)), ((3, 5), (4, 5)), ((3, 6), (4, 6)), ((3, 7), (4, 7))])
    assert codes(pos) == ["territory_too_small"], draw(pos)
    problem = check(pos).problems[0]
    assert sorted(problem.cells) == [Cell(4, 5), Cell(4, 6), Cell(4, 7)]
    # Every palisade closing it is named, none of the others.
    problem = check(dataclasses.replace(pos, palisades=pos.palisades | {slot((0, 0), (0, 1))})).problems[0]
    assert sorted(problem.palisades, key=lambda s: s.number) == sorted(
        (slot((4, 4), (4, 5)), slot((3, 5), (4, 5)), slot((3, 6), (4, 6)), slot((3, 7), (4, 7))),
        key=lambda s: s.number,
    )
    # Built one by one, the last palisade is the one refused.
    assert not walls(((4, 4), (4, 5)), ((3, 5), (4, 5)), ((3, 6), (4, 6))).is_legal(slot((3, 7), (4, 7)))


def test_a_four_cell_territory_is_legal() -> None:
    pos = position(
        palisades=[
            ((0, 3), (1, 3)), ((0, 4), (1, 4)), ((1, 2), (1, 3)), ((2, 2), (2, 3)),
            ((2, 3), (3, 3)), ((2, 4), (3, 4)), ((1, 4), (1, 5)), ((2, 4), (2, 5)),
        ]
    )  # fmt: skip
    assert check(pos).legal, draw(pos)
    sizes = sorted(len(t) for t in pos.walls.territory_cells())
    assert sizes == [4, 36], draw(pos)
    small = min(pos.walls.territory_cells(), key=len)
    assert sorted(small) == [Cell(1, 3), Cell(1, 4), Cell(2, 3), Cell(2, 4)]


def test_three_player_scoring_with_unclaimed_gold() -> None:
    pos = position(
        ("orange", "blue", "green"),
        warriors=[("orange", 5, (4, 4)), ("blue", 5, (0, 4)), ("green", 5, (2, 6))],
        palisades=[
            ((0, 2), (0, 3)), ((1, 2), (1, 3)), ((0, 4), (0, 5)), ((1, 4), (1, 5)), ((1, 3), (2, 3)),
            ((1, 4), (2, 4)), ((2, 4), (3, 4)), ((2, 5), (3, 5)), ((3, 3), (3, 4)), ((4, 3), (4, 4)),
            ((0, 5), (0, 6)), ((1, 5), (1, 6)), ((2, 5), (2, 6)), ((3, 5), (3, 6)), ((4, 5), (4, 6)),
        ],
    )  # fmt: skip
    result = score(pos)
    assert result.scores == {"orange": 6, "blue": 3, "green": 12}, draw(pos)
    assert result.unclaimed == 19
    assert result.ranking == (("green",), ("orange",), ("blue",))
    # A 3-player supply has no 5: the check says so, and scoring still counts what stands.
    assert codes(pos) == ["value_outside_supply"] * 3


def test_tie_on_gold_goes_to_the_best_single_winnings_then_the_next() -> None:
    halves = [[14, 12, 10, 10], [14, 12, 10, 4, 4, 2], [14, 12, 10, 6, 4]]
    places, why = rank(("first", "third", "second"), [46, 46, 46], halves)
    assert places == (("first",), ("second",), ("third",))
    assert len(why) == 1 and "4th" in why[0]


# Board geometry.


def test_sixty_seven_interior_slots() -> None:
    assert len(SLOTS) == 67
    assert sum(s.vertical for s in SLOTS) == 35
    assert len(set(SLOTS)) == 67
    assert all(s.number == i for i, s in enumerate(SLOTS))


def test_cell_names_follow_chess_convention() -> None:
    assert Cell(0, 0).name == "a5" and Cell(4, 7).name == "h1"
    assert [c.name for c in GOLD_CELLS] == ["d5", "b4", "f4", "h4", "a2", "e2", "c1", "g1"]
    assert all(Cell.parse(c.name) == c for c in GOLD_CELLS)
    with pytest.raises(ValueError, match="i9"):
        Cell.parse("i9")


def test_the_cells_off_gold_are_every_other_cell_in_order() -> None:
    from engine.board import CELLS, OFF_GOLD_CELLS

    assert len(OFF_GOLD_CELLS) == 32 and not set(OFF_GOLD_CELLS) & set(GOLD_CELLS)
    assert list(OFF_GOLD_CELLS) == [cell for cell in CELLS if cell not in GOLD_CELLS]


def test_slot_between_rejects_non_neighbours() -> None:
    with pytest.raises(ValueError):
        Slot.between(Cell(0, 0), Cell(1, 1))
    with pytest.raises(ValueError):
        Slot.between(Cell(0, 7), Cell(0, 8))
    assert Slot.between(Cell(1, 0), Cell(0, 0)) == Slot(Cell(0, 0), Cell(1, 0))


# Walls and legality.


def test_empty_board_every_slot_and_every_pair_but_the_corner_traps_is_legal() -> None:
    empty = Walls.from_slots([])
    assert len(empty.legal_slots()) == 67
    # The only illegal pairs wall in a corner cell alone.
    assert len(empty.legal_pairs()) == 67 * 66 // 2 - 4
    pairs = {(SLOTS[a], SLOTS[b]) for a, b in empty.legal_pairs()}
    assert (slot((0, 0), (0, 1)), slot((0, 0), (1, 0))) not in pairs
    assert empty.territories == ((1 << 40) - 1,)


def test_occupied_slot_is_not_legal_and_cannot_be_added_twice() -> None:
    board = walls(((0, 0), (0, 1)))
    assert not board.is_legal(slot((0, 0), (0, 1)))
    with pytest.raises(ValueError, match="already"):
        board.add(slot((0, 0), (0, 1)))


def test_no_palisade_beyond_the_thirty_fifth() -> None:
    board = Walls.from_slots([])
    # Horizontal lines of alternate rows never close anything off on their own.
    for s in SLOTS:
        if board.count == TOTAL_PALISADES:
            break
        if board.is_legal(s):
            board = board.add(s)
    assert board.count == TOTAL_PALISADES
    assert board.legal_slots() == ()
    assert board.legal_pairs() == ()


def test_pair_that_closes_a_small_pocket_only_together_is_refused() -> None:
    board = walls(((0, 0), (0, 1)))
    first, second = slot((1, 0), (1, 1)), slot((1, 0), (2, 0))
    assert board.is_legal(first) and board.is_legal(second)
    pairs = {(SLOTS[a], SLOTS[b]) for a, b in board.legal_pairs()}
    assert tuple(sorted((first, second), key=lambda s: s.number)) not in pairs


# Position documents.


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"variant": "chess"}, "variant"),
        ({"players": "orange"}, "players"),
        ({"players": ["orange", "orange"]}, "players[1]"),
        ({"players": ["orange", "blue", "green", "purple", "red"]}, "players"),
        ({"gold": [{"cell": [5, 0], "value": 3}]}, "gold[0].cell"),
        ({"gold": [{"cell": [0, 3], "value": 8}]}, "gold[0].value"),
        ({"warriors": [{"cell": [2, 2], "player": "orange", "value": 6}]}, "warriors[0].value"),
        ({"warriors": [{"cell": [2, 2], "player": "", "value": 1}]}, "warriors[0].player"),
        ({"warriors": [{"cell": [0, 3], "player": "orange", "value": 1}]}, "warriors[0].cell"),
        ({"warriors": [{"cell": [2, "x"], "player": "orange", "value": 1}]}, "warriors[0].cell"),
        ({"palisades": [[[0, 0], [1, 1]]]}, "palisades[0]"),
        ({"palisades": [[[0, 0], [0, 1]], [[0, 1], [0, 0]]]}, "palisades[1]"),
        ({"palisades": [[[0, 0]]]}, "palisades[0]"),
        ({"warriors": {"cell": [0, 0]}}, "warriors"),
    ],
)
def test_malformed_documents_name_the_offending_entry(change: dict[str, object], where: str) -> None:
    doc = document()
    doc.update(change)
    with pytest.raises(PositionError) as caught:
        Position.from_json(doc)
    assert str(caught.value).startswith(f"{where}:"), str(caught.value)


def test_unreadable_text_is_a_position_error() -> None:
    for text in ["", "{", "[1, 2]", '"orange"', "null", b"\xff\xfe"]:
        with pytest.raises(PositionError):
            Position.loads(text)


def test_unknown_keys_are_kept_and_written_back() -> None:
    doc = document()
    doc["table"] = {"photo": "x.jpg"}
    pos = Position.from_json(doc)
    assert pos.to_json()["table"] == {"photo": "x.jpg"}
    assert Position.from_json(pos.to_json()) == pos


def test_equal_boards_compare_equal_whatever_the_order() -> None:
    doc = document(warriors=[("orange", 1, (2, 2)), ("blue", 2, (2, 3))], palisades=[((0, 0), (0, 1))])
    shuffled = dict(doc, warriors=doc["warriors"][::-1], gold=doc["gold"][::-1])
    assert Position.from_json(doc) == Position.from_json(shuffled)


# Checking scanned positions.


def test_check_reports_each_impossibility_with_its_cells() -> None:
    pos = position(
        ("orange", "blue", "green", "purple"),
        gold=(7, 7, 7, 5, 5, 4, 4, 3),
        warriors=[("red", None, (2, 2)), ("orange", 5, (2, 3)), ("blue", 1, (2, 4))],
    )
    problems = {p.code: p for p in check(pos).problems}
    assert set(problems) == {"unknown_colour", "value_outside_supply", "gold_values"}
    assert problems["unknown_colour"].cells == (Cell(2, 2),)
    assert problems["value_outside_supply"].cells == (Cell(2, 3),)
    assert problems["gold_values"].cells == (Cell(0, 3), Cell(1, 1), Cell(1, 5))


def test_check_counts_warriors_against_the_supply() -> None:
    cells = [(r, c) for r in range(5) for c in range(8) if Cell(r, c) not in GOLD_CELLS]
    pos = position(
        ("orange", "green", "blue", "purple"),
        warriors=[("orange", None, cell) for cell in cells[:9]],
    )
    assert codes(pos) == ["too_many_warriors"]
    assert len(check(pos).problems[0].cells) == 9
    assert check(position(("orange", "blue"), warriors=[("orange", 1, c) for c in cells[:11]])).legal
    assert codes(position(("orange", "blue"), warriors=[("orange", 1, c) for c in cells[:12]])) == [
        "value_outside_supply"
    ]


def test_check_warrior_on_gold_and_missing_gold() -> None:
    doc = document(warriors=[("orange", 1, (4, 6))])
    doc["gold"] = [g for g in doc["gold"] if g["cell"] != [4, 6]]
    pos = Position.from_json(doc)
    assert codes(pos) == ["warrior_on_gold", "missing_gold"]


def test_check_gold_off_its_cell() -> None:
    doc = document()
    doc["gold"][0]["cell"] = [2, 2]
    assert codes(Position.from_json(doc)) == ["gold_off_gold_cell", "missing_gold"]


def test_check_too_many_palisades() -> None:
    pairs = [((s.a.row, s.a.col), (s.b.row, s.b.col)) for s in SLOTS if not s.vertical][:32]
    pairs += [((0, c), (0, c + 1)) for c in range(0, 7, 2)]  # 36 palisades
    pos = position(palisades=pairs)
    assert "too_many_palisades" in codes(pos)


# Scoring.


def test_tie_shares_equally_and_loses_the_remainder() -> None:
    pos = position(warriors=[("orange", 3, (2, 2)), ("blue", 3, (2, 3))], gold=(7, 6, 6, 5, 5, 4, 4, 3))
    result = score(pos)
    (territory,) = result.territories
    assert territory.gold == 40 and territory.winners == ("orange", "blue")
    assert territory.share == 20 and territory.lost == 0
    pocket = position(
        warriors=[("orange", 3, (1, 0)), ("blue", 3, (0, 1))],
        gold=(6, 7, 6, 5, 5, 4, 4, 3),
        palisades=[((0, 1), (0, 2)), ((1, 1), (1, 2)), ((1, 0), (2, 0)), ((1, 1), (2, 1))],
    )
    corner = next(t for t in score(pocket).territories if Cell(0, 0) in t.cells)
    assert corner.gold == 7 and corner.share == 3 and corner.lost == 1


def test_nuggets_shares_in_half_points() -> None:
    pocket = position(
        variant="nuggets",
        warriors=[("orange", 3, (1, 0)), ("blue", 3, (0, 1))],
        gold=(6, 7, 6, 5, 5, 4, 4, 3),
        palisades=[((0, 1), (0, 2)), ((1, 1), (1, 2)), ((1, 0), (2, 0)), ((1, 1), (2, 1))],
    )
    result = score(pocket)
    corner = next(t for t in result.territories if Cell(0, 0) in t.cells)
    assert corner.share == 3.5 and corner.lost == 0
    assert result.scores == {"orange": 3.5, "blue": 3.5}


def test_territory_without_warriors_gives_its_gold_to_nobody() -> None:
    result = score(position())
    assert result.scores == {"orange": 0, "blue": 0}
    assert result.unclaimed == 40
    assert result.ranking == (("orange", "blue"),)


def test_four_players_pool_partners_warriors_and_gold() -> None:
    pos = position(
        ("orange", "green", "blue", "purple"),
        warriors=[("orange", 2, (2, 2)), ("blue", 2, (2, 3)), ("green", 3, (2, 4))],
    )
    result = score(pos)
    assert result.territories[0].totals == {"orange+blue": 4, "green+purple": 3}
    assert result.scores == {"orange+blue": 40, "green+purple": 0}
    assert result.ranking == (("orange+blue",), ("green+purple",))


def test_scoring_refuses_hidden_values_and_names_them() -> None:
    pos = position(warriors=[("orange", None, (2, 2)), ("blue", 1, (2, 3)), ("blue", None, (4, 7))])
    with pytest.raises(ScoringError, match=r"2 warrior value\(s\) still hidden: c3 \(orange\), h1 \(blue\)"):
        score(pos)


def test_scoring_refuses_unread_gold() -> None:
    with pytest.raises(ScoringError, match="d5"):
        score(position(gold=(None, 4, 4, 5, 5, 6, 6, 7)))


def test_tied_totals_with_equal_winnings_share_a_place() -> None:
    places, why = rank(("a", "b", "c"), [20, 20, 10], [[10, 10], [10, 10], [10]])
    assert places == (("a", "b"), ("c",))
    assert "share a place" in why[0]


# Playing a game.


def new_game(players: tuple[str, ...] = ("orange", "blue"), variant: str = "armadora") -> GameState:
    return GameState.new(players, (3, 4, 4, 5, 5, 6, 6, 7), variant)


def test_turns_rotate_and_supplies_shrink() -> None:
    state = new_game(("orange", "blue", "green"))
    state = state.play(PlaceWarrior(Cell(2, 2), 4))
    assert state.player == "blue"
    assert state.supplies[0] == (7, 2, 1, 0, 0)
    state = state.play(Build((slot((0, 0), (0, 1)), slot((1, 0), (1, 1)))))
    assert state.player == "green" and state.palisades_left == 33


def test_a_passed_player_never_plays_again() -> None:
    state = new_game(("orange", "blue", "green")).play(Pass())
    assert state.player == "blue"
    state = state.play(PlaceWarrior(Cell(2, 2), 1)).play(PlaceWarrior(Cell(2, 3), 1))
    assert state.player == "blue"  # orange is skipped
    state = state.play(Pass()).play(Pass())
    assert state.is_over and state.legal_moves() == []
    with pytest.raises(IllegalMove, match="over"):
        state.play(Pass())


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        (PlaceWarrior(Cell(0, 3), 1), "holds gold"),
        (PlaceWarrior(Cell(2, 2), 6), "no warrior of value 6"),
        (Build(()), "1 or 2"),
    ],
)
def test_illegal_moves_say_why(move: PlaceWarrior | Build, reason: str) -> None:
    with pytest.raises(IllegalMove, match=reason):
        new_game().play(move)


def test_cannot_place_on_an_occupied_cell_or_use_up_a_value_twice() -> None:
    state = new_game().play(PlaceWarrior(Cell(2, 2), 5))
    with pytest.raises(IllegalMove, match="already holds"):
        state.play(PlaceWarrior(Cell(2, 2), 1))
    state = state.play(Pass())
    with pytest.raises(IllegalMove, match="no warrior of value 5"):
        state.play(PlaceWarrior(Cell(2, 3), 5))


def test_player_out_of_warriors_may_still_build() -> None:
    state = new_game(("orange", "green", "blue", "purple"))
    cells = iter(c for c in (Cell(r, c) for r in range(5) for c in range(8)) if c not in GOLD_CELLS)
    for value in (1, 1, 1, 1, 1, 2, 3, 4):
        for _ in range(4):
            state = state.play(PlaceWarrior(next(cells), value))
    assert all(sum(s) == 0 for s in state.supplies)
    assert state.warrior_moves() == []
    assert any(isinstance(m, Build) for m in state.legal_moves())
    assert state.play(Build((SLOTS[0],))).player == "green"


def test_nuggets_builds_two_palisades_while_two_fit() -> None:
    state = new_game(variant="nuggets")
    with pytest.raises(IllegalMove, match="two palisades"):
        state.play(Build((SLOTS[0],)))
    assert all(len(m.slots) == 2 for m in state.build_moves())
    state = state.play(Build((SLOTS[0], SLOTS[1])))
    assert state.palisades_left == 33


def test_legal_moves_at_the_start() -> None:
    moves = new_game().legal_moves()
    warriors = [m for m in moves if isinstance(m, PlaceWarrior)]
    builds = [m for m in moves if isinstance(m, Build)]
    assert len(warriors) == 32 * 5
    assert len(builds) == 67 + 2207
    assert moves[-1] == Pass()


def test_game_state_round_trips_through_a_position() -> None:
    state = new_game().play(PlaceWarrior(Cell(2, 2), 2)).play(Build((SLOTS[3],)))
    again = GameState.from_position(state.to_position(), to_move="orange")
    assert again == state


def test_from_position_refuses_hidden_values() -> None:
    with pytest.raises(ValueError, match="known"):
        GameState.from_position(position(warriors=[("orange", None, (2, 2))]))


def test_drawing_shows_walls_gold_and_warriors() -> None:
    text = draw(position(warriors=[("blue", None, (2, 2))], palisades=[((0, 0), (0, 1)), ((0, 0), (1, 0))]))
    lines = text.splitlines()
    assert lines[2].startswith("5 |   |") and "$3" in lines[2]
    assert lines[3].startswith("  +---+")
    assert "B?" in lines[6]
    assert lines[-1] == "O orange, B blue; 2/35 palisades"


def test_with_no_palisade_left_warriors_may_still_be_placed() -> None:
    state = new_game()
    while state.palisades_left:
        build = next(m for m in state.build_moves() if len(m.slots) == min(2, state.palisades_left))
        state = state.play(build)
    assert state.build_moves() == []
    assert len(state.warrior_moves()) == 32 * 5
    assert state.legal_moves()[-1] == Pass()


def test_from_position_skips_passed_players_for_the_turn() -> None:
    pos = new_game(("orange", "blue", "green")).to_position()
    state = GameState.from_position(pos, to_move="orange", passed=["orange"])
    assert state.player == "blue"
    assert state.passed == 0b001


def test_a_position_without_gold_leaves_gold_out_of_the_check_but_cannot_be_scored() -> None:
    sketch = Position.from_json({"players": ["orange", "blue"], "palisades": [[[0, 0], [0, 1]]]})
    assert check(sketch).legal
    with pytest.raises(ScoringError, match="no gold recorded"):
        score(sketch)
    partial = document()
    partial["gold"] = partial["gold"][:1]
    assert codes(Position.from_json(partial)) == ["missing_gold"]
