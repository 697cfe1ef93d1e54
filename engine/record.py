"""The game record: a whole game as text, one line a turn, like PGN for chess or SGF for Go.

``docs/record.md`` describes the format. A :class:`Record` is an immutable value; :func:`parse`
reads one (every fault a :class:`RecordError` naming its line) and :func:`dumps` writes it, so
that ``dumps(parse(dumps(record))) == dumps(record)``.

>>> text = '''armadora-record 1
... variant armadora
... players orange blue
... gold d5=7 b4=6 f4=6 h4=5 a2=5 e2=4 c1=4 g1=3
... 1. orange warrior c3
... 2. blue palisade a5|b5 c4-c3
... 3. orange pass
... 4. blue pass
... reveal orange c3=5
... '''
>>> record = parse(text)
>>> record.turns[1].player, [slot.name for slot in record.turns[1].action.slots]
('blue', ['a5|b5', 'c4-c3'])
>>> print(dumps(record), end="")
armadora-record 1
variant armadora
players orange blue
gold d5=7 b4=6 f4=6 h4=5 a2=5 e2=4 c1=4 g1=3
1. orange warrior c3
2. blue palisade a5|b5 c4-c3
3. orange pass
4. blue pass
reveal orange c3=5
result orange 40, blue 0; ranking orange, blue
>>> parse("armadora-record 1\\nvariant armadora\\nplayers orange blue\\n1. blue pass\\n")
Traceback (most recent call last):
...
engine.record.RecordError: line 4: it is orange's turn, not blue's
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cached_property

from engine.board import GOLD_CELLS, GOLD_VALUES, Cell, Slot
from engine.game import (
    POWERS,
    Arrow,
    Build,
    ExtraPalisade,
    ExtraWarrior,
    GameState,
    IllegalMove,
    Move,
    Pass,
    Peek,
    PlaceWarrior,
    Power,
    Reinforce,
)
from engine.knowledge import Knowledge, KnowledgeError
from engine.position import CHARACTERS, VARIANTS, Gold, Position, PositionError
from engine.scoring import Points, Score

MAGIC = "armadora-record 1"


class RecordError(ValueError):
    """A record that cannot be read: the message names the line and what is wrong there."""


@dataclass(frozen=True)
class HiddenWarrior:
    """A face-down warrior whose value the record leaves to the reveal: ``warrior c3``."""

    cell: Cell

    def __str__(self) -> str:
        return f"warrior {self.cell.name}"


#: What ends a turn. A warrior whose value the record gives is :class:`engine.game.PlaceWarrior`.
Action = PlaceWarrior | HiddenWarrior | Build | Pass | Reinforce


@dataclass(frozen=True)
class Turn:
    """One turn: the player, the power used before the action (advanced game), the action, and a
    note (``{...}`` on the line: say, that the order between two photos is uncertain).

    >>> str(Turn("orange", HiddenWarrior(Cell(2, 2)), ExtraPalisade(Slot.between((0, 0), (0, 1)))))
    'orange power orc a5|b5, warrior c3'
    """

    player: str
    action: Action
    power: Power | None = None
    note: str = ""

    def __str__(self) -> str:
        power = f"power {_power_text(self.power)}, " if self.power is not None else ""
        note = f" {{{_braced(self.note)}}}" if self.note else ""
        return f"{self.player} {power}{self.action}{note}"


#: The irregularities a replay goes on past: what each did to the board is in its kind and cells
#: (``docs/record.md``). The board is as the line says, the turn order resumes at the next turn's player.
RESUMABLE = frozenset({"warrior_moved", "warrior_gone", "palisade_removed", "gold_changed", "double_turn"})
#: The word at the end of an irregularity's note that says the players kept it (else it is to settle).
KEPT, TO_SETTLE = "kept", "to settle"


@dataclass(frozen=True)
class Irregularity:
    """A change between two photos that no legal turns explain: kept by the players (``kept``), or
    still to settle (to fix the reading, or to keep).

    ``kind`` is a word such as ``warrior_moved``, ``palisade_removed`` or ``double_turn``; the cells
    and palisades involved follow, then what happened in words, then whether it was kept.

    >>> from engine.position import Warrior
    >>> moved = Irregularity("warrior_moved", (Cell(2, 2), Cell(2, 3)), (), "the orange warrior moved")
    >>> print(moved, replace(moved, kept=True), sep="\\n")
    ! warrior_moved c3 d3 {the orange warrior moved; to settle}
    ! warrior_moved c3 d3 {the orange warrior moved; kept}
    >>> board = Position(("orange", "blue"), warriors=(Warrior(Cell(2, 2), "orange", 4),))
    >>> [w.cell.name for w in moved.edit(board).warriors]
    ['d3']
    """

    kind: str
    cells: tuple[Cell, ...] = ()
    slots: tuple[Slot, ...] = ()
    message: str = ""
    kept: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        """The cells, then the palisades, by name: with the kind and the photo, what tells it apart."""
        return tuple(cell.name for cell in self.cells) + tuple(slot.name for slot in self.slots)

    @property
    def resumable(self) -> bool:
        """Whether a replay goes on past it (:data:`RESUMABLE`)."""
        return self.kind in RESUMABLE

    def edit(self, position: Position) -> Position:
        """The board after this change: a warrior moved from the first cell to the second, warriors
        gone, palisades taken away; the other kinds leave the board as it is (the gold is the
        header's, the latest read). RecordError where the board does not hold what the line names."""
        cells = self.cells
        if self.kind == "warrior_moved":
            here, there = cells
            w = position.warrior_at(here)
            if w is None:
                raise RecordError(f"no warrior on {here.name} to have moved")
            if position.warrior_at(there) is not None:
                raise RecordError(f"the warrior on {here.name} cannot have moved to {there.name}: taken")
            warriors = tuple(w._replace(cell=there) if x.cell == here else x for x in position.warriors)
            return replace(position, warriors=warriors)
        if self.kind == "warrior_gone":
            missing = [c.name for c in cells if position.warrior_at(c) is None]
            if missing:
                raise RecordError(f"no warrior on {', '.join(missing)} to be gone")
            return replace(position, warriors=tuple(w for w in position.warriors if w.cell not in cells))
        if self.kind == "palisade_removed":
            missing = [s.name for s in self.slots if s not in position.palisades]
            if missing:
                raise RecordError(f"no palisade {', '.join(missing)} to be taken away")
            return replace(position, palisades=position.palisades - frozenset(self.slots))
        return position

    def __str__(self) -> str:
        where = "".join(f" {name}" for name in self.names)
        note = "; ".join(x for x in (_braced(self.message), KEPT if self.kept else TO_SETTLE) if x)
        return f"! {self.kind}{where} {{{note}}}"


Event = Turn | Irregularity


def _braced(text: str) -> str:
    """A note as it can stand between braces on one line: no brace, no line break inside.

    >>> _braced("a {b}\\nc")
    'a (b) c'
    """
    return " ".join(text.replace("{", "(").replace("}", ")").split())


@dataclass(frozen=True)
class Result:
    """The engine's scoring of the finished game: each side's points, and the ranking (a place
    shared by a tie that the tie-break could not settle lists several sides)."""

    scores: tuple[tuple[str, Points], ...]
    ranking: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, score: Score) -> Result:
        return cls(tuple(score.scores.items()), score.ranking)

    def __str__(self) -> str:
        scores = ", ".join(f"{side} {points}" for side, points in self.scores)
        ranking = ", ".join(" = ".join(place) for place in self.ranking)
        return f"result {scores}; ranking {ranking}"


