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
from dataclasses import dataclass

from engine.board import CELLS, Cell
from engine.game import GameState, IllegalMove, Move, PlaceWarrior
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
        """The game as the player of this colour sees it."""
        p = state.players.index(colour)
        known = sum(CELLS[i].bit for i, w in enumerate(state.warriors) if w is not None and w[0] == p)
        return cls(hide(state, known), known)

    @classmethod
    def from_position(cls, position: Position, colour: str, passed: Sequence[str] = ()) -> Knowledge:
        """The position as the player of ``colour``, to move, sees it; others' values are never read.

        KnowledgeError for an unknown colour, a hidden value of the player's own, or a position
        no game can reach.
        """
        players = position.players
        for name in (colour, *passed):
            if name not in players:
                raise KnowledgeError(f"{name!r} is not a colour of this game ({', '.join(players)})")
        if colour in passed:
            raise KnowledgeError(f"{colour} has passed and cannot move again")
        own = [w for w in position.warriors if w.player == colour]
        unread = [w.cell.name for w in own if w.value is None]
        if unread:
            raise KnowledgeError(f"{colour}'s own warrior values must be given: {', '.join(unread)}")
        known = sum(w.cell.bit for w in own)
        others = [w for w in position.warriors if w.player != colour and w.player in players]
        stand_ins = _stand_ins(others, players)
        blind = Position(
            players,
            position.variant,
            position.gold,
            (*own, *stand_ins, *(w for w in position.warriors if w.player not in players)),
            position.palisades,
        )
        try:
            state = GameState.from_position(blind, to_move=colour, passed=passed)
        except ValueError as err:
            raise KnowledgeError(str(err)) from None
        return cls(state, known)

    def value_at(self, cell: Cell) -> int | None:
        """The value of the warrior on a cell if it is known here, else None."""
        w = self.state.warriors[cell.number]
        return None if w is None or not self.known & cell.bit else w[1]

    def knows(self, colour: str) -> bool:
        """Whether every warrior of this colour on the board has a known value."""
        p = self.state.players.index(colour)
        return all(
            self.known & CELLS[i].bit
            for i, w in enumerate(self.state.warriors)
            if w is not None and w[0] == p
        )

    def hidden_cells(self, colour: str) -> int:
        p = self.state.players.index(colour)
        return sum(
            CELLS[i].bit
            for i, w in enumerate(self.state.warriors)
            if w is not None and w[0] == p and not self.known & CELLS[i].bit
        )

    def play(self, move: Move) -> Knowledge:
        """The view after a move whose value, for a warrior, is known."""
        state = self.state.play(move)
        known = self.known | (move.cell.bit if isinstance(move, PlaceWarrior) else 0)
        return Knowledge(state, known)

    def play_hidden(self, cell: Cell) -> Knowledge:
        """The view after the player to move put a face-down warrior of unknown value on ``cell``."""
        state = self.state
        supply = state.supplies[state.to_move]
        stand_in = next((v for v in range(1, 6) if supply[v - 1]), None)
        reason = "no warrior is left" if stand_in is None else state.why_illegal(PlaceWarrior(cell, stand_in))
        if stand_in is None or reason is not None:
            raise IllegalMove(f"{state.player} cannot place a warrior on {cell.name}: {reason}")
        return Knowledge(state.play(PlaceWarrior(cell, stand_in)), self.known)


def hide(state: GameState, known: int) -> GameState:
    """The state with every value off ``known`` replaced by a stand-in, supplies to match."""
    position = state.to_position()
    shown = [w for w in position.warriors if w.cell.bit & known]
    hidden = [w for w in position.warriors if not w.cell.bit & known]
    blind = Position(
        state.players, state.variant, position.gold, (*shown, *_stand_ins(hidden, state.players)),
        position.palisades,
    )  # fmt: skip
    out = GameState.from_position(
        blind, passed=[c for n, c in enumerate(state.players) if state.passed >> n & 1]
    )
    out.to_move = state.to_move
    return out


def _stand_ins(hidden: Sequence[Warrior], players: Sequence[str]) -> list[Warrior]:
    """Stand-in values for hidden warriors: each owner's smallest values, taken in cell order.

    Shown warriors of the same owner are not counted: only the counts of the stand-ins
    matter, and a full supply always holds enough small values.
    """
    supplies: dict[str, Supply] = {colour: supply_for(len(players)) for colour in players}
    out = []
    for w in sorted(hidden):
        supply = supplies[w.player]
        value = next((v for v in range(1, 6) if supply[v - 1]), None)
        if value is None:
            raise KnowledgeError(f"{w.player} has more warriors on the board than a supply holds")
        supplies[w.player] = take(supply, value)
        out.append(Warrior(w.cell, w.player, value))
    return out
