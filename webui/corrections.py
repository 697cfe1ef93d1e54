"""A player's taps on the review diagram, as changes to the position.

A tap on a cell cycles it: empty, then each colour in turn order, then empty
again; on a gold cell it steps the gold token's value 3, 4, ..., 7, 3. A tap on
a line puts up or takes down a palisade.

>>> from engine.position import Position
>>> p = Position(("orange", "blue"))
>>> p = tap(p, "c3"); [w.player for w in p.warriors]
['orange']
>>> p = tap(p, "c3"); [w.player for w in p.warriors]
['blue']
>>> tap(p, "c3").warriors
()
>>> sorted(s.name for s in tap(p, "a5|b5").palisades)
['a5|b5']

With a tool picked from the palette (:func:`place`), a tap puts that on the
cell: a colour's warrior (a second tap with the same colour takes it away, as
in the lichess board editor), nothing ("empty"), or gold, whose value a second
tap steps. A line tap always puts up or takes down its palisade.

>>> p = place(Position(("orange", "blue")), "c3", "blue"); [w.player for w in p.warriors]
['blue']
>>> place(p, "c3", "blue").warriors
()
>>> place(p, "c3", "empty").warriors
()

In the advanced game three tools change the warrior tapped: "arrow" lays one more of the Elf's
arrows on it (a third tap takes both away), "reinforcement" lays or takes away a reinforcement
token, and "face-up" turns it face up and steps the value it shows 1 to 5, then face down again.

>>> p = place(Position(("orange", "blue")), "c3", "blue")
>>> once = place(p, "c3", "arrow")
>>> once.warriors[0].arrows, place(once, "c3", "arrow").warriors[0].arrows
(1, 2)
>>> place(p, "c3", "face-up").warriors[0]
Warrior(cell=Cell(row=2, col=2), player='blue', value=1, face_up=True)
"""

from __future__ import annotations

import re
from dataclasses import replace

from engine.board import GOLD_CELLS, Cell, Slot
from engine.position import Gold, Position, Warrior

_SLOT_NAME = re.compile(r"^([a-h][1-5])([|-])([a-h][1-5])$")
GOLD_RANGE = (3, 4, 5, 6, 7)


def parse_target(name: str) -> Cell | Slot:
    """A cell (``c3``) or a slot (``a5|b5``, ``d5-d4``) from its name; ValueError naming what is wrong."""
    match = _SLOT_NAME.match(name)
    if match:
        return Slot.between(Cell.parse(match[1]), Cell.parse(match[3]))
    try:
        return Cell.parse(name)
    except ValueError:
        raise ValueError(f"not a cell or a line of the board: {name[:20]!r}") from None


#: The palette's tools besides the players' colours.
TOOLS = ("empty", "gold", "palisade")
#: The advanced game's tools, each for a token on a warrior or its face (see :func:`on_warrior`).
ADVANCED_TOOLS = ("arrow", "reinforcement", "face-up")


def place(position: Position, name: str, tool: str) -> Position:
    """The position after a tap with ``tool`` (a player's colour, or one of :data:`TOOLS`) on the
    cell or line of this name; ValueError saying what to pick instead when the tool cannot go there."""
    target = parse_target(name)
    if isinstance(target, Slot) or tool == "palisade":
        if not isinstance(target, Slot):
            raise ValueError("with the palisade picked, tap a line between two cells")
        return tap(position, name)
    if tool in ADVANCED_TOOLS:
        return on_warrior(position, target, tool)
    if tool not in (*position.players, *TOOLS):
        raise ValueError(f"pick what to put on {target.name}: empty, gold or a player's colour")
    gold = [g for g in position.gold if g.cell != target]
    warriors = [w for w in position.warriors if w.cell != target]
    here = position.warrior_at(target)
    pile = position.gold_at(target)
    if tool == "gold":
        if target not in GOLD_CELLS:
            raise ValueError(f"gold only lies on the eight gold cells, and {target.name} is not one")
        if pile is None:
            gold.append(Gold(target, None))
        else:
            return tap(position, name)  # steps the value
    elif tool != "empty" and not (here is not None and here.player == tool):
        warriors.append(Warrior(target, tool, None))
    elif target in GOLD_CELLS and here is not None:
        gold.append(Gold(target, None))  # a gold cell goes back to holding its gold
    return replace(position, gold=tuple(gold), warriors=tuple(warriors))


def on_warrior(position: Position, cell: Cell, tool: str) -> Position:
    """The position after a tap with an advanced tool on the warrior of ``cell``: one more arrow
    (after two, none), the reinforcement laid or taken away, or the face shown stepped (face down,
    face up showing 1, ..., 5, face down); ValueError where no warrior stands."""
    here = position.warrior_at(cell)
    if here is None:
        what = {
            "arrow": "an arrow lies",
            "reinforcement": "a reinforcement lies",
            "face-up": "a face turns up",
        }
        raise ValueError(f"{what[tool]} on a warrior, and {cell.name} holds none: put one there first")
    if tool == "arrow":
        changed = here._replace(arrows=(here.arrows + 1) % 3)
    elif tool == "reinforcement":
        changed = here._replace(reinforced=not here.reinforced)
    elif not here.face_up or here.value is None:
        changed = here._replace(face_up=True, value=1)
    elif here.value < 5:
        changed = here._replace(value=here.value + 1)
    else:
        changed = here._replace(face_up=False, value=None)
    others = tuple(w for w in position.warriors if w.cell != cell)
    return replace(position, warriors=(*others, changed))


def tap(position: Position, name: str) -> Position:
    """The position after a tap on the cell or line of this name."""
    target = parse_target(name)
    gold, warriors, palisades = list(position.gold), list(position.warriors), set(position.palisades)
    if isinstance(target, Slot):
        palisades ^= {target}
    else:
        warrior = position.warrior_at(target)
        pile = position.gold_at(target)
        if warrior is not None:
            warriors.remove(warrior)
            players = position.players
            following = players.index(warrior.player) + 1 if warrior.player in players else 0
            if following < len(position.players):
                warriors.append(Warrior(target, position.players[following], None))
            elif target in GOLD_CELLS:
                gold.append(Gold(target, None))  # a gold cell goes back to holding its gold
        elif pile is not None:
            gold.remove(pile)
            step = GOLD_RANGE.index(pile.value) + 1 if pile.value in GOLD_RANGE else 0
            gold.append(Gold(target, GOLD_RANGE[step % len(GOLD_RANGE)]))
        elif target in GOLD_CELLS:
            gold.append(Gold(target, None))
        else:
            warriors.append(Warrior(target, position.players[0], None))
    return replace(position, gold=tuple(gold), warriors=tuple(warriors), palisades=frozenset(palisades))