@dataclass(frozen=True)
class Record:
    """A game as its record keeps it.

    ``gold`` lists the gold on its cells (value None where not known); in Nuggets these are the
    gold-mine markers, anywhere, of any positive value. ``characters`` follow ``players`` in the
    advanced game. ``reveal`` gives the values of the face-down warriors the turns leave hidden, each
    under the cell it stands on at the end (:func:`hidden_at_end`): where a kept irregularity moved
    one, not its turn's cell. Build one with :meth:`of_moves` or :func:`parse`; the constructor
    trusts its arguments.
    """

    variant: str
    players: tuple[str, ...]
    gold: tuple[Gold, ...]
    characters: tuple[str, ...] = ()
    date: str | None = None
    events: tuple[Event, ...] = ()
    reveal: tuple[tuple[Cell, int], ...] = ()

    @classmethod
    def of_moves(
        cls,
        start: GameState,
        moves: Iterable[Move],
        *,
        hidden: bool = True,
        date: str | None = None,
    ) -> Record:
        """The record of a game played from ``start`` (before any move). With ``hidden`` the values of
        face-down warriors go to the reveal, as at a table; without, every turn line gives its value.

        >>> state = GameState.new(("orange", "blue"), GOLD_VALUES)
        >>> moves = [PlaceWarrior(Cell(2, 2), 5), Pass(), Pass()]
        >>> [str(t) for t in Record.of_moves(state, moves).turns], Record.of_moves(state, moves).reveal
        (['orange warrior c3', 'blue pass', 'orange pass'], ((Cell(row=2, col=2), 5),))
        """
        events: list[Event] = []
        reveal: dict[Cell, int] = {}
        power: Power | None = None
        state = start
        for move in moves:
            player = state.player
            state = state.play(move)
            if isinstance(move, POWERS):
                power = move
                continue
            action: Action = move
            if hidden and isinstance(move, PlaceWarrior):
                action = HiddenWarrior(move.cell)
                reveal[move.cell] = move.value
            events.append(Turn(player, action, power))
            power = None
        return cls(
            start.variant,
            start.players,
            tuple(Gold(c, v) for c, v in zip(start.gold_cells, start.gold, strict=True)),
            start.characters,
            date,
            tuple(events),
            tuple(sorted(reveal.items(), key=lambda item: item[0].number)),
        )

    @property
    def turns(self) -> tuple[Turn, ...]:
        return tuple(e for e in self.events if isinstance(e, Turn))

    @property
    def irregularities(self) -> tuple[Irregularity, ...]:
        return tuple(e for e in self.events if isinstance(e, Irregularity))

    def start(self) -> GameState:
        """The game before the first turn; RecordError where a gold value is not known."""
        if any(g.value is None for g in self.gold):
            raise RecordError("the record leaves gold values unknown: the game cannot be replayed")
        try:
            return GameState.new(
                self.players, [g.value or 0 for g in self.gold], self.variant, self.characters,
                tuple(g.cell for g in self.gold),
            )  # fmt: skip
        except ValueError as err:
            raise RecordError(str(err)) from None

    def moves(self) -> list[Move]:
        """The game's moves with every value filled in (a power, then its turn's action); RecordError
        where a value is neither on its turn's line nor in the reveal, or the record notes an
        irregularity (no legal game holds one)."""
        if self.irregularities:
            raise RecordError(f"the record notes {len(self.irregularities)} irregularity(ies): no legal game")
        values = self.values_by_turn()
        out: list[Move] = []
        for n, turn in enumerate(self.turns):  # no irregularity: the turns are the events
            if turn.power is not None:
                out.append(turn.power)
            action = turn.action
            if isinstance(action, HiddenWarrior):
                if n not in values:
                    raise RecordError(_unknown(turn, action))
                out.append(PlaceWarrior(action.cell, values[n]))
            else:
                out.append(action)
        return out

    def values_by_turn(self) -> dict[int, int]:
        """The reveal's values by the event index of the turn that placed each warrior: the reveal
        names the cell a warrior stands on at the end (:func:`hidden_at_end`), the turn the cell it
        was placed on; they differ where a kept irregularity moved it.

        >>> text = "armadora-record 1\\nvariant armadora\\nplayers orange blue\\n1. orange warrior c3\\n"
        >>> moved = "! warrior_moved c3 d3 {kept}\\n2. blue warrior c3\\n"
        >>> parse(text + moved + "reveal orange d3=5\\nreveal blue c3=1\\n").values_by_turn()
        {0: 5, 2: 1}
        """
        reveal = dict(self.reveal)
        return {n: reveal[cell] for cell, (n, _) in hidden_at_end(self.events).items() if cell in reveal}

    def final_state(self) -> GameState:
        """The game after every turn of the record, every value known, past the irregularities a replay
        goes on past; RecordError where it cannot be (a value or gold pile not known, an irregularity
        it cannot go past)."""
        self.start()  # every gold value known
        values = self.values_by_turn()
        for n, event in enumerate(self.events):
            if isinstance(event, Turn) and isinstance(event.action, HiddenWarrior) and n not in values:
                raise RecordError(_unknown(event, event.action))
        view, stopped = _replay(self, {})
        if stopped is not None:
            raise RecordError(f"the replay stops at the irregularity {stopped}")
        return view.state

    @cached_property
    def result(self) -> Result | None:
        """The engine's scoring, once the game is over and every value is known; else None."""
        try:
            state = self.final_state()
        except (RecordError, IllegalMove):
            return None
        return Result.of(state.score()) if state.is_over else None

    def replay(self) -> Knowledge:
        """The game as it stands after the record's turns, seen by nobody in particular (values the
        record gives are known, the others are stand-ins), past the irregularities a replay goes on
        past and up to the first other one; RecordError naming the turn at fault."""
        return _replay(self, {})[0]


