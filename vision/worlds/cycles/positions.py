"""Legal positions to photograph, played with the engine's own rules.

A position is a game of 2, 3 or 4 players stopped early, midway or late: random legal moves
from ``engine.game`` (never a pass while a warrior or a palisade can go down, so games do
not end after two moves as a uniform pick among the move kinds would make them). Warriors
lie face down, so the truth gives their values as null.
"""

from __future__ import annotations

import random

from engine.board import GOLD_CELLS, Cell
from engine.game import GameState, Pass, playout, shuffled_gold
from engine.position import Gold, Position, Warrior

STAGES = ("early", "mid", "late")
CORNERS = (Cell(0, 0), Cell(0, 7), Cell(4, 0), Cell(4, 7))


def _step(state: GameState, rng: random.Random) -> GameState:
    """One move: a warrior six times in ten, a build otherwise, a pass only when nothing else."""
    warriors = state.warrior_moves()
    builds = state.build_moves() if not warriors or rng.random() < 0.4 else []
    if builds:
        return state.play(rng.choice(builds))
    if warriors:
        return state.play(rng.choice(warriors))
    return state.play(Pass())


def game_position(colours: tuple[str, ...], stage: str, rng: random.Random) -> Position:
    """A position of a game between ``colours`` (turn order) at ``stage``, warriors face down."""
    state = GameState.new(colours, gold=shuffled_gold(rng))
    if stage == "late" and rng.random() < 0.5:
        state = playout(state, rng)
    else:
        low, high = {"early": (2, 10), "mid": (12, 28), "late": (30, 48)}[stage]
        for _ in range(rng.randint(low, high)):
            if state.is_over:
                break
            state = _step(state, rng)
    known = state.to_position()
    return Position(
        players=known.players,
        variant=known.variant,
        gold=known.gold,
        warriors=tuple(Warrior(w.cell, w.player, None) for w in known.warriors),
        palisades=known.palisades,
    )


def setup_position(colours: tuple[str, ...], rng: random.Random) -> Position:
    """A calibration setup: the gold on its cells, one face-down warrior per colour on the corners."""
    values = shuffled_gold(rng)
    return Position(
        players=colours,
        gold=tuple(Gold(c, v) for c, v in zip(GOLD_CELLS, values, strict=True)),
        warriors=tuple(Warrior(cell, colour, None) for cell, colour in zip(CORNERS, colours, strict=False)),
    )
