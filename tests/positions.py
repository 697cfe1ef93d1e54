"""Helpers that build position documents for tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine import GOLD_CELLS, Position

Pair = tuple[tuple[int, int], tuple[int, int]]

# The gold layout of the issue's rule cases, in GOLD_CELLS order:
# (0,3)=3 (1,1)=4 (1,5)=4 (1,7)=5 (3,0)=5 (3,4)=6 (4,2)=6 (4,6)=7.
ISSUE_GOLD = (3, 4, 4, 5, 5, 6, 6, 7)


def document(
    players: Sequence[str] = ("orange", "blue"),
    *,
    gold: Sequence[int | None] = ISSUE_GOLD,
    warriors: Iterable[tuple[str, int | None, tuple[int, int]]] = (),
    palisades: Iterable[Pair] = (),
    variant: str = "armadora",
) -> dict[str, Any]:
    """A position document: warriors as (colour, value, cell), palisades as cell pairs."""
    return {
        "variant": variant,
        "players": list(players),
        "gold": [{"cell": list(c), "value": v} for c, v in zip(GOLD_CELLS, gold, strict=True)],
        "warriors": [{"cell": list(cell), "player": p, "value": v} for p, v, cell in warriors],
        "palisades": [[list(a), list(b)] for a, b in palisades],
    }


def position(players: Sequence[str] = ("orange", "blue"), **kwargs: Any) -> Position:
    return Position.from_json(document(players, **kwargs))