def stand_in_gold(gold: Sequence[Gold], variant: str) -> list[int]:
    """The gold values with the unknown ones filled in, so that a game can be played on: the Armadöra
    values the known ones leave, or in Nuggets any. ValueError for known values no game has.

    >>> stand_in_gold([Gold(c, None if n else 3) for n, c in enumerate(GOLD_CELLS)], "armadora")
    [3, 4, 4, 5, 5, 6, 6, 7]
    """
    if tuple(g.cell for g in gold) != GOLD_CELLS or variant == "nuggets":
        return [g.value if g.value is not None else 7 for g in gold]
    left = list(GOLD_VALUES)
    for value in (g.value for g in gold if g.value is not None):
        if value not in left:
            raise ValueError(f"gold values must be {GOLD_VALUES} in some order")
        left.remove(value)
    return [g.value if g.value is not None else left.pop() for g in gold]


def _replay(record: Record, lines: dict[int, int]) -> tuple[Knowledge, Irregularity | None]:
    """Replay the turns, past the irregularities a replay goes on past (:data:`RESUMABLE`), up to the
    first other one: the game then, and that irregularity (None where the replay reached the end).
    ``lines`` maps event index to line number."""
    where = _line_of(lines, -1)
    try:
        gold_values = stand_in_gold(record.gold, record.variant)
        state = GameState.new(
            record.players, gold_values, record.variant, record.characters, tuple(g.cell for g in record.gold)
        )
    except ValueError as err:
        raise RecordError(f"{where}{err}") from None
    view = Knowledge(state, 0)
    values = record.values_by_turn()
    for n, event in enumerate(record.events):
        where = _line_of(lines, n)
        if isinstance(event, Irregularity):
            if not event.resumable:
                return view, event
            try:
                view = _resume_view(view, event, next_player(record.events, n))
            except RecordError as err:
                raise RecordError(f"{where}{err}") from None
            continue
        if view.state.is_over:
            raise RecordError(f"{where}the game is over: everyone has passed")
        if event.player != view.state.player:
            raise RecordError(f"{where}it is {view.state.player}'s turn, not {event.player}'s")
        try:
            if event.power is not None:
                view = step(view, event.power)
            view = step(view, event.action, values.get(n))
        except (IllegalMove, KnowledgeError) as err:
            raise RecordError(f"{where}{err}") from None
    return view, None


