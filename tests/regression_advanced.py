"""Hand-made positions of the advanced game for the suggestion regression suite.

They use the board plan of tests/regression.py: four strips of two columns, each cut
into a top and a bottom part, every palisade up, every part but the live one (and a
decoy) filled with one colour's warriors. Blue, the Goblin, has used its power on the
face-up warrior that stands in the live part, and has passed; orange, to move, has no
warrior left. Blue's other values stay hidden from the search.

- "arrow": orange is the Elf; the live part, one cell short of full, is a tie that an
  arrow on blue's face-up warrior turns orange's. The decoy part, not full either, holds
  blue warriors too weak to matter: an arrow there gains nothing.
- "reinforce": the live part is full and a tie; orange's reinforcement on one of its
  warriors there takes it. Orange is the Orc, with no palisade left to build.
- "peek": orange is the Mage and holds one warrior, a 1, for two tops (the live strip's and
  the next one's) each holding a blue warrior and an orange 1 beside one empty cell. The
  top whose blue warrior is a 1 is orange's with it, and with it the game; the other is a
  tie, not enough. Only a look at one of those two blue warriors tells which: a look
  elsewhere, or none, leaves orange guessing. Blue's on the live top is the 2.
- "keep": orange is the Orc on regression.py's "pass" board: the one palisade left can only
  cut the path its gold hangs on. The extra palisade would have to go there, so orange
  keeps the power and passes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from regression import (
    assign,
    bottom_fill,
    document,
    fill_parts,
    gold_layouts,
    others,
    part_cells,
    split_line,
    strip_walls,
    top_fill,
    wall_off_case,
    winner,
    with_warriors,
)

from engine import Cell, Position


@dataclass(frozen=True)
class AdvancedCase:
    """A position, the kind of answer it wants and the cells that answer may name."""

    name: str
    doc: dict[str, Any]
    passed: tuple[str, ...]
    expect: str  # "arrow", "reinforce" or "peek": that move, on one of ``cells``; "keep": a pass
    cells: tuple[Cell, ...]
    empty: tuple[Cell, ...] = ()  # "peek": the empty cells of the two tops, in the order of ``cells``

    @property
    def position(self) -> Position:
        return Position.from_json(self.doc)


def advanced(doc: dict[str, Any], characters: tuple[str, str], powers: tuple[int, int],
             reinforcements: tuple[int, int], face_up: Cell | None) -> dict[str, Any]:  # fmt: skip
    """The document made advanced: characters, tokens and blue's face-up warrior (if any)."""
    up = None if face_up is None else list(face_up)
    warriors = [{**w, "face_up": True} if w["cell"] == up else w for w in doc["warriors"]]
    return {
        **doc,
        "variant": "armadora-advanced",
        "characters": dict(zip(("orange", "blue"), characters, strict=True)),
        "powers_left": dict(zip(("orange", "blue"), powers, strict=True)),
        "reinforcements_left": dict(zip(("orange", "blue"), reinforcements, strict=True)),
        "warriors": warriors,
    }


def with_change(doc: dict[str, Any], cell: Cell, **change: Any) -> dict[str, Any]:
    return {
        **doc,
        "warriors": [{**w, **change} if tuple(w["cell"]) == tuple(cell) else w for w in doc["warriors"]],
    }


def walls() -> list[tuple[tuple[int, int], tuple[int, int]]]:
    out = strip_walls()
    for s in range(4):
        out += split_line(s) + top_fill(s) + bottom_fill(s)
    return out


