"""What a player at the table knows: every placement, their own warriors' values, nobody else's.

A :class:`Knowledge` keeps a :class:`~engine.game.GameState` whose hidden warriors carry
stand-in values (the smallest values their owner may still have), so the rules'
legality tests work unchanged, and a mask of the cells whose values are real.
Nothing built from it can see a hidden value: there is none in it.

>>> from engine.board import GOLD_VALUES, Cell
>>> from engine.game import GameState, PlaceWarrior
>>> state = GameState.new(("orange", "blue"), GOLD_VALUES).play(PlaceWarrior(Cell(2, 2), 5))
>>> view = Knowledge.of(state, "blue")
>>> view.value_at(Cell(2, 2)) is None, view.state.warriors[18]
(True, (0, 1))
>>> Knowledge.of(state, "orange").value_at(Cell(2, 2))
5
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.board import CELLS, Cell
from engine.game import ExtraWarrior, GameState, IllegalMove, Move, PlaceWarrior
from engine.position import Position, Warrior
from engine.supply import Supply, supply_for, take


class KnowledgeError(ValueError):
    """Knowledge that cannot be built, or a move it cannot take; the message says why."""


@dataclass(frozen=True)
class Knowledge:
    """A game as seen by whoever knows the values of the warriors on the cells of ``known``."""

    state: GameState
    known: int

    @classmethod
    def of(cls, state: GameState, colour: str) -> Knowledge:
        """The game as the player of this colour sees it: their own values, the face-up warriors' and,
        in the advanced game, those their Mage's power has shown them."""
        p = state.players.index(colour)
        known = sum(CELLS[i].bit for i, w in enumerate(state.warriors) if w is not None and w[0] == p)
        known |= state.face_up | (state.seen[p] if state.seen else 0)
        return cls(hide(state, known), known)

    @classmethod
    def from_position(
        cls,
        position: Position,
        colour: str,
        passed: Sequence[str] = (),
        *,
        seen: Sequence[Cell] = (),
        power_used: bool = False,
    ) -> Knowledge:
        """The position as the player of ``colour``, to move, sees it; others' values are never read,
        but for face-up warriors and those on ``seen`` (cells the player's Mage has looked at).

        KnowledgeError for an unknown colour, a hidden value of the player's own or of a cell
        seen, or a position no game can reach.
        """
        players = position.players
        for name in (colour, *passed):
            if name not in players:
                raise KnowledgeError(f"{name!r} is not a colour of this game ({', '.join(players)})")
        if colour in passed:
            raise KnowledgeError(f"{colour} has passed and cannot move again")
        seen_mask = sum(Cell(*c).bit for c in seen)
        known = 0
        for w in position.warriors:
            if w.player == colour or w.cell.bit & seen_mask or w.face_up:
                known |= w.cell.bit
        for what, mine in (("own warrior", True), ("seen or face-up warrior", False)):
            unread = [
                w.cell.name
                for w in position.warriors
                if w.cell.bit & known and w.value is None and (w.player == colour) == mine
            ]
            if unread:
                raise KnowledgeError(f"{colour}'s {what} values must be given: {', '.join(unread)}")
        stray = [Cell(*c).name for c in seen if position.warrior_at(Cell(*c)) is None]
        if stray:
            raise KnowledgeError(f"no warrior to have seen on {', '.join(stray)}")
        try:
            state = _blind(position, known, colour, passed, power_used)
        except ValueError as err:
            raise KnowledgeError(str(err)) from None
        return cls(state, known)

    @classmethod
    def onlooker(
        cls, position: Position, to_move: str, passed: Sequence[str] = (), *, power_used: bool = False
    ) -> Knowledge:
        """The position as someone who knows no player's values sees it: only the face-up warriors'
        (a record made from photos, say). KnowledgeError where no game reaches the position.

        >>> from engine.position import Warrior
        >>> from engine.board import GOLD_CELLS, GOLD_VALUES
        >>> from engine.position import Gold
        >>> pos = Position(("orange", "blue"), gold=tuple(map(Gold, GOLD_CELLS, GOLD_VALUES)),
        ...                warriors=(Warrior(Cell(2, 2), "orange", None),))
        >>> view = Knowledge.onlooker(pos, "blue")
        >>> view.state.player, view.value_at(Cell(2, 2))
        ('blue', None)
        """
        known = sum(w.cell.bit for w in position.warriors if w.face_up and w.value is not None)
        try:
            state = _blind(position, known, to_move, passed, power_used)
        except ValueError as err:
            raise KnowledgeError(str(err)) from None
        return cls(state, known)

    def value_at(self, cell: Cell) -> int | None:
        """The value of the warrior on a cell if it is known here, else None."""
        w = self.state.warriors[cell.number]
        return None if w is None or not self.known & cell.bit else w[1]

    def knows(self, colour: str) -> bool:
        """Whether every warrior of this colour on the board has a known value."""
        return not self.hidden_cells(colour)

    def hidden_cells(self, colour: str) -> int:
        p = self.state.players.index(colour)
        return sum(
            CELLS[i].bit
            for i, w in enumerate(self.state.warriors)
            if w is not None and w[0] == p and not self.known & CELLS[i].bit
        )

    def play(self, move: Move) -> Knowledge:
        """The knowledge after a move whose value, for a warrior, is known (a face-up one's always is).

        A Peek only spends the power here: :meth:`learn` gives the value it shows.
        """
        if isinstance(move, ExtraWarrior) and not self.knows(self.state.player):
            raise KnowledgeError("a face-up warrior of a player whose values are hidden: use play_hidden")
        state = self.state.play(move)
        known = self.known | (move.cell.bit if isinstance(move, PlaceWarrior | ExtraWarrior) else 0)
        return Knowledge(state, known)

    def play_hidden(self, cell: Cell, face_up: int | None = None) -> Knowledge:
        """The knowledge after the player to move put a face-down warrior of unknown value on ``cell``
        (or, with ``face_up``, the Goblin's warrior of that value)."""
        state = self.state
        supply = state.supplies[state.to_move]
        stand_in = next((v for v in range(1, 6) if supply[v - 1]), None)
        move = PlaceWarrior if face_up is None else ExtraWarrior
        reason = "no warrior is left" if stand_in is None else state.why_illegal(move(cell, stand_in))
        if stand_in is None or reason is not None:
            raise IllegalMove(f"{state.player} cannot place a warrior on {cell.name}: {reason}")
        after = Knowledge(state.play(move(cell, stand_in)), self.known)
        return after if face_up is None else after.learn(cell, face_up)

    def learn(self, cell: Cell, value: int) -> Knowledge:
        """The knowledge once the value of the warrior on ``cell`` is known (a Mage's look, a face-up
        warrior); KnowledgeError where that value cannot be there."""
        state = self.state
        w = state.warriors[cell.number]
        if w is None:
            raise KnowledgeError(f"no warrior on {cell.name}")
        if self.known & cell.bit:
            if w[1] != value:
                raise KnowledgeError(f"the warrior on {cell.name} is known to be {w[1]}, not {value}")
            return self
        position = state.to_position()
        warriors = tuple(x._replace(value=value) if x.cell == cell else x for x in position.warriors)
        known = self.known | cell.bit
        passed = [c for n, c in enumerate(state.players) if state.passed >> n & 1]
        try:
            blind = _blind(
                replace(position, warriors=warriors), known, state.player, passed, state.power_used
            )
        except ValueError as err:
            raise KnowledgeError(str(err)) from None
        blind.seen = state.seen
        return Knowledge(blind, known)


