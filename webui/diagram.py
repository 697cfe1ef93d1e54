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
#: Room around the grid for the files' letters and the ranks' numbers, on whichever side they fall.
MARGIN_PX = 9
GRID_W_PX, GRID_H_PX = COLS * CELL_PX, ROWS * CELL_PX
#: Below this confidence a reading is marked for a person to look at (the debug image's warning line).
DOUBTFUL = 0.8
#: Light tints that tell territories apart while the game goes on.
TERRITORY_TINTS = ("#e8f0d8", "#f3e6c8", "#dbe8e4", "#efdccf", "#e4e0ef", "#f0edd2")
#: What a suggested move without a value shows on its cell: a look, an arrow, a reinforcement.
SUGGESTED_MARKS = {"mage": "?", "elf": "-1", "reinforce": "+1"}
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
    cx: int  # the cell's centre
    cy: int
    doubtful: bool
    bad: bool
    suggested: str  # the suggested value for a suggested warrior, "" elsewhere
    label: str  # the territory's letter, on one cell of each territory at the reveal
    own: bool = False  # a warrior of the viewer's, whose value they enter on it
    arrows: int = 0  # advanced game: the Elf's arrows on the warrior
    reinforced: bool = False  # advanced game: a reinforcement token on it
    face_up: bool = False  # its front shows, value and all, to everyone


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
    hit: str  # the tap area around the line, an SVG polygon's points: the halves of its two cells


@dataclass(frozen=True)
class Label:
    text: str
    x: int
    y: int


@dataclass(frozen=True)
class Diagram:
    cells: tuple[CellMark, ...]
    slots: tuple[SlotMark, ...]
    editable: bool
    turn: int = 0  # quarter turns clockwise from files left to right, rank 5 on top
    coords: tuple[Label, ...] = ()
    secret: bool = False  # the values shown are the viewer's own, not yet for others' eyes
    margin: int = MARGIN_PX

    @property
    def width(self) -> int:
        return (GRID_H_PX if self.turn % 2 else GRID_W_PX) + 2 * MARGIN_PX

    @property
    def height(self) -> int:
        return (GRID_W_PX if self.turn % 2 else GRID_H_PX) + 2 * MARGIN_PX

    @property
    def grid_size(self) -> tuple[int, int]:
        return self.width - 2 * MARGIN_PX, self.height - 2 * MARGIN_PX


def turned(x: float, y: float, turn: int) -> tuple[int, int]:
    """A point of the grid (files along x, rank 5 at y 0) in the diagram drawn ``turn`` quarter turns
    clockwise, margin included.

    >>> turned(0, 0, 1), turned(GRID_W_PX, 0, 1)
    ((209, 9), (209, 329))
    """
    turn %= 4
    if turn == 1:
        x, y = GRID_H_PX - y, x
    elif turn == 2:
        x, y = GRID_W_PX - x, GRID_H_PX - y
    elif turn == 3:
        x, y = y, GRID_W_PX - x
    return round(x) + MARGIN_PX, round(y) + MARGIN_PX


def slot_ends(slot: Slot) -> tuple[tuple[int, int], tuple[int, int]]:
    """The grid line of a slot, unturned, as two grid points."""
    r, c = slot.a
    if slot.vertical:
        x = (c + 1) * CELL_PX
        return (x, r * CELL_PX), (x, (r + 1) * CELL_PX)
    y = (r + 1) * CELL_PX
    return (c * CELL_PX, y), ((c + 1) * CELL_PX, y)


def centre(cell: Cell) -> tuple[int, int]:
    return cell.col * CELL_PX + CELL_PX // 2, cell.row * CELL_PX + CELL_PX // 2


