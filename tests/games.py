"""Random whole games for the record's tests: a start and every move, powers included."""

from __future__ import annotations

import random

from engine.board import CELLS, GOLD_CELLS, NUM_SLOTS, SLOTS
from engine.game import Build, GameState, Move, Pass, shuffled_gold
from engine.position import CHARACTERS
from engine.walls import Walls

COLOURS = ("orange", "green", "blue", "purple")
VARIANTS = ("armadora", "nuggets", "armadora-advanced")


def random_start(rng: random.Random, variant: str, players: int) -> GameState:
    """A new game: shuffled gold, characters dealt; a Nuggets game lays its markers anywhere half the time."""
    colours = tuple(rng.sample(COLOURS, players))
    characters = tuple(rng.sample(CHARACTERS, players)) if variant == "armadora-advanced" else ()
    if variant == "nuggets" and rng.random() < 0.5:
        cells = tuple(sorted(rng.sample(CELLS, 8)))
        return GameState.new(colours, [rng.randint(1, 12) for _ in cells], variant, (), cells)
    return GameState.new(colours, shuffled_gold(rng), variant, characters, GOLD_CELLS)


def _random_slot(walls: Walls, rng: random.Random) -> int | None:
    """A free line a palisade may stand on, by a few random tries, then from the full list."""
    for _ in range(12):
        slot = rng.randrange(NUM_SLOTS)
        if walls.is_legal(slot):
            return slot
    legal = walls.legal_slot_numbers
    return rng.choice(legal) if legal else None


def random_build(state: GameState, rng: random.Random) -> Build | None:
    """One or two palisades at random (two in Nuggets while two fit), None if none fits: a legal move."""
    a = _random_slot(state.walls, rng)
    if a is None:
        return None
    if (state.variant != "nuggets" and rng.random() < 0.5) or state.palisades_left == 1:
        return Build((SLOTS[a],))
    b = _random_slot(state.walls.add(a), rng)
    if b is not None:
        return Build(tuple(sorted((SLOTS[a], SLOTS[b]), key=lambda s: s.number)))
    pairs = state.walls.legal_pairs() if state.variant == "nuggets" else ()
    return Build(tuple(SLOTS[i] for i in rng.choice(pairs))) if pairs else Build((SLOTS[a],))


def random_turn_move(state: GameState, rng: random.Random) -> Move:
    """A random legal move: a power or the reinforcement a third of the time they are on offer, else
    a warrior or a build at even odds, a pass one time in twenty (or when nothing else is left)."""
    extras: list[Move] = [*state.power_moves(), *state.reinforce_moves()]
    if extras and rng.random() < 0.33:
        return rng.choice(extras)
    warriors = state.warrior_moves()
    build = random_build(state, rng) if state.palisades_left else None
    choices: list[Move] = [m for m in (rng.choice(warriors) if warriors else None, build) if m is not None]
    if not choices or rng.random() < 0.05:
        return Pass()
    return rng.choice(choices)


def random_game(rng: random.Random, variant: str, players: int) -> tuple[GameState, list[Move]]:
    """A game played to its end by random moves (:func:`random_turn_move`)."""
    start = state = random_start(rng, variant, players)
    moves: list[Move] = []
    while not state.is_over:
        move = random_turn_move(state, rng)
        moves.append(move)
        state = state.play(move)
    return start, moves


#: A record with irregularities kept and to settle: a warrior moved, a palisade taken away, a double
#: turn (the tests of the record and of the review).
IRREGULAR = """armadora-record 1
variant armadora
players orange blue
gold d5=7 b4=6 f4=6 h4=5 a2=5 e2=4 c1=4 g1=3
1. orange warrior c3
2. blue palisade a5|b5
! warrior_moved c3 c4 {the orange warrior on c3 stands on c4 now; kept}
! palisade_removed a5|b5 {palisade taken away: a5|b5; to settle}
3. orange warrior b3
4. blue warrior d3
! double_turn d3 {blue played twice; kept}
5. blue warrior e3
6. orange pass
7. blue pass
reveal orange c4=5 b3=4
reveal blue d3=1 e3=2
"""

#: A record in which a warrior moved (kept) from c3 to d3 and a later turn placed another on c3: the
#: reveal names each warrior by the cell it stands on at the end (the tests of the record, of the
#: turns and of the review).
REFILLED = """armadora-record 1
variant armadora
players orange blue
gold d5=7 b4=6 f4=6 h4=5 a2=5 e2=4 c1=4 g1=3
1. orange warrior c3
2. blue warrior e3
! warrior_moved c3 d3 {the orange warrior on c3 stands on d3 now; kept}
3. orange warrior c3
4. blue pass
5. orange pass
reveal orange c3=2 d3=5
reveal blue e3=1
result orange 40, blue 0; ranking orange, blue
"""