def hide(state: GameState, known: int) -> GameState:
    """The state with every value off ``known`` replaced by a stand-in, supplies to match."""
    passed = [c for n, c in enumerate(state.players) if state.passed >> n & 1]
    out = _blind(state.to_position(), known, state.player, passed, state.power_used)
    out.seen = state.seen
    return out


def _blind(
    position: Position, known: int, to_move: str, passed: Sequence[str], power_used: bool
) -> GameState:
    """The game of a position whose values off ``known`` are replaced by stand-ins; ValueError where
    no game reaches it."""
    players = position.players
    shown = [w for w in position.warriors if w.cell.bit & known or w.player not in players]
    hidden = [w for w in position.warriors if not w.cell.bit & known and w.player in players]
    blind = replace(position, warriors=(*shown, *_stand_ins(hidden, shown, players)))
    out = GameState.from_position(blind, to_move=to_move, passed=passed, power_used=power_used)
    out.to_move = players.index(to_move)
    return out


def _stand_ins(hidden: Sequence[Warrior], shown: Sequence[Warrior], players: Sequence[str]) -> list[Warrior]:
    """Stand-in values for hidden warriors: each owner's smallest values left once the shown ones
    are taken, in cell order."""
    supplies: dict[str, Supply] = {colour: supply_for(len(players)) for colour in players}
    for w in shown:
        if w.player in supplies and w.value is not None and supplies[w.player][w.value - 1]:
            supplies[w.player] = take(supplies[w.player], w.value)
    out = []
    for w in sorted(hidden):
        supply = supplies[w.player]
        value = next((v for v in range(1, 6) if supply[v - 1]), None)
        if value is None:
            raise KnowledgeError(f"{w.player} has more warriors on the board than a supply holds")
        supplies[w.player] = take(supply, value)
        out.append(w._replace(value=value))
    return out
