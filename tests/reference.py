"""Reference geometry and territories for tests: sets of cells and a breadth-first search.

They never use the engine's bit masks, lattice labels or floods, so a mistake in one of
the engine's shortcuts shows up as a disagreement with them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from engine.board import Cell, Slot


def reference_neighbours(cell: Cell) -> list[Cell]:
    """The orthogonal neighbours of a cell, from the board size alone."""
    row, col = cell
    around = [(row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)]
    return [Cell(r, c) for r, c in around if 0 <= r < 5 and 0 <= c < 8]


def reference_slot(first: Cell, second: Cell) -> Slot:
    """The line between two neighbours, smaller cell first."""
    a, b = sorted((first, second))
    return Slot(a, b)


REFERENCE_CELLS: list[Cell] = [Cell(r, c) for r in range(5) for c in range(8)]
REFERENCE_ADJACENT: dict[Cell, list[tuple[Cell, Slot]]] = {
    cell: [(n, reference_slot(cell, n)) for n in reference_neighbours(cell)] for cell in REFERENCE_CELLS
}


def bfs_territories(palisades: Iterable[Slot]) -> list[frozenset[Cell]]:
    """The territories a set of palisades makes, each found by a breadth-first search from its lowest cell."""
    closed = set(palisades)
    seen: set[Cell] = set()
    out: list[frozenset[Cell]] = []
    for start in REFERENCE_CELLS:
        if start in seen:
            continue
        region = {start}
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            for neighbour, slot in REFERENCE_ADJACENT[cell]:
                if slot not in closed and neighbour not in region:
                    region.add(neighbour)
                    queue.append(neighbour)
        seen |= region
        out.append(frozenset(region))
    return out


def cells_in(mask: int) -> frozenset[Cell]:
    """The cells of an engine bit mask, read one cell at a time."""
    return frozenset(cell for cell in REFERENCE_CELLS if mask >> (cell.row * 8 + cell.col) & 1)
