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
    SLOTS,
    TOTAL_PALISADES,
    VERTICAL_SLOTS,
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

_VERTICAL_SLOTS = (1 << VERTICAL_SLOTS) - 1
_ROW_OF_LINES = (1 << (COLS - 1)) - 1
_SLOT_A_BIT = tuple(slot.a.bit for slot in SLOTS)
_SLOT_B_BIT = tuple(slot.b.bit for slot in SLOTS)
_SLOT_VERTICAL = tuple(slot.vertical for slot in SLOTS)
_SLOT_CORNERS = tuple(slot.corners for slot in SLOTS)
_BORDER = 0  # the label every border point carries
_FRESH_LABELS = tuple(_BORDER if p in BORDER_POINTS else p for p in range(LATTICE_POINTS))


def flood(seed: int, sides: tuple[int, int, int, int], limit: int = ALL_CELLS_MASK.bit_length()) -> int:
    """Grow a cell mask across open lines until it stops growing or holds ``limit`` cells.

    ``sides`` holds the cells whose east, west, south and north side is open.
    """
    east, west, south, north = sides
    region = seed
    while True:
        grown = (
            region
            | ((region & east) << 1)
            | ((region & west) >> 1)
            | ((region & south) << COLS)
            | ((region & north) >> COLS)
        )
        if grown == region or grown.bit_count() >= limit:
            return grown
        region = grown


_NUMBER: dict[Slot | int, int] = {
    **{slot: n for n, slot in enumerate(SLOTS)},
    **{n: n for n in range(NUM_SLOTS)},
}


def slot_number(slot: Slot | int) -> int:
    """Walls take a slot or its number; the number is what the masks use."""
    try:
        return _NUMBER[slot]
    except (KeyError, TypeError):
        raise ValueError(f"not an interior line of the board: {slot!r}") from None


class Walls:
    """An immutable set of standing palisades.

    Build one with :meth:`from_slots` or :meth:`add`; compare with ``==``.
    """

    __slots__ = ("__dict__", "_open", "count", "mask")

    mask: int
    count: int
    _open: tuple[int, int, int, int]

    def __init__(self, mask: int = 0) -> None:
        """The walls of a slot mask: bit ``n`` set for a palisade on slot number ``n``."""
        if not 0 <= mask < 1 << NUM_SLOTS:
            raise ValueError(f"not a mask of the {NUM_SLOTS} slots: {mask:#x}")
        # Vertical slot r*7+c closes the east side of cell r*8+c; horizontal slot 35+n the south of cell n.
        vertical = mask & _VERTICAL_SLOTS
        east_closed = 0
        for r in range(ROWS):
            east_closed |= ((vertical >> ((COLS - 1) * r)) & _ROW_OF_LINES) << (COLS * r)
        south_closed = mask >> VERTICAL_SLOTS
        east = _OPEN_EAST & ~east_closed
        west = _OPEN_WEST & ~(east_closed << 1)
        south = _OPEN_SOUTH & ~south_closed
        north = _OPEN_NORTH & ~(south_closed << COLS)
        self.mask = mask
        self.count = mask.bit_count()
        self._open = (east, west, south, north)

    @classmethod
    def from_slots(cls, slots: Iterable[Slot | int]) -> Walls:
        mask = 0
        for slot in slots:
            bit = 1 << slot_number(slot)
            if mask & bit:
                raise ValueError(f"{SLOTS[bit.bit_length() - 1].name} is listed twice")
            mask |= bit
        return cls(mask)

    def add(self, slot: Slot | int) -> Walls:
        """These walls with one more palisade (no legality test: see :meth:`is_legal`)."""
        i = slot_number(slot)
        if self.mask >> i & 1:
            raise ValueError(f"a palisade already stands on {SLOTS[i].name}")
        new = Walls.__new__(Walls)
        new.mask = self.mask | (1 << i)
        new.count = self.count + 1
        new._open = self._open_without(i)
        labels = self.__dict__.get("_labels")
        if labels is not None:  # keep the lattice labels up to date rather than rebuild them
            u, v = _SLOT_CORNERS[i]
            lu, lv = labels[u], labels[v]
            if lu != lv:
                keep, drop = min(lu, lv), max(lu, lv)
                labels = tuple(keep if x == drop else x for x in labels)
            new.__dict__["_labels"] = labels
        return new

    @cached_property
    def _labels(self) -> tuple[int, ...]:
        """A label per lattice point, equal for points joined by palisades or the border."""
        parent = list(_FRESH_LABELS)

        def root(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for i in range(NUM_SLOTS):
            if self.mask >> i & 1:
                u, v = _SLOT_CORNERS[i]
                ru, rv = root(u), root(v)
                if ru != rv:
                    parent[max(ru, rv)] = min(ru, rv)
        return tuple(root(p) for p in range(LATTICE_POINTS))

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
        out = []
        rest = ALL_CELLS_MASK
        while rest:
            region = flood(rest & -rest, self._open)
            out.append(region)
            rest ^= region
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

    def leaves_small(self, slot: Slot | int) -> bool:
        """Whether a palisade on this free line would leave a territory of fewer than 4 cells.

        Each side grows from its cell only until it holds 4 cells or stops
        growing, so a legal line costs a few steps of flood, not two whole territories.
        """
        i = slot_number(slot)
        sides = self._open_without(i)
        return any(
            flood(seed, sides, MIN_TERRITORY).bit_count() < MIN_TERRITORY
            for seed in (_SLOT_A_BIT[i], _SLOT_B_BIT[i])
        )

    def is_legal(self, slot: Slot | int) -> bool:
        """Whether one more palisade may stand on this line now.

        The line must be free, a palisade must be left in the box, and no
        territory of fewer than 4 cells may result.
        """
        i = slot_number(slot)
        if self.mask >> i & 1 or self.count >= TOTAL_PALISADES:
            return False
        return not (self.splits(i) and self.leaves_small(i))

    @cached_property
    def legal_slot_numbers(self) -> tuple[int, ...]:
        return tuple(i for i in range(NUM_SLOTS) if self.is_legal(i))

    def legal_slots(self) -> tuple[Slot, ...]:
        """Every line where one more palisade may stand, in slot order."""
        return tuple(SLOTS[i] for i in self.legal_slot_numbers)

    def legal_pairs(self) -> tuple[tuple[int, int], ...]:
        """Every unordered pair of slot indices, lower first, that may be built in one turn.

        A pair is legal when the board after both is: walls only ever split
        territories, so each of the two is then legal on its own as well.
        """
        if self.count + 2 > TOTAL_PALISADES:
            return ()
        singles = self.legal_slot_numbers
        pairs: list[tuple[int, int]] = []
        for n, first in enumerate(singles):
            after = self.add(first)
            is_legal = after.is_legal
            pairs.extend((first, second) for second in singles[n + 1 :] if is_legal(second))
        return tuple(pairs)


EMPTY_WALLS = Walls()
