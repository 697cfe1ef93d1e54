"""The advanced game on the page: who is which character, and what each has left of their tokens.

The page keeps no counter of tokens: what is left is worked out each time from what the board
shows spent (the Elf's arrows, the Goblin's face-up warriors, the reinforcements) and from the
powers the players said they used on their own link, which leave nothing on the board (the Mage's
looks, the Orc's extra palisades: :class:`Use`). A correction of the board corrects the count.

>>> position = Position(("orange", "blue"), "armadora-advanced")
>>> hand = hands(position, ("goblin", "mage"), [Use("blue", "mage", 1, Cell(0, 0), "orange", 3)])
>>> hand["blue"]
Hand(character='mage', powers=1, reinforcements=1)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from engine.board import Cell
from engine.position import CHARACTERS, STARTING_POWERS, Position

ADVANCED = "armadora-advanced"
#: In the reference kit each colour is a people (``../shared/board-spec.md``).
KIT_CHARACTERS: dict[str, str] = {"orange": "goblin", "green": "orc", "blue": "elf", "purple": "mage"}
#: The powers a player tells their page about, since the board keeps no trace of them.
TOLD_POWERS = ("mage", "orc")
POWER_WORDS: dict[str, str] = {
    "mage": "look at an opponent's warrior",
    "elf": "an arrow on an opponent's warrior",
    "orc": "one palisade more this turn",
    "goblin": "one warrior more this turn, face up",
}


class Use(NamedTuple):
    """A power a player said they used: on which position; for a Mage's look, whose warrior, which
    cell and the value its owner showed."""

    colour: str
    power: str
    position_id: int
    cell: Cell | None = None
    owner: str | None = None
    value: int | None = None


@dataclass(frozen=True)
class Hand:
    """A player's character and the tokens they still hold."""

    character: str
    powers: int
    reinforcements: int


def chosen_characters(
    players: Sequence[str], picked: Sequence[str], *, reference_kit: bool
) -> tuple[str, ...]:
    """Each player's character, in turn order, from the new game's choices ("" for "as the colour
    says"); ValueError with a sentence for a missing, unknown, contradicted or repeated one.

    >>> chosen_characters(("orange", "blue"), ("", ""), reference_kit=True)
    ('goblin', 'elf')
    >>> chosen_characters(("orange", "blue"), ("mage", "mage"), reference_kit=False)
    Traceback (most recent call last):
    ...
    ValueError: player 2: the mage is taken already; each character plays once
    """
    out: list[str] = []
    for n, (colour, choice) in enumerate(zip(players, picked, strict=True), 1):
        kit = KIT_CHARACTERS.get(colour) if reference_kit else None
        if not choice:
            if kit is None:
                raise ValueError(f"player {n}: choose a character ({', '.join(CHARACTERS)}) for {colour}")
            choice = kit
        if choice not in CHARACTERS:
            raise ValueError(f"player {n}: choose a character: {', '.join(CHARACTERS)}")
        if kit is not None and choice != kit:
            raise ValueError(
                f"player {n}: in the reference kit {colour} plays the {kit}s; "
                "with another copy, send its calibration profile to choose freely"
            )
        if choice in out:
            raise ValueError(f"player {n}: the {choice} is taken already; each character plays once")
        out.append(choice)
    return tuple(out)


def spent_on_board(position: Position, colour: str, character: str) -> int:
    """The power tokens of ``colour`` that the board shows spent: the Elf's arrows (on anyone's
    warriors), the Goblin's face-up warriors; a Mage's or an Orc's power leaves no trace."""
    if character == "elf":
        return sum(w.arrows for w in position.warriors)
    if character == "goblin":
        return sum(1 for w in position.warriors if w.player == colour and w.face_up)
    return 0


def hands(position: Position, characters: Sequence[str], uses: Iterable[Use]) -> dict[str, Hand]:
    """What each player holds on this board, given the powers told: never below none."""
    told = [u.colour for u in uses]
    out = {}
    for colour, character in zip(position.players, characters, strict=True):
        spent = spent_on_board(position, colour, character) + told.count(colour)
        reinforced = sum(1 for w in position.warriors if w.player == colour and w.reinforced)
        out[colour] = Hand(character, max(0, STARTING_POWERS[character] - spent), max(0, 1 - reinforced))
    return out


def with_tokens(position: Position, characters: Sequence[str], uses: Iterable[Use] | None = None) -> Position:
    """The position with the game's characters (the photo cannot show them) and, given the powers
    told (``uses``), the tokens left in every hand; as it is outside the advanced game."""
    if position.variant != ADVANCED or len(characters) != len(position.players):
        return position
    if uses is None:  # the tokens in hand are unknown: the check reads what the board shows spent
        return replace(position, characters=tuple(characters))
    held = hands(position, characters, uses)
    return replace(
        position,
        characters=tuple(characters),
        powers_left=tuple(held[c].powers for c in position.players),
        reinforcements_left=tuple(held[c].reinforcements for c in position.players),
    )


def with_seen(position: Position, looks: Iterable[Use]) -> tuple[Position, tuple[Cell, ...]]:
    """The position with the values a player's Mage was shown, and the cells they were shown on; a
    look at a cell whose warrior is no longer the one looked at (a corrected board) is left out."""
    shown: Mapping[Cell, int] = {
        u.cell: u.value
        for u in looks
        if u.cell is not None
        and u.value is not None
        and (w := position.warrior_at(u.cell)) is not None
        and w.player == u.owner
    }
    warriors = tuple(w._replace(value=shown[w.cell]) if w.cell in shown else w for w in position.warriors)
    return replace(position, warriors=warriors), tuple(sorted(shown))


def partner(players: Sequence[str], colour: str) -> str | None:
    """The partner sitting opposite in a 4-player game, None otherwise."""
    if len(players) != 4:
        return None
    return players[(players.index(colour) + 2) % 4]
