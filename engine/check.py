"""Whether a position could occur in a real game, and what is wrong where it could not.

Meant for scanned positions: every problem names the cells involved, so a
page can mark them and a person can fix the reading. A position that lists no
gold at all leaves gold out (a sketch of palisades, say); one that lists some
must list all eight piles, on their cells.

>>> from engine.position import Position
>>> report = check(Position.from_json({"players": ["orange", "blue"],
...     "gold": [{"cell": [1, 1], "value": 6}],
...     "warriors": [{"cell": [0, 3], "player": "red", "value": None}]}))
>>> [p.code for p in report.problems]
['unknown_colour', 'warrior_on_gold', 'missing_gold']
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine.board import (
    GOLD_CELLS,
    GOLD_MASK,
    GOLD_VALUES,
    MIN_TERRITORY,
    TOTAL_PALISADES,
    Cell,
    Slot,
    cells_of,
)
from engine.position import Position
from engine.supply import supply_for


@dataclass(frozen=True)
class Problem:
    """One thing that cannot happen in a real game, with the cells (and palisades) involved."""

    code: str
    message: str
    cells: tuple[Cell, ...] = ()
    palisades: tuple[Slot, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "cells": [list(c) for c in self.cells],
            "palisades": [s.to_json() for s in self.palisades],
        }


@dataclass(frozen=True)
class CheckReport:
    problems: tuple[Problem, ...]

    @property
    def legal(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"legal": self.legal, "problems": [p.to_json() for p in self.problems]}


def check(position: Position) -> CheckReport:
    """Every problem of the position, in a fixed order: warriors, gold, palisades, territories."""
    return CheckReport(
        (
            *_unknown_colours(position),
            *_warriors_on_gold(position),
            *_supply_problems(position),
            *_gold_problems(position),
            *_palisade_problems(position),
        )
    )


def _names(cells: tuple[Cell, ...] | list[Cell]) -> str:
    return ", ".join(c.name for c in cells)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _unknown_colours(position: Position) -> list[Problem]:
    by_colour: dict[str, list[Cell]] = {}
    for w in position.warriors:
        if w.player not in position.players:
            by_colour.setdefault(w.player, []).append(w.cell)
    return [
        Problem(
            "unknown_colour",
            f"{colour} is not a colour in this game ({', '.join(position.players)}): {_names(cells)}",
            tuple(cells),
        )
        for colour, cells in by_colour.items()
    ]


def _warriors_on_gold(position: Position) -> list[Problem]:
    cells = tuple(w.cell for w in position.warriors if w.cell.bit & GOLD_MASK)
    if not cells:
        return []
    return [Problem("warrior_on_gold", f"warrior on a gold cell: {_names(cells)}", cells)]


def _supply_problems(position: Position) -> list[Problem]:
    supply = supply_for(len(position.players))
    limit = sum(supply)
    problems = []
    for colour in position.players:
        mine = [w for w in position.warriors if w.player == colour]
        if len(mine) > limit:
            problems.append(
                Problem(
                    "too_many_warriors",
                    f"{colour} has {len(mine)} warriors on the board; a player has {limit} in a "
                    f"{len(position.players)}-player game",
                    tuple(w.cell for w in mine),
                )
            )
        counts = Counter(w.value for w in mine if w.value is not None)
        for value, count in sorted(counts.items()):
            if count > supply[value - 1]:
                problems.append(
                    Problem(
                        "value_outside_supply",
                        f"{colour} has {_count(count, 'warrior')} of value {value}; a "
                        f"{len(position.players)}-player supply has {supply[value - 1] or 'none'}",
                        tuple(w.cell for w in mine if w.value == value),
                    )
                )
    return problems


def _gold_problems(position: Position) -> list[Problem]:
    if not position.gold:
        return []
    problems = []
    stray = tuple(g.cell for g in position.gold if not g.cell.bit & GOLD_MASK)
    if stray:
        problems.append(Problem("gold_off_gold_cell", f"gold on a cell without gold: {_names(stray)}", stray))
    present = {g.cell for g in position.gold}
    missing = tuple(c for c in GOLD_CELLS if c not in present)
    if missing:
        problems.append(Problem("missing_gold", f"no gold on gold cell(s) {_names(missing)}", missing))
    allowed = Counter(GOLD_VALUES)
    counts = Counter(g.value for g in position.gold if g.value is not None)
    for value, count in sorted(counts.items()):
        if count > allowed[value]:
            cells = tuple(g.cell for g in position.gold if g.value == value)
            problems.append(
                Problem(
                    "gold_values",
                    f"{_count(count, 'gold pile')} of value {value}; the game has {allowed[value]}",
                    cells,
                )
            )
    return problems


def _palisade_problems(position: Position) -> list[Problem]:
    problems = []
    count = len(position.palisades)
    if count > TOTAL_PALISADES:
        problems.append(
            Problem(
                "too_many_palisades",
                f"{count} palisades on the board; the game has {TOTAL_PALISADES}",
                palisades=tuple(sorted(position.palisades, key=lambda s: s.number)),
            )
        )
    for region in position.walls.territories:
        size = region.bit_count()
        if size < MIN_TERRITORY:
            cells = cells_of(region)
            problems.append(
                Problem(
                    "territory_too_small",
                    f"territory of {_count(size, 'cell')} ({_names(cells)}): at least {MIN_TERRITORY} needed",
                    cells,
                )
            )
    return problems
