"""Planted blunders: games in which one side walls its own gold off on purpose, to test the review.

A planted blunder (``docs/record.md``, "Review") is made from a real game, played by the engine's
players (:mod:`engine.arena`): at a turn of that game, the player to move builds instead one
palisade that closes a territory of fewer than :data:`MAX_CELLS` cells holding gold, with an
opponent's warrior in it and none of the mover's side, where before the build the mover's side
could still have won that gold (the region it lay in had an empty cell, and the mover a warrior
in hand). It is planted only while the mover's chance of winning (the review's playouts, every
value known) is between :data:`CHANCES` and the build drops it by :data:`MIN_DROP` or more: a
blunder in a game still open, not a loss already certain. Of the builds that qualify on the first
turn where one does, the one that drops the chance most; then the same players play the game on
to its end. The review of the planted game should mark that turn as its worst.

>>> from engine.board import GOLD_VALUES
>>> walling_builds(GameState.new(("orange", "blue"), GOLD_VALUES))  # nothing to wall off yet
[]
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from engine.arena import play_game
from engine.board import Cell, cells_of
from engine.game import Build, GameState, Move
from engine.knowledge import Knowledge
from engine.players import Player, make_player
from engine.position import sides_of
from engine.record import Record, parse
from engine.review import Budget, Judge, steps, turn_seed

#: A planted build closes a territory of fewer cells than this.
MAX_CELLS = 8
#: The mover's chance of winning before the build, low and high: a game still open.
CHANCES = (0.30, 0.90)
#: What the build must cost the mover's chance, at least.
MIN_DROP = 0.25
#: The first turn where a blunder may be planted (the board must have warriors to wall off).
FIRST_TURN = 3
#: The builds that qualify on a turn tried at most (those walling off the most gold first).
MAX_TRIED = 12
#: The iterations a move of the planted games' searching players (about 0.05 s of ISMCTS on this
#: machine): a fixed count, so that the games, the plants and their reviews depend on the seed alone.
PLAY_ITERATIONS = 2000


@dataclass(frozen=True)
class Plant:
    """A planted game: its whole record, the turn of the planted build (from 1), the build, the
    territory it closes, the mover's chance before and after it, and the game it came from."""

    record: Record
    index: int
    build: Build
    territory: tuple[Cell, ...]
    chance_before: float
    chance_after: float
    seed: int
    seats: tuple[str, ...]

    @property
    def drop(self) -> float:
        return self.chance_before - self.chance_after


def _side_mask(state: GameState, p: int) -> tuple[int, int]:
    """The cells of the warriors of ``p``'s side, and of everyone else's."""
    mine = theirs = 0
    for i, w in enumerate(state.warriors):
        if w is None:
            continue
        if w[0] == p or state.partners(w[0], p):
            mine |= 1 << i
        else:
            theirs |= 1 << i
    return mine, theirs


def walling_builds(state: GameState) -> list[tuple[Build, tuple[Cell, ...]]]:
    """The builds of the player to move (one palisade or two) that wall off gold their side could
    still win: each closes a new territory of fewer than :data:`MAX_CELLS` cells holding gold that
    the mover's side can no longer win (its warriors there, with its largest values in hand on every
    empty cell, would not outnumber the best opponent's), out of a region where it still could.
    With the territory each closes (the first such, of a build that closes two)."""
    if state.is_over or state.variant == "nuggets" or not state.palisades_left:
        return []
    walls = state.walls
    before = set(walls.territories)
    out: list[tuple[Build, tuple[Cell, ...]]] = []
    for build in state.build_moves():
        after = walls
        for slot in build.slots:
            after = after.add(slot)
        for territory in after.territories:
            if territory in before or territory.bit_count() >= MAX_CELLS or not territory & state.gold_mask:
                continue
            region = walls.territory_of[(territory & -territory).bit_length() - 1]
            if not can_win(state, territory) and can_win(state, region):
                out.append((build, cells_of(territory)))
                break
    return out


def gold_in(state: GameState, cells: Sequence[Cell]) -> int:
    """The gold on these cells."""
    where = {c: v for c, v in zip(state.gold_cells, state.gold, strict=True)}
    return sum(where.get(c, 0) for c in cells)