def coordinates(turn: int) -> tuple[Label, ...]:
    """The files' letters below rank 1 and the ranks' numbers left of file a, wherever the turn puts them."""
    outside = MARGIN_PX // 2
    files = [
        Label("abcdefgh"[c], *turned(c * CELL_PX + CELL_PX // 2, GRID_H_PX + outside, turn))
        for c in range(COLS)
    ]
    ranks = [Label(str(ROWS - r), *turned(-outside, r * CELL_PX + CELL_PX // 2, turn)) for r in range(ROWS)]
    return tuple(files + ranks)


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
    turn: int = 0,
    viewer: str | None = None,
) -> Diagram:
    """The drawing of a position, with doubtful readings (below :data:`DOUBTFUL`, not yet corrected),
    the cells and palisades of rule breaks, a suggested move, and at the reveal the territories' winners;
    turned ``turn`` quarter turns clockwise. The values shown of ``viewer``'s warriors are their secret
    until the reveal (``result``)."""
    confidence = confidence or {}
    seen = set(touched)
    problems = tuple(problems)
    bad_cells = {cell for p in problems for cell in p.cells}
    bad_slots = {slot for p in problems for slot in p.palisades}
    fills = territory_fills(position, result, colours)
    territories = () if result is None else result.territories
    labels = {t.cells[0]: ascii_uppercase[n] for n, t in enumerate(territories)}
    move = suggestion or {}
    suggested_cell = tuple(move["cell"]) if "cell" in move else None  # a warrior, a power, a reinforcement
    suggested_text = str(
        move.get("value", SUGGESTED_MARKS.get(move.get("power") or move.get("kind", ""), ""))
    )
    suggested_slots = {Slot.between(Cell(*a), Cell(*b)) for a, b in move.get("palisades", [])}

    def doubtful(kind: str, name: str) -> bool:
        return name not in seen and float(confidence.get(kind, {}).get(name, 1.0)) < DOUBTFUL

    def point(x: float, y: float) -> tuple[int, int]:
        return turned(x, y, turn)

    cells = []
    for cell in CELLS:
        gold = position.gold_at(cell)
        warrior = position.warrior_at(cell)
        corners = [
            point(cell.col * CELL_PX + dx, cell.row * CELL_PX + dy)
            for dx in (0, CELL_PX)
            for dy in (0, CELL_PX)
        ]
        cx, cy = point(*centre(cell))
        cells.append(
            CellMark(
                name=cell.name,
                x=min(x for x, _ in corners),
                y=min(y for _, y in corners),
                fill=fills.get(cell, UNCLAIMED_TINT),
                gold=None if gold is None else ("?" if gold.value is None else str(gold.value)),
                warrior=None if warrior is None else warrior.player,
                warrior_fill="" if warrior is None else colours.get(warrior.player, "#888888"),
                value="" if warrior is None or warrior.value is None else str(warrior.value),
                cx=cx,
                cy=cy,
                doubtful=doubtful("cells", cell.name)
                or (cell in GOLD_CELLS and gold is not None and doubtful("gold", cell.name)),
                bad=cell in bad_cells,
                suggested=suggested_text if suggested_cell == tuple(cell) else "",
                label=labels.get(cell, ""),
                # A face-up warrior's value is the board's: its owner has none to enter.
                own=warrior is not None and warrior.player == viewer and not warrior.face_up,
                arrows=0 if warrior is None else warrior.arrows,
                reinforced=warrior is not None and warrior.reinforced,
                face_up=warrior is not None and warrior.face_up,
            )
        )
    slots = []
    for slot in SLOTS:
        (x1, y1), (x2, y2) = (point(*end) for end in slot_ends(slot))
        hit = (
            point(*slot_ends(slot)[0]),
            point(*centre(slot.a)),
            point(*slot_ends(slot)[1]),
            point(*centre(slot.b)),
        )
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
                hit=" ".join(f"{x},{y}" for x, y in hit),
            )
        )
    return Diagram(
        tuple(cells),
        tuple(slots),
        editable,
        turn % 4,
        coordinates(turn),
        secret=viewer is not None and result is None,
    )
