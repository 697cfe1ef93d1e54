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
>>> Warrior(Cell(2, 3), "blue", 4, arrows=1)
Warrior(cell=Cell(row=2, col=3), player='blue', value=4, arrows=1)
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine.board import COLS, GOLD_CELLS, ROWS, Cell, Slot
from engine.walls import Walls

VARIANTS: tuple[str, ...] = ("armadora", "armadora-advanced", "nuggets")
REFERENCE_COLOURS: tuple[str, ...] = ("orange", "green", "blue", "purple")
_COLOUR_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,23}$")
CHARACTERS: tuple[str, ...] = ("goblin", "orc", "elf", "mage")
STARTING_POWERS: dict[str, int] = {"goblin": 1, "orc": 1, "elf": 2, "mage": 2}
_KNOWN_KEYS = frozenset(
    {
        "variant",
        "players",
        "markers",
        "gold",
        "warriors",
        "palisades",
        "characters",
        "powers_left",
        "reinforcements_left",
    }
)
_WARRIOR_KEYS = frozenset({"cell", "player", "value", "face_up", "arrows", "reinforced"})


class PositionError(ValueError):
    """A position document that cannot be read; the message names the offending entry."""


class Gold(NamedTuple):
    """A gold token; ``value`` is 3..7, or None where not (yet) read."""

    cell: Cell
    value: int | None


class Warrior(NamedTuple):
    """A warrior token; ``value`` is 1..5, or None while hidden.

    In the advanced game it may lie ``face_up`` (its value public), carry 0..2 Elf's
    ``arrows`` and a reinforcement token (``reinforced``). Its repr leaves out what is at
    its default.
    """

    cell: Cell
    player: str
    value: int | None
    face_up: bool = False
    arrows: int = 0
    reinforced: bool = False

    @property
    def strength(self) -> int | None:
        """What the warrior counts at scoring: its value less its arrows (never below 0), plus 1 if
        reinforced; None while the value is hidden.

        >>> Warrior(Cell(0, 0), "blue", 1, arrows=2, reinforced=True).strength
        1
        """
        if self.value is None:
            return None
        return max(0, self.value - self.arrows) + int(self.reinforced)

    def __repr__(self) -> str:
        head = f"Warrior(cell={self.cell!r}, player={self.player!r}, value={self.value!r}"
        extras = "".join(
            f", {name}={getattr(self, name)!r}"
            for name, default in (("face_up", False), ("arrows", 0), ("reinforced", False))
            if getattr(self, name) != default
        )
        return f"{head}{extras})"