def next_player(events: Sequence[Event], n: int) -> str | None:
    """The player of the first turn after event ``n``; None where no turn follows."""
    return next((e.player for e in events[n + 1 :] if isinstance(e, Turn)), None)


def resume(state: GameState, irregularity: Irregularity, player: str | None) -> GameState:
    """The game after an irregularity a replay goes on past: the board as its line says
    (:meth:`Irregularity.edit`; a warrior gone goes back to its player's supply), and ``player``
    (the next turn line's; None: whoever was) to move, back in if they had passed. RecordError where
    no game holds that board.

    >>> start = GameState.new(("orange", "blue"), GOLD_VALUES).play(PlaceWarrior(Cell(2, 2), 5))
    >>> gone = resume(start, Irregularity("warrior_gone", (Cell(2, 2),)), "orange")
    >>> gone.warriors[Cell(2, 2).number], gone.player, gone.supplies[0] == start.supplies[1]
    (None, 'orange', True)
    """
    position = irregularity.edit(state.to_position())
    passed = [c for k, c in enumerate(state.players) if state.passed >> k & 1 and c != player]
    try:
        after = GameState.from_position(position, player or state.player, passed)
    except ValueError as err:
        raise RecordError(str(err)) from None
    after.seen = state.seen
    return after


def _resume_view(view: Knowledge, irregularity: Irregularity, player: str | None) -> Knowledge:
    """:func:`resume` on a view of the game: a value known goes with its warrior."""
    known = view.known
    if irregularity.kind == "warrior_moved":
        here, there = irregularity.cells
        known = (known & ~here.bit) | (there.bit if known & here.bit else 0)
    elif irregularity.kind == "warrior_gone":
        known &= ~sum(cell.bit for cell in irregularity.cells)
    return Knowledge(resume(view.state, irregularity, player), known)


