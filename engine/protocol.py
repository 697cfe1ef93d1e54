"""The engine's line protocol, in the spirit of the Go Text Protocol.

One command a line, one answer a line: ``= ...`` on success, ``? reason`` on error.

- ``newgame <variant> <colour> <colour> [...] [gold v v v v v v v v]``: a new game, players in
  turn order; the gold values on the gold cells in board-spec order, here or by ``gold``.
- ``gold v v v v v v v v``: the gold layout, before the first move.
- ``play <colour> warrior <r> <c> [value]``: the value only for a colour whose values the
  engine knows (its own); a colour's first warrior decides which kind it is.
- ``play <colour> palisade <r1> <c1> <r2> <c2> [<r1> <c1> <r2> <c2>]``, ``play <colour> pass``.
- ``genmove <colour>``: the engine chooses, plays and answers the move in ``play``'s syntax.
- ``time <seconds>``: thinking time a move. ``quit``.
- ``loadrecord <file>``: a game's record (docs/record.md) replayed: its game, gold and turns, as if
  sent by ``newgame`` and ``play``; the engine knows the values the record gives (on a turn's line
  or at the reveal), and the colours whose values it leaves hidden stay hidden.

The advanced game (docs/advanced-mode.md): ``newgame armadora-advanced orange:goblin blue:elf
[gold ...]`` names each colour's character. A move may start with a power, ``power mage <r> <c>``,
``power elf <r> <c>``, ``power orc <r1> <c1> <r2> <c2>`` or ``power goblin <r> <c> <v>``, then
the action: ``warrior``, ``palisade``, ``reinforce <r> <c>`` or ``pass`` (a power alone leaves
the turn open for the action). ``peek <r> <c> <v>`` tells the engine what its own Mage saw; a
``genmove`` that looks answers ``power mage <r> <c>`` alone and plays the action at the next
``genmove``, once told.

>>> s = Session(seconds=0.05, kernel="python")
>>> s.handle("newgame armadora orange blue gold 7 6 6 5 5 4 4 3")
'= '
>>> s.handle("play orange warrior 2 3")
'= '
>>> s.handle("play orange pass")
'? it is blue to move, not orange'
>>> s.handle("genmove blue").startswith("= ")
True
>>> s.handle("play blue warrior 9 9 1")
'? it is orange to move, not blue'
>>> s.handle("dance")
"? unknown command 'dance' (newgame, gold, play, peek, genmove, time, loadrecord, quit)"
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from engine.board import GOLD_VALUES, Cell, Slot
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
    Reinforce,
)
from engine.knowledge import Knowledge, KnowledgeError
from engine.record import RecordError, parse
from engine.search import DEFAULT_SECONDS, Mapper, suggest

COMMANDS = ("newgame", "gold", "play", "peek", "genmove", "time", "loadrecord", "quit")


class ProtocolError(ValueError):
    """A command the engine refuses; the message is the answer's reason."""


def move_text(move: Move) -> str:
    """A move in ``play``'s syntax.

    >>> move_text(Build((Slot.between((0, 0), (0, 1)), Slot.between((1, 1), (1, 2)))))
    'palisade 0 0 0 1 1 1 1 2'
    """
    if isinstance(move, PlaceWarrior):
        return f"warrior {move.cell.row} {move.cell.col} {move.value}"
    if isinstance(move, Build):
        return "palisade " + " ".join(_slot_text(s) for s in move.slots)
    if isinstance(move, Reinforce):
        return f"reinforce {move.cell.row} {move.cell.col}"
    if isinstance(move, Peek | Arrow):
        return f"power {'mage' if isinstance(move, Peek) else 'elf'} {move.cell.row} {move.cell.col}"
    if isinstance(move, ExtraPalisade):
        return f"power orc {_slot_text(move.slot)}"
    if isinstance(move, ExtraWarrior):
        return f"power goblin {move.cell.row} {move.cell.col} {move.value}"
    return "pass"


def _slot_text(slot: Slot) -> str:
    return f"{slot.a.row} {slot.a.col} {slot.b.row} {slot.b.col}"