def live_case(kind: str, live: int, variant: int) -> AdvancedCase:
    """An "arrow" or a "reinforce" case on the live strip's bottom part, the decoy in the next strip's."""
    o1, o2, o3 = others(live)
    here = part_cells(live, "bottom")  # five cells
    decoy = part_cells(o1, "bottom")
    face_up = here[0]
    fixed = [("orange", 5, decoy[0]), ("orange", 4, decoy[1]), ("orange", 3, decoy[2])]
    if kind == "reinforce":  # full: blue's 4 against orange's four 1s
        blue_value, mine = 4, list(here[1:])
        owners = {(live, "top"): "orange", (o2, "top"): "orange", (o3, "top"): "orange",
                  (o1, "top"): "blue", (o2, "bottom"): "blue", (o3, "bottom"): "blue"}  # fmt: skip
        decoy_blue = [("blue", decoy[3]), ("blue", decoy[4])]
        characters, powers, reinforcements = ("orc", "goblin"), (1, 0), (1, 0)
    else:  # one cell short of full: blue's 3 against orange's three 1s
        blue_value, mine = 3, list(here[1:4])
        owners = {(o2, "bottom"): "orange", (o3, "bottom"): "orange", (live, "top"): "blue",
                  (o1, "top"): "blue", (o2, "top"): "blue", (o3, "top"): "blue"}  # fmt: skip
        decoy_blue = [("blue", decoy[3])]
        characters, powers, reinforcements = ("elf", "goblin"), (2, 0), (0, 0)
    fixed += [("blue", blue_value, face_up)] + [("orange", 1, c) for c in mine]
    cells = [(colour, cell) for (s, part), colour in owners.items() for cell in part_cells(s, part)]
    warriors = assign(fixed, decoy_blue + cells, hand={})

    def make(gold: tuple[int, ...]) -> dict[str, Any]:
        return advanced(document(gold, warriors, walls()), characters, powers, reinforcements, face_up)

    def fits(gold: tuple[int, ...]) -> bool:
        doc = make(gold)
        after = (
            with_change(doc, face_up, arrows=1)
            if kind == "arrow"
            else with_change(doc, mine[0], reinforced=True)
        )
        return winner(doc) != ("orange",) and winner(after) == ("orange",)

    doc = make(gold_layouts(fits, variant))
    targets = (face_up,) if kind == "arrow" else tuple(mine)
    return AdvancedCase(f"{kind}-strip{live}-{variant}", doc, ("blue",), kind, targets)


def peek_case(live: int, variant: int) -> AdvancedCase:
    """The "peek" case: blue's warrior on the live top (a 2) or the next strip's (a 1) decides
    where orange's last warrior, a 2, goes. Beside each, an orange 1 struck by one of blue's
    (the Elf's) arrows counts 0, so that a 2 against a 2 is a tie and against a 1 a win."""
    o1, o2, o3 = others(live)
    tops = part_cells(live, "top"), part_cells(o1, "top")  # three cells each, beside the gold
    blue_at, struck, empty = (tops[0][0], tops[1][0]), (tops[0][1], tops[1][1]), (tops[0][2], tops[1][2])
    fixed = [("blue", 2, blue_at[0]), ("blue", 1, blue_at[1]), *(("orange", 1, cell) for cell in struck)]
    owners = {(o2, "top"): "orange", (live, "bottom"): "orange", (o1, "bottom"): "orange",
              (o3, "top"): "blue", (o2, "bottom"): "blue", (o3, "bottom"): "blue"}  # fmt: skip
    warriors = assign(fixed, fill_parts(owners), hand={"orange": 2})

    def make(gold: tuple[int, ...]) -> dict[str, Any]:
        doc = advanced(document(gold, warriors, walls()), ("mage", "elf"), (2, 0), (0, 0), None)
        return with_change(with_change(doc, struck[0], arrows=1), struck[1], arrows=1)

    def wins(doc: dict[str, Any], values: tuple[int, int], at: int) -> bool:
        """Whether orange wins with blue's two warriors of these values and its 2 on top ``at``."""
        doc = with_change(with_change(doc, blue_at[0], value=values[0]), blue_at[1], value=values[1])
        return winner(with_warriors(doc, [("orange", 2, empty[at])])) == ("orange",)

    def fits(gold: tuple[int, ...]) -> bool:
        # The top whose blue warrior is a 1 wins, whatever the other one is; the other top never does.
        doc = make(gold)
        return (
            all(wins(doc, (1, other), 0) and wins(doc, (other, 1), 1) for other in (1, 2))
            and not wins(doc, (2, 1), 0)
            and not wins(doc, (1, 2), 1)
        )

    doc = make(gold_layouts(fits, variant))
    return AdvancedCase(f"peek-strip{live}-{variant}", doc, ("blue",), "peek", blue_at, empty)


def keep_case(live: int, variant: int) -> AdvancedCase:
    """The "keep" case: regression.py's "pass" board, orange the Orc with its power in hand."""
    base = wall_off_case(live, variant, filled=True)
    doc = {
        **base.doc,
        "variant": "armadora-advanced",
        "characters": {"orange": "orc", "blue": "mage"},
        "powers_left": {"orange": 1, "blue": 0},
        "reinforcements_left": {"orange": 0, "blue": 0},  # a reinforcement would be a move to weigh too
    }
    return AdvancedCase(f"keep-strip{live}-{variant}", doc, base.passed, "keep", ())


def advanced_cases() -> Iterator[AdvancedCase]:
    for live in range(4):
        for variant in range(4):
            yield live_case("arrow", live, variant)
            yield live_case("reinforce", live, variant)
        for variant in range(2):
            yield peek_case(live, variant)
            yield keep_case(live, variant)