@dataclass(frozen=True)
class Position:
    """What stands on the board, in the shape of the position JSON.

    Gold and warriors are kept sorted by cell, so equal boards compare equal.
    Keys of the document that this version does not know are kept in
    ``extra`` and written back by :meth:`to_json`, as are a warrior's unknown keys, in
    ``warrior_extra`` by cell. :meth:`from_json` and :meth:`loads` validate a document; the
    constructor trusts its arguments.

    The advanced game's keys are in turn order, like ``players``: ``characters`` (empty when
    the position names none, None for a colour it leaves out; :func:`engine.check.check` says
    what is missing or doubled), ``powers_left`` and ``reinforcements_left`` (empty when
    absent, None for a colour the document leaves out: unknown).
    """

    players: tuple[str, ...]
    variant: str = "armadora"
    gold: tuple[Gold, ...] = ()
    warriors: tuple[Warrior, ...] = ()
    palisades: frozenset[Slot] = frozenset()
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    characters: tuple[str | None, ...] = ()
    powers_left: tuple[int | None, ...] = ()
    reinforcements_left: tuple[int | None, ...] = ()
    warrior_extra: Mapping[Cell, Mapping[str, Any]] = field(default_factory=dict, compare=False, repr=False)
    markers: tuple[Gold, ...] = ()

    walls: Walls = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        object.__setattr__(self, "gold", tuple(sorted(self.gold)))
        object.__setattr__(self, "markers", tuple(sorted(self.markers)))
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

    @property
    def gold_cells(self) -> tuple[Cell, ...]:
        """Where the gold lies: a Nuggets game's declared markers, else the Armadöra layout.

        >>> Position(("orange", "blue"), "nuggets", markers=(Gold(Cell(2, 2), 9),)).gold_cells
        (Cell(row=2, col=2),)
        """
        return tuple(m.cell for m in self.markers) if self.markers else GOLD_CELLS

    @property
    def gold_mask(self) -> int:
        return sum(cell.bit for cell in self.gold_cells)

    def hidden_warriors(self) -> tuple[Warrior, ...]:
        return tuple(w for w in self.warriors if w.value is None)

    def character_of(self, player: str) -> str | None:
        """The player's character in the advanced game, None where the position names none.

        >>> pos = Position(("orange", "blue"), "armadora-advanced", characters=("goblin", "elf"))
        >>> pos.character_of("blue"), pos.player_of("mage")
        ('elf', None)
        """
        if not self.characters or player not in self.players:
            return None
        return self.characters[self.players.index(player)]

    def player_of(self, character: str) -> str | None:
        """The colour playing a character, None if nobody does (or the position names no character:
        a photo's reading, say, which the check then says lacks them).

        >>> Position(("orange", "blue"), "armadora-advanced").player_of("goblin") is None
        True
        """
        # Not strict: a position built in code may name fewer characters than players.
        return next((p for p, c in zip(self.players, self.characters, strict=False) if c == character), None)

    def to_json(self) -> dict[str, Any]:
        """The document, with the palisades in slot order."""
        doc: dict[str, Any] = dict(self.extra)
        doc.update(
            variant=self.variant,
            players=list(self.players),
            gold=[{"cell": list(g.cell), "value": g.value} for g in self.gold],
            warriors=[self._warrior_json(w) for w in self.warriors],
            palisades=[slot.to_json() for slot in sorted(self.palisades, key=lambda s: s.number)],
        )
        if self.markers:
            doc["markers"] = [{"cell": list(m.cell), "value": m.value} for m in self.markers]
        for key in ("characters", "powers_left", "reinforcements_left"):
            values = getattr(self, key)
            if values:
                doc[key] = {p: v for p, v in zip(self.players, values, strict=True) if v is not None}
        return doc

    def _warrior_json(self, w: Warrior) -> dict[str, Any]:
        out: dict[str, Any] = {**self.warrior_extra.get(w.cell, {}), "cell": list(w.cell), "player": w.player,
                               "value": w.value}  # fmt: skip
        if w.face_up:
            out["face_up"] = True
        if w.arrows:
            out["arrows"] = w.arrows
        if w.reinforced:
            out["reinforced"] = True
        return out

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

        markers: list[Gold] = []
        for n, entry in enumerate(_list(doc, "markers")):
            where = f"markers[{n}]"
            entry = _object(entry, where)
            cell = _cell(entry.get("cell"), f"{where}.cell")
            value = entry.get("value")
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise PositionError(f"{where}.value: a positive integer expected, got {_short(value)}")
            if any(m.cell == cell for m in markers):
                raise PositionError(f"{where}.cell: {list(cell)} already holds a marker")
            markers.append(Gold(cell, value))
        if markers and variant != "nuggets":
            raise PositionError(f"markers: only a nuggets game declares its gold-mine markers, not {variant}")

        gold = []
        for n, entry in enumerate(_list(doc, "gold")):
            where = f"gold[{n}]"
            entry = _object(entry, where)
            cell = _cell(entry.get("cell"), f"{where}.cell")
            high = max((m.value or 0 for m in markers), default=7)
            value = _value(entry.get("value"), f"{where}.value", 1 if markers else 3, high)
            place(cell, where)
            gold.append(Gold(cell, value))

        warriors = []
        warrior_extra: dict[Cell, dict[str, Any]] = {}
        for n, entry in enumerate(_list(doc, "warriors")):
            where = f"warriors[{n}]"
            entry = _object(entry, where)
            cell = _cell(entry.get("cell"), f"{where}.cell")
            player = entry.get("player")
            if not isinstance(player, str) or not player:
                raise PositionError(f"{where}.player: a colour name expected, got {player!r}")
            value = _value(entry.get("value"), f"{where}.value", 1, 5)
            face_up = _flag(entry.get("face_up", False), f"{where}.face_up")
            arrows = entry.get("arrows", 0)
            if not isinstance(arrows, int) or isinstance(arrows, bool) or not 0 <= arrows <= 2:
                raise PositionError(f"{where}.arrows: 0..2 expected, got {_short(arrows)}")
            reinforced = _flag(entry.get("reinforced", False), f"{where}.reinforced")
            place(cell, where)
            warriors.append(Warrior(cell, player, value, face_up, arrows, reinforced))
            unknown = {k: v for k, v in entry.items() if k not in _WARRIOR_KEYS}
            if unknown:
                warrior_extra[cell] = unknown

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

        characters = _per_player(doc, "characters", players, _character)
        powers = _per_player(doc, "powers_left", players, _count(0, 2))
        reinforcements = _per_player(doc, "reinforcements_left", players, _count(0, 1))
        extra = {k: v for k, v in doc.items() if k not in _KNOWN_KEYS}
        return cls(
            players, variant, tuple(gold), tuple(warriors), frozenset(palisades), extra,
            characters, powers, reinforcements, warrior_extra, tuple(markers),
        )  # fmt: skip


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


def _flag(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise PositionError(f"{where}: true or false expected, got {_short(value)}")
    return value


def _per_player(
    doc: dict[str, Any], key: str, players: tuple[str, ...], read: Callable[[object, str], Any]
) -> tuple[Any, ...]:
    """A ``colour -> value`` object read into turn order, None for a colour it leaves out; () if absent."""
    if key not in doc:
        return ()
    value = doc[key]
    if not isinstance(value, dict):
        raise PositionError(f"{key}: an object colour -> value expected, got {_kind(value)}")
    for colour in value:
        if colour not in players:
            raise PositionError(f"{key}.{colour}: not a colour of this game ({', '.join(players)})")
    return tuple(None if p not in value else read(value[p], f"{key}.{p}") for p in players)


def _character(value: object, where: str) -> str:
    if value not in CHARACTERS:
        raise PositionError(f"{where}: one of {', '.join(CHARACTERS)} expected, got {_short(value)}")
    return str(value)


def _count(low: int, high: int) -> Callable[[object, str], int]:
    def read(value: object, where: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise PositionError(f"{where}: {low}..{high} expected, got {_short(value)}")
        return value

    return read


def _value(value: object, where: str, low: int, high: int) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise PositionError(f"{where}: {low}..{high} or null expected, got {_short(value)}")
    return value
