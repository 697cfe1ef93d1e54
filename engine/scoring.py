"""End-of-game scoring: territories, shares, totals and the ranking with its tie-break.

>>> from engine.board import GOLD_CELLS, GOLD_VALUES
>>> from engine.position import Position, Warrior
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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, NamedTuple

from engine.board import Cell, cells_of
from engine.position import Position, Warrior

Points = int | float


class ScoringError(ValueError):
    """A position that cannot be scored yet (hidden values, unread gold, unsupported variant)."""


def points(halves: int) -> Points:
    """Half points as a number: a whole number stays an ``int``.

    >>> points(7), points(8)
    (3.5, 4)
    """
    return halves // 2 if halves % 2 == 0 else halves / 2


class Adjustment(NamedTuple):
    """A warrior of the advanced game that does not count its value: arrows on it, or a reinforcement.

    >>> from engine.position import Warrior
    >>> str(Adjustment.of(Warrior(Cell(2, 2), "blue", 4, arrows=1)))
    'c3: 4, -1 arrow'
    >>> str(Adjustment.of(Warrior(Cell(2, 3), "blue", 1, arrows=2, reinforced=True)))
    'd3: 1, -2 arrows (never below 0), +1 reinforcement = 1'
    """

    cell: Cell
    player: str
    value: int
    arrows: int
    reinforced: bool
    counts: int

    @classmethod
    def of(cls, warrior: Warrior) -> Adjustment:
        value, strength = warrior.value, warrior.strength
        assert value is not None and strength is not None, "scoring reads known values only"
        return cls(warrior.cell, warrior.player, value, warrior.arrows, warrior.reinforced, strength)

    def __str__(self) -> str:
        parts = [f"{self.cell.name}: {self.value}"]
        floor = self.arrows > self.value
        if self.arrows:
            parts.append(
                f"-{self.arrows} arrow{'s' if self.arrows > 1 else ''}{' (never below 0)' if floor else ''}"
            )
        if self.reinforced:
            parts.append("+1 reinforcement")
        text = ", ".join(parts)
        return f"{text} = {self.counts}" if floor or len(parts) > 2 else text

    def to_json(self) -> dict[str, Any]:
        return {"cell": list(self.cell), "player": self.player, "value": self.value, "arrows": self.arrows,
                "reinforced": self.reinforced, "counts": self.counts, "text": str(self)}  # fmt: skip


class TerritoryResult(NamedTuple):
    """One territory: its gold, each side's warrior total, who wins and what each winner gets.

    ``mask`` holds its cells as a bit mask; :attr:`cells` lists them. ``adjustments`` explains
    each warrior there that counts other than its value (advanced game).
    """

    mask: int
    gold: int
    totals: Mapping[str, int]
    winners: tuple[str, ...]
    share: Points
    lost: Points
    adjustments: tuple[Adjustment, ...] = ()

    @property
    def cells(self) -> tuple[Cell, ...]:
        return cells_of(self.mask)

    def to_json(self) -> dict[str, Any]:
        return {
            "cells": [list(c) for c in self.cells],
            "gold": self.gold,
            "totals": dict(self.totals),
            "winners": list(self.winners),
            "share": self.share,
            "lost": self.lost,
            "adjustments": [a.to_json() for a in self.adjustments],
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
    if not position.gold:
        raise ScoringError("no gold recorded: list the gold piles with their values")
    sides = position.sides
    group = {player: n % len(sides) for n, player in enumerate(position.players)}
    # For each side: the cells of its warriors counting each value 0..7.
    by_value = [[0] * 8 for _ in sides]
    hidden, strayed, unread = [], [], []
    for w in position.warriors:
        n = group.get(w.player)
        strength = w.strength
        if n is None:
            strayed.append(f"{w.cell.name} ({w.player})")
        elif strength is None:
            hidden.append(f"{w.cell.name} ({w.player})")
        else:
            by_value[n][strength] |= w.cell.bit
    gold_at: dict[int, int] = {}  # cell bit -> value (a Nuggets marker may be worth more than 7)
    for cell, value in position.gold:
        if value is None:
            unread.append(cell.name)
        else:
            gold_at[cell.bit] = value
    if hidden:
        raise ScoringError(f"{len(hidden)} warrior value(s) still hidden: {', '.join(hidden)}")
    if strayed:
        raise ScoringError(f"warrior(s) of a colour not in the game: {', '.join(strayed)}")
    if unread:
        raise ScoringError(f"gold value(s) not read: {', '.join(unread)}")
    value_planes = [planes(masks) for masks in by_value]

    half_points = position.variant == "nuggets"
    halves: list[list[int]] = [[] for _ in sides]  # each side's winnings, in half points
    out = []
    unclaimed = 0
    for region in position.walls.territories:
        totals = [
            (region & ones).bit_count() + 2 * (region & twos).bit_count() + 4 * (region & fours).bit_count()
            for ones, twos, fours in value_planes
        ]
        gold_total = sum(value for bit, value in gold_at.items() if region & bit)
        best = max(totals)
        winners = [n for n, total in enumerate(totals) if total == best] if best and gold_total else []
        share_h = lost_h = 0
        if winners:
            count = len(winners)
            share_h = (2 * gold_total) // count if half_points else 2 * (gold_total // count)
            lost_h = 2 * gold_total - share_h * count
            for n in winners:
                halves[n].append(share_h)
        else:
            unclaimed += gold_total
        out.append(
            TerritoryResult(
                region,
                gold_total,
                dict(zip(sides, totals, strict=True)),
                tuple([sides[n] for n in winners]),
                points(share_h),
                points(lost_h),
                tuple(
                    Adjustment.of(w)
                    for w in position.warriors
                    if w.cell.bit & region and (w.arrows or w.reinforced)
                ),
            )
        )
    for side_halves in halves:
        side_halves.sort(reverse=True)
    winnings = {side: tuple([points(h) for h in halves[n]]) for n, side in enumerate(sides)}
    scores = {side: points(sum(halves[n])) for n, side in enumerate(sides)}
    ranking, tiebreaks = rank(sides, [sum(h) for h in halves], halves)
    return Score(tuple(out), scores, winnings, ranking, tiebreaks, unclaimed)


Planes = tuple[int, int, int]


def planes(by_value: Sequence[int]) -> Planes:
    """Bit planes from the cells holding each value 0..7: the cells whose value has bit 0, 1 and 2 set.

    The total value within a region is then three counts of bits.

    >>> ones, twos, fours = planes([0, 0, 0, 0b10, 0, 0b01, 0, 0])  # a 5 on cell 0, a 3 on cell 1
    >>> (ones, twos, fours)
    (3, 2, 1)
    >>> region = 0b11
    >>> (region & ones).bit_count() + 2 * (region & twos).bit_count() + 4 * (region & fours).bit_count()
    8
    """
    m = by_value
    return m[1] | m[3] | m[5] | m[7], m[2] | m[3] | m[6] | m[7], m[4] | m[5] | m[6] | m[7]


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
