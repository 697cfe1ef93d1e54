"""End-of-game scoring: territories, shares, totals and the ranking with its tie-break.

>>> from engine.board import GOLD_CELLS, GOLD_VALUES
>>> from engine.position import Position
>>> pos = Position.from_json({
...     "players": ["orange", "blue"],
...     "gold": [{"cell": list(c), "value": v} for c, v in zip(GOLD_CELLS, GOLD_VALUES)],
...     "warriors": [{"cell": [2, 2], "player": "orange", "value": 3},
...                  {"cell": [2, 3], "player": "blue", "value": 3}],
... })
>>> result = score(pos)
>>> result.scores, result.territories[0].lost
({'orange': 20, 'blue': 20}, 0)
>>> result.ranking
(('orange', 'blue'),)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from engine.board import Cell, cells_of
from engine.position import Position

Points = int | float


class ScoringError(ValueError):
    """A position that cannot be scored yet (hidden values, unread gold, unsupported variant)."""


def points(halves: int) -> Points:
    """Half points as a number: a whole number stays an ``int``.

    >>> points(7), points(8)
    (3.5, 4)
    """
    return halves // 2 if halves % 2 == 0 else halves / 2


@dataclass(frozen=True)
class TerritoryResult:
    """One territory: its gold, each side's warrior total, who wins and what each winner gets."""

    cells: tuple[Cell, ...]
    gold: int
    totals: Mapping[str, int]
    winners: tuple[str, ...]
    share: Points
    lost: Points

    def to_json(self) -> dict[str, Any]:
        return {
            "cells": [list(c) for c in self.cells],
            "gold": self.gold,
            "totals": dict(self.totals),
            "winners": list(self.winners),
            "share": self.share,
            "lost": self.lost,
        }


@dataclass(frozen=True)
class Score:
    """A scored game.

    ``winnings`` holds each side's takes from single territories, best first:
    the tie-break compares them in that order. ``tiebreaks`` explains in words
    every tie on gold and how it was decided.
    """

    territories: tuple[TerritoryResult, ...]
    scores: Mapping[str, Points]
    winnings: Mapping[str, tuple[Points, ...]]
    ranking: tuple[tuple[str, ...], ...]
    tiebreaks: tuple[str, ...]
    unclaimed: int

    def to_json(self) -> dict[str, Any]:
        return {
            "territories": [t.to_json() for t in self.territories],
            "scores": dict(self.scores),
            "winnings": {side: list(w) for side, w in self.winnings.items()},
            "ranking": [list(place) for place in self.ranking],
            "tiebreaks": list(self.tiebreaks),
            "unclaimed": self.unclaimed,
        }


def score(position: Position) -> Score:
    """Score a finished position; every warrior value and gold value must be known."""
    hidden = position.hidden_warriors()
    if hidden:
        names = ", ".join(f"{w.cell.name} ({w.player})" for w in hidden)
        raise ScoringError(f"{len(hidden)} warrior value(s) still hidden: {names}")
    unread = [g.cell.name for g in position.gold if g.value is None]
    if unread:
        raise ScoringError(f"gold value(s) not read: {', '.join(unread)}")
    if position.variant == "armadora-advanced":
        raise ScoringError("scoring the armadora-advanced variant is not supported yet")
    strayed = [w for w in position.warriors if w.player not in position.players]
    if strayed:
        names = ", ".join(f"{w.cell.name} ({w.player})" for w in strayed)
        raise ScoringError(f"warrior(s) of a colour not in the game: {names}")

    sides = position.sides
    gold_by_cell = {g.cell.number: g.value for g in position.gold if g.value is not None}
    strength = [[0] * 40 for _ in sides]
    for w in position.warriors:
        if w.value is not None:
            strength[sides.index(position.side_of(w.player))][w.cell.number] = w.value
    territories = position.walls.territories
    halves, results = score_masks(
        territories, gold_by_cell, strength, half_points=position.variant == "nuggets"
    )
    out = []
    for region, (gold, totals, winners, share_h, lost_h) in zip(territories, results, strict=True):
        out.append(
            TerritoryResult(
                cells_of(region),
                gold,
                dict(zip(sides, totals, strict=True)),
                tuple(sides[i] for i in winners),
                points(share_h),
                points(lost_h),
            )
        )
    winnings = {side: tuple(points(h) for h in halves[i]) for i, side in enumerate(sides)}
    scores = {side: points(sum(halves[i])) for i, side in enumerate(sides)}
    ranking, tiebreaks = rank(sides, [sum(h) for h in halves], halves)
    unclaimed = sum(t.gold for t in out if not t.winners)
    return Score(tuple(out), scores, winnings, ranking, tiebreaks, unclaimed)


