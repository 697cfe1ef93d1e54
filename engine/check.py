"""Whether a position could occur in a real game, and what is wrong where it could not.

Meant for scanned positions: every problem names the cells involved, so a
page can mark them and a person can fix the reading. A position that lists no
gold at all leaves gold out (a sketch of palisades, say); one that lists some
must list all eight piles, on their cells.

>>> from engine.position import STARTING_POWERS, Position, Warrior
>>> report = check(Position.from_json({"players": ["orange", "blue"],
...     "gold": [{"cell": [1, 1], "value": 6}],
...     "warriors": [{"cell": [0, 3], "player": "red", "value": None}]}))
>>> [p.code for p in report.problems]
['unknown_colour', 'warrior_on_gold', 'missing_gold']
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine.board import (
    GOLD_VALUES,
    MIN_TERRITORY,
    TOTAL_PALISADES,
    Cell,
    Slot,
    cells_of,
)
from engine.position import STARTING_POWERS, Position, Warrior
from engine.supply import supply_for


@dataclass(frozen=True)
class Problem:
    """One thing that cannot happen in a real game, with the cells (and palisades) involved."""

    code: str
    message: str
    cells: tuple[Cell, ...] = ()
    palisades: tuple[Slot, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "cells": [list(c) for c in self.cells],
            "palisades": [s.to_json() for s in self.palisades],
        }


@dataclass(frozen=True)
class CheckReport:
    problems: tuple[Problem, ...]

    @property
    def legal(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"legal": self.legal, "problems": [p.to_json() for p in self.problems]}


def check(position: Position) -> CheckReport:
    """Every problem of the position, in a fixed order: warriors, gold, palisades, territories,
    then the advanced game's characters, tokens, arrows, reinforcements and face-up warriors."""
    return CheckReport(
        (
            *_unknown_colours(position),
            *_warriors_on_gold(position),
            *_supply_problems(position),
            *_gold_problems(position),
            *_palisade_problems(position),
            *advanced_problems(position),
        )
    )


def _names(cells: tuple[Cell, ...] | list[Cell]) -> str:
    return ", ".join(c.name for c in cells)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _unknown_colours(position: Position) -> list[Problem]:
    by_colour: dict[str, list[Cell]] = {}
    for w in position.warriors:
        if w.player not in position.players:
            by_colour.setdefault(w.player, []).append(w.cell)
    return [
        Problem(
            "unknown_colour",
            f"{colour} is not a colour in this game ({', '.join(position.players)}): {_names(cells)}",
            tuple(cells),
        )
        for colour, cells in by_colour.items()
    ]


def _warriors_on_gold(position: Position) -> list[Problem]:
    cells = tuple(w.cell for w in position.warriors if w.cell.bit & position.gold_mask)
    if not cells:
        return []
    return [Problem("warrior_on_gold", f"warrior on a gold cell: {_names(cells)}", cells)]


def _supply_problems(position: Position) -> list[Problem]:
    supply = supply_for(len(position.players))
    limit = sum(supply)
    problems = []
    for colour in position.players:
        mine = [w for w in position.warriors if w.player == colour]
        if len(mine) > limit:
            problems.append(
                Problem(
                    "too_many_warriors",
                    f"{colour} has {len(mine)} warriors on the board; a player has {limit} in a "
                    f"{len(position.players)}-player game",
                    tuple(w.cell for w in mine),
                )
            )
        counts = Counter(w.value for w in mine if w.value is not None)
        for value, count in sorted(counts.items()):
            if count > supply[value - 1]:
                problems.append(
                    Problem(
                        "value_outside_supply",
                        f"{colour} has {_count(count, 'warrior')} of value {value}; a "
                        f"{len(position.players)}-player supply has {supply[value - 1] or 'none'}",
                        tuple(w.cell for w in mine if w.value == value),
                    )
                )
    return problems


