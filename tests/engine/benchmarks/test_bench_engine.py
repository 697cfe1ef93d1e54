"""Benchmarks of the rules engine's hot paths.

The normal suite runs each once (``--benchmark-disable`` is in addopts) and checks its
result; to time them::

    .venv/bin/pytest tests/engine/benchmarks --benchmark-enable --benchmark-only -q

Targets (medians): palisade legality <= 10 us, full scoring <= 50 us,
all legal moves of a mid-game position <= 5 ms, a random game <= 2 ms.
Every benchmark asserts what it computed, never how long it took.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from typing import Any

from reference import bfs_territories

from engine.board import GOLD_MASK, MIN_TERRITORY, NUM_SLOTS, SLOTS, TOTAL_PALISADES, Slot
from engine.check import check
from engine.game import Build, GameState, Pass, PlaceWarrior, playout, shuffled_gold
from engine.position import Position
from engine.scoring import Score, score
from engine.walls import EMPTY_WALLS, Walls

PLAYERS = ("orange", "blue")
BOARD_SEED = 9  # a 30-palisade board with both kinds of candidate line
GAME_SEED = 2024
MIDGAME_SEED = 7

Setup = Callable[[], tuple[tuple[Any, ...], dict[str, Any]]]


# --------------------------------------------------------------------------------------------------
# Fixtures built once, deterministically


@cache
def board_of_30() -> tuple[Slot, ...]:
    """Thirty palisades put up one by one on random legal lines (seeded)."""
    rng = random.Random(BOARD_SEED)
    walls = EMPTY_WALLS
    while walls.count < 30:
        walls = walls.add(rng.choice(walls.legal_slot_numbers))
    return tuple(walls)


def free_slots(walls: Walls) -> list[int]:
    return [i for i in range(NUM_SLOTS) if i not in walls]


def legality_candidates() -> tuple[Walls, int, int]:
    """A fresh 30-palisade board, a legal line that splits a territory, and one that splits none."""
    walls = Walls.from_slots(board_of_30())
    splitting = [i for i in free_slots(walls) if walls.splits(i) and walls.is_legal(i)]
    plain = [i for i in free_slots(walls) if not walls.splits(i)]
    assert splitting and plain, "the seeded board lacks a kind of candidate"
    # A new Walls: the one above has answered questions already.
    return Walls.from_slots(board_of_30()), splitting[-1], plain[0]


@cache
def finished_game() -> Position:
    rng = random.Random(GAME_SEED)
    final = playout(GameState.new(PLAYERS, shuffled_gold(rng)), rng)
    assert final.is_over
    return final.to_position()


def fresh_copy(position: Position) -> Position:
    """The same position as a new object: its walls and territories are not cached yet."""
    return Position(
        players=position.players,
        variant=position.variant,
        gold=position.gold,
        warriors=position.warriors,
        palisades=frozenset(position.palisades),
    )


@cache
def midgame() -> tuple[GameState, Build]:
    """A 2-player game with 10 warriors and 14 palisades, and a legal build of the 15th palisade."""
    rng = random.Random(MIDGAME_SEED)
    state = GameState.new(PLAYERS, shuffled_gold(rng))
    warriors = 0
    while warriors < 10 or state.walls.count < 14:
        if warriors < 10 and (state.walls.count >= 14 or rng.random() < 0.5):
            moves = state.warrior_moves()
            state = state.play(moves[int(rng.random() * len(moves))])
            warriors += 1
        else:
            slot = rng.choice(state.walls.legal_slot_numbers)
            state = state.play(Build((SLOTS[slot],)))
    last = Build((SLOTS[rng.choice(state.walls.legal_slot_numbers)],))
    return state, last


# --------------------------------------------------------------------------------------------------
# Palisade legality


def test_bench_palisade_legality(benchmark: Any) -> None:
    """One Walls.is_legal call for a line that cuts a territory in two (the flood path)."""
    walls, candidate, _ = legality_candidates()
    assert walls.count == 30 and walls.splits(candidate)
    walls.is_legal(candidate)  # the lattice labels are built once, then carried from move to move
    legal = benchmark(walls.is_legal, candidate)
    assert legal is True
    after = set(walls) | {SLOTS[candidate]}
    sizes = [len(t) for t in bfs_territories(after)]
    assert len(sizes) == len(bfs_territories(walls)) + 1, "the candidate does not split"
    assert min(sizes) >= MIN_TERRITORY


def test_bench_palisade_legality_no_split(benchmark: Any) -> None:
    """One Walls.is_legal call for a line that closes no territory (the cheap path)."""
    walls, _, candidate = legality_candidates()
    assert walls.count == 30 and not walls.splits(candidate)
    walls.is_legal(candidate)
    legal = benchmark(walls.is_legal, candidate)
    assert legal is True
    assert len(bfs_territories(set(walls) | {SLOTS[candidate]})) == len(bfs_territories(walls))


# --------------------------------------------------------------------------------------------------
# Scoring


def test_bench_full_scoring(benchmark: Any) -> None:
    """engine.scoring.score of a finished 2-player game, the walls and territories built each round."""
    position = finished_game()
    expected: Score = score(fresh_copy(position))
    setup: Setup = lambda: ((fresh_copy(position),), {})  # noqa: E731
    result = benchmark.pedantic(score, setup=setup, rounds=2000, warmup_rounds=20)
    assert result == expected
    assert len(result.territories) == len(bfs_territories(position.palisades))
    scored = sum(Fraction(v) for v in result.scores.values())
    lost = sum(Fraction(t.lost) for t in result.territories)
    assert scored + lost + result.unclaimed == 40
    assert scored > 0


# --------------------------------------------------------------------------------------------------
# Move generation


def test_bench_all_legal_moves(benchmark: Any) -> None:
    """GameState.legal_moves of a mid-game position (15 palisades, 10 warriors), fresh walls each round."""
    before, last = midgame()
    setup: Setup = lambda: ((before.play(last),), {})  # noqa: E731
    moves = benchmark.pedantic(GameState.legal_moves, setup=setup, rounds=100, warmup_rounds=2)

    state = before.play(last)
    assert state.walls.count == 15 and sum(w is not None for w in state.warriors) == 10
    assert moves == state.legal_moves()
    assert len(moves) == len(set(moves))
    assert moves[-1] == Pass()
    placements = [m for m in moves if isinstance(m, PlaceWarrior)]
    builds = [m for m in moves if isinstance(m, Build)]
    empty = 40 - (GOLD_MASK | state.occupied).bit_count()
    values = sum(1 for n in state.supplies[state.to_move] if n)
    assert len(placements) == empty * values
    assert sum(len(b.slots) == 1 for b in builds) == len(state.walls.legal_slot_numbers) > 0
    assert sum(len(b.slots) == 2 for b in builds) > 0
    assert len(placements) + len(builds) + 1 == len(moves)
    assert all(state.why_illegal(b) is None for b in builds)


# --------------------------------------------------------------------------------------------------
# A whole game


def test_bench_random_game(benchmark: Any) -> None:
    """engine.game.playout from GameState.new to the end, 2 players, the same seeded game each round."""

    def setup() -> tuple[tuple[GameState, random.Random], dict[str, Any]]:
        rng = random.Random(GAME_SEED)
        return (GameState.new(PLAYERS, shuffled_gold(rng)), rng), {}

    final = benchmark.pedantic(playout, setup=setup, rounds=300, warmup_rounds=5)
    assert final.is_over
    assert final.to_position() == finished_game()
    assert check(final.to_position()).legal
    assert final.walls.count <= TOTAL_PALISADES and final.walls.legal_slot_numbers == ()
