"""The review of a game (engine/review.py) and the planted blunders that test it (engine/blunders.py)."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest
from games import IRREGULAR, REFILLED

from engine.arena import play_game
from engine.blunders import (
    CHANCES,
    MAX_CELLS,
    MIN_DROP,
    PLAY_ITERATIONS,
    can_win,
    gold_in,
    planted_games,
    walling_builds,
)
from engine.board import Cell
from engine.game import Build, GameState, Move, Pass, PlaceWarrior
from engine.record import Irregularity, Record, dumps, parse
from engine.review import MARKS, Budget, mark, review, steps, table

SMALL = Budget(playouts=400, iterations=300)


def game(seed: int = 3) -> Record:
    """A whole 2-player game of the greedy player against itself: the same moves on every machine."""
    return parse(play_game(("greedy", "greedy"), seed, 0.0, record=True).record)


def moves_of(record: Record) -> list[Move]:
    todo, _ = steps(record)
    return [m for s in todo for m in (s.power, s.action) if m is not None]


def test_every_chance_is_a_probability_and_the_losses_follow_from_them() -> None:
    record = game()
    r = review(record, SMALL)
    assert len(r.turns) == len(record.turns) and r.total == len(record.turns) and not r.cut
    for t in r.turns:
        for chance in (t.chance_before, t.chance_after, t.preferred_chance):
            assert 0.0 <= chance <= 1.0
        assert t.preferred_chance >= t.chance_after
        assert t.loss == pytest.approx(t.preferred_chance - t.chance_after)
        assert t.mark == mark(t.loss)
    # The game's end is its result: the last turn's chance after is the winner's 1 or the loser's 0.
    assert r.turns[-1].chance_after in (0.0, 0.5, 1.0)


def test_a_clearly_losing_move_costs_more_than_the_move_the_engine_prefers() -> None:
    record = game()
    moves = moves_of(record)
    start = record.start()
    k = 12  # early on, the mover's hand still full of warriors
    prefix = moves[: k - 1]
    played = review(Record.of_moves(start, [*prefix, moves[k - 1]]), SMALL).turns[k - 1]
    # The engine's preferred move on turn k, played: it costs nothing (it is judged against itself).
    chosen = _move_named(start, prefix, played.preferred)
    good = review(Record.of_moves(start, [*prefix, chosen]), SMALL).turns[k - 1]
    # Passing with a hand of warriors: the player never moves again.
    bad = review(Record.of_moves(start, [*prefix, Pass()]), SMALL).turns[k - 1]
    assert good.loss <= 0.02
    assert bad.loss > good.loss + 0.10
    assert bad.chance_after < good.chance_after


def _move_named(start: GameState, prefix: list[Move], text: str) -> Move:
    state = start
    for move in prefix:
        state = state.play(move)
    return next(m for m in state.legal_moves() if str(m) == text)


def test_the_marks_start_at_5_10_and_20_points() -> None:
    assert dict(MARKS) == {"blunder": 0.20, "mistake": 0.10, "inaccuracy": 0.05}
    assert [mark(x) for x in (0.0, 0.0499, 0.05, 0.0999, 0.10, 0.1999, 0.20, 1.0)] == [
        "", "", "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder",
    ]  # fmt: skip


def test_the_same_seed_gives_the_same_review_and_another_seed_another() -> None:
    record = game(5)
    budget = replace(SMALL, playouts=200, iterations=100)
    first = review(record, budget)
    assert review(record, budget) == first
    assert review(record, replace(budget, seed=1)).turns != first.turns


def test_a_record_with_an_irregularity_is_reviewed_up_to_it() -> None:
    record = game()
    cut = 9
    events = (
        *record.events[:cut],
        Irregularity("warrior_moved", (), (), "a warrior moved"),
        *record.events[cut:],
    )
    irregular = replace(record, events=events)
    r = review(irregular, SMALL)
    assert len(r.turns) == cut and r.total == len(record.turns) and r.cut
    assert r.irregularity is not None and r.irregularity.kind == "warrior_moved"
    assert f"reviewed up to turn {cut} of {len(record.turns)}" in table(r)
    assert r.to_json()["irregularity"]["kind"] == "warrior_moved"


def test_progress_is_told_after_every_turn() -> None:
    record = game()
    said: list[tuple[int, int]] = []
    review(record, replace(SMALL, playouts=50, iterations=50), progress=lambda k, n: said.append((k, n)))
    n = len(record.turns)
    assert said == [(k, n) for k in range(1, n + 1)]


def test_a_planted_blunder_is_as_documented() -> None:
    budget = replace(SMALL, playouts=1000)
    plants = list(planted_games(2, ("greedy", "greedy"), 1, budget, max_games=40))
    assert plants, "no planted blunder in 40 games"
    # Two players alike play one game a seed: seat-swapped, it would be the same game again.
    assert len({plant.seed for plant in plants}) == len(plants)
    for plant in plants:
        todo, _ = steps(plant.record)
        step = todo[plant.index - 1]
        state = step.before
        assert step.action == plant.build and isinstance(plant.build, Build)
        # It closes a new territory of fewer than 8 cells holding gold that the side can no longer win,
        # out of a region where it still could.
        assert (plant.build, plant.territory) in walling_builds(state)
        mask = sum(c.bit for c in plant.territory)
        assert len(plant.territory) < MAX_CELLS and gold_in(state, plant.territory) > 0
        assert mask in step.after.walls.territories and mask not in state.walls.territories
        assert not can_win(state, mask)
        assert can_win(state, state.walls.territory_of[plant.territory[0].number])
        # While the game is open, and at a cost of 25 points or more.
        assert CHANCES[0] <= plant.chance_before <= CHANCES[1]
        assert plant.drop >= MIN_DROP
        # The planted game is a whole game, played on to its end.
        assert todo[-1].after.is_over and parse(dumps(plant.record)) == plant.record


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("ARMADORA_LONG_TESTS") != "1",
    reason="a quarter of an hour of games and reviews: set ARMADORA_LONG_TESTS=1 (never in CI)",
)
def test_a_planted_blunder_is_the_turn_the_review_marks_worst() -> None:
    """In 9 of 10 games where a side walled its own gold off on purpose, the review marks that turn worst
    (on games of the search against itself; half the review's playouts, to keep the test to minutes:
    ``armadora bench review --planted 10`` measures it with the whole budget). The games are searched
    for a fixed count of iterations a move (:data:`engine.blunders.PLAY_ITERATIONS`), so they, their
    plants and the reviews depend on the seeds alone, not on the machine's load; still a long run,
    by hand or in the background, like the renders and fits."""
    budget = Budget(playouts=1500, iterations=2000)
    plants = list(planted_games(10, ("ismcts", "ismcts"), PLAY_ITERATIONS, budget, max_games=200))
    assert len(plants) == 10
    hits = 0
    for plant in plants:
        worst = review(plant.record, budget).worst
        hits += worst is not None and worst.index == plant.index
    assert hits >= 9


def test_the_planted_games_depend_on_the_seed_alone() -> None:
    """The planted games' players think a fixed count of iterations a move, not a time: the same seeds
    give the same games and plants however loaded the machine (here with a small count)."""
    first = play_game(("ismcts", "ismcts"), 5, 0.0, record=True, iterations=40)
    again = play_game(("ismcts", "ismcts"), 5, 10.0, record=True, iterations=40)  # the time is not used
    assert first.record == again.record
    budget = Budget(playouts=200, iterations=50)
    plants = [list(planted_games(1, ("ismcts", "ismcts"), 40, budget, max_games=4)) for _ in range(2)]
    assert plants[0] and plants[0] == plants[1]


def test_the_review_goes_on_past_the_irregularities_kept_and_stops_at_one_to_settle() -> None:
    record = parse(IRREGULAR)
    r = review(record, SMALL)
    # The palisade taken away is still to settle: the review stops there, after turn 2 of 7.
    assert len(r.turns) == 2 and r.total == 7 and r.irregularity is not None
    assert r.irregularity.kind == "palisade_removed" and [i.kind for _, i in r.kept] == ["warrior_moved"]
    assert "still to settle" in table(r) and r.to_json()["irregularity"]["why"].startswith("it is still")
    # Kept, every turn is reviewed, from the board the irregularities made.
    settled = parse(IRREGULAR.replace("a5|b5; to settle", "a5|b5; kept"))
    r = review(settled, SMALL)
    assert [t.index for t in r.turns] == list(range(1, 8)) and not r.cut
    assert [(after, i.kind) for after, i in r.kept] == [
        (2, "warrior_moved"),
        (2, "palisade_removed"),
        (4, "double_turn"),
    ]
    assert [k["after"] for k in r.to_json()["kept"]] == [2, 2, 4]
    todo, _ = steps(settled)
    third = todo[2].before.to_position()
    assert third.warrior_at(Cell.parse("c4")) is not None and not third.palisades
    assert [t.mover for t in r.turns] == ["orange", "blue", "orange", "blue", "blue", "orange", "blue"]
    assert "after turn 4, kept and gone on past: ! double_turn d3" in table(r)
    # A warrior gone whose value nobody entered takes a stand-in; the turns go on.
    body, _ = IRREGULAR.replace("a5|b5; to settle", "a5|b5; kept").split("! double_turn")
    gone = body + "! warrior_gone b3 {gone; kept}\n5. orange warrior e3\n6. blue pass\n7. orange pass\n"
    gone += "reveal orange c4=5 e3=2\nreveal blue d3=1\n"
    gone_steps, stop = steps(parse(gone))
    assert stop is None and gone_steps[2].action == PlaceWarrior(Cell.parse("b3"), 1)


def test_the_review_gives_a_moved_warrior_and_the_one_placed_where_it_was_their_own_values() -> None:
    record = parse(REFILLED)
    todo, stop = steps(record)
    c3, e3 = Cell.parse("c3"), Cell.parse("e3")
    played = [PlaceWarrior(c3, 5), PlaceWarrior(e3, 1), PlaceWarrior(c3, 2)]
    assert stop is None and [s.action for s in todo[:3]] == played
    board = todo[-1].after.to_position()
    assert {(w.cell.name, w.value) for w in board.warriors} == {("c3", 2), ("d3", 5), ("e3", 1)}
    r = review(record, SMALL)
    assert [t.move for t in r.turns] == ["warrior c3 5", "warrior e3 1", "warrior c3 2", "pass", "pass"]
    assert [(after, i.kind) for after, i in r.kept] == [(2, "warrior_moved")] and r.irregularity is None
    assert r.turns[-1].mover == "orange" and r.turns[-1].chance_after == 1.0  # orange 40, blue 0