def _gold_problems(position: Position) -> list[Problem]:
    if not position.gold:
        return []
    problems = []
    stray = tuple(g.cell for g in position.gold if not g.cell.bit & position.gold_mask)
    if stray:
        problems.append(Problem("gold_off_gold_cell", f"gold on a cell without gold: {_names(stray)}", stray))
    present = {g.cell for g in position.gold}
    missing = tuple(c for c in position.gold_cells if c not in present)
    if missing:
        problems.append(Problem("missing_gold", f"no gold on gold cell(s) {_names(missing)}", missing))
    if position.markers:  # a Nuggets game's declared markers: each pile has its marker's value
        declared = {m.cell: m.value for m in position.markers}
        wrong = tuple(
            g.cell for g in position.gold if g.value is not None and declared.get(g.cell, g.value) != g.value
        )
        if wrong:
            problems.append(
                Problem(
                    "gold_not_marker", f"gold value other than its declared marker's: {_names(wrong)}", wrong
                )
            )
        return problems
    allowed = Counter(GOLD_VALUES)
    counts = Counter(g.value for g in position.gold if g.value is not None)
    for value, count in sorted(counts.items()):
        if count > allowed[value]:
            cells = tuple(g.cell for g in position.gold if g.value == value)
            problems.append(
                Problem(
                    "gold_values",
                    f"{_count(count, 'gold pile')} of value {value}; the game has {allowed[value]}",
                    cells,
                )
            )
    return problems


def _palisade_problems(position: Position) -> list[Problem]:
    problems = []
    count = len(position.palisades)
    if count > TOTAL_PALISADES:
        problems.append(
            Problem(
                "too_many_palisades",
                f"{count} palisades on the board; the game has {TOTAL_PALISADES}",
                palisades=tuple(sorted(position.palisades, key=lambda s: s.number)),
            )
        )
    for region in position.walls.territories:
        size = region.bit_count()
        if size < MIN_TERRITORY:
            cells = cells_of(region)
            # One of the palisades around it is misread, or one too many was placed: the rules do
            # not say which, so every one of them is named for the player to check.
            fence = tuple(
                sorted(
                    (s for s in position.palisades if bool(s.a.bit & region) != bool(s.b.bit & region)),
                    key=lambda s: s.number,
                )
            )
            problems.append(
                Problem(
                    "territory_too_small",
                    f"territory of {_count(size, 'cell')} ({_names(cells)}): at least {MIN_TERRITORY} needed",
                    cells,
                    fence,
                )
            )
    return problems


def is_full(position: Position, region: int) -> bool:
    """Whether every cell of a territory holds a warrior or gold.

    >>> from engine.board import GOLD_CELLS
    >>> is_full(Position(("orange", "blue")), GOLD_CELLS[0].bit)
    True
    """
    occupied = position.gold_mask | sum(w.cell.bit for w in position.warriors)
    return region & ~occupied == 0


def advanced_problems(position: Position) -> list[Problem]:
    """The advanced game's rules a position can show; in the base game, only that its pieces are absent.

    >>> doc = {"variant": "armadora-advanced", "players": ["orange", "blue"],
    ...        "characters": {"orange": "elf", "blue": "elf"},
    ...        "warriors": [{"cell": [2, 2], "player": "orange", "value": 3, "arrows": 1}]}
    >>> [p.code for p in advanced_problems(Position.from_json(doc))]
    ['character_twice', 'arrow_on_elf']
    """
    marked = tuple(w.cell for w in position.warriors if w.arrows or w.reinforced)
    if position.variant != "armadora-advanced":
        if marked or position.characters or position.powers_left or position.reinforcements_left:
            return [
                Problem(
                    "advanced_in_base_game",
                    f"characters, powers, arrows or reinforcements in a {position.variant} game"
                    + (f": {_names(marked)}" if marked else ""),
                    marked,
                )
            ]
        return []
    return [
        *_character_problems(position),
        *_arrow_problems(position),
        *_reinforcement_problems(position),
        *_face_up_problems(position),
    ]


def _character_problems(position: Position) -> list[Problem]:
    problems = []
    missing = [
        p
        for n, p in enumerate(position.players)
        if n >= len(position.characters) or not position.characters[n]
    ]
    if missing:
        problems.append(Problem("missing_character", f"no character for {', '.join(missing)}"))
    held = Counter(c for c in position.characters if c)
    for name, count in held.items():
        if count > 1:
            who = [p for p, c in zip(position.players, position.characters, strict=True) if c == name]
            problems.append(Problem("character_twice", f"{' and '.join(who)} are both the {name}"))
    for n, left in enumerate(position.powers_left):
        character = position.characters[n] if n < len(position.characters) else None
        if left is not None and character and left > STARTING_POWERS[character]:
            problems.append(
                Problem(
                    "too_many_powers",
                    f"{position.players[n]} ({character}) has {left} power tokens left; "
                    f"the {character} starts with {STARTING_POWERS[character]}",
                )
            )
    return problems


