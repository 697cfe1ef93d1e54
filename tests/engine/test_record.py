"""The game record (engine/record.py): round trips on random games, and every fault named by its line."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from games import IRREGULAR, REFILLED, VARIANTS, random_game

from engine.board import GOLD_VALUES, Cell
from engine.game import GameState, Move, Pass, PlaceWarrior
from engine.record import HiddenWarrior, Record, RecordError, Result, dumps, parse

GAMES_PER_CASE = 112  # 9 cases (3 variants x 2-4 players): 1,008 games


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", VARIANTS)
def test_export_import_export_gives_the_same_bytes(variant: str, players: int) -> None:
    seed = VARIANTS.index(variant) * 10_000 + players * 1_000
    for n in range(GAMES_PER_CASE):
        start, moves = random_game(random.Random(seed + n), variant, players)
        record = Record.of_moves(start, moves, hidden=n % 2 == 0, date="2026-12-02")
        text = dumps(record)
        again = parse(text)
        assert dumps(again) == text
        assert again == record
        # What the record holds is the game: the same moves, and the engine's own scoring.
        assert again.moves() == moves
        final = GameState.new(start.players, start.gold, variant, start.characters, start.gold_cells)
        for move in moves:
            final = final.play(move)
        assert again.result == Result.of(final.score())
        assert text.endswith(f"{again.result}\n")


GOOD = """armadora-record 1
date 2026-12-02
variant armadora
players orange blue
gold d5=7 b4=6 f4=6 h4=5 a2=5 e2=4 c1=4 g1=3
1. orange warrior c3
2. blue warrior d3 {order uncertain between photos 1 and 2}
3. orange palisade a5|b5 c4-c3
4. blue pass
5. orange pass
reveal orange c3=5
reveal blue d3=1
result orange 40, blue 0; ranking orange, blue
"""


def test_a_good_record_reads_and_writes_back_unchanged() -> None:
    record = parse(GOOD)
    assert dumps(record) == GOOD
    assert record.turns[1].note == "order uncertain between photos 1 and 2"
    assert record.turns[0].action == HiddenWarrior(Cell.parse("c3"))
    assert record.reveal == ((Cell.parse("c3"), 5), (Cell.parse("d3"), 1))


def test_comments_and_blank_lines_are_skipped_and_a_result_may_be_left_out() -> None:
    text = "# from the table\n\n" + GOOD.replace("result orange 40, blue 0; ranking orange, blue\n", "")
    assert dumps(parse(text)) == GOOD


def test_an_unfinished_game_has_no_result_and_keeps_its_hidden_values() -> None:
    text = GOOD.split("4. blue pass")[0]
    record = parse(text)
    assert record.result is None
    assert dumps(record) == text
    view = record.replay()
    assert view.state.player == "blue" and view.value_at(Cell.parse("c3")) is None


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "armadora-record 1",
            "armadora-record 2",
            "line 1: a record starts with the line 'armadora-record 1'",
        ),
        ("variant armadora", "variant chess", "line 3: variant 'chess' is not one of"),
        ("players orange blue", "players orange", "line 4: players: 2 to 4 colours expected, got 1"),
        (
            "players orange blue",
            "players orange:goblin blue:elf",
            "line 4: characters belong to the advanced",
        ),
        ("d5=7", "d5=x", "line 5: 'd5=x': gold is written cell=value"),
        ("b4=6 f4=6", "f4=6 b4=6", "line 5: the gold lies on d5 b4 f4"),
        ("gold d5=7 b4=6", "gold d5=7 b4=7", "line 5: gold values must be"),
        ("date 2026-12-02", "date yesterday", "line 2: 'yesterday' is not an ISO date"),
        ("1. orange warrior c3", "1. orange warrior d5", "line 6: orange cannot place a warrior on d5"),
        ("1. orange warrior c3", "1. orange warrior c3 9", "line 6: '9': a value 1..5 expected"),
        ("1. orange warrior c3", "1. orange warrior z9", "line 6: not a cell name: 'z9'"),
        ("1. orange warrior c3", "2. orange warrior c3", "line 6: turn 2, but this is turn 1"),
        ("1. orange warrior c3", "1. red warrior c3", "line 6: 'red' is not a player of this game"),
        ("1. orange warrior c3", "1. blue warrior c3", "line 6: it is orange's turn, not blue's"),
        ("1. orange warrior c3", "1. orange dance", "line 6: 'dance': an action is warrior"),
        (
            "1. orange warrior c3",
            "1. orange power orc a5|b5, warrior c3",
            "line 6: orange cannot play power orc a5|b5: power orc a5|b5 belongs to",
        ),
        ("a5|b5 c4-c3", "a5-b5", "line 8: 'a5-b5' is not a palisade"),
        ("a5|b5 c4-c3", "a5|b5 a5|b5", "line 8: orange cannot play palisade a5|b5 a5|b5"),
        ("5. orange pass", "5. orange pass\n6. blue pass", "line 11: the game is over"),
        ("reveal orange c3=5", "reveal orange d3=5", "line 11: no face-down warrior of orange's"),
        ("reveal orange c3=5", "reveal orange c3=5 c3=5", "line 11: c3 is revealed twice"),
        ("reveal blue d3=1", "reveal blue d3=1\n6. blue pass", "line 13: after the reveal only more reveal"),
        ("ranking orange, blue", "ranking blue, orange", "line 13: the result does not match the scoring"),
        ("ranking orange, blue", "ranking orange, blue\nreveal orange c3=5", "line 14: nothing may follow"),
        ("reveal blue d3=1\n", "", "line 12: a result, but the game is not over or some value is unknown"),
        ("variant armadora\n", "", "line 12: the header has no variant line"),
        ("3. orange palisade", "variant armadora\n3. orange palisade", "line 8: the variant line belongs to"),
    ],
)
def test_every_fault_names_its_line_and_what_is_wrong(old: str, new: str, message: str) -> None:
    assert old in GOOD
    with pytest.raises(RecordError) as caught:
        parse(GOOD.replace(old, new, 1))
    assert str(caught.value).startswith(message), str(caught.value)


def test_a_revealed_value_the_supply_does_not_hold_is_refused_at_the_turn_that_places_it() -> None:
    text = GOOD.replace("1. orange warrior c3", "1. orange warrior c3 5").replace("reveal orange c3=5\n", "")
    text = text.replace("3. orange palisade a5|b5 c4-c3", "3. orange warrior e3 5")
    with pytest.raises(
        RecordError, match="line 8: orange has 2 warriors of value 5; a 2-player supply has 1"
    ):
        parse(text)


def test_the_moves_fill_in_the_revealed_values_and_refuse_what_is_still_hidden() -> None:
    record = parse(GOOD)
    assert record.moves()[0] == PlaceWarrior(Cell.parse("c3"), 5)
    assert record.moves()[-1] == Pass()
    unfinished = parse(GOOD.split("reveal")[0])
    with pytest.raises(RecordError, match="the value of orange's warrior on c3 is not known"):
        unfinished.moves()


def test_the_example_of_docs_record_md_reads_and_writes_back_unchanged() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "record.md"
    example = docs.read_text(encoding="utf-8").split("```text\n")[1].split("```")[0]
    assert dumps(parse(example)) == example


def test_irregularities_kept_or_to_settle_read_and_write_back_unchanged() -> None:
    record = parse(IRREGULAR)
    moved, removed, twice = record.irregularities
    assert (moved.kind, moved.names, moved.message, moved.kept) == (
        "warrior_moved", ("c3", "c4"), "the orange warrior on c3 stands on c4 now", True,
    )  # fmt: skip
    assert (removed.names, removed.kept, twice.kept) == (("a5|b5",), False, True)
    text = dumps(record)
    assert text.startswith(IRREGULAR.split("reveal")[0]) and dumps(parse(text)) == text
    # A note without the word is to settle, and is written so; a bare kind too.
    bare = parse(IRREGULAR.replace("{palisade taken away: a5|b5; to settle}", ""))
    assert "! palisade_removed a5|b5 {to settle}" in dumps(bare)
    assert parse(dumps(bare)) == bare


def test_the_replay_goes_on_past_the_irregularities_from_the_board_they_say() -> None:
    record = parse(IRREGULAR)
    state = record.final_state()
    position = state.to_position()
    # The warrior placed on c3 stands on c4 with its value, the palisade is gone, blue played twice.
    assert {(w.cell.name, w.player, w.value) for w in position.warriors} == {
        ("c4", "orange", 5), ("b3", "orange", 4), ("d3", "blue", 1), ("e3", "blue", 2),
    }  # fmt: skip
    assert not position.palisades and state.is_over
    # Every value known and the replay at the end: the record has the scoring's result, checked on
    # reading; the moves alone are no legal game.
    assert record.result is not None and str(record.result) in dumps(record)
    with pytest.raises(RecordError, match="no legal game"):
        record.moves()
    # An irregularity a replay cannot go past stops it there: no result, the turns after unchecked.
    stopped = parse(
        IRREGULAR.replace("! double_turn d3", "! unexplained d3").replace("reveal blue d3=1 e3=2\n", "")
    )
    assert stopped.result is None and stopped.replay().state.player == "orange"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "! warrior_moved c3 c4",
            "! warrior_moved c3",
            "line 7: warrior_moved names the cell the warrior left",
        ),
        ("! warrior_moved c3 c4", "! warrior_moved e5 c4", "line 7: no warrior on e5 to have moved"),
        (
            "! warrior_moved c3 c4",
            "! warrior_moved c3 c3",
            "line 7: the warrior on c3 cannot have moved to c3",
        ),
        (
            "! palisade_removed a5|b5",
            "! palisade_removed g1|h1",
            "line 8: no palisade g1|h1 to be taken away",
        ),
        ("! palisade_removed a5|b5", "! palisade_removed c3", "line 8: palisade_removed names the palisades"),
        ("! double_turn d3", "! warrior_gone", "line 11: warrior_gone names the cells of the warriors gone"),
        ("5. blue warrior e3", "5. blue warrior b3", "line 12: blue cannot place a warrior on b3"),
    ],
)
def test_an_irregularity_at_fault_names_its_line(old: str, new: str, message: str) -> None:
    assert old in IRREGULAR
    with pytest.raises(RecordError, match=message.replace("|", r"\|")):
        parse(IRREGULAR.replace(old, new))


def test_a_warrior_that_moved_is_revealed_where_it_ends_and_one_gone_is_not_revealed() -> None:
    from engine.record import Event, Irregularity, Turn, hidden_at_end, whereabouts

    c3, c4 = Cell.parse("c3"), Cell.parse("c4")
    events: list[Event] = [Turn("orange", HiddenWarrior(c3)), Irregularity("warrior_moved", (c3, c4)),
                            Irregularity("warrior_gone", (c4,))]  # fmt: skip
    assert whereabouts(events[:2]) == {0: (c3, c4)} and whereabouts(events) == {0: (c3, None)}
    assert hidden_at_end(events[:2]) == {c4: (0, "orange")} and hidden_at_end(events) == {}


def test_a_cell_a_warrior_moved_from_and_a_later_turn_filled_is_revealed_by_where_each_ends() -> None:
    record = parse(REFILLED)
    assert dumps(record) == REFILLED and parse(dumps(record)) == record
    c3, d3, e3 = (Cell.parse(name) for name in ("c3", "d3", "e3"))
    assert record.reveal == ((c3, 2), (d3, 5), (e3, 1))
    # The warrior of turn 1 stands on d3 with its 5; the one turn 3 placed on c3 after it left has the 2.
    assert record.values_by_turn() == {0: 5, 1: 1, 3: 2}
    for state in (record.final_state(), record.replay().state):
        board = state.to_position()
        assert {(w.cell.name, w.player, w.value) for w in board.warriors} == {
            ("c3", "orange", 2), ("d3", "orange", 5), ("e3", "blue", 1),
        }  # fmt: skip
    # The result is the scoring of that board: a legal game that placed the warriors there scores it so.
    moves: list[Move] = [PlaceWarrior(d3, 5), PlaceWarrior(e3, 1), PlaceWarrior(c3, 2), Pass(), Pass()]
    legal = Record.of_moves(GameState.new(("orange", "blue"), GOLD_VALUES), moves)
    assert record.result is not None and record.result == legal.result
    with pytest.raises(RecordError, match="line 13: the result does not match the scoring"):
        parse(REFILLED.replace("orange 40, blue 0", "orange 0, blue 40"))
    # Keyed by the turns' cells the reveal names c3 twice, and d3 holds no warrior of blue's at the end.
    with pytest.raises(RecordError, match="line 11: c3 is revealed twice"):
        parse(REFILLED.replace("reveal orange c3=2 d3=5", "reveal orange c3=5 c3=2"))
    with pytest.raises(
        RecordError, match="line 12: no face-down warrior of blue's with a hidden value on d3"
    ):
        parse(REFILLED.replace("reveal blue e3=1", "reveal blue e3=1 d3=3"))
    # A warrior gone stands nowhere at the end: the reveal cannot name it, the record has no result.
    body = REFILLED.split("reveal")[0].replace(
        "5. orange pass", "! warrior_gone d3 {gone; kept}\n5. orange pass"
    )
    with pytest.raises(
        RecordError, match="line 12: no face-down warrior of orange's with a hidden value on d3"
    ):
        parse(body + "reveal orange c3=2 d3=5\nreveal blue e3=1\n")
    gone = parse(body + "reveal orange c3=2\nreveal blue e3=1\n")
    assert gone.values_by_turn() == {1: 1, 3: 2} and gone.result is None
    assert dumps(gone) == body + "reveal orange c3=2\nreveal blue e3=1\n"