def score_masks(
    territories: tuple[int, ...],
    gold_by_cell: Mapping[int, int],
    strength: list[list[int]],
    *,
    half_points: bool = False,
) -> tuple[list[list[int]], list[tuple[int, list[int], list[int], int, int]]]:
    """Score territory masks; the fast core of :func:`score`.

    ``strength[side][cell]`` is the warrior value a side has on a cell. Returns
    each side's winnings in half points, best first, and per territory its
    gold, the sides' totals, the winners' indices, the share and the lost
    remainder (both in half points).
    """
    halves: list[list[int]] = [[] for _ in strength]
    results = []
    for region in territories:
        gold = 0
        for index, value in gold_by_cell.items():
            if region >> index & 1:
                gold += value
        totals = []
        for side_strength in strength:
            total = 0
            rest = region
            while rest:
                low = rest & -rest
                total += side_strength[low.bit_length() - 1]
                rest ^= low
            totals.append(total)
        best = max(totals)
        winners = [i for i, t in enumerate(totals) if t == best] if best and gold else []
        share_h = lost_h = 0
        if winners:
            n = len(winners)
            share_h = (2 * gold) // n if half_points else 2 * (gold // n)
            lost_h = 2 * gold - share_h * n
            for i in winners:
                halves[i].append(share_h)
        results.append((gold, totals, winners, share_h, lost_h))
    for h in halves:
        h.sort(reverse=True)
    return halves, results


def rank(
    sides: tuple[str, ...], totals: list[int], winnings: list[list[int]]
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """Places by total, ties broken by the best single winnings, then the next best.

    Totals and winnings are in half points, winnings best first. Returns the
    places (sides sharing a place together) and a sentence for every tie.

    >>> places, why = rank(("a", "b", "c"), [46, 46, 46],
    ...                    [[14, 12, 10, 10], [14, 12, 10, 4, 4, 2], [14, 12, 10, 6, 4]])
    >>> places
    (('a',), ('c',), ('b',))
    """
    keys = {side: (totals[i], tuple(winnings[i])) for i, side in enumerate(sides)}
    order = sorted(sides, key=lambda s: keys[s], reverse=True)
    places: list[list[str]] = []
    for side in order:
        if places and keys[places[-1][0]] == keys[side]:
            places[-1].append(side)
        else:
            places.append([side])
    explained = []
    for total in sorted(set(totals), reverse=True):
        tied = [s for s in order if keys[s][0] == total]
        if len(tied) > 1:
            explained.append(_explain_tie(tied, keys))
    return tuple(tuple(p) for p in places), tuple(explained)


def _explain_tie(tied: list[str], keys: dict[str, tuple[int, tuple[int, ...]]]) -> str:
    total = points(keys[tied[0]][0])
    head = f"{' and '.join(tied)} tie on {total} gold"
    parts = []
    for better, worse in pairwise(tied):
        a, b = keys[better][1], keys[worse][1]
        if a == b:
            parts.append(f"{better} and {worse} also have the same winnings ({_list(a)}) and share a place")
            continue
        n = next(i for i in range(max(len(a), len(b))) if _at(a, i) != _at(b, i))
        parts.append(
            f"{better} ({_list(a)}) is ahead of {worse} ({_list(b)}) on the "
            f"{'best' if n == 0 else _ordinal(n + 1) + ' best'} single winnings, "
            f"{points(_at(a, n))} against {points(_at(b, n))}"
        )
    return f"{head}: {'; '.join(parts)}"


def _at(values: tuple[int, ...], i: int) -> int:
    return values[i] if i < len(values) else 0


def _list(halves: tuple[int, ...]) -> str:
    return ", ".join(str(points(h)) for h in halves) or "nothing"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
