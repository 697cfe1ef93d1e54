"""Hand-made positions for the suggestion regression suite, built on one board plan.

Full vertical walls after columns b, d and f cut the board into four strips of two
columns. Each strip holds two gold piles, one in its top part (rows 5-4) and one in its
bottom part (rows 3-1), and the line between the two parts splits it (4 cells above,
6 below). Every part is filled with one colour's warriors, so who takes its gold does
not hang on hidden values. A "tree-filled" part has palisades on the lines of its cycles,
so that no palisade may stand in it any more: the palisades left in the box can only go
where a case wants them. Each case puts its question in one strip, the live strip.

Orange (first player, to move) always knows its values; blue's are in the documents for
the scoring checks of the tests and hidden from the search.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import permutations
from typing import Any

from engine import GOLD_CELLS, GOLD_VALUES, Cell, Position, Slot, score

Pair = tuple[tuple[int, int], tuple[int, int]]
ORANGE_VALUES = (5, 4, 3, 2, 2) + (1,) * 11  # a full 2-player supply, largest first
BLUE_VALUES = (1,) * 11 + (2, 2, 3, 4, 5)


def strip_cols(s: int) -> tuple[int, int]:
    return 2 * s, 2 * s + 1


def strip_walls() -> list[Pair]:
    return [((r, c), (r, c + 1)) for c in (1, 3, 5) for r in range(5)]


def split_line(s: int) -> list[Pair]:
    a, b = strip_cols(s)
    return [((1, a), (2, a)), ((1, b), (2, b))]


def top_fill(s: int) -> list[Pair]:
    a, b = strip_cols(s)
    return [((0, a), (0, b))]


def bottom_fill(s: int) -> list[Pair]:
    a, b = strip_cols(s)
    return [((2, a), (2, b)), ((3, a), (3, b))]


def snake(s: int) -> list[Pair]:
    """Walls that make the whole strip one path: a5 b5 b4 a4 a3 b3 b2 a2 a1 b1 for strip 0."""
    a, b = strip_cols(s)
    return [((0, a), (1, a)), ((1, b), (2, b)), ((2, a), (3, a)), ((3, b), (4, b))]


def snake_cuts(s: int) -> list[Pair]:
    """The lines of the snake whose palisade leaves 4, 5 or 6 cells on the top side."""
    a, b = strip_cols(s)
    return [((1, a), (2, a)), ((2, a), (2, b)), ((2, b), (3, b))]


def part_cells(s: int, part: str) -> list[Cell]:
    """The cells without gold of a strip's top (rows 0-1) or bottom (rows 2-4) part, in cell order."""
    rows = (0, 1) if part == "top" else (2, 3, 4)
    return [Cell(r, c) for r in rows for c in strip_cols(s) if Cell(r, c) not in GOLD_CELLS]


@dataclass(frozen=True)
class Case:
    """A position, what the test expects of the suggestion, and why."""

    name: str
    doc: dict[str, Any]
    passed: tuple[str, ...]
    expect: str  # "build:<slot>" must build there, "avoid:<slots>" must not, "pass", "warrior:<cell>"
    slots: tuple[Slot, ...]
    cell: Cell | None = None

    @property
    def position(self) -> Position:
        return Position.from_json(self.doc)


def document(
    gold: tuple[int, ...], warriors: list[tuple[str, int, Cell]], palisades: list[Pair]
) -> dict[str, Any]:
    return {
        "players": ["orange", "blue"],
        "gold": [{"cell": list(c), "value": v} for c, v in zip(GOLD_CELLS, gold, strict=True)],
        "warriors": [{"cell": list(cell), "player": p, "value": v} for p, v, cell in warriors],
        "palisades": [[list(a), list(b)] for a, b in palisades],
    }


def fill_parts(owners: dict[tuple[int, str], str], skip: Cell | None = None) -> list[tuple[str, Cell]]:
    """Every cell of the parts named (but ``skip``), with its colour, parts in the order given."""
    return [
        (colour, cell) for (s, part), colour in owners.items() for cell in part_cells(s, part) if cell != skip
    ]


def assign(
    fixed: list[tuple[str, int, Cell]], cells: list[tuple[str, Cell]], hand: dict[str, int]
) -> list[tuple[str, int, Cell]]:
    """``fixed`` and warriors on ``cells`` valued from what the supplies hold besides ``fixed`` and
    the ``hand`` (one warrior each), largest first."""
    stock = {"orange": list(ORANGE_VALUES), "blue": list(BLUE_VALUES)}
    stock["blue"].sort(reverse=True)
    for colour, value, _ in fixed:
        stock[colour].remove(value)
    for colour, value in hand.items():
        stock[colour].remove(value)
    return fixed + [(colour, stock[colour].pop(0), cell) for colour, cell in cells]


def winner(doc: dict[str, Any]) -> tuple[str, ...]:
    return score(Position.from_json(doc)).ranking[0]


def with_palisades(doc: dict[str, Any], extra: list[Pair]) -> dict[str, Any]:
    return {**doc, "palisades": doc["palisades"] + [[list(a), list(b)] for a, b in extra]}


def with_warriors(doc: dict[str, Any], extra: list[tuple[str, int, Cell]]) -> dict[str, Any]:
    return {
        **doc,
        "warriors": doc["warriors"] + [{"cell": list(c), "player": p, "value": v} for p, v, c in extra],
    }