def _partners(position: Position, a: str, b: str) -> bool:
    """Whether two colours of the game score together (partners in the 4-player game, or the same)."""
    players = position.players
    return a in players and b in players and position.side_of(a) == position.side_of(b)


def _arrow_problems(position: Position) -> list[Problem]:
    struck = [w for w in position.warriors if w.arrows]
    if not struck:
        return []
    elf = position.player_of("elf")
    arrows = sum(w.arrows for w in struck)
    cells = tuple(w.cell for w in struck)
    if elf is None:
        return [Problem("arrow_without_elf", f"arrows but no elf in the game: {_names(cells)}", cells)]
    problems = []
    own = tuple(w.cell for w in struck if w.player == elf)
    if own:
        problems.append(
            Problem("arrow_on_elf", f"arrow on the elf's ({elf}) own warrior: {_names(own)}", own)
        )
    partner = tuple(w.cell for w in struck if w.player != elf and _partners(position, w.player, elf))
    if partner:
        problems.append(
            Problem(
                "arrow_on_partner",
                f"arrow on a warrior of the elf's ({elf}) partner: {_names(partner)}",
                partner,
            )
        )
    left = position.powers_left[position.players.index(elf)] if position.powers_left else None
    tokens = STARTING_POWERS["elf"]
    if arrows > tokens or (left is not None and arrows + left > tokens):
        in_hand = f" and {left} still in hand" if left else ""
        problems.append(
            Problem(
                "too_many_arrows",
                f"{arrows} arrows on the board{in_hand} ({_names(cells)}); the elf has {tokens}",
                cells,
            )
        )
    return problems


def _reinforcement_problems(position: Position) -> list[Problem]:
    reinforced = [w for w in position.warriors if w.reinforced]
    problems = []
    for colour in position.players:
        mine = tuple(w.cell for w in reinforced if w.player == colour)
        n = position.players.index(colour)
        left = position.reinforcements_left[n] if position.reinforcements_left else None
        if len(mine) > 1 or (mine and left):
            problems.append(
                Problem(
                    "too_many_reinforcements",
                    f"{colour} has {len(mine)} reinforcement(s) on the board"
                    + (f" and {left} in hand" if left else "")
                    + f" ({_names(mine)}); a player has 1",
                    mine,
                )
            )
    for region in position.walls.territories:
        here = tuple(w.cell for w in reinforced if w.cell.bit & region)
        if not here:
            continue
        if not is_full(position, region):
            problems.append(
                Problem(
                    "reinforcement_not_full",
                    f"reinforcement in a territory with empty cells: {_names(here)}",
                    here,
                )
            )
        if len(here) > 1:
            problems.append(
                Problem(
                    "reinforcements_in_territory",
                    f"{len(here)} reinforcements in one territory: {_names(here)}",
                    here,
                )
            )
    return problems


def _face_up_problems(position: Position) -> list[Problem]:
    """Before the reveal only the goblin's extra warrior lies face up, one per power token spent."""
    if all(w.face_up for w in position.warriors):
        return []  # the reveal, or no warrior at all
    goblin = position.player_of("goblin")
    face_up: list[Warrior] = [w for w in position.warriors if w.face_up]
    problems = []
    stray = tuple(w.cell for w in face_up if w.player != goblin)
    if stray:
        problems.append(
            Problem(
                "face_up_not_goblin",
                f"face-up warrior of a player other than the goblin before the reveal: {_names(stray)}",
                stray,
            )
        )
    extra = tuple(w.cell for w in face_up if w.player == goblin)
    if goblin is not None and extra:
        left = position.powers_left[position.players.index(goblin)] if position.powers_left else None
        tokens = STARTING_POWERS["goblin"]
        if len(extra) > tokens or (left is not None and len(extra) + left > tokens):
            problems.append(
                Problem(
                    "too_many_face_up",
                    f"{len(extra)} face-up goblin warrior(s)"
                    + (f" and {left} power in hand" if left else "")
                    + f" ({_names(extra)}); the goblin has {tokens} power",
                    extra,
                )
            )
    return problems
