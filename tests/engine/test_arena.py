"""The arena's bookkeeping: seatings, shared seeds, shares of a win, summaries; and whole games."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from engine.arena import GameResult, deal, jobs, play_game, run, seatings, summarize
from engine.ratings import elo, wilson
from engine.search_commands import record_name, register


def test_seat_swapped_pairs_share_their_seed() -> None:
    todo = jobs(("ismcts", "greedy"), 2, 5, 0.8, None)
    assert len(todo) == 6  # whole pairs
    assert [(seats, seed) for seats, seed, *_ in todo[:2]] == [
        (("ismcts", "greedy"), 1),
        (("greedy", "ismcts"), 1),
    ]
    assert len({seed for _, seed, *_ in todo}) == 3


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_each_group_gives_the_first_player_every_seat_once(seats: int) -> None:
    groups = seatings(("a", "b"), seats)
    if seats == 4:
        assert groups == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    else:
        assert len(groups) == seats
        assert sorted(g.index("a") for g in groups) == list(range(seats))
        assert all(g.count("a") == 1 for g in groups)


def test_summaries_count_a_team_game_once_and_ties_half() -> None:
    team = [GameResult(("a", "b", "a", "b"), 1, (1.0, 0.0, 1.0, 0.0), 40, (0, 0, 0, 0))] * 3
    summary = summarize(("a", "b"), 4, team)
    assert (summary.games, summary.score, summary.fair) == (3, 3.0, 0.5)
    duel = [
        GameResult(("a", "b"), 1, (0.5, 0.5), 40, (0, 0)),
        GameResult(("b", "a"), 1, (1.0, 0.0), 40, (0, 0)),
    ]
    summary = summarize(("a", "b"), 2, duel)
    assert summary.score == 0.5 and summary.rate == 0.25
    assert summary.interval == wilson(0.5, 2) and summary.elo == elo(0.25)
    three = [GameResult(("b", "a", "b"), 1, (0.0, 1.0, 0.0), 40, (0, 0, 0))]
    summary = summarize(("a", "b"), 3, three)
    assert summary.fair == pytest.approx(1 / 3) and summary.elo is None
    assert "fair share 33.3 %" in summary.text() and "Elo" not in summary.text()


def test_an_advanced_match_is_summed_up_by_the_character_each_game_dealt() -> None:
    results = run(("greedy", "random"), 2, 8, 0.01, kernel="python", variant="armadora-advanced")
    summary = summarize(("greedy", "random"), 2, results)
    assert sum(games for _, _, games in summary.by_character) == summary.games == 8
    assert sum(score for _, score, _ in summary.by_character) == pytest.approx(summary.score)
    # A seat-swapped pair deals the same two characters, one to each player in turn.
    for first, second in zip(results[::2], results[1::2], strict=True):
        assert first.characters == second.characters and len(set(first.characters)) == 2
    assert "greedy by character: " in summary.text()
    assert set(summary.to_json()["by_character"]) == {name for name, _, _ in summary.by_character}
    plain = summarize(("greedy", "random"), 2, run(("greedy", "random"), 2, 2, 0.01, kernel="python"))
    assert plain.by_character == () and "by character" not in plain.text()


@pytest.mark.parametrize("seats", [("greedy", "random"), ("random", "greedy", "random"), ("greedy",) * 4])
def test_games_end_with_shares_that_add_up(seats: tuple[str, ...]) -> None:
    result = play_game(seats, seed=3, seconds=0.01)
    sides = 2 if len(seats) == 4 else len(seats)
    assert result.turns > 0
    assert sum(result.shares[:sides]) == pytest.approx(1.0)
    again = play_game(seats, seed=3, seconds=0.01)  # the seed decides the gold and every random choice
    assert (again.shares, again.turns) == (result.shares, result.turns)


def test_jobs_carry_the_iterations_a_move() -> None:
    assert {job[-1] for job in jobs(("ismcts", "greedy"), 2, 4, 0.8, None, iterations=50)} == {50}
    assert {job[-1] for job in jobs(("ismcts", "greedy"), 2, 4, 0.8, None)} == {None}


def _arena_records(folder: Path, *options: str) -> dict[str, str]:
    """The records of a 2-game arena, ismcts against greedy, by file name."""
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["arena", "--players", "ismcts,greedy", "--games", "2", "--processes", "1",
                              "--record", str(folder), *options])  # fmt: skip
    assert args.run(args) == 0
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())}


def test_arena_iterations_make_the_games_independent_of_the_time(tmp_path: Path) -> None:
    """With --iterations the searching players think that many iterations whatever --time says, so
    that a loaded machine plays the same games, move for move: those of the match played here."""
    quick = _arena_records(tmp_path / "quick", "--iterations", "40", "--time", "0.001", "--seed", "5")
    slow = _arena_records(tmp_path / "slow", "--iterations", "40", "--time", "0.5", "--seed", "5")
    here = run(("ismcts", "greedy"), 2, 2, 9.0, first_seed=6, record=True, iterations=40)
    assert len(quick) == 2
    assert quick == slow == {record_name(r): r.record for r in here}


def test_a_character_screen_plays_the_seeds_that_deal_it_to_the_first_player() -> None:
    todo = jobs(("ismcts", "greedy"), 2, 12, 0.1, None, 40, "armadora-advanced", character="orc")
    assert len(todo) == 12 and len({seed for _, seed, *_ in todo}) == 12
    for layout, seed, *_ in todo:
        assert seed >= 40 and deal(seed, 2, "armadora-advanced")[1][layout.index("ismcts")] == "orc"
    skipped = set(range(40, todo[-1][1])) - {seed for _, seed, *_ in todo}
    assert skipped and all("orc" not in deal(seed, 2, "armadora-advanced")[1] for seed in skipped)
    for variant, seats in (("armadora", 2), ("armadora-advanced", 3)):
        with pytest.raises(ValueError, match="only in the 2-player advanced game"):
            jobs(("ismcts", "greedy"), seats, 2, 0.1, None, 1, variant, character="orc")


def test_the_arena_says_what_a_character_screen_needs(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["arena", "--players", "ismcts,greedy", "--character", "elf"])
    assert args.run(args) != 0
    assert "--variant armadora-advanced" in capsys.readouterr().err