def gold_layouts(test: Any, skip: int) -> tuple[int, ...]:
    """The ``skip``-th gold layout (distinct orders of the eight values) that passes ``test``."""
    seen = set()
    found = 0
    for order in permutations(GOLD_VALUES):
        if order in seen:
            continue
        seen.add(order)
        if test(order):
            if found == skip:
                return order
            found += 1
    raise AssertionError("no gold layout fits the case")


def others(live: int) -> list[int]:
    return [s for s in range(4) if s != live]


def seal_case(live: int, variant: int) -> Case:
    """Orange leads the live strip's top part, blue the strip as a whole: seal the top off.

    One palisade is left in the box, the board is full, both hands are empty.
    """
    o1, o2, o3 = others(live)
    # The live top holds orange's three 1s: too weak against the five blue warriors below.
    weak = [("orange", 1, cell) for cell in part_cells(live, "top")]
    owners = {(o1, "bottom"): "orange", (o2, "bottom"): "orange", (o3, "top"): "orange",
              (live, "bottom"): "blue", (o1, "top"): "blue", (o2, "top"): "blue",
              (o3, "bottom"): "blue"}  # fmt: skip
    warriors = assign(weak, fill_parts(owners), hand={})
    seal = split_line(live)[1]
    walls = [*strip_walls(), split_line(live)[0], *top_fill(live), *bottom_fill(live)]
    for s in others(live):
        walls += split_line(s) + top_fill(s) + bottom_fill(s)

    def fits(gold: tuple[int, ...]) -> bool:
        doc = document(gold, warriors, walls)
        return winner(doc) == ("blue",) and winner(with_palisades(doc, [seal])) == ("orange",)

    doc = document(gold_layouts(fits, variant), warriors, walls)
    return Case(f"seal-strip{live}-{variant}", doc, (), "build", (Slot.between(*seal),))


def block_case(live: int, variant: int) -> Case:
    """Blue needs one more warrior in the live strip's bottom part to take it: take the last cell first.

    Every palisade is up; orange holds a 5, blue one hidden warrior; two cells are empty,
    the other in a part orange owns outright.
    """
    o1, o2, o3 = others(live)
    target = part_cells(live, "bottom")
    empty_here, elsewhere = target[-1], part_cells(o1, "bottom")[0]
    contest = [
        ("orange", 2, target[0]),
        ("orange", 2, target[1]),
        ("blue", 1, target[2]),
        ("blue", 2, target[3]),
    ]
    # Orange's largest values go where the second empty cell is, so that blue cannot take that part.
    owners = {(o1, "bottom"): "orange", (live, "top"): "orange", (o2, "top"): "orange", (o3, "top"): "orange",
              (o2, "bottom"): "blue", (o3, "bottom"): "blue", (o1, "top"): "blue"}  # fmt: skip
    warriors = assign(contest, fill_parts(owners, skip=elsewhere), hand={"orange": 5, "blue": 3})
    walls = strip_walls()
    for s in range(4):
        walls += split_line(s) + top_fill(s) + bottom_fill(s)

    def fits(gold: tuple[int, ...]) -> bool:
        doc = document(gold, warriors, walls)
        blocked = with_warriors(doc, [("orange", 5, empty_here), ("blue", 3, elsewhere)])
        claimed = with_warriors(doc, [("orange", 5, elsewhere), ("blue", 3, empty_here)])
        return winner(blocked) == ("orange",) and winner(claimed) == ("blue",)

    doc = document(gold_layouts(fits, variant), warriors, walls)
    return Case(f"block-strip{live}-{variant}", doc, (), "warrior", (), empty_here)


def wall_off_case(live: int, variant: int, *, filled: bool) -> Case:
    """Orange's warriors sit at the foot of a strip shaped as a path; its top gold is orange's
    only while no palisade cuts the path. Blue has passed with five warriors in hand.

    Filled: those cuts are the only palisades left to build, so orange passes. Otherwise
    orange may build elsewhere but never on a cut.
    """
    o1, o2, o3 = others(live)
    a, b = strip_cols(live)
    foot = [c for c in (Cell(3, a), Cell(3, b), Cell(4, a), Cell(4, b)) if c not in GOLD_CELLS]
    owners = {(o1, "bottom"): "orange", (o2, "bottom"): "orange", (o3, "top"): "orange",
              (o1, "top"): "blue", (o2, "top"): "blue", (o3, "bottom"): "blue"}  # fmt: skip
    warriors = assign([("orange", 1, cell) for cell in foot], fill_parts(owners), hand={})
    walls = strip_walls() + snake(live)
    for s in others(live):
        walls += split_line(s) + (top_fill(s) + bottom_fill(s) if filled else [])
    cuts = snake_cuts(live)

    def fits(gold: tuple[int, ...]) -> bool:
        doc = document(gold, warriors, walls)
        return winner(doc) == ("orange",) and all(
            winner(with_palisades(doc, [cut])) != ("orange",) for cut in cuts
        )

    doc = document(gold_layouts(fits, variant), warriors, walls)
    slots = tuple(Slot.between(*cut) for cut in cuts)
    name = f"{'pass' if filled else 'keep-gold'}-strip{live}-{variant}"
    return Case(name, doc, ("blue",), "pass" if filled else "avoid", slots)


def cases() -> Iterator[Case]:
    for live in range(4):
        for variant in range(2):
            yield seal_case(live, variant)
            yield block_case(live, variant)
            yield wall_off_case(live, variant, filled=False)
            yield wall_off_case(live, variant, filled=True)