def whereabouts(events: Sequence[Event]) -> dict[int, tuple[Cell, Cell | None]]:
    """Where each face-down warrior a turn line leaves hidden was placed and where it ends up, by the
    turn's event index: the cell it stands on after every irregularity that moves one, None once one
    says it is gone.

    >>> c3, d3 = Cell(2, 2), Cell(2, 3)
    >>> whereabouts([Turn("orange", HiddenWarrior(c3)), Irregularity("warrior_moved", (c3, d3))])
    {0: (Cell(row=2, col=2), Cell(row=2, col=3))}
    """
    on: dict[Cell, int] = {}
    out: dict[int, tuple[Cell, Cell | None]] = {}
    for n, event in enumerate(events):
        if isinstance(event, Turn) and isinstance(event.action, HiddenWarrior):
            on[event.action.cell] = n
            out[n] = (event.action.cell, event.action.cell)
        elif isinstance(event, Irregularity) and event.kind in ("warrior_moved", "warrior_gone"):
            moved = event.kind == "warrior_moved"
            for cell in event.cells[:1] if moved else event.cells:
                if cell in on:
                    k = on.pop(cell)
                    end = event.cells[1] if moved else None
                    out[k] = (out[k][0], end)
                    if end is not None:
                        on[end] = k
    return out


def hidden_at_end(events: Sequence[Event]) -> dict[Cell, tuple[int, str]]:
    """The face-down warriors the turn lines leave hidden that stand on the board at the end, by the
    cell they end on (:func:`whereabouts`), which the reveal names: each with its turn's event index
    and its player. A warrior gone is not there; a cell a warrior left may hold a later one.

    >>> c3, d3 = Cell(2, 2), Cell(2, 3)
    >>> moved = Irregularity("warrior_moved", (c3, d3))
    >>> events = [Turn("orange", HiddenWarrior(c3)), moved, Turn("blue", HiddenWarrior(c3))]
    >>> {cell.name: turn for cell, turn in hidden_at_end(events).items()}
    {'d3': (0, 'orange'), 'c3': (2, 'blue')}
    """
    out: dict[Cell, tuple[int, str]] = {}
    for n, (_, end) in whereabouts(events).items():
        event = events[n]
        if end is not None and isinstance(event, Turn):
            out[end] = (n, event.player)
    return out


def _unknown(turn: Turn, action: HiddenWarrior) -> str:
    return f"the value of {turn.player}'s warrior on {action.cell.name} is not known"


def step(view: Knowledge, move: Move | HiddenWarrior, value: int | None = None) -> Knowledge:
    """Play one move of a record on a view of the game; a hidden warrior takes ``value`` where it is
    given (:meth:`Record.values_by_turn`), else a stand-in. IllegalMove or KnowledgeError where it
    cannot be."""
    if isinstance(move, HiddenWarrior):
        if value is None:
            return view.play_hidden(move.cell)
        move = PlaceWarrior(move.cell, value)
    if isinstance(move, ExtraWarrior) and not view.knows(view.state.player):
        return view.play_hidden(move.cell, face_up=move.value)
    try:
        return view.play(move)
    except IllegalMove:
        if not isinstance(move, PlaceWarrior):
            raise
        # The stand-ins of the player's hidden warriors may hold the value: place one, then learn.
        return view.play_hidden(move.cell).learn(move.cell, move.value)


def _line_of(lines: dict[int, int], n: int) -> str:
    return f"line {lines[n]}: " if n in lines else ""


# --------------------------------------------------------------------------- writing


def dumps(record: Record) -> str:
    """The record as text, every line ending in a newline; the result is computed, not stored."""
    out = [MAGIC]
    if record.date is not None:
        out.append(f"date {record.date}")
    out.append(f"variant {record.variant}")
    if record.characters:
        out.append(
            "players " + " ".join(f"{p}:{c}" for p, c in zip(record.players, record.characters, strict=True))
        )
    else:
        out.append("players " + " ".join(record.players))
    if record.gold:
        out.append(
            "gold " + " ".join(f"{g.cell.name}={'?' if g.value is None else g.value}" for g in record.gold)
        )
    number = 0
    for event in record.events:
        if isinstance(event, Turn):
            number += 1
            out.append(f"{number}. {event}")
        else:
            out.append(str(event))
    owners = {cell: player for cell, (_, player) in hidden_at_end(record.events).items()}
    for player in record.players:
        mine = [f"{cell.name}={value}" for cell, value in record.reveal if owners.get(cell) == player]
        if mine:
            out.append(f"reveal {player} " + " ".join(mine))
    if record.result is not None:
        out.append(str(record.result))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- reading

