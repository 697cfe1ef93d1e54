"""The board diagram's drawing model: where every cell, token and line goes, and how it is marked.

The template ``_diagram.html`` turns a :class:`Diagram` into inline SVG; the
same model serves the review (doubtful readings, rule breaks, taps) and the
reveal (territories coloured by who won them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from string import ascii_uppercase
from typing import Any

from engine.board import CELLS, COLS, GOLD_CELLS, ROWS, SLOTS, Cell, Slot, cells_of
from engine.check import Problem
from engine.position import Position
from engine.scoring import Score

CELL_PX = 40
LEFT_PX, TOP_PX = 16, 4
WIDTH_PX = LEFT_PX + COLS * CELL_PX + 4
HEIGHT_PX = TOP_PX + ROWS * CELL_PX + 16
#: Below this confidence a reading is marked for a person to look at (the debug image's warning line).
DOUBTFUL = 0.8
#: Light tints that tell territories apart while the game goes on.
TERRITORY_TINTS = ("#e8f0d8", "#f3e6c8", "#dbe8e4", "#efdccf", "#e4e0ef", "#f0edd2")
UNCLAIMED_TINT = "#f2f2f2"
TIED_TINT = "#d6d6d6"


def tint(hex_colour: str, keep: float = 0.35) -> str:
    """``hex_colour`` mixed with white, keeping ``keep`` of it: a fill that text stays readable on.

    >>> tint("#000000", 0.5)
    '#808080'
    """
    rgb = [int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 - (255 - c) * keep):02x}" for c in rgb)


@dataclass(frozen=True)
class CellMark:
    name: str
    x: int
    y: int
    fill: str
    gold: str | None  # the value to print ("?" unread), None without gold
    warrior: str | None  # the warrior's colour name, None for no warrior
    warrior_fill: str
    value: str  # the warrior's value, "" while hidden
    doubtful: bool
    bad: bool
    suggested: str  # the suggested value for a suggested warrior, "" elsewhere
    label: str  # the territory's letter, on one cell of each territory at the reveal


@dataclass(frozen=True)
class SlotMark:
    name: str
    x1: int
    y1: int
    x2: int
    y2: int
    palisade: bool
    doubtful: bool
    bad: bool
    suggested: bool


@dataclass(frozen=True)
class Diagram:
    cells: tuple[CellMark, ...]
    slots: tuple[SlotMark, ...]
    editable: bool
    width: int = WIDTH_PX
    height: int = HEIGHT_PX
    files: tuple[tuple[str, int], ...] = tuple(
        ("abcdefgh"[c], LEFT_PX + c * CELL_PX + CELL_PX // 2) for c in range(COLS)
    )
    ranks: tuple[tuple[str, int], ...] = tuple(
        (str(ROWS - r), TOP_PX + r * CELL_PX + CELL_PX // 2) for r in range(ROWS)
    )


def slot_line(slot: Slot) -> tuple[int, int, int, int]:
    """The grid line of a slot in the diagram's pixels."""
    r, c = slot.a
    if slot.vertical:
        x = LEFT_PX + (c + 1) * CELL_PX
        return x, TOP_PX + r * CELL_PX, x, TOP_PX + (r + 1) * CELL_PX
    y = TOP_PX + (r + 1) * CELL_PX
    return LEFT_PX + c * CELL_PX, y, LEFT_PX + (c + 1) * CELL_PX, y


def side_colour(side: str, colours: Mapping[str, str]) -> str:
    """A side's colour: its own, or a team's (``orange+blue``) first partner's."""
    return colours.get(side.split("+")[0], "#888888")


def territory_fills(position: Position, result: Score | None, colours: Mapping[str, str]) -> dict[Cell, str]:
    """Each cell's fill: a tint per territory, or at the reveal its winner's colour."""
    fills: dict[Cell, str] = {}
    if result is None:
        for n, mask in enumerate(position.walls.territories):
            for cell in cells_of(mask):
                fills[cell] = TERRITORY_TINTS[n % len(TERRITORY_TINTS)]
        return fills
    for territory in result.territories:
        if not territory.winners:
            fill = UNCLAIMED_TINT
        elif len(territory.winners) > 1:
            fill = TIED_TINT
        else:
            fill = tint(side_colour(territory.winners[0], colours), 0.45)
        for cell in territory.cells:
            fills[cell] = fill
    return fills


def build(
    position: Position,
    colours: Mapping[str, str],
    *,
    confidence: Mapping[str, Any] | None = None,
    touched: Iterable[str] = (),
    problems: Iterable[Problem] = (),
    result: Score | None = None,
    suggestion: Mapping[str, Any] | None = None,
    editable: bool = False,
) -> Diagram:
    """The drawing of a position, with doubtful readings (below :data:`DOUBTFUL`, not yet corrected),
    the cells and palisades of rule breaks, a suggested move, and at the reveal the territories' winners."""
    confidence = confidence or {}
    seen = set(touched)
    problems = tuple(problems)
    bad_cells = {cell for p in problems for cell in p.cells}
    bad_slots = {slot for p in problems for slot in p.palisades}
    fills = territory_fills(position, result, colours)
    territories = () if result is None else result.territories
    labels = {t.cells[0]: ascii_uppercase[n] for n, t in enumerate(territories)}
    move = suggestion or {}
    suggested_cell = tuple(move["cell"]) if move.get("kind") == "warrior" else None
    suggested_slots = {Slot.between(Cell(*a), Cell(*b)) for a, b in move.get("palisades", [])}

    def doubtful(kind: str, name: str) -> bool:
        return name not in seen and float(confidence.get(kind, {}).get(name, 1.0)) < DOUBTFUL

    cells = []
    for cell in CELLS:
        gold = position.gold_at(cell)
        warrior = position.warrior_at(cell)
        cells.append(
            CellMark(
                name=cell.name,
                x=LEFT_PX + cell.col * CELL_PX,
                y=TOP_PX + cell.row * CELL_PX,
                fill=fills.get(cell, UNCLAIMED_TINT),
                gold=None if gold is None else ("?" if gold.value is None else str(gold.value)),
                warrior=None if warrior is None else warrior.player,
                warrior_fill="" if warrior is None else colours.get(warrior.player, "#888888"),
                value="" if warrior is None or warrior.value is None else str(warrior.value),
                doubtful=doubtful("cells", cell.name)
                or (cell in GOLD_CELLS and gold is not None and doubtful("gold", cell.name)),
                bad=cell in bad_cells,
                suggested=str(move.get("value", "")) if suggested_cell == tuple(cell) else "",
                label=labels.get(cell, ""),
            )
        )
    slots = []
    for slot in SLOTS:
        x1, y1, x2, y2 = slot_line(slot)
        slots.append(
            SlotMark(
                slot.name,
                x1,
                y1,
                x2,
                y2,
                palisade=slot in position.palisades,
                doubtful=doubtful("slots", slot.name),
                bad=slot in bad_slots,
                suggested=slot in suggested_slots,
            )
        )
    return Diagram(tuple(cells), tuple(slots), editable)
