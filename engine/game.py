"""A game in progress: whose turn, what is left in each supply, the moves, a random playout.

>>> state = GameState.new(("orange", "blue"), gold=GOLD_VALUES)
>>> state = state.play(PlaceWarrior(Cell(2, 2), 5))
>>> state.player, state.supplies[0]
('blue', (11, 2, 1, 1, 0))
>>> state = state.play(Build((Slot.between((0, 0), (0, 1)),)))
>>> state.play(Pass()).play(Pass()).is_over
True

The advanced game (``armadora-advanced``): before the action, the player to move may use one
power, a move of its own after which the same player plays the action.

>>> state = GameState.new(("orange", "blue"), GOLD_VALUES, "armadora-advanced", ("goblin", "elf"))
>>> state = state.play(ExtraWarrior(Cell(2, 2), 5))
>>> state.player, state.power_used, str(state.to_position().warriors[0].face_up)
('orange', True, 'True')
>>> state = state.play(PlaceWarrior(Cell(2, 3), 1))
>>> state.player, state.powers
('blue', (0, 2))
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from engine.board import (
    ALL_CELLS_MASK,
    CELLS,
    GOLD_CELLS,
    GOLD_VALUES,
    NUM_SLOTS,
    SLOTS,
    TOTAL_PALISADES,
    Cell,
    Slot,
)
from engine.check import check
from engine.position import STARTING_POWERS, VARIANTS, Gold, Position, Warrior, sides_of
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


@dataclass(frozen=True)
class Reinforce:
    """Lay the reinforcement token on one of one's warriors in a full territory (advanced game)."""

    cell: Cell

    def __str__(self) -> str:
        return f"reinforce {self.cell.name}"


@dataclass(frozen=True)
class Peek:
    """The Mage's power: look at an opponent's face-down warrior; only the Mage's player learns it."""

    cell: Cell

    def __str__(self) -> str:
        return f"power mage {self.cell.name}"


@dataclass(frozen=True)
class Arrow:
    """The Elf's power: an arrow on an opponent's warrior in a territory, not full, holding an Elf warrior."""

    cell: Cell

    def __str__(self) -> str:
        return f"power elf {self.cell.name}"


@dataclass(frozen=True)
class ExtraPalisade:
    """The Orc's power: one palisade more this turn, before the action."""

    slot: Slot

    def __str__(self) -> str:
        return f"power orc {self.slot.name}"


@dataclass(frozen=True)
class ExtraWarrior:
    """The Goblin's power: one warrior more this turn, placed face up, before the action."""

    cell: Cell
    value: int

    def __str__(self) -> str:
        return f"power goblin {self.cell.name} {self.value}"


