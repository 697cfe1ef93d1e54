"""What each link may see of the warriors' values: its own player's, until the reveal shows them all.

Every page and every API answer about a game goes through :func:`visible_position`:
no value of another player is in anything built from it before the reveal. A Goblin's face-up
warrior is the exception the rules make: its value, read from the board, is everyone's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from engine.board import Cell
from engine.position import Position, Warrior
from engine.supply import supply_for

Values = Mapping[str, Mapping[Cell, int]]


def face_up(warrior: Warrior) -> bool:
    """Whether the board shows the warrior's value to all: face up, its value read."""
    return warrior.face_up and warrior.value is not None


def unused_values(position: Position, colour: str, mine: Mapping[Cell, int]) -> tuple[int, ...]:
    """The values still left in ``colour``'s supply once ``mine`` are given to their warriors (and
    the face-up ones keep theirs)."""
    supply = list(supply_for(len(position.players)))
    for warrior in position.warriors:
        value = warrior.value if face_up(warrior) else mine.get(warrior.cell)
        if warrior.player == colour and value is not None:
            supply[value - 1] -= 1
    return tuple(value for value in range(1, 6) if supply[value - 1] > 0)


def missing_values(position: Position, colour: str, values: Values) -> tuple[Cell, ...]:
    """The cells of ``colour``'s face-down warriors whose value that player has not entered yet."""
    mine = values.get(colour, {})
    return tuple(
        w.cell for w in position.warriors if w.player == colour and w.cell not in mine and not face_up(w)
    )


def revealed(ended: bool, position: Position, values: Values) -> bool:
    """Whether the game has ended and every player has entered the value of every warrior of theirs."""
    return ended and not any(missing_values(position, colour, values) for colour in position.players)


def visible_position(position: Position, values: Values, viewer: str | None, reveal: bool) -> Position:
    """The position as a link sees it: values of the viewer's warriors (all of them after the reveal)."""

    def shown(w: Warrior) -> Warrior:
        if face_up(w):
            return w
        visible = reveal or w.player == viewer
        return w._replace(value=values.get(w.player, {}).get(w.cell) if visible else None)

    return replace(position, warriors=tuple(shown(w) for w in position.warriors))
