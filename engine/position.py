"""The position JSON (``docs/position-format.md``) as an immutable value type.

>>> pos = Position.from_json({
...     "variant": "armadora",
...     "players": ["orange", "blue"],
...     "gold": [{"cell": [0, 3], "value": 5}],
...     "warriors": [{"cell": [2, 2], "player": "orange", "value": None}],
...     "palisades": [[[1, 4], [0, 4]]],
... })
>>> pos.warriors[0]
Warrior(cell=Cell(row=2, col=2), player='orange', value=None)
>>> pos.palisades
frozenset({Slot(a=Cell(row=0, col=4), b=Cell(row=1, col=4))})
>>> Position.from_json({"players": ["orange"]})
Traceback (most recent call last):
...
engine.position.PositionError: players: 2 to 4 colours expected, got 1
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine.board import COLS, ROWS, Cell, Slot
from engine.walls import Walls

VARIANTS: tuple[str, ...] = ("armadora", "armadora-advanced", "nuggets")
REFERENCE_COLOURS: tuple[str, ...] = ("orange", "green", "blue", "purple")
_COLOUR_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,23}$")
_KNOWN_KEYS = frozenset({"variant", "players", "gold", "warriors", "palisades"})


class PositionError(ValueError):
    """A position document that cannot be read; the message names the offending entry."""


class Gold(NamedTuple):
    """A gold token; ``value`` is 3..7, or None where not (yet) read."""

    cell: Cell
    value: int | None


class Warrior(NamedTuple):
    """A warrior token; ``value`` is 1..5, or None while face down."""

    cell: Cell
    player: str
    value: int | None


@dataclass(frozen=True)
class Position:
    """What stands on the board, in the shape of the position JSON.

    Gold and warriors are kept sorted by cell, so equal boards compare equal.
    Keys of the document that this version does not know are kept in
    ``extra`` and written back by :meth:`to_json`. :meth:`from_json` and
    :meth:`loads` validate a document; the constructor trusts its arguments.
    """

    players: tuple[str, ...]
    variant: str = "armadora"
    gold: tuple[Gold, ...] = ()
    warriors: tuple[Warrior, ...] = ()
    palisades: frozenset[Slot] = frozenset()
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    walls: Walls = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        object.__setattr__(self, "gold", tuple(sorted(self.gold)))
        object.__setattr__(self, "warriors", tuple(sorted(self.warriors)))
        object.__setattr__(self, "palisades", frozenset(self.palisades))
        object.__setattr__(self, "walls", Walls.from_slots(self.palisades))

    @property
    def sides(self) -> tuple[str, ...]:
        """Who scores: each colour, or in a 4-player game the two teams (``"orange+blue"``)."""
        return sides_of(self.players)

    def side_of(self, player: str) -> str:
        return self.sides[self.players.index(player) % len(self.sides)]

    def warrior_at(self, cell: Cell) -> Warrior | None:
        return next((w for w in self.warriors if w.cell == cell), None)

    def gold_at(self, cell: Cell) -> Gold | None:
        return next((g for g in self.gold if g.cell == cell), None)

    def hidden_warriors(self) -> tuple[Warrior, ...]:
        return tuple(w for w in self.warriors if w.value is None)

    def to_json(self) -> dict[str, Any]:
        """The document, with the palisades in slot order."""
        doc: dict[str, Any] = dict(self.extra)
        doc.update(
            variant=self.variant,
            players=list(self.players),
            gold=[{"cell": list(g.cell), "value": g.value} for g in self.gold],
            warriors=[{"cell": list(w.cell), "player": w.player, "value": w.value} for w in self.warriors],
            palisades=[slot.to_json() for slot in sorted(self.palisades, key=lambda s: s.number)],
        )
        return doc

    def dumps(self) -> str:
        return json.dumps(self.to_json())

    @classmethod
    def loads(cls, text: str | bytes) -> Position:
        """Read a JSON document; any fault is a :class:`PositionError`."""
        try:
            doc = json.loads(text)
        except RecursionError:
            raise PositionError("not valid JSON: nested too deeply") from None
        except ValueError as err:  # JSONDecodeError, bad bytes, an integer of thousands of digits
            raise PositionError(f"not valid JSON: {err}") from None
        return cls.from_json(doc)

    @classmethod
    def from_json(cls, doc: object) -> Position:
        """Validate a decoded document; every fault names its entry."""
        if not isinstance(doc, dict):
            raise PositionError(f"a position is a JSON object, not {_kind(doc)}")
        variant = doc.get("variant", "armadora")
        if variant not in VARIANTS:
            raise PositionError(f"variant: {variant!r} is not one of {', '.join(VARIANTS)}")
        players = _players(doc.get("players"))
        occupied: dict[Cell, str] = {}

        def place(cell: Cell, where: str) -> None:
            if cell in occupied:
                raise PositionError(f"{where}.cell: {list(cell)} already holds {occupied[cell]}")
            occupied[cell] = where

        gold = []
        for n, entry in enumerate(_list(doc, "gold")):
            where = f"gold[{n}]"
            entry = _object(entry, where)
            cell = _cell(entry.get("cell"), f"{where}.cell")
            value = _value(entry.get("value"), f"{where}.value", 3, 7)
            place(cell, where)
            gold.append(Gold(cell, value))

        warriors = []
        for n, entry in enumerate(_list(doc, "warriors")):
            where = f"warriors[{n}]"
            entry = _object(entry, where)
            cell = _cell(entry.get("cell"), f"{where}.cell")
            player = entry.get("player")
            if not isinstance(player, str) or not player:
                raise PositionError(f"{where}.player: a colour name expected, got {player!r}")
            value = _value(entry.get("value"), f"{where}.value", 1, 5)
            place(cell, where)
            warriors.append(Warrior(cell, player, value))

        palisades: dict[Slot, int] = {}
        for n, entry in enumerate(_list(doc, "palisades")):
            where = f"palisades[{n}]"
            if not isinstance(entry, list) or len(entry) != 2:
                raise PositionError(f"{where}: a pair of cells expected, got {_short(entry)}")
            first = _cell(entry[0], f"{where}[0]")
            second = _cell(entry[1], f"{where}[1]")
            try:
                slot = Slot.between(first, second)
            except ValueError:
                raise PositionError(
                    f"{where}: {list(first)} and {list(second)} are not orthogonal neighbours"
                ) from None
            if slot in palisades:
                raise PositionError(f"{where}: duplicate of palisades[{palisades[slot]}] ({slot.name})")
            palisades[slot] = n

        extra = {k: v for k, v in doc.items() if k not in _KNOWN_KEYS}
        return cls(players, variant, tuple(gold), tuple(warriors), frozenset(palisades), extra)


def sides_of(players: tuple[str, ...]) -> tuple[str, ...]:
    """The scoring sides of a turn order: partners sitting opposite join in a 4-player game.

    >>> sides_of(("orange", "green", "blue", "purple"))
    ('orange+blue', 'green+purple')
    """
    if len(players) == 4:
        return (f"{players[0]}+{players[2]}", f"{players[1]}+{players[3]}")
    return players


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "null" if value is None else "a number"
    )


def _short(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, float) or value == value else "NaN"
    return text if len(text) <= 40 else text[:37] + "..."


def _players(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise PositionError(f"players: a list of colour names expected, got {_kind(value)}")
    if not 2 <= len(value) <= 4:
        raise PositionError(f"players: 2 to 4 colours expected, got {len(value)}")
    for n, colour in enumerate(value):
        if not isinstance(colour, str) or not _COLOUR_KEY.match(colour):
            raise PositionError(
                f"players[{n}]: a colour key expected (lower case letters, digits, - or _), "
                f"got {_short(colour)}"
            )
        if colour in value[:n]:
            raise PositionError(f"players[{n}]: {colour!r} is listed twice")
    return tuple(value)


def _list(doc: dict[str, Any], key: str) -> list[Any]:
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise PositionError(f"{key}: a list expected, got {_kind(value)}")
    return value


def _object(entry: object, where: str) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise PositionError(f"{where}: an object expected, got {_kind(entry)}")
    return entry


def _cell(value: object, where: str) -> Cell:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in value)
    ):
        raise PositionError(f"{where}: a cell [row, col] expected, got {_short(value)}")
    cell = Cell(*value)
    if not cell.on_board():
        raise PositionError(
            f"{where}: {list(cell)} is off the board (rows 0-{ROWS - 1}, columns 0-{COLS - 1})"
        )
    return cell


def _value(value: object, where: str, low: int, high: int) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise PositionError(f"{where}: {low}..{high} or null expected, got {_short(value)}")
    return value