class Session:
    """The engine's side of a conversation: the game so far and what it knows of it."""

    def __init__(
        self,
        seconds: float = DEFAULT_SECONDS,
        processes: int = 1,
        starmap: Mapper | None = None,
        seed: int = 0,
        kernel: str | None = None,
        iterations: int | None = None,
    ) -> None:
        self.seconds = seconds
        self.iterations = iterations  # a fixed search a move instead of the time, if given
        self.processes = processes
        self.starmap = starmap
        self.kernel = kernel
        self.rng = random.Random(seed)
        self.finished = False
        self.players: tuple[str, ...] = ()
        self.characters: tuple[str, ...] = ()
        self.variant = "armadora"
        self.looking: Cell | None = None  # the cell the engine's own Mage looks at, its value untold
        self.view: Knowledge | None = None
        self.known: set[str] = set()  # colours whose values the engine is told
        self.hidden: set[str] = set()  # colours whose values it is not

    def handle(self, line: str) -> str | None:
        """The answer to one line (None for a blank line or a comment)."""
        words = line.split("#", 1)[0].split()
        if not words:
            return None
        command, args = words[0].lower(), words[1:]
        try:
            handlers: dict[str, Callable[[list[str]], str]] = {
                "newgame": self._newgame, "gold": self._gold, "play": self._play, "peek": self._peek,
                "genmove": self._genmove, "time": self._time, "loadrecord": self._loadrecord,
                "quit": self._quit,
            }  # fmt: skip
            if command not in handlers:
                raise ProtocolError(f"unknown command {command!r} ({', '.join(COMMANDS)})")
            return "= " + handlers[command](args)
        except (ProtocolError, IllegalMove, KnowledgeError) as err:
            return f"? {err}"

    def _newgame(self, args: list[str]) -> str:
        if "gold" in args:
            at = args.index("gold")
            args, gold = args[:at], args[at + 1 :]
        else:
            gold = []
        if len(args) < 3:
            raise ProtocolError("newgame <variant> <colour> <colour> [...] [gold v v v v v v v v]")
        variant = args[0]
        named = [word.partition(":") for word in args[1:]]
        players = tuple(colour for colour, _, _ in named)
        characters = tuple(character for _, _, character in named if character)
        if characters and len(characters) != len(players):
            raise ProtocolError("name every colour's character (orange:goblin blue:elf ...) or none")
        try:
            GameState.new(players, GOLD_VALUES, variant, characters)
        except ValueError as err:
            raise ProtocolError(str(err)) from None
        self.variant, self.players, self.characters, self.view = variant, players, characters, None
        self.looking = None
        self.known, self.hidden = set(), set()
        if gold:
            self._gold(gold)
        return ""

    def _gold(self, args: list[str]) -> str:
        if not self.players:
            raise ProtocolError("no game: send newgame first")
        if self.view is not None and (self.view.state.occupied or self.view.state.walls.count):
            raise ProtocolError("the gold is set before the first move")
        try:
            state = GameState.new(self.players, _gold_values(args), self.variant, self.characters)
        except ValueError as err:
            raise ProtocolError(str(err)) from None
        self.view = Knowledge(state, 0)
        return ""

    def _time(self, args: list[str]) -> str:
        try:
            seconds = float(args[0]) if len(args) == 1 else -1.0
        except ValueError:
            seconds = -1.0
        if not 0 < seconds <= 600:
            raise ProtocolError("time <seconds>, more than 0 and at most 600")
        self.seconds = seconds
        return ""

    def _loadrecord(self, args: list[str]) -> str:
        """Replay a record file: the game it holds becomes this session's; answers the turns read."""
        if len(args) != 1:
            raise ProtocolError("loadrecord <file> (one file name, without spaces)")
        try:
            with open(args[0], encoding="utf-8-sig") as handle:
                text = handle.read()
        except OSError as err:
            raise ProtocolError(f"cannot read {args[0]}: {err.strerror or err}") from None
        except UnicodeDecodeError:
            raise ProtocolError(f"cannot read {args[0]}: not a text file (not UTF-8)") from None
        try:
            record = parse(text)
            if record.irregularities:
                raise RecordError(
                    f"it notes {len(record.irregularities)} irregularity(ies): no legal game to replay"
                )
            record.start()  # every gold value known
            view = record.replay()
        except RecordError as err:
            raise ProtocolError(f"{args[0]}: {err}") from None
        state = view.state
        self.variant, self.players, self.characters = state.variant, state.players, state.characters
        self.view, self.looking = view, None
        hidden = {
            state.players[w[0]]
            for i, w in enumerate(state.warriors)
            if w is not None and not view.known >> i & 1
        }
        placed = {state.players[w[0]] for w in state.warriors if w is not None}
        self.hidden, self.known = hidden, placed - hidden
        over = ", the game is over" if state.is_over else f", {state.player} to move"
        return f"{len(record.turns)} turns{over}"

    def _quit(self, args: list[str]) -> str:
        self.finished = True
        return ""

    def _turn(self, colour: str) -> Knowledge:
        """The view, once checked that ``colour`` is to move."""
        if self.view is None:
            raise ProtocolError("no game: send newgame and gold first")
        if colour not in self.players:
            raise ProtocolError(f"{colour!r} is not a colour of this game ({', '.join(self.players)})")
        state = self.view.state
        if state.is_over:
            raise ProtocolError("the game is over")
        if state.player != colour:
            raise ProtocolError(f"it is {state.player} to move, not {colour}")
        if self.looking is not None:
            cell = self.looking
            raise ProtocolError(
                f"{colour}'s Mage looks at {cell.row} {cell.col}: send peek {cell.row} {cell.col} <v>"
            )
        return self.view

    def _play(self, args: list[str]) -> str:
        if len(args) < 2:
            raise ProtocolError("play <colour> [power ...] warrior|palisade|reinforce|pass ...")
        colour, words = args[0], [w.lower() for w in args[1:]]
        view = self._turn(colour)
        if words[0] == "power":
            view, words = self._power(colour, view, words[1:])
            self.view = view
            if not words:
                return ""  # the action comes in another play
        kind, numbers = words[0], words[1:]
        if kind == "pass" and not numbers:
            self.view = view.play(Pass())
        elif kind == "warrior" and len(numbers) in (2, 3):
            r, c, *value = _integers(numbers)
            cell = _cell(r, c)
            if value:
                if colour in self.hidden:
                    raise ProtocolError(f"{colour}'s values are hidden from the engine: no value expected")
                self.view = view.play(PlaceWarrior(cell, value[0]))
                self.known.add(colour)
            else:
                if colour in self.known:
                    raise ProtocolError(f"the engine knows {colour}'s values: give the warrior's value")
                self.view = view.play_hidden(cell)
                self.hidden.add(colour)
        elif kind == "palisade" and len(numbers) in (4, 8):
            slots = _slots(numbers)
            self.view = view.play(Build(tuple(sorted(slots, key=lambda s: s.number))))
        elif kind == "reinforce" and len(numbers) == 2:
            self.view = view.play(Reinforce(_cell(*_integers(numbers))))
        else:
            raise ProtocolError(
                "play <colour> [power ...] warrior <r> <c> [value] | palisade <r1> <c1> <r2> <c2> [...]"
                " | reinforce <r> <c> | pass"
            )
        return ""

    def _power(self, colour: str, view: Knowledge, words: list[str]) -> tuple[Knowledge, list[str]]:
        """Play the power that ``words`` start with; the knowledge after it and the words left."""
        shapes = {"mage": 2, "elf": 2, "orc": 4, "goblin": 3}
        if not words or words[0] not in shapes or len(words) < 1 + shapes[words[0]]:
            raise ProtocolError(
                "power mage <r> <c> | elf <r> <c> | orc <r1> <c1> <r2> <c2> | goblin <r> <c> <v>"
            )
        name, numbers, rest = words[0], words[1 : 1 + shapes[words[0]]], words[1 + shapes[words[0]] :]
        xs = _integers(numbers)
        if name == "orc":
            return view.play(ExtraPalisade(_slots(numbers)[0])), rest
        cell = _cell(xs[0], xs[1])
        if name == "goblin":
            if colour in self.hidden or (colour not in self.known and view.hidden_cells(colour)):
                return view.play_hidden(cell, face_up=xs[2]), rest
            return view.play(ExtraWarrior(cell, xs[2])), rest
        own_look = name == "mage" and colour in self.known
        if own_look and rest:
            raise ProtocolError(
                f"the engine's own Mage looks at {xs[0]} {xs[1]}: send peek before the action"
            )
        after = view.play(Peek(cell) if name == "mage" else Arrow(cell))
        if own_look:
            self.looking = cell
        return after, rest

    def _peek(self, args: list[str]) -> str:
        if self.view is None or self.looking is None:
            raise ProtocolError("no look of the engine's own Mage waits for its value")
        r, c, value = _integers(args) if len(args) == 3 else (-1, -1, -1)
        cell = self.looking
        if (r, c) != tuple(cell):
            raise ProtocolError(
                f"the engine's Mage looked at {cell.row} {cell.col}: peek {cell.row} {cell.col} <v>"
            )
        if not 1 <= value <= 5:
            raise ProtocolError("a warrior's value is 1..5")
        self.view = self.view.learn(cell, value)
        self.looking = None
        return ""

    def _genmove(self, args: list[str]) -> str:
        if len(args) != 1:
            raise ProtocolError("genmove <colour>")
        colour = args[0]
        view = self._turn(colour)
        if colour in self.hidden:
            raise ProtocolError(f"{colour}'s values are hidden from the engine: it cannot move for {colour}")
        words = []
        while True:
            move = suggest(
                view, self.seconds, iterations=self.iterations, seed=self.rng.getrandbits(31),
                processes=self.processes, starmap=self.starmap, kernel=self.kernel,
            ).move  # fmt: skip
            view = view.play(move)
            words.append(move_text(move))
            if isinstance(move, PlaceWarrior | ExtraWarrior):
                self.known.add(colour)
            if isinstance(move, Peek):
                self.looking = move.cell
            if not isinstance(move, POWERS) or isinstance(move, Peek):
                break
        self.view = view
        return " ".join(words)


def _cell(r: int, c: int) -> Cell:
    cell = Cell(r, c)
    if not cell.on_board():
        raise ProtocolError(f"[{r}, {c}] is off the board (rows 0-4, columns 0-7)")
    return cell


def _slots(numbers: Sequence[str]) -> list[Slot]:
    xs = _integers(numbers)
    try:
        return [Slot.between(Cell(*xs[i : i + 2]), Cell(*xs[i + 2 : i + 4])) for i in range(0, len(xs), 4)]
    except ValueError as err:
        raise ProtocolError(str(err)) from None


def _integers(words: Sequence[str]) -> list[int]:
    try:
        return [int(w) for w in words]
    except ValueError:
        raise ProtocolError(f"numbers expected, got {' '.join(words)}") from None


def _gold_values(words: Sequence[str]) -> list[int]:
    values = _integers(words)
    if len(values) != 8:
        raise ProtocolError("gold takes 8 values, for the gold cells in board-spec order")
    return values
