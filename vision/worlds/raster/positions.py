"""Random legal positions to photograph: a game played by the engine's rules from the first move.

Playing real moves, rather than scattering pieces, keeps every position one
that :func:`engine.check.check` accepts: supplies, territories of at least 4
cells, at most 35 palisades.
"""

from __future__ import annotations

import random

from engine import SLOTS, Build, GameState, Move, Pass, Position
from engine.game import shuffled_gold

COLOURS: tuple[str, ...] = ("orange", "green", "blue", "purple")
STAGES: tuple[str, ...] = ("early", "mid", "late", "end")
# Moves played for each stage but the last, which plays on until every player has passed.
# A player passes only when nothing else is possible, so an ended game has a full board.
_STAGE_MOVES: dict[str, tuple[int, int]] = {"early": (2, 12), "mid": (13, 28), "late": (29, 48)}


def random_position(
    rng: random.Random, players: int, stage: str, colours: tuple[str, ...] = COLOURS
) -> tuple[Position, int]:
    """A position of ``players`` of ``colours`` in random turn order, and the moves played.

    The warriors lie face down: their values are None, as a photo shows them.
    """
    if stage not in STAGES:
        raise ValueError(f"stage must be one of {', '.join(STAGES)}, not {stage!r}")
    chosen = rng.sample(colours, players)
    state = GameState.new(chosen, gold=shuffled_gold(rng))
    lo, hi = _STAGE_MOVES.get(stage, (10_000, 10_000))
    moves = 0
    for _ in range(rng.randint(lo, hi)):
        if state.is_over:
            break
        state = state.play(_move(state, rng))
        moves += 1
    full = state.to_position()
    hidden = tuple(w._replace(value=None) for w in full.warriors)
    return Position(full.players, full.variant, full.gold, hidden, full.palisades), moves


def _move(state: GameState, rng: random.Random) -> Move:
    """A warrior or a build of one or two palisades, at even-ish odds; a pass only when stuck."""
    warriors = state.warrior_moves()
    legal = state.walls.legal_slot_numbers if state.palisades_left else ()
    if warriors and (not legal or rng.random() < 0.6):
        return rng.choice(warriors)
    if not legal:
        return Pass()
    first = rng.choice(legal)
    chosen = [first]
    if state.palisades_left >= 2 and rng.random() < 0.4:
        after = state.walls.add(first).legal_slot_numbers
        if after:
            chosen.append(rng.choice(after))
    return Build(tuple(SLOTS[i] for i in sorted(chosen)))