_TURN = re.compile(r"^(\d+)\.\s+(\S+)\s+(.*?)\s*(?:\{([^{}]*)\})?$")
_IRREGULAR = re.compile(r"^!\s+([a-z0-9_]+)((?:\s+[a-h][1-5](?:[|-][a-h][1-5])?)*)\s*(?:\{([^{}]*)\})?$")
_GOLD = re.compile(r"^([a-h][1-5])=(\d+|\?)$")
_HEADER = ("date", "variant", "players", "gold")


def parse(text: str) -> Record:
    """Read a record: blank lines and lines starting ``#`` are skipped. RecordError names the line
    of the first fault: syntax, an illegal turn, a turn out of order, a reveal or result that does
    not fit the turns."""
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1)]
    lines = [(n, line) for n, line in lines if line and not line.startswith("#")]
    if not lines or lines[0][1] != MAGIC:
        first = f"line {lines[0][0]}: " if lines else ""
        raise RecordError(f"{first}a record starts with the line {MAGIC!r}")
    header: dict[str, tuple[int, str]] = {}
    body = lines[1:]
    while body:
        n, line = body[0]
        key, _, value = line.partition(" ")
        if key not in _HEADER:
            break
        if key in header:
            raise RecordError(f"line {n}: a second {key} line (the first is line {header[key][0]})")
        header[key] = (n, value.strip())
        body = body[1:]
    last = lines[-1][0]
    variant, players, characters = _players(header, last)
    gold = _gold(header, variant)
    date = _date(header)
    events: list[Event] = []
    event_lines: dict[int, int] = {}
    reveal_lines: list[tuple[int, str, list[str]]] = []
    result_line: tuple[int, str] | None = None
    for n, line in body:
        if result_line is not None:
            raise RecordError(f"line {n}: nothing may follow the result (line {result_line[0]})")
        word = line.split(maxsplit=1)[0]
        if word == "reveal":
            words = line.split()[1:]
            if not words:
                raise RecordError(f"line {n}: reveal <colour> <cell>=<value> ...")
            reveal_lines.append((n, words[0], words[1:]))
        elif word == "result":
            result_line = (n, line)
        elif reveal_lines:
            raise RecordError(f"line {n}: after the reveal only more reveal lines and the result may come")
        elif word in _HEADER:
            raise RecordError(f"line {n}: the {word} line belongs to the header, before the first turn")
        elif word == "!":
            events.append(_irregularity(n, line))
            event_lines[len(events) - 1] = n
        else:
            turns = sum(isinstance(e, Turn) for e in events)
            events.append(_turn(n, line, turns + 1, players))
            event_lines[len(events) - 1] = n
    owners = {cell: player for cell, (_, player) in hidden_at_end(events).items()}
    event_lines[-1] = header.get("gold", header["players"])[0]  # where a fault of the gold is
    try:
        reveal = _reveal(reveal_lines, players, owners)
    except RecordError:
        # A fault in the turns comes first: it is on an earlier line, and may be why the reveal is wrong.
        _replay(Record(variant, players, gold, characters, date, tuple(events)), event_lines)
        raise
    revealed = tuple(sorted(reveal.items(), key=lambda item: item[0].number))
    record = Record(variant, players, gold, characters, date, tuple(events), revealed)
    view, stopped = _replay(record, event_lines)
    complete = stopped is None and len(record.values_by_turn()) == len(whereabouts(events))
    if complete and all(g.value is not None for g in gold) and view.state.is_over:
        # The replay was the whole game with every value: its scoring is the record's result.
        record.__dict__["result"] = Result.of(view.state.score())
    if result_line is not None:
        n, line = result_line
        if record.result is None:
            raise RecordError(f"line {n}: a result, but the game is not over or some value is unknown")
        if line != str(record.result):
            raise RecordError(f"line {n}: the result does not match the scoring: {record.result}")
    return record


def _reveal(
    reveal_lines: list[tuple[int, str, list[str]]], players: tuple[str, ...], owners: dict[Cell, str]
) -> dict[Cell, int]:
    """The reveal lines' values by cell; ``owners`` the player of the face-down warrior with a hidden
    value on each cell at the end (:func:`hidden_at_end`), the only cells a reveal may name."""
    reveal: dict[Cell, int] = {}
    for n, colour, words in reveal_lines:
        if colour not in players:
            raise RecordError(f"line {n}: {colour!r} is not a player of this game ({', '.join(players)})")
        for word in words:
            cell, value = _pair(n, word, low=1, high=5)
            if owners.get(cell) != colour:
                raise RecordError(
                    f"line {n}: no face-down warrior of {colour}'s with a hidden value on {cell.name} "
                    "at the end"
                )
            if cell in reveal:
                raise RecordError(f"line {n}: {cell.name} is revealed twice")
            reveal[cell] = value
    return reveal


