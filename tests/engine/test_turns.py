"""Turns from photos (engine/turns.py): random games photographed every 1, 2 and 3 turns give back
their turns wherever the order is certain, and planted irregularities are found."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import pytest
from games import REFILLED, VARIANTS, random_game

from engine.board import CELLS, GOLD_VALUES, Cell, Slot
from engine.game import POWERS, GameState, Move, Pass, Peek, PlaceWarrior
from engine.position import Position, Warrior
from engine.record import HiddenWarrior, Irregularity, Record, Turn, dumps, parse, resume
from engine.supply import supply_for
from engine.turns import Inference, infer


@dataclass(frozen=True)
class Photographed:
    """A game photographed every few turns: the photos and, for each, the turns since the one before."""

    start: GameState
    moves: tuple[Move, ...]
    photos: tuple[Position, ...]
    turns: tuple[tuple[Turn, ...], ...]  # as photos show them: face-down values hidden, no Mage's look;
    # one more gap than photos: the passes that end the game


def photograph(start: GameState, moves: Sequence[Move], every: int) -> Photographed:
    """A photo after every ``every`` turns and after the last one (a power and its action: one turn)."""
    truth = [
        replace(t, power=None) if isinstance(t.power, Peek) else t
        for t in Record.of_moves(start, moves).turns
    ]
    photos, gaps = [], []
    state, done, since = start, 0, 0
    for move in moves:
        state = state.play(move)
        if isinstance(move, POWERS):
            continue
        done += 1
        if done % every == 0 or done == len(truth):
            photos.append(as_photographed(state.to_position()))
            gaps.append(list(truth[since:done]))
            since = done
    # Nobody photographs a pass: a pass belongs to the gap of the next turn a photo shows, and the
    # passes after the last photo to the end of the game.
    gaps.append([])
    for n in range(len(gaps) - 1):
        while gaps[n] and isinstance(gaps[n][-1].action, Pass) and gaps[n][-1].power is None:
            gaps[n + 1].insert(0, gaps[n].pop())
    return Photographed(start, tuple(moves), tuple(photos), tuple(tuple(g) for g in gaps))


def as_photographed(position: Position) -> Position:
    """The position as a photo reads it: the values of face-down warriors unseen."""
    warriors = tuple(w if w.face_up else w._replace(value=None) for w in position.warriors)
    return replace(position, warriors=warriors, powers_left=(), reinforcements_left=())


def game(seed: int) -> tuple[GameState, list[Move]]:
    return random_game(random.Random(seed), VARIANTS[seed % 3], 2 + seed // 3 % 3)


#: The long runs (``slow``): 504 games, each photographed every 1, 2 and 3 turns; the fast run's few.
GAMES = [pytest.param(12, id="12-games"), pytest.param(504, id="504-games", marks=pytest.mark.slow)]


@pytest.mark.parametrize("games", GAMES)
@pytest.mark.parametrize("every", [1, 2, 3])
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_turns_inferred_are_the_true_ones_wherever_the_order_is_certain(
    variant: str, every: int, games: int
) -> None:
    """Seed ``n`` plays the variant ``n % 3`` with 2-4 players: a third of the games each."""
    for seed in range(VARIANTS.index(variant), games, 3):
        start, moves = game(seed)
        shot = photograph(start, moves, every)
        inference = infer(shot.photos, finished=True)
        assert not inference.irregularities, (seed, every, inference.irregularities)
        for gap, truth in zip(inference.gaps, shot.turns, strict=True):
            for n, (turn, sure) in enumerate(zip(gap.turns, gap.certain, strict=True)):
                if sure:
                    assert turn == truth[n], (seed, every, gap.number, n)
                else:
                    assert turn.note.startswith("uncertain: ")
        # The order chosen is a legal game: with the values revealed, the record scores as the game did.
        values = {w.cell: w.value for w in start_values(shot)}
        record = inference.record(reveal=values)
        again = parse(dumps(record))
        assert again.result is not None and dict(again.result.scores) == dict(final_score(shot))


def start_values(shot: Photographed) -> list:  # type: ignore[type-arg]
    state = shot.start
    for move in shot.moves:
        state = state.play(move)
    return list(state.to_position().warriors)


def final_score(shot: Photographed) -> dict[str, float]:
    state = shot.start
    for move in shot.moves:
        state = state.play(move)
    return dict(state.score().scores)


def empty_cells(position: Position) -> list[Cell]:
    """Cells with neither gold nor a warrior."""
    taken = {w.cell for w in position.warriors} | {g.cell for g in (position.markers or position.gold)}
    return [c for c in CELLS if c not in taken]


def planted(photos: Sequence[Position], at: int, change: Callable[[Position], Position]) -> list[Position]:
    """The photos with ``change`` made to photo ``at`` and every later one."""
    return [*photos[:at], *(change(p) for p in photos[at:])]


def found(inference: Inference, kind: str, gap: int) -> list[Irregularity]:
    return [i for g in inference.gaps if g.number == gap for i in g.irregularities if i.kind == kind]


@pytest.mark.parametrize("games", GAMES)
@pytest.mark.parametrize("every", [1, 2, 3])
def test_a_warrior_moved_or_a_palisade_taken_away_is_found_where_it_happened(every: int, games: int) -> None:
    """Half the games (every other seed: each variant and count of players), a plant of each kind."""
    moved = removed = 0
    for seed in range(0, games, 2):
        rng = random.Random(seed)
        shot = photograph(*game(seed), every)
        if len(shot.photos) < 3:
            continue
        at = rng.randrange(1, len(shot.photos) - 1)
        earlier, final = shot.photos[at - 1], shot.photos[-1]
        if earlier.warriors and empty_cells(final):
            w, to = rng.choice(earlier.warriors), rng.choice(empty_cells(final))

            def move(p: Position, w: Warrior = w, to: Cell = to) -> Position:
                return replace(
                    p,
                    warriors=(
                        *(x for x in p.warriors if x.cell != w.cell),
                        p.warrior_at(w.cell)._replace(cell=to),
                    ),
                )  # type: ignore[union-attr]

            inference = infer(planted(shot.photos, at, move), finished=True)
            hits = found(inference, "warrior_moved", at + 1)
            assert hits and w.cell in hits[0].cells, (seed, every, at)
            moved += 1
        if earlier.palisades:
            slot = rng.choice(sorted(earlier.palisades))

            def take(p: Position, slot: Slot = slot) -> Position:
                return replace(p, palisades=p.palisades - {slot})

            inference = infer(planted(shot.photos, at, take))
            hits = found(inference, "palisade_removed", at + 1)
            assert hits and slot in hits[0].slots, (seed, every, at)
            removed += 1
    assert moved > games // 4 and removed > games // 4


@pytest.mark.parametrize("games", GAMES)
def test_a_player_who_played_twice_is_found_once_another_plays_again(games: int) -> None:
    planted_count = 0
    for seed in range(games):
        rng = random.Random(seed)
        start, moves = game(seed)
        shot = photograph(start, moves, 1)
        truth = [t for gap in shot.turns for t in gap]
        # A turn that placed a warrior: its photo then shows two, and every other player places a
        # warrior later (who else would have had to pass in between). After a build, the extra turn
        # could be anyone's palisade: nothing would tell.
        chances = [
            n for n, t in enumerate(truth[:-1])
            if isinstance(t.action, HiddenWarrior) and t.power is None
            and placers(truth[n + 1 :]) >= set(start.players) - {t.player}
        ]  # fmt: skip
        final = shot.photos[-1]
        if not chances or not empty_cells(final):
            continue
        n = rng.choice(chances)
        player = truth[n].player
        if sum(w.player == player for w in final.warriors) == sum(supply_for(len(start.players))):
            continue  # no warrior left to play twice with
        cell = rng.choice(empty_cells(final))
        at = photo_after_turn(shot, n)

        extra = Warrior(cell, player, None)

        def add(p: Position, extra: Warrior = extra) -> Position:
            return replace(p, warriors=(*p.warriors, extra))

        inference = infer(planted(shot.photos, at, add))
        hits = [
            i for g in inference.gaps if g.number > at for i in g.irregularities if i.kind == "double_turn"
        ]
        assert hits, (seed, n)
        planted_count += 1
    assert planted_count > games // 3


def placers(turns: Sequence[Turn]) -> set[str]:
    """The players who place a face-down warrior in these turns."""
    return {t.player for t in turns if isinstance(t.action, HiddenWarrior)}


def photo_after_turn(shot: Photographed, n: int) -> int:
    """The index of the first photo that shows turn ``n`` (0-based) played."""
    done = 0
    for index, gap in enumerate(shot.turns):
        done += len(gap)
        if done > n:
            return index
    raise AssertionError(n)


def test_a_warrior_moved_then_its_cell_filled_gives_the_record_revealed_where_each_warrior_ends() -> None:
    c3, d3, e3 = (Cell.parse(name) for name in ("c3", "d3", "e3"))
    first = GameState.new(("orange", "blue"), GOLD_VALUES).play(PlaceWarrior(c3, 5))
    second = first.play(PlaceWarrior(e3, 1))
    moved = resume(second, Irregularity("warrior_moved", (c3, d3)), None)  # at the table, between photos
    third = moved.play(PlaceWarrior(c3, 2))
    photos = [as_photographed(s.to_position()) for s in (first, second, moved, third)]
    # The values as the players enter them on the last board: by the cells they see.
    record = infer(photos, finished=True).record(reveal={c3: 2, d3: 5, e3: 1})
    kept = tuple(replace(e, kept=True) if isinstance(e, Irregularity) else e for e in record.events)
    assert dumps(replace(record, events=kept)) == REFILLED
