"""A game in progress: whose turn, what is left in each supply, the moves, a random playout.

>>> state = GameState.new(("orange", "blue"), gold=GOLD_VALUES)
>>> state = state.play(PlaceWarrior(Cell(2, 2), 5))
>>> state.player, state.supplies[0]
('blue', (11, 2, 1, 1, 0))
>>> state = state.play(Build((Slot.between((0, 0), (0, 1)),)))
>>> state.play(Pass()).play(Pass()).is_over
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple

from engine.board import (
    ALL_CELLS_MASK,
    CELLS,
    GOLD_CELLS,
    GOLD_MASK,
    GOLD_VALUES,
    NUM_SLOTS,
    SLOTS,
    TOTAL_PALISADES,
    Cell,
    Slot,
)
from engine.check import check
from engine.position import Gold, Position, Warrior
from engine.scoring import Score, score
from engine.supply import Supply, supply_for, take
from engine.walls import EMPTY_WALLS, Walls


class PlaceWarrior(NamedTuple):
    """Put one face-down warrior of the given value on an empty cell without gold."""

    cell: Cell
    value: int

    def __str__(self) -> str:
        return f"warrior {self.cell.name} {self.value}"


class Build(NamedTuple):
    """Put one or two palisades on free interior lines (in slot order)."""

    slots: tuple[Slot, ...]

    def __str__(self) -> str:
        return "palisade " + " ".join(slot.name for slot in self.slots)


class Pass(NamedTuple):
    """Stop for good: a player who passed never plays again this game."""

    def __str__(self) -> str:
        return "pass"


Move = PlaceWarrior | Build | Pass


class IllegalMove(ValueError):
    """A move the rules do not allow here; the message says why."""


def shuffled_gold(rng: random.Random) -> tuple[int, ...]:
    """The eight gold values in a random order, for the cells of ``GOLD_CELLS``."""
    values = list(GOLD_VALUES)
    rng.shuffle(values)
    return tuple(values)


class GameState:
    """The whole state of a game, every warrior value included: an immutable value.

    ``warriors`` has one entry per cell: None, or ``(player_index, value)``.
    ``passed`` is a bit mask of the players who passed. Use :meth:`new`,
    :meth:`from_position` and :meth:`play` to make one.
    """

    __slots__ = (
        "gold",
        "occupied",
        "passed",
        "players",
        "supplies",
        "to_move",
        "variant",
        "walls",
        "warriors",
    )  # fmt: skip

    players: tuple[str, ...]
    variant: str
    gold: tuple[int, ...]
    warriors: tuple[tuple[int, int] | None, ...]
    occupied: int
    walls: Walls
    supplies: tuple[Supply, ...]
    to_move: int
    passed: int

    @classmethod
    def new(cls, players: Sequence[str], gold: Sequence[int], variant: str = "armadora") -> GameState:
        """A game before the first move; ``gold`` lists the values on ``GOLD_CELLS`` in order."""
        if sorted(gold) != sorted(GOLD_VALUES):
            raise ValueError(f"gold values must be {GOLD_VALUES} in some order, not {tuple(gold)}")
        if variant not in ("armadora", "nuggets"):
            raise ValueError(f"variant {variant!r} cannot be played yet (armadora, nuggets)")
        players = tuple(players)
        if len(set(players)) != len(players):
            raise ValueError(f"a colour is listed twice in {players}")
        supply = supply_for(len(players))
        return cls._make(
            players, variant, tuple(gold), (None,) * len(CELLS), 0, EMPTY_WALLS,
            (supply,) * len(players), 0, 0,
        )  # fmt: skip

    @classmethod
    def from_position(
        cls, position: Position, to_move: str | None = None, passed: Sequence[str] = ()
    ) -> GameState:
        """The game a fully known position is in; ValueError where it cannot be one."""
        report = check(position)
        if not report.legal:
            raise ValueError("; ".join(p.message for p in report.problems))
        if position.variant not in ("armadora", "nuggets"):
            raise ValueError(f"variant {position.variant!r} cannot be played yet")
        players = position.players
        warriors: list[tuple[int, int] | None] = [None] * len(CELLS)
        supplies = [supply_for(len(players))] * len(players)
        occupied = 0
        for cell, player, value, *_ in position.warriors:
            if value is None:
                raise ValueError(f"the value of the warrior on {cell.name} must be known to play on")
            p = players.index(player)
            warriors[cell.number] = (p, value)
            supplies[p] = take(supplies[p], value)
            occupied |= cell.bit
        gold = {cell: value for cell, value in position.gold if value is not None}
        if len(gold) != len(GOLD_CELLS):
            raise ValueError("every gold value must be known to play on")
        passed_mask = 0
        for colour in passed:
            passed_mask |= 1 << players.index(colour)
        state = cls._make(
            players, position.variant, tuple(gold[c] for c in GOLD_CELLS), tuple(warriors), occupied,
            position.walls, tuple(supplies), 0, passed_mask,
        )  # fmt: skip
        start = players.index(to_move) if to_move is not None else 0
        state.to_move = state._next_active(start - 1)
        return state

    @classmethod
    def _make(
        cls,
        players: tuple[str, ...],
        variant: str,
        gold: tuple[int, ...],
        warriors: tuple[tuple[int, int] | None, ...],
        occupied: int,
        walls: Walls,
        supplies: tuple[Supply, ...],
        to_move: int,
        passed: int,
    ) -> GameState:
        state = cls.__new__(cls)
        state.players = players
        state.variant = variant
        state.gold = gold
        state.warriors = warriors
        state.occupied = occupied
        state.walls = walls
        state.supplies = supplies
        state.to_move = to_move
        state.passed = passed
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[object, ...]:
        return (self.players, self.variant, self.gold, self.warriors, self.walls.mask,
                self.supplies, self.to_move, self.passed)  # fmt: skip

    def __repr__(self) -> str:
        return f"<GameState {self.player} to move, {self.walls.count} palisades, passed={self.passed:b}>"

    @property
    def player(self) -> str:
        """The colour to move."""
        return self.players[self.to_move]

    @property
    def is_over(self) -> bool:
        return self.passed == (1 << len(self.players)) - 1

    @property
    def palisades_left(self) -> int:
        return TOTAL_PALISADES - self.walls.count

    @property
    def empty_cells(self) -> int:
        """Mask of the cells where a warrior may go."""
        return ALL_CELLS_MASK & ~(self.occupied | GOLD_MASK)

    def to_position(self) -> Position:
        return Position(
            players=self.players,
            variant=self.variant,
            gold=tuple(Gold(c, v) for c, v in zip(GOLD_CELLS, self.gold, strict=True)),
            warriors=tuple(
                Warrior(CELLS[i], self.players[w[0]], w[1])
                for i, w in enumerate(self.warriors)
                if w is not None
            ),
            palisades=self.walls.slots,
        )

    def score(self) -> Score:
        return score(self.to_position())

    # Moves

    def warrior_moves(self) -> list[PlaceWarrior]:
        values = [v for v in range(1, 6) if self.supplies[self.to_move][v - 1]]
        empty = self.empty_cells
        return [PlaceWarrior(CELLS[i], v) for i in range(len(CELLS)) if empty >> i & 1 for v in values]

    def build_moves(self) -> list[Build]:
        """The legal builds: 1 or 2 palisades, or in Nuggets 2 where any 2 fit, else 1."""
        walls = self.walls
        pairs = [Build((SLOTS[a], SLOTS[b])) for a, b in walls.legal_pairs()]
        if self.variant == "nuggets" and pairs:
            return pairs
        return [Build((SLOTS[i],)) for i in walls.legal_slot_numbers] + pairs

    def legal_moves(self) -> list[Move]:
        """Every legal move of the player to move; empty once the game is over."""
        if self.is_over:
            return []
        return [*self.warrior_moves(), *self.build_moves(), Pass()]

    def why_illegal(self, move: Move) -> str | None:
        """None for a legal move, else a sentence saying why not."""
        if self.is_over:
            return "the game is over"
        if isinstance(move, PlaceWarrior):
            cell = Cell(*move.cell)
            if not cell.on_board():
                return f"{list(cell)} is off the board"
            if GOLD_MASK & cell.bit:
                return f"{cell.name} holds gold"
            if self.occupied & cell.bit:
                return f"{cell.name} already holds a warrior"
            if not (1 <= move.value <= 5 and self.supplies[self.to_move][move.value - 1]):
                return f"{self.player} has no warrior of value {move.value} left"
            return None
        if isinstance(move, Build):
            return self._why_illegal_build(move.slots)
        if isinstance(move, Pass):
            return None
        return f"not a move: {move!r}"

    def _why_illegal_build(self, slots: tuple[Slot, ...]) -> str | None:
        if not 1 <= len(slots) <= 2:
            return "a build places 1 or 2 palisades"
        if len(slots) == 2 and slots[0] == slots[1]:
            return "the two palisades must go on different lines"
        if len(slots) > self.palisades_left:
            return f"only {self.palisades_left} palisade(s) left"
        walls = self.walls
        for slot in slots:
            if slot in walls:
                return f"a palisade already stands on {slot.name}"
            if not walls.is_legal(slot):
                return f"a palisade on {slot.name} would close off a territory of fewer than 4 cells"
            walls = walls.add(slot)
        if self.variant == "nuggets" and len(slots) == 1 and self.walls.legal_pairs():
            return "in Nuggets a build places two palisades while two fit"
        return None

    def play(self, move: Move) -> GameState:
        """The state after a legal move; :class:`IllegalMove` otherwise."""
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMove(f"{self.player} cannot play {move}: {reason}")
        return self._apply(move)

    def _apply(self, move: Move) -> GameState:
        """The state after a move already known to be legal."""
        p = self.to_move
        warriors, occupied, walls, supplies, passed = (
            self.warriors, self.occupied, self.walls, self.supplies, self.passed,
        )  # fmt: skip
        if isinstance(move, PlaceWarrior):
            i = move.cell.number
            warriors = (*warriors[:i], (p, move.value), *warriors[i + 1 :])
            occupied |= 1 << i
            supplies = (*supplies[:p], take(supplies[p], move.value), *supplies[p + 1 :])
        elif isinstance(move, Build):
            for slot in move.slots:
                walls = walls.add(slot)
        else:
            passed |= 1 << p
        state = GameState._make(
            self.players, self.variant, self.gold, warriors, occupied, walls, supplies, p, passed
        )
        state.to_move = state._next_active(p)
        return state

    def _next_active(self, after: int) -> int:
        """The first player after ``after`` in turn order who has not passed (``after`` if none)."""
        n = len(self.players)
        for step in range(1, n + 1):
            q = (after + step) % n
            if not self.passed >> q & 1:
                return q
        return after % n


def random_move(state: GameState, rng: random.Random) -> Move:
    """A move chosen uniformly among the kinds on offer (warrior, build, pass), then within its kind."""
    kinds: list[Sequence[Move]] = [[Pass()]]
    warriors = state.warrior_moves()
    if warriors:
        kinds.append(warriors)
    builds = state.build_moves()
    if builds:
        kinds.append(builds)
    return rng.choice(rng.choice(kinds))


def playout(state: GameState, rng: random.Random, *, tries: int = 8) -> GameState:
    """Play on to the end with a fast random policy; the finished state.

    Each turn the player places a warrior or builds, with even odds between
    the two while both are possible, and passes only when neither is. A build
    is one or two palisades (two in Nuggets), each found by trying random free
    lines before falling back to the full list of legal ones.
    """
    walls_full = False
    while not state.is_over:
        p = state.to_move
        supply = state.supplies[p]
        can_place = any(supply) and state.empty_cells != 0
        build: tuple[Slot, ...] = ()
        if not walls_full and (not can_place or rng.random() < 0.5):
            want = 2 if state.variant == "nuggets" or rng.random() < 0.5 else 1
            build = _random_slots(state.walls, rng, want, tries)
            walls_full = not build
        move: Move
        if build:
            move = Build(build)
        elif can_place:
            empty = state.empty_cells
            cells = [i for i in range(len(CELLS)) if empty >> i & 1]
            cell = CELLS[cells[int(rng.random() * len(cells))]]
            pick = int(rng.random() * sum(supply))
            value = 1
            while pick >= supply[value - 1]:
                pick -= supply[value - 1]
                value += 1
            move = PlaceWarrior(cell, value)
        else:
            move = Pass()
        state = state._apply(move)
    return state


def _random_slots(walls: Walls, rng: random.Random, want: int, tries: int) -> tuple[Slot, ...]:
    """Up to ``want`` palisades that may stand together, picked at random; () if none may."""
    start = walls
    chosen: list[int] = []
    for _ in range(min(want, TOTAL_PALISADES - walls.count)):
        guesses = (int(rng.random() * NUM_SLOTS) for _ in range(tries))
        slot = next((i for i in guesses if walls.is_legal(i)), None)
        if slot is None:
            legal = walls.legal_slot_numbers
            if not legal:
                break
            slot = legal[int(rng.random() * len(legal))]
        chosen.append(slot)
        walls = walls.add(slot)
    if 0 < len(chosen) < want <= TOTAL_PALISADES - start.count:
        # An unlucky first pick can rule out a pair that another first pick allows.
        pairs = start.legal_pairs()
        if pairs:
            chosen = list(pairs[int(rng.random() * len(pairs))])
    return tuple(SLOTS[i] for i in sorted(chosen))