def _players(header: dict[str, tuple[int, str]], last: int) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    for key in ("variant", "players"):
        if key not in header:
            raise RecordError(f"line {last}: the header has no {key} line")
    n, variant = header["variant"]
    if variant not in VARIANTS:
        raise RecordError(f"line {n}: variant {variant!r} is not one of {', '.join(VARIANTS)}")
    n, text = header["players"]
    named = [word.partition(":") for word in text.split()]
    players = tuple(colour for colour, _, _ in named)
    characters = tuple(character for _, _, character in named if character)
    try:
        Position.from_json({"players": list(players)})  # the position's rules for colour keys
    except PositionError as err:
        raise RecordError(f"line {n}: {err}") from None
    if variant == "armadora-advanced":
        if len(characters) != len(players):
            raise RecordError(f"line {n}: the advanced game names each colour's character: orange:goblin ...")
        for character in characters:
            if character not in CHARACTERS:
                raise RecordError(f"line {n}: {character!r} is not a character ({', '.join(CHARACTERS)})")
    elif characters:
        raise RecordError(f"line {n}: characters belong to the advanced game, not {variant}")
    return variant, players, characters


def _gold(header: dict[str, tuple[int, str]], variant: str) -> tuple[Gold, ...]:
    if "gold" not in header:
        return tuple(Gold(cell, None) for cell in GOLD_CELLS)
    n, text = header["gold"]
    gold: list[Gold] = []
    for word in text.split():
        match = _GOLD.match(word)
        if match is None:
            raise RecordError(f"line {n}: {word!r}: gold is written cell=value or cell=? (d5=7)")
        cell = Cell.parse(match[1])
        value = None if match[2] == "?" else int(match[2])
        if value is not None and value < 1:
            raise RecordError(f"line {n}: {word!r}: a gold value is a positive number")
        if any(g.cell == cell for g in gold):
            raise RecordError(f"line {n}: {cell.name} is listed twice")
        gold.append(Gold(cell, value))
    if variant != "nuggets" and tuple(g.cell for g in gold) != GOLD_CELLS:
        names = " ".join(c.name for c in GOLD_CELLS)
        raise RecordError(
            f"line {n}: the gold lies on {names}, in that order (only Nuggets lays it elsewhere)"
        )
    return tuple(gold)


def _date(header: dict[str, tuple[int, str]]) -> str | None:
    if "date" not in header:
        return None
    n, text = header["date"]
    try:
        datetime.fromisoformat(text)
    except ValueError:
        raise RecordError(
            f"line {n}: {text!r} is not an ISO date (2026-12-02 or 2026-12-02T20:15:00+00:00)"
        ) from None
    return text


def _turn(n: int, line: str, number: int, players: tuple[str, ...]) -> Turn:
    match = _TURN.match(line)
    if match is None:
        raise RecordError(f"line {n}: not a turn: {number}. <colour> <action> [{{note}}] expected")
    if int(match[1]) != number:
        raise RecordError(f"line {n}: turn {match[1]}, but this is turn {number}")
    player = match[2]
    if player not in players:
        raise RecordError(f"line {n}: {player!r} is not a player of this game ({', '.join(players)})")
    parts = [p.strip() for p in match[3].split(",")]
    power: Power | None = None
    if len(parts) == 2:
        power = _power(n, parts[0])
    elif len(parts) != 1:
        raise RecordError(f"line {n}: a turn is [power ..., ] then one action")
    return Turn(player, _action(n, parts[-1]), power, match[4] or "")


def _action(n: int, text: str) -> Action:
    words = text.split()
    kind, args = (words[0], words[1:]) if words else ("", [])
    if kind == "warrior" and len(args) in (1, 2):
        cell = _cell(n, args[0])
        return PlaceWarrior(cell, _number(n, args[1], 1, 5)) if len(args) == 2 else HiddenWarrior(cell)
    if kind == "palisade" and len(args) in (1, 2):
        slots = [_slot(n, word) for word in args]
        return Build(tuple(sorted(slots, key=lambda s: s.number)))
    if kind == "pass" and not args:
        return Pass()
    if kind == "reinforce" and len(args) == 1:
        return Reinforce(_cell(n, args[0]))
    raise RecordError(
        f"line {n}: {text!r}: an action is warrior <cell> [value], palisade <slot> [slot], reinforce <cell> "
        "or pass"
    )


