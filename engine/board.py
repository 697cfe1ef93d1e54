"""The fixed geometry of the Armadöra board: cells, palisade slots, gold cells.

Cells are numbered ``row * 8 + col`` (0..39) and palisade slots 0..66, so that
sets of either fit in one Python ``int`` used as a bit mask. The value types
:class:`Cell` and :class:`Slot` are what the rest of the project passes around.

>>> Cell(0, 3).name
'd5'
>>> Cell.parse("c1")
Cell(row=4, col=2)
>>> Slot(Cell(0, 0), Cell(0, 1)).name
'a5|b5'
>>> len(SLOTS)
67
"""

from __future__ import annotations

from typing import NamedTuple

ROWS = 5
COLS = 8
NUM_CELLS = ROWS * COLS
ALL_CELLS_MASK = (1 << NUM_CELLS) - 1

FILES = "abcdefgh"


class Cell(NamedTuple):
    """A square of the grid, ``[row, col]`` with row 0 at the top.

    >>> Cell(4, 0).name, Cell(4, 0).number
    ('a1', 32)
    >>> Cell.from_number(39)
    Cell(row=4, col=7)
    """

    row: int
    col: int

    @property
    def number(self) -> int:
        return self.row * COLS + self.col

    @property
    def bit(self) -> int:
        return 1 << (self.row * COLS + self.col)

    @property
    def name(self) -> str:
        """The human name: file ``a``..``h`` for the column, rank 5..1 from the top."""
        return f"{FILES[self.col]}{ROWS - self.row}"

    def on_board(self) -> bool:
        return 0 <= self.row < ROWS and 0 <= self.col < COLS

    def neighbours(self) -> tuple[Cell, ...]:
        """The orthogonal neighbours on the board, in number order.

        >>> Cell(0, 0).neighbours()
        (Cell(row=0, col=1), Cell(row=1, col=0))
        """
        r, c = self
        around = (Cell(r - 1, c), Cell(r, c - 1), Cell(r, c + 1), Cell(r + 1, c))
        return tuple(n for n in around if n.on_board())

    @classmethod
    def from_number(cls, number: int) -> Cell:
        return CELLS[number]

    @classmethod
    def parse(cls, name: str) -> Cell:
        """A cell from its human name (``"a1"``..``"h5"``, any case).

        >>> Cell.parse("H5")
        Cell(row=0, col=7)
        """
        text = name.strip().lower()
        if len(text) != 2 or text[0] not in FILES or text[1] not in "12345":
            raise ValueError(f"not a cell name: {name!r} (expected a1..h5)")
        return cls(ROWS - int(text[1]), FILES.index(text[0]))


CELLS: tuple[Cell, ...] = tuple(Cell(r, c) for r in range(ROWS) for c in range(COLS))


VERTICAL_SLOTS = ROWS * (COLS - 1)


class Slot(NamedTuple):
    """An interior grid line, where a palisade may stand, named by the two cells it separates.

    ``a`` is the smaller cell. Vertical lines (between left and right
    neighbours) come first in the numbering, row by row, then horizontal lines.

    >>> s = Slot.between(Cell(2, 4), Cell(1, 4))
    >>> s, s.number, s.vertical
    (Slot(a=Cell(row=1, col=4), b=Cell(row=2, col=4)), 47, False)
    """

    a: Cell
    b: Cell

    @classmethod
    def between(cls, first: Cell, second: Cell) -> Slot:
        """The slot between two orthogonal neighbours, given in any order."""
        a, b = sorted((Cell(*first), Cell(*second)))
        if not (a.on_board() and b.on_board()) or b not in a.neighbours():
            raise ValueError(f"{list(first)} and {list(second)} are not neighbouring cells")
        return cls(a, b)

    @property
    def vertical(self) -> bool:
        """True for a line between two cells of one row (the line itself runs up and down)."""
        return self.a.row == self.b.row

    @property
    def number(self) -> int:
        (r, c), (r2, _) = self
        return r * (COLS - 1) + c if r == r2 else VERTICAL_SLOTS + r * COLS + c

    @property
    def bit(self) -> int:
        return 1 << self.number

    @property
    def name(self) -> str:
        """``d5|e5`` for a vertical line, ``d5-d4`` for a horizontal one."""
        return f"{self.a.name}{'|' if self.vertical else '-'}{self.b.name}"

    @property
    def corners(self) -> tuple[int, int]:
        """The two lattice points the line joins, numbered ``y * 9 + x`` on the 9 x 6 lattice."""
        r, c = self.a
        if self.vertical:
            return r * (COLS + 1) + c + 1, (r + 1) * (COLS + 1) + c + 1
        return (r + 1) * (COLS + 1) + c, (r + 1) * (COLS + 1) + c + 1

    @classmethod
    def from_number(cls, number: int) -> Slot:
        return SLOTS[number]

    def to_json(self) -> list[list[int]]:
        return [list(self.a), list(self.b)]


SLOTS: tuple[Slot, ...] = tuple(
    [Slot(Cell(r, c), Cell(r, c + 1)) for r in range(ROWS) for c in range(COLS - 1)]
    + [Slot(Cell(r, c), Cell(r + 1, c)) for r in range(ROWS - 1) for c in range(COLS)]
)
NUM_SLOTS = len(SLOTS)

LATTICE_POINTS = (ROWS + 1) * (COLS + 1)
BORDER_POINTS: frozenset[int] = frozenset(
    y * (COLS + 1) + x for y in range(ROWS + 1) for x in range(COLS + 1) if y in (0, ROWS) or x in (0, COLS)
)

GOLD_CELLS: tuple[Cell, ...] = (
    Cell(0, 3), Cell(1, 1), Cell(1, 5), Cell(1, 7),
    Cell(3, 0), Cell(3, 4), Cell(4, 2), Cell(4, 6),
)  # fmt: skip
GOLD_MASK = sum(cell.bit for cell in GOLD_CELLS)
#: The 32 cells a warrior may stand on, in :data:`CELLS`' order.
OFF_GOLD_CELLS: tuple[Cell, ...] = tuple(cell for cell in CELLS if not cell.bit & GOLD_MASK)
GOLD_VALUES: tuple[int, ...] = (7, 6, 6, 5, 5, 4, 4, 3)
TOTAL_PALISADES = 35
MIN_TERRITORY = 4


def cells_of(mask: int) -> tuple[Cell, ...]:
    """The cells of a bit mask, in number order.

    >>> cells_of(0b101)
    (Cell(row=0, col=0), Cell(row=0, col=2))
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(CELLS[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def mask_of(cells: object) -> int:
    """The bit mask of an iterable of cells."""
    mask = 0
    for cell in cells:  # type: ignore[attr-defined]
        mask |= Cell(*cell).bit
    return mask