# The advanced game's moves are dataclasses, not named tuples: a tuple equals any tuple of the same
# items, and ExtraWarrior(c, v) must differ from PlaceWarrior(c, v), Peek(c) from Arrow(c).
Power = Peek | Arrow | ExtraPalisade | ExtraWarrior
POWERS = (Peek, Arrow, ExtraPalisade, ExtraWarrior)
POWER_OF: dict[str, type[Power]] = {"mage": Peek, "elf": Arrow, "orc": ExtraPalisade, "goblin": ExtraWarrior}
Move = PlaceWarrior | Build | Pass | Reinforce | Peek | Arrow | ExtraPalisade | ExtraWarrior


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

    The advanced game adds, per player in turn order, ``characters``, ``powers`` and
    ``reinforcements`` left and ``seen`` (the cells whose values that player has looked
    at with the Mage's power); cell masks of the warriors carrying one arrow or more
    (``arrows``), two (``arrows2``), a reinforcement (``reinforced``) and lying face up
    (``face_up``); and ``power_used``, true once the player to move has used a power this
    turn. In the base game they stay empty or zero.
    """

    __slots__ = (
        "arrows", "arrows2", "characters", "face_up", "gold", "gold_cells", "gold_mask", "occupied", "passed",
        "players",
        "power_used", "powers", "reinforced", "reinforcements", "seen", "supplies", "to_move", "variant",
        "walls", "warriors",
    )  # fmt: skip

    players: tuple[str, ...]
    variant: str
    gold: tuple[int, ...]
    gold_cells: tuple[Cell, ...]
    gold_mask: int
    warriors: tuple[tuple[int, int] | None, ...]
    occupied: int
    walls: Walls
    supplies: tuple[Supply, ...]
    to_move: int
    passed: int
    characters: tuple[str, ...]
    powers: tuple[int, ...]
    reinforcements: tuple[int, ...]
    seen: tuple[int, ...]
    arrows: int
    arrows2: int
    reinforced: int
    face_up: int
    power_used: bool

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        gold: Sequence[int],
        variant: str = "armadora",
        characters: Sequence[str] = (),
        gold_cells: Sequence[Cell] = GOLD_CELLS,
    ) -> GameState:
        """A game before the first move; ``gold`` lists the values on ``gold_cells`` in order.

        The advanced game names each player's character, in turn order. A Nuggets game may
        lay its gold-mine markers on other cells, with any positive values.
        """
        gold_cells = tuple(Cell(*c) for c in gold_cells)
        if gold_cells == GOLD_CELLS and variant != "nuggets" and sorted(gold) != sorted(GOLD_VALUES):
            raise ValueError(f"gold values must be {GOLD_VALUES} in some order, not {tuple(gold)}")
        _check_markers(variant, gold_cells, tuple(gold))
        if variant not in VARIANTS:
            raise ValueError(f"variant {variant!r} is not one of {', '.join(VARIANTS)}")
        players = tuple(players)
        if len(set(players)) != len(players):
            raise ValueError(f"a colour is listed twice in {players}")
        characters = _characters(variant, players, tuple(characters))
        supply = supply_for(len(players))
        n = len(players)
        state = cls._make(
            players, variant, tuple(gold), (None,) * len(CELLS), 0, EMPTY_WALLS, (supply,) * n, 0, 0,
        )  # fmt: skip
        state._lay_gold(gold_cells)
        if characters:
            state.characters = characters
            state.powers = tuple(STARTING_POWERS[c] for c in characters)
            state.reinforcements = (1,) * n
            state.seen = (0,) * n
        return state

    @classmethod
    def from_position(
        cls,
        position: Position,
        to_move: str | None = None,
        passed: Sequence[str] = (),
        *,
        power_used: bool = False,
    ) -> GameState:
        """The game a fully known position is in; ValueError where it cannot be one.

        In the advanced game, tokens the position leaves unknown are taken as the start's
        less what the board shows spent (arrows, the Goblin's face-up warriors,
        reinforcements). ``power_used``: the player to move has used a power this turn.
        """
        report = check(position)
        if not report.legal:
            raise ValueError("; ".join(p.message for p in report.problems))
        players = position.players
        warriors: list[tuple[int, int] | None] = [None] * len(CELLS)
        supplies = [supply_for(len(players))] * len(players)
        occupied = 0
        for w in position.warriors:
            if w.value is None:
                raise ValueError(f"the value of the warrior on {w.cell.name} must be known to play on")
            p = players.index(w.player)
            warriors[w.cell.number] = (p, w.value)
            supplies[p] = take(supplies[p], w.value)
            occupied |= w.cell.bit
        gold = {cell: value for cell, value in position.markers or position.gold if value is not None}
        gold_cells = position.gold_cells
        if set(gold) != set(gold_cells):
            raise ValueError("every gold value must be known to play on")
        passed_mask = 0
        for colour in passed:
            passed_mask |= 1 << players.index(colour)
        state = cls._make(
            players, position.variant, tuple(gold[c] for c in gold_cells), tuple(warriors), occupied,
            position.walls, tuple(supplies), 0, passed_mask,
        )  # fmt: skip
        state._lay_gold(gold_cells)
        if position.variant == "armadora-advanced":
            state._read_tokens(position)
        start = players.index(to_move) if to_move is not None else 0
        state.to_move = state._next_active(start - 1)
        state.power_used = power_used and state.to_move == start
        return state

    def _lay_gold(self, cells: tuple[Cell, ...]) -> None:
        self.gold_cells = cells
        self.gold_mask = sum(cell.bit for cell in cells)

    def _read_tokens(self, position: Position) -> None:
        """The advanced game's pieces and tokens from a position already checked."""
        characters = tuple(str(c) for c in position.characters)
        self.characters = characters
        ws = position.warriors
        self.arrows = sum(w.cell.bit for w in ws if w.arrows)
        self.arrows2 = sum(w.cell.bit for w in ws if w.arrows == 2)
        self.reinforced = sum(w.cell.bit for w in ws if w.reinforced)
        self.face_up = sum(w.cell.bit for w in ws if w.face_up)
        spent = {
            "elf": sum(w.arrows for w in ws),
            "goblin": sum(1 for w in ws if w.face_up and position.character_of(w.player) == "goblin"),
        }
        self.powers = tuple(
            known if known is not None else STARTING_POWERS[c] - spent.get(c, 0)
            for c, known in zip(characters, position.powers_left or (None,) * len(characters), strict=True)
        )
        self.reinforcements = tuple(
            known if known is not None else 1 - sum(1 for w in ws if w.player == colour and w.reinforced)
            for colour, known in zip(
                self.players, position.reinforcements_left or (None,) * len(self.players), strict=True
            )
        )
        self.seen = (0,) * len(self.players)

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
        state.characters = state.powers = state.reinforcements = state.seen = ()
        state.arrows = state.arrows2 = state.reinforced = state.face_up = 0
        state.power_used = False
        state._lay_gold(GOLD_CELLS)
        return state

    def _copy(self) -> GameState:
        state = GameState.__new__(GameState)
        for name in GameState.__slots__:
            setattr(state, name, getattr(self, name))
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[object, ...]:
        return tuple(
            getattr(self, name) if name != "walls" else self.walls.mask for name in GameState.__slots__
        )

    def __repr__(self) -> str:
        return f"<GameState {self.player} to move, {self.walls.count} palisades, passed={self.passed:b}>"

    @property
    def player(self) -> str:
        """The colour to move."""
        return self.players[self.to_move]

    @property
    def advanced(self) -> bool:
        return bool(self.characters)

    @property
    def is_over(self) -> bool:
        return self.passed == (1 << len(self.players)) - 1

    @property
    def palisades_left(self) -> int:
        return TOTAL_PALISADES - self.walls.count

    @property
    def empty_cells(self) -> int:
        """Mask of the cells where a warrior may go."""
        return ALL_CELLS_MASK & ~(self.occupied | self.gold_mask)

    def is_full(self, cell: Cell) -> bool:
        """Whether the territory of a cell has every cell a warrior or gold."""
        return self.walls.territory_of[cell.number] & self.empty_cells == 0

    def partners(self, p: int, q: int) -> bool:
        """Whether two players (indices) score together: the same, or partners in the 4-player game."""
        n = len(sides_of(self.players))
        return p % n == q % n

    def to_position(self) -> Position:
        def warrior(i: int, w: tuple[int, int]) -> Warrior:
            bit = 1 << i
            arrows = (self.arrows >> i & 1) + (self.arrows2 >> i & 1)
            return Warrior(CELLS[i], self.players[w[0]], w[1], bool(self.face_up & bit), arrows,
                           bool(self.reinforced & bit))  # fmt: skip

        gold = tuple(Gold(c, v) for c, v in zip(self.gold_cells, self.gold, strict=True))
        standard = self.gold_cells == GOLD_CELLS and sorted(self.gold) == sorted(GOLD_VALUES)
        return Position(
            players=self.players,
            variant=self.variant,
            markers=() if standard else gold,
            gold=gold,
            warriors=tuple(warrior(i, w) for i, w in enumerate(self.warriors) if w is not None),
            palisades=self.walls.slots,
            characters=self.characters,
            powers_left=self.powers,
            reinforcements_left=self.reinforcements,
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

    def reinforce_moves(self) -> list[Reinforce]:
        """Where the player to move may lay their reinforcement token (advanced game)."""
        if not self.advanced or not self.reinforcements[self.to_move]:
            return []
        p = self.to_move
        return [
            Reinforce(CELLS[i])
            for i, w in enumerate(self.warriors)
            if w is not None and w[0] == p and self._why_not_reinforce(CELLS[i]) is None
        ]

    def power_moves(self) -> list[Power]:
        """The powers the player to move may use before the action (advanced game)."""
        if not self.advanced or self.power_used or not self.powers[self.to_move]:
            return []
        character = self.characters[self.to_move]
        p = self.to_move
        if character == "orc":
            return (
                [ExtraPalisade(SLOTS[i]) for i in self.walls.legal_slot_numbers]
                if self.palisades_left
                else []
            )
        if character == "goblin":
            return [ExtraWarrior(m.cell, m.value) for m in self.warrior_moves()]
        cells = [
            CELLS[i] for i, w in enumerate(self.warriors) if w is not None and not self.partners(w[0], p)
        ]
        move: type[Peek] | type[Arrow] = Peek if character == "mage" else Arrow
        return [move(cell) for cell in cells if self._why_not_power(move(cell)) is None]

    def action_moves(self) -> list[Move]:
        """The actions that end the turn: warriors, builds, the reinforcement, pass."""
        return [*self.warrior_moves(), *self.build_moves(), *self.reinforce_moves(), Pass()]

    def legal_moves(self) -> list[Move]:
        """Every legal move of the player to move (powers, then actions); empty once the game is over."""
        if self.is_over:
            return []
        return [*self.power_moves(), *self.action_moves()]

    def why_illegal(self, move: Move) -> str | None:
        """None for a legal move, else a sentence saying why not."""
        if self.is_over:
            return "the game is over"
        if isinstance(move, PlaceWarrior):
            return self._why_not_warrior(move.cell, move.value)
        if isinstance(move, Build):
            return self._why_illegal_build(move.slots)
        if isinstance(move, Pass):
            return None
        if not self.advanced:
            return f"{move} belongs to the advanced game"
        if isinstance(move, Reinforce):
            return self._why_not_reinforce(Cell(*move.cell))
        if isinstance(move, POWERS):
            return self._why_not_power(move)
        return f"not a move: {move!r}"

    def _why_not_warrior(self, cell: Cell, value: int) -> str | None:
        cell = Cell(*cell)
        if not cell.on_board():
            return f"{list(cell)} is off the board"
        if self.gold_mask & cell.bit:
            return f"{cell.name} holds gold"
        if self.occupied & cell.bit:
            return f"{cell.name} already holds a warrior"
        if not (1 <= value <= 5 and self.supplies[self.to_move][value - 1]):
            return f"{self.player} has no warrior of value {value} left"
        return None

    def _why_not_reinforce(self, cell: Cell) -> str | None:
        if not cell.on_board():
            return f"{list(cell)} is off the board"
        if not self.reinforcements[self.to_move]:
            return f"{self.player} has no reinforcement token left"
        w = self.warriors[cell.number]
        if w is None or w[0] != self.to_move:
            return f"{cell.name} holds no warrior of {self.player}'s"
        if not self.is_full(cell):
            return f"the territory of {cell.name} is not full"
        if self.reinforced & self.walls.territory_of[cell.number]:
            return f"the territory of {cell.name} already holds a reinforcement"
        return None

    def _why_not_power(self, move: Power) -> str | None:
        character = self.characters[self.to_move]
        if self.power_used:
            return "one power a turn, and this turn's is used"
        if not isinstance(move, POWER_OF[character]):
            return f"{self.player} is the {character}: {move} is another character's power"
        if not self.powers[self.to_move]:
            return f"{self.player} has no power token left"
        if isinstance(move, ExtraPalisade):
            return self._why_illegal_build((move.slot,), extra=True)
        if isinstance(move, ExtraWarrior):
            return self._why_not_warrior(move.cell, move.value)
        cell = Cell(*move.cell)
        if not cell.on_board():
            return f"{list(cell)} is off the board"
        w = self.warriors[cell.number]
        if w is None or self.partners(w[0], self.to_move):
            return f"{cell.name} holds no opponent's warrior"
        if isinstance(move, Peek):
            return f"the warrior on {cell.name} lies face up" if self.face_up & cell.bit else None
        if self.arrows2 & cell.bit:
            return f"the warrior on {cell.name} already carries two arrows"
        region = self.walls.territory_of[cell.number]
        if not any(
            region >> i & 1 for i, x in enumerate(self.warriors) if x is not None and x[0] == self.to_move
        ):
            return f"the territory of {cell.name} holds no warrior of the elf's"
        if self.is_full(cell):
            return f"the territory of {cell.name} is full"
        return None

    def _why_illegal_build(self, slots: tuple[Slot, ...], *, extra: bool = False) -> str | None:
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
        if not extra and self.variant == "nuggets" and len(slots) == 1 and self.walls.legal_pairs():
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
        state = self._copy()
        if isinstance(move, PlaceWarrior | ExtraWarrior):
            i = move.cell.number
            state.warriors = (*self.warriors[:i], (p, move.value), *self.warriors[i + 1 :])
            state.occupied |= 1 << i
            state.supplies = (*self.supplies[:p], take(self.supplies[p], move.value), *self.supplies[p + 1 :])
            if isinstance(move, ExtraWarrior):
                state.face_up |= 1 << i
        elif isinstance(move, Build):
            for slot in move.slots:
                state.walls = state.walls.add(slot)
        elif isinstance(move, ExtraPalisade):
            state.walls = state.walls.add(move.slot)
        elif isinstance(move, Reinforce):
            state.reinforced |= move.cell.bit
            state.reinforcements = _less(self.reinforcements, p)
        elif isinstance(move, Peek):
            state.seen = (*self.seen[:p], self.seen[p] | move.cell.bit, *self.seen[p + 1 :])
        elif isinstance(move, Arrow):
            bit = move.cell.bit
            if state.arrows & bit:
                state.arrows2 |= bit
            state.arrows |= bit
        else:
            state.passed |= 1 << p
        if isinstance(move, POWERS):
            state.powers = _less(self.powers, p)
            state.power_used = True
            return state
        state.power_used = False
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


def _check_markers(variant: str, cells: tuple[Cell, ...], values: tuple[int, ...]) -> None:
    """The gold of a new game: the Armadöra layout, or in Nuggets any markers with positive values."""
    if cells != GOLD_CELLS and variant != "nuggets":
        raise ValueError(f"only a nuggets game lays its gold off the Armadöra cells, not {variant}")
    if len(cells) != len(values) or not cells:
        raise ValueError(f"{len(values)} gold values for {len(cells)} gold cells")
    if len(set(cells)) != len(cells) or not all(c.on_board() for c in cells):
        raise ValueError("gold cells must be distinct cells of the board")
    if not all(isinstance(v, int) and v >= 1 for v in values):
        raise ValueError(f"gold values are positive integers, not {values}")


def _less(counts: tuple[int, ...], p: int) -> tuple[int, ...]:
    return (*counts[:p], counts[p] - 1, *counts[p + 1 :])


def _characters(variant: str, players: tuple[str, ...], characters: tuple[str, ...]) -> tuple[str, ...]:
    """The characters of a new game, checked: one each, all different, in the advanced game only."""
    if variant != "armadora-advanced":
        if characters:
            raise ValueError(f"characters belong to the advanced game, not {variant}")
        return ()
    if len(characters) != len(players):
        raise ValueError(f"the advanced game needs one character per player, not {characters}")
    for c in characters:
        if c not in STARTING_POWERS:
            raise ValueError(f"unknown character {c!r} (goblin, orc, elf, mage)")
    if len(set(characters)) != len(characters):
        raise ValueError(f"each character at most once, not {characters}")
    return characters


def random_move(state: GameState, rng: random.Random) -> Move:
    """A move chosen uniformly among the kinds on offer (warrior, build, pass; in the advanced game
    also a power and the reinforcement), then within its kind."""
    kinds: list[Sequence[Move]] = [[Pass()]]
    for moves in (state.warrior_moves(), state.build_moves(), state.reinforce_moves(), state.power_moves()):
        if moves:
            kinds.append(moves)
    return rng.choice(rng.choice(kinds))


def playout(state: GameState, rng: random.Random, *, tries: int = 8) -> GameState:
    """Play on to the end with a fast random policy; the finished state.

    Each turn the player places a warrior or builds, with even odds between
    the two while both are possible, and passes only when neither is. In the advanced
    game a power or the reinforcement, where one is on offer, comes first at even odds. A build
    is one or two palisades (two in Nuggets), each found by trying random free
    lines before falling back to the full list of legal ones.
    """
    walls_full = False
    while not state.is_over:
        if state.advanced:
            extras: list[Move] = [*state.power_moves(), *state.reinforce_moves()]
            if extras and rng.random() < 0.5:
                state = state._apply(rng.choice(extras))
                continue
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