def _power(n: int, text: str) -> Power:
    words = text.split()
    if len(words) >= 3 and words[0] == "power":
        name, args = words[1], words[2:]
        if name in ("mage", "elf") and len(args) == 1:
            cell = _cell(n, args[0])
            return Peek(cell) if name == "mage" else Arrow(cell)
        if name == "orc" and len(args) == 1:
            return ExtraPalisade(_slot(n, args[0]))
        if name == "goblin" and len(args) == 2:
            return ExtraWarrior(_cell(n, args[0]), _number(n, args[1], 1, 5))
    raise RecordError(
        f"line {n}: {text!r}: a power is power mage <cell>, elf <cell>, orc <slot> or goblin <cell> <value>"
    )


def _power_text(power: Power) -> str:
    return str(power).removeprefix("power ")


#: How many cells and palisades each kind the replay goes on past names: (cells, palisades), None for
#: one or more.
_SHAPES: dict[str, tuple[int | None, int]] = {
    "warrior_moved": (2, 0), "warrior_gone": (None, 0), "palisade_removed": (0, -1),
}  # fmt: skip
_SHAPE_WORDS = {
    "warrior_moved": "the cell the warrior left, then the one it stands on",
    "warrior_gone": "the cells of the warriors gone, and no palisade",
    "palisade_removed": "the palisades taken away, and no cell",
}


def _irregularity(n: int, line: str) -> Irregularity:
    match = _IRREGULAR.match(line)
    if match is None:
        raise RecordError(f"line {n}: an irregularity is ! <kind> <cells and palisades> [{{what happened}}]")
    cells, slots = [], []
    for word in match[2].split():
        if len(word) == 2:
            cells.append(_cell(n, word))
        else:
            slots.append(_slot(n, word))
    kind = match[1]
    if kind in _SHAPES:
        want_cells, want_slots = _SHAPES[kind]
        ok_cells = len(cells) >= 1 if want_cells is None else len(cells) == want_cells
        ok_slots = len(slots) >= 1 if want_slots < 0 else len(slots) == want_slots
        if not (ok_cells and ok_slots):
            raise RecordError(f"line {n}: {kind} names {_SHAPE_WORDS[kind]}")
    message, kept = _settled(match[3] or "")
    return Irregularity(kind, tuple(cells), tuple(slots), message, kept)


def _settled(note: str) -> tuple[str, bool]:
    """An irregularity's note without its last word on whether it was kept, and that word's answer.

    >>> _settled("the warrior moved; kept"), _settled("to settle"), _settled("moved")
    (('the warrior moved', True), ('', False), ('moved', False))
    """
    for word, kept in ((KEPT, True), (TO_SETTLE, False)):
        if note == word:
            return "", kept
        if note.endswith(f"; {word}"):
            return note.removesuffix(f"; {word}"), kept
    return note, False


def _pair(n: int, word: str, low: int, high: int) -> tuple[Cell, int]:
    cell_text, equals, value_text = word.partition("=")
    if not equals:
        raise RecordError(f"line {n}: {word!r}: <cell>=<value> expected")
    return _cell(n, cell_text), _number(n, value_text, low, high)


def _cell(n: int, text: str) -> Cell:
    try:
        return Cell.parse(text)
    except ValueError as err:
        raise RecordError(f"line {n}: {err}") from None


def _slot(n: int, text: str) -> Slot:
    """A palisade by its name: ``a5|b5`` between side-by-side cells, ``c4-c3`` between stacked ones."""
    match = re.fullmatch(r"([a-h][1-5])([|-])([a-h][1-5])", text)
    if match is not None:
        try:
            slot = Slot.between(Cell.parse(match[1]), Cell.parse(match[3]))
        except ValueError:
            slot = None
        if slot is not None and (match[2] == "|") == slot.vertical:
            return slot
    raise RecordError(f"line {n}: {text!r} is not a palisade: a5|b5 (side by side) or c4-c3 (stacked)")


def _number(n: int, text: str, low: int, high: int) -> int:
    if not text.isdigit() or not low <= int(text) <= high:
        raise RecordError(f"line {n}: {text!r}: a value {low}..{high} expected")
    return int(text)
