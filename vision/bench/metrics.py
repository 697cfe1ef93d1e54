"""How a read position compares with the truth: cells, slots, gold values, whole boards, and
which mistakes the reading failed to mark (:func:`silent_mistakes`).

Colours are matched one to one before cells are compared, so a scanner that
names a copy's colours differently (an unknown copy read without a profile)
is judged on how it grouped the warriors, not on the names it chose.

>>> truth = {"players": ["orange", "blue"], "gold": [], "palisades": [],
...          "warriors": [{"cell": [2, 2], "player": "orange", "value": None}]}
>>> read = {"players": ["red", "blue"], "gold": [], "palisades": [[[0, 0], [0, 1]]],
...         "warriors": [{"cell": [2, 2], "player": "red", "value": None}]}
>>> c = compare(read, truth)
>>> c.cells_right, c.slots_right, c.exact
(40, 66, False)
>>> silent_mistakes(c, {"confidence": {"slots": {"a5|b5": 0.95}}, "warnings": []})
('a5|b5',)
>>> silent_mistakes(c, {"confidence": {"slots": {"a5|b5": 0.6}}, "warnings": []})
()
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations
from typing import Any

from engine.board import NUM_CELLS, SLOTS, Cell, Slot


@dataclass(frozen=True)
class Comparison:
    """Counts of right elements in one photo's reading."""

    cells_right: int
    #: Cells right as empty, gold or some warrior, whatever its colour.
    occupancy_right: int
    slots_right: int
    gold_right: int
    gold_total: int
    wrong_cells: tuple[str, ...]
    wrong_slots: tuple[str, ...]
    #: The gold cells whose value was read wrong (or not read).
    wrong_gold: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        return self.cells_right == NUM_CELLS and self.slots_right == len(SLOTS)


def _labels(document: dict[str, Any]) -> dict[Cell, str]:
    labels = {Cell(*g["cell"]): "gold" for g in document.get("gold", [])}
    labels |= {Cell(*w["cell"]): "warrior:" + w["player"] for w in document.get("warriors", [])}
    return labels


def _slots(document: dict[str, Any]) -> set[Slot]:
    return {Slot.between(Cell(*a), Cell(*b)) for a, b in document.get("palisades", [])}


def match_colours(read: dict[Cell, str], truth: dict[Cell, str]) -> dict[str, str]:
    """The one-to-one renaming of read colours to true ones that agrees on the most cells."""
    read_colours = sorted({v for v in read.values() if v.startswith("warrior:")})
    true_colours = sorted({v for v in truth.values() if v.startswith("warrior:")})
    padded = true_colours + [f"unmatched:{i}" for i in range(len(read_colours))]
    best: tuple[int, dict[str, str]] = (-1, {})
    for chosen in permutations(padded, len(read_colours)):
        mapping = dict(zip(read_colours, chosen, strict=True))
        agree = sum(1 for cell, label in read.items() if truth.get(cell) == mapping.get(label, label))
        if agree > best[0]:
            best = (agree, mapping)
    return best[1]


def compare(read: dict[str, Any], truth: dict[str, Any]) -> Comparison:
    """Compare two position documents element by element."""
    read_labels, true_labels = _labels(read), _labels(truth)
    mapping = match_colours(read_labels, true_labels)
    renamed = {cell: mapping.get(label, label) for cell, label in read_labels.items()}
    wrong_cells = tuple(
        cell.name
        for cell in (Cell(r, c) for r in range(5) for c in range(8))
        if renamed.get(cell, "empty") != true_labels.get(cell, "empty")
    )
    read_slots, true_slots = _slots(read), _slots(truth)
    wrong_slots = tuple(slot.name for slot in SLOTS if (slot in read_slots) != (slot in true_slots))
    read_gold = {Cell(*g["cell"]): g["value"] for g in read.get("gold", [])}
    true_gold = {Cell(*g["cell"]): g["value"] for g in truth.get("gold", [])}
    wrong_gold = tuple(cell.name for cell, value in true_gold.items() if read_gold.get(cell) != value)

    def kind(label: str) -> str:
        return label.split(":")[0]

    occupancy_right = sum(
        1
        for cell in (Cell(r, c) for r in range(5) for c in range(8))
        if kind(read_labels.get(cell, "empty")) == kind(true_labels.get(cell, "empty"))
    )
    return Comparison(
        cells_right=NUM_CELLS - len(wrong_cells),
        occupancy_right=occupancy_right,
        slots_right=len(SLOTS) - len(wrong_slots),
        gold_right=len(true_gold) - len(wrong_gold),
        gold_total=len(true_gold),
        wrong_cells=wrong_cells,
        wrong_slots=wrong_slots,
        wrong_gold=wrong_gold,
    )


#: The page marks a reading under this confidence for the player to check.
MARKED_BELOW = 0.8


def marked(reading: dict[str, Any]) -> tuple[set[str], set[str], set[str]]:
    """The cells, slots and gold cells (by name) that ``reading`` (a scan's JSON: its ``confidence``
    and ``warnings``) marks for the player to check: confidence under :data:`MARKED_BELOW`, or named
    by a warning (its ``cells``, its ``palisades``; a gold cell by its cell)."""
    confidence = reading.get("confidence", {})
    warnings = reading.get("warnings", [])
    warned_cells = {Cell(*cell).name for w in warnings for cell in w.get("cells", [])}
    warned_slots = {
        Slot.between(Cell(*a), Cell(*b)).name for w in warnings for a, b in w.get("palisades", [])
    }

    def doubted(part: str) -> set[str]:
        return {name for name, sure in confidence.get(part, {}).items() if sure < MARKED_BELOW}

    return doubted("cells") | warned_cells, doubted("slots") | warned_slots, doubted("gold") | warned_cells


def silent_mistakes(comparison: Comparison, reading: dict[str, Any]) -> tuple[str, ...]:
    """The mistakes of ``comparison`` that ``reading`` leaves unmarked (:func:`marked`): a wrong cell,
    slot or gold value (``gold:d5``).

    These are the errors that corrupt a score: the player was given no reason to look.
    """
    cells, slots, gold = marked(reading)
    return (
        *(name for name in comparison.wrong_cells if name not in cells),
        *(name for name in comparison.wrong_slots if name not in slots),
        *(f"gold:{name}" for name in comparison.wrong_gold if name not in gold),
    )


def needless_marks(comparison: Comparison, reading: dict[str, Any]) -> int:
    """How many parts ``reading`` marks (:func:`marked`) that it read right: what doubt costs the
    player, a look at the board for nothing."""
    cells, slots, gold = marked(reading)
    gold_read = set(reading.get("confidence", {}).get("gold", {}))
    return (
        len(cells - set(comparison.wrong_cells))
        + len(slots - set(comparison.wrong_slots))
        + len((gold & gold_read) - set(comparison.wrong_gold))
    )
