"""Palisades standing on the board, the territories they make, and which palisade may go where.

:class:`Walls` is an immutable set of palisade slots with the derived facts the
rules need, kept as bit masks so that a legality test costs microseconds:

- territories, by flooding cell masks across open lines;
- whether a new palisade splits a territory at all, from the lattice points
  the palisades join (a new line splits a region exactly when its two end
  points are already joined by palisades or the border, by Euler's formula),
  so that only splitting lines pay for a flood.

>>> walls = Walls.from_slots([Slot.between((0, 0), (0, 1)), Slot.between((1, 0), (1, 1))])
>>> walls.is_legal(Slot.between((2, 0), (2, 1)))
True
>>> walls = walls.add(Slot.between((2, 0), (2, 1)))
>>> walls.is_legal(Slot.between((2, 0), (3, 0)))  # would close off a1..a3 alone
False
>>> sorted(len(t) for t in walls.territory_cells())
[40]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cached_property

from engine.board import (
    ALL_CELLS_MASK,
    BORDER_POINTS,
    CELLS,
    COLS,
    LATTICE_POINTS,
    MIN_TERRITORY,
    NUM_SLOTS,
    ROWS,
    SLOT_NUMBER,
    SLOTS,
    TOTAL_PALISADES,
    Cell,
    Slot,
    cells_of,
)

_COL0 = sum(1 << (r * COLS) for r in range(ROWS))
_COL7 = _COL0 << (COLS - 1)
_ROW0 = (1 << COLS) - 1
_ROW4 = _ROW0 << (COLS * (ROWS - 1))
# Cells whose east / west / south / north side is an interior line, before any palisade.
_OPEN_EAST = ALL_CELLS_MASK & ~_COL7
_OPEN_WEST = ALL_CELLS_MASK & ~_COL0
_OPEN_SOUTH = ALL_CELLS_MASK & ~_ROW4
_OPEN_NORTH = ALL_CELLS_MASK & ~_ROW0

_SLOT_A_BIT = tuple(slot.a.bit for slot in SLOTS)
_SLOT_B_BIT = tuple(slot.b.bit for slot in SLOTS)
_SLOT_VERTICAL = tuple(slot.vertical for slot in SLOTS)
_SLOT_CORNERS = tuple(slot.corners for slot in SLOTS)
_BORDER = 0  # the label every border point carries
_FRESH_LABELS = tuple(_BORDER if p in BORDER_POINTS else p for p in range(LATTICE_POINTS))


def flood(seed: int, east: int, west: int, south: int, north: int) -> int:
    """Grow a cell mask across open lines until it stops growing.

    ``east`` holds the cells whose east side is open, and so on.
    """
    region = seed
    while True:
        grown = (
            region
            | ((region & east) << 1)
            | ((region & west) >> 1)
            | ((region & south) << COLS)
            | ((region & north) >> COLS)
        )
        if grown == region:
            return region
        region = grown


def slot_number(slot: Slot | int) -> int:
    """Walls take a slot or its number; the number is what the masks use."""
    return slot if isinstance(slot, int) else SLOT_NUMBER[slot]


class Walls:
    """An immutable set of standing palisades.

    Build one with :meth:`from_slots` or :meth:`add`; compare with ``==``.
    """

    __slots__ = ("__dict__", "_labels", "_open", "count", "mask")

    mask: int
    count: int
    _open: tuple[int, int, int, int]
    _labels: tuple[int, ...]

    def __init__(self) -> None:
        self.mask = 0
        self.count = 0
        self._open = (_OPEN_EAST, _OPEN_WEST, _OPEN_SOUTH, _OPEN_NORTH)
        self._labels = _FRESH_LABELS

    @classmethod
    def from_slots(cls, slots: Iterable[Slot | int]) -> Walls:
        walls = EMPTY_WALLS
        for slot in slots:
            walls = walls.add(slot)
        return walls

    @classmethod
    def from_mask(cls, mask: int) -> Walls:
        return cls.from_slots(i for i in range(NUM_SLOTS) if mask >> i & 1)

    def add(self, slot: Slot | int) -> Walls:
        """These walls with one more palisade (no legality test: see :meth:`is_legal`)."""
        i = slot_number(slot)
        if self.mask >> i & 1:
            raise ValueError(f"a palisade already stands on {SLOTS[i].name}")
        new = Walls.__new__(Walls)
        new.mask = self.mask | (1 << i)
        new.count = self.count + 1
        new._open = self._open_without(i)
        u, v = _SLOT_CORNERS[i]
        labels = self._labels
        lu, lv = labels[u], labels[v]
        if lu == lv:
            new._labels = labels
        else:
            keep, drop = min(lu, lv), max(lu, lv)
            new._labels = tuple(keep if x == drop else x for x in labels)
        return new

    def _open_without(self, i: int) -> tuple[int, int, int, int]:
        east, west, south, north = self._open
        a, b = _SLOT_A_BIT[i], _SLOT_B_BIT[i]
        if _SLOT_VERTICAL[i]:
            return east & ~a, west & ~b, south, north
        return east, west, south & ~a, north & ~b

    def __contains__(self, slot: Slot | int) -> bool:
        i = slot_number(slot)
        return bool(self.mask >> i & 1)

    def __iter__(self) -> Iterator[Slot]:
        return (SLOTS[i] for i in range(NUM_SLOTS) if self.mask >> i & 1)

    def __len__(self) -> int:
        return self.count

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Walls) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __repr__(self) -> str:
        return f"Walls([{', '.join(slot.name for slot in self)}])"

    @property
    def slots(self) -> frozenset[Slot]:
        return frozenset(self)

    @cached_property
    def territories(self) -> tuple[int, ...]:
        """The territories as cell masks, ordered by their lowest cell."""
        east, west, south, north = self._open
        out = []
        rest = ALL_CELLS_MASK
        while rest:
            region = flood(rest & -rest, east, west, south, north)
            out.append(region)
            rest &= ~region
        return tuple(out)

    @cached_property
    def territory_of(self) -> tuple[int, ...]:
        """For each cell index, the mask of its territory."""
        lookup = [0] * len(CELLS)
        for region in self.territories:
            rest = region
            while rest:
                low = rest & -rest
                lookup[low.bit_length() - 1] = region
                rest ^= low
        return tuple(lookup)

    def territory_cells(self) -> tuple[tuple[Cell, ...], ...]:
        return tuple(cells_of(region) for region in self.territories)

    def splits(self, slot: Slot | int) -> bool:
        """Whether a palisade on this free line would cut its territory in two."""
        u, v = _SLOT_CORNERS[slot_number(slot)]
        return self._labels[u] == self._labels[v]

    def split_sizes(self, slot: Slot | int) -> tuple[int, int]:
        """The sizes of the two sides a splitting palisade would leave, as far as they matter.

        Both sides grow in step from the two cells the line separates; the
        answer is exact for a side below :data:`MIN_TERRITORY` and otherwise at
        least that, which is all legality needs and keeps the flood short.
        """
        i = slot_number(slot)
        east, west, south, north = self._open_without(i)
        a, b = _SLOT_A_BIT[i], _SLOT_B_BIT[i]
        total = self.territory_of[a.bit_length() - 1].bit_count()
        while True:
            grown_a = (
                a | ((a & east) << 1) | ((a & west) >> 1) | ((a & south) << COLS) | ((a & north) >> COLS)
            )
            grown_b = (
                b | ((b & east) << 1) | ((b & west) >> 1) | ((b & south) << COLS) | ((b & north) >> COLS)
            )
            if grown_a == a:
                size = a.bit_count()
                return size, total - size
            if grown_b == b:
                size = b.bit_count()
                return total - size, size
            a, b = grown_a, grown_b
            if a.bit_count() >= MIN_TERRITORY and b.bit_count() >= MIN_TERRITORY:
                return a.bit_count(), b.bit_count()

    def is_legal(self, slot: Slot | int) -> bool:
        """Whether one more palisade may stand on this line now.

        The line must be free, a palisade must be left in the box, and no
        territory of fewer than 4 cells may result.
        """
        i = slot_number(slot)
        if self.mask >> i & 1 or self.count >= TOTAL_PALISADES:
            return False
        if not self.splits(i):
            return True
        first, second = self.split_sizes(i)
        return first >= MIN_TERRITORY and second >= MIN_TERRITORY

    @cached_property
    def legal_slot_indices(self) -> tuple[int, ...]:
        return tuple(i for i in range(NUM_SLOTS) if self.is_legal(i))

    def legal_slots(self) -> tuple[Slot, ...]:
        """Every line where one more palisade may stand, in slot order."""
        return tuple(SLOTS[i] for i in self.legal_slot_indices)

    def legal_pairs(self) -> tuple[tuple[int, int], ...]:
        """Every unordered pair of slot indices, lower first, that may be built in one turn.

        A pair is legal when the board after both is: walls only ever split
        territories, so each of the two is then legal on its own as well.
        """
        if self.count + 2 > TOTAL_PALISADES:
            return ()
        singles = self.legal_slot_indices
        pairs: list[tuple[int, int]] = []
        for n, first in enumerate(singles):
            after = self.add(first)
            is_legal = after.is_legal
            pairs.extend((first, second) for second in singles[n + 1 :] if is_legal(second))
        return tuple(pairs)


EMPTY_WALLS = Walls()