def can_win(state: GameState, region: int) -> bool:
    """Whether the side of the player to move could still take the region's gold alone: its warriors
    there, with its largest values in hand on the empty cells, above every other side's total."""
    p = state.to_move
    sides = sides_of(state.players)
    totals = dict.fromkeys(sides, 0)
    for i, w in enumerate(state.warriors):
        if w is not None and region >> i & 1:
            totals[sides[w[0] % len(sides)]] += w[1]
    mine = sides[p % len(sides)]
    hand = sorted((v for v in range(1, 6) for _ in range(state.supplies[p][v - 1])), reverse=True)
    empty = (region & state.empty_cells).bit_count()
    best = totals[mine] + sum(hand[:empty])
    return all(best > total for side, total in totals.items() if side != mine)


def find_plant(
    record: Record, budget: Budget, judge: Judge | None = None
) -> tuple[int, Build, tuple[Cell, ...], float, float] | None:
    """The turn of a finished record where the blunder planted costs most: (turn, build, territory,
    chance before, chance after), or None where no turn qualifies."""
    judge = judge or Judge(budget)
    low, high = CHANCES
    todo, _ = steps(record)
    best: tuple[int, Build, tuple[Cell, ...], float, float] | None = None
    for step in todo[FIRST_TURN - 1 :]:
        state = step.before
        builds = walling_builds(state)
        if not builds:
            continue
        seed = turn_seed(budget, step.index)
        mover = state.to_move
        before = judge.chance(state, mover, seed)
        if not low <= before <= high:
            continue
        builds = sorted(builds, key=lambda b: -gold_in(state, b[1]))[:MAX_TRIED]
        chances = [(judge.chance(state.play(build), mover, seed), build, cells) for build, cells in builds]
        after, build, cells = min(chances, key=lambda c: c[0])
        if before - after >= MIN_DROP and (best is None or before - after > best[3] - best[4]):
            best = step.index, build, cells, before, after
    return best


def play_on(state: GameState, seats: Sequence[str], iterations: int, seed: int) -> list[Move]:
    """The moves of ``seats``' players from ``state`` to the game's end, each seeing its own values and
    thinking ``iterations`` a move."""
    players: list[Player] = [make_player(name, iterations=iterations) for name in seats]
    streams = [random.Random(seed * 1000 + 500 + n) for n in range(len(seats))]
    moves: list[Move] = []
    while not state.is_over:
        p = state.to_move
        move = players[p].choose(Knowledge.of(state, state.players[p]), 0.0, streams[p])
        state = state.play(move)
        moves.append(move)
    return moves


def plant(record: Record, seats: Sequence[str], iterations: int, seed: int, budget: Budget) -> Plant | None:
    """A planted game made from a finished record (None where no turn of it qualifies): the record's
    moves up to the planted turn, the build, then ``seats``' players to the end."""
    found = find_plant(record, budget)
    if found is None:
        return None
    index, build, cells, before, after = found
    todo, _ = steps(record)
    start = record.start()
    moves: list[Move] = []
    for step in todo[: index - 1]:
        moves += [m for m in (step.power, step.action) if m is not None]
    state = todo[index - 1].before.play(build)
    moves += [build, *play_on(state, seats, iterations, seed)]
    planted = Record.of_moves(start, moves)
    return Plant(planted, index, build, cells, before, after, seed, tuple(seats))


def planted_games(
    count: int,
    seats: Sequence[str] = ("ismcts", "ismcts"),
    iterations: int = PLAY_ITERATIONS,
    budget: Budget | None = None,
    *,
    first_seed: int = 1,
    max_games: int = 400,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[Plant]:
    """Up to ``count`` planted games, from arena games of ``seats`` (seed after seed, seat-swapped
    unless alike, at ``iterations`` a move: the same games from the same seeds on any machine,
    however loaded) until ``count`` are found or ``max_games`` were tried. ``progress(found,
    tried)`` after each game tried."""
    budget = budget or Budget()
    if len(seats) != 2:
        raise ValueError("planted games are 2-player games")
    found = tried = 0
    seed = first_seed
    # Two players alike, seat-swapped, play the same game again: one game a seed then.
    layouts = [tuple(seats)] if seats[0] == seats[1] else [tuple(seats), tuple(reversed(seats))]
    while found < count and tried < max_games:
        for layout in layouts:
            if found >= count or tried >= max_games:
                break
            result = play_game(layout, seed, 0.0, record=True, iterations=iterations)
            tried += 1
            planted = plant(parse(result.record), layout, iterations, seed, budget)
            if planted is not None:
                found += 1
                yield planted
            if progress is not None:
                progress(found, tried)
        seed += 1
