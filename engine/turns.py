"""Turns from photos: the moves that lead from one confirmed position to the next.

Photos show pieces, not turns. Between two photos the players move in turn order, a player who
passed is skipped for good, and nobody photographs a pass: :func:`infer` finds every order of turns
by the rules (``engine/game.py``) that turns each photo into the next, keeps those that fit the
later photos too, and says which turns are certain. A change no legal turns explain (a warrior
moved or gone, a palisade taken away, a player who played twice) is an
:class:`~engine.record.Irregularity`, with its kind and cells, never an exception.

>>> from engine.board import GOLD_CELLS, GOLD_VALUES
>>> from engine.position import Gold, Warrior
>>> gold = tuple(map(Gold, GOLD_CELLS, GOLD_VALUES))
>>> first = Position(("orange", "blue"), gold=gold, warriors=(Warrior(Cell(2, 2), "orange", None),))
>>> second = replace(first, warriors=(*first.warriors, Warrior(Cell(2, 3), "blue", None)))
>>> inference = infer([first, second])
>>> [str(t) for t in inference.turns], inference.gaps[1].certain
(['orange warrior c3', 'blue warrior d3'], (True,))
>>> moved = replace(second, warriors=(Warrior(Cell(2, 2), "orange", None), Warrior(Cell(2, 4), "blue", None)))
>>> [str(i) for i in infer([first, second, moved]).irregularities]
['! warrior_moved d3 e3 {the blue warrior on d3 stands on e3 now; to settle}']

Who placed a palisade no photo shows, nor when a pass came: where several orders fit, the turn
says so.

>>> built = replace(second, palisades=frozenset({Slot.between((0, 0), (0, 1))}))
>>> print(infer([first, second, built]).turns[-1])
orange palisade a5|b5 {uncertain: who played what, and when a pass came; 2 orders fit photos 2 to 3}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from engine.board import GOLD_CELLS, Cell, Slot
from engine.check import check
from engine.game import (
    Arrow,
    Build,
    ExtraPalisade,
    ExtraWarrior,
    GameState,
    IllegalMove,
    Move,
    Pass,
    PlaceWarrior,
    Reinforce,
)
from engine.knowledge import Knowledge, KnowledgeError
from engine.position import Gold, Position, Warrior
from engine.record import (
    Action,
    Event,
    HiddenWarrior,
    Irregularity,
    Record,
    Turn,
    hidden_at_end,
    stand_in_gold,
    step,
)

#: How many moves the search of one gap between photos may try before it settles for what it found.
BUDGET = 20_000

_Key = tuple[int, int, tuple[int, ...], tuple[int, ...]]
Piece = Cell | Slot


@dataclass(frozen=True)
class Gap:
    """What happened between photo ``number - 1`` and photo ``number`` (photo 0: the empty board).

    ``turns`` is one order of turns that fits every photo; ``certain`` says, turn by turn, whether
    every order that fits has that very turn there; ``orders`` counts the orders that fit (0 where
    none does: then ``irregularities`` say what no legal turns explain). ``complete`` is false where
    the photos are so far apart that the search gave up before it saw every order (``BUDGET``
    moves tried): then no turn is certain, and ``orders`` counts only those it saw.
    """

    number: int
    turns: tuple[Turn, ...] = ()
    certain: tuple[bool, ...] = ()
    orders: int = 0
    irregularities: tuple[Irregularity, ...] = ()
    complete: bool = True


@dataclass(frozen=True)
class Inference:
    """The turns of a game from its photos, gap by gap."""

    positions: tuple[Position, ...]
    gaps: tuple[Gap, ...]

    @property
    def turns(self) -> tuple[Turn, ...]:
        return tuple(t for g in self.gaps for t in g.turns)

    @property
    def irregularities(self) -> tuple[Irregularity, ...]:
        return tuple(i for g in self.gaps for i in g.irregularities)

    def record(self, date: str | None = None, reveal: Mapping[Cell, int] | None = None) -> Record:
        """The game's record: each gap's irregularities, then its turns; ``reveal`` the values of
        face-down warriors, once known."""
        last = self.positions[-1]
        events = tuple(_events(self.gaps))
        values = reveal or {}
        # The values are entered on the last board, and the reveal names the cells there.
        hidden = {cell: values[cell] for cell in hidden_at_end(events) if cell in values}
        return Record(
            last.variant,
            last.players,
            _gold(self.positions),
            tuple(str(c) for c in last.characters),
            date,
            events,
            tuple(sorted(hidden.items(), key=lambda x: x[0].number)),
        )


def _events(gaps: Sequence[Gap]) -> list[Event]:
    """Each gap's irregularities, then its turns."""
    out: list[Event] = []
    for gap in gaps:
        out += gap.irregularities
        out += gap.turns
    return out


@dataclass(frozen=True)
class _Node:
    """A state the game may be in at a photo, and why each player taken to have passed passed."""

    view: Knowledge
    evidence: Mapping[str, tuple[Piece, ...]] = field(default_factory=dict)

    @property
    def key(self) -> _Key:
        s = self.view.state
        return (s.to_move, s.passed, s.powers, s.reinforcements)


#: What every order of turns agrees on at one place: the turn, else its player, its kind (None: no).
_Agree = tuple[Turn | None, str | None, str | None]


@dataclass(frozen=True)
class _Path:
    """The orders of turns from one state at a photo to one state at the next: the shortest of them,
    what they all agree on place by place, and how many they are."""

    start: _Key
    turns: tuple[Turn, ...]
    end: _Node
    sure: tuple[_Agree, ...]
    count: int = 1
    walls: tuple[int, int] = (0, 0)  # the fewest and the most turns that place palisades

    def after(self, turn: Turn) -> _Path:
        """These orders with ``turn`` played first."""
        low, high = self.walls
        more = int(isinstance(turn.action, Build) or isinstance(turn.power, ExtraPalisade))
        return _Path(
            self.start, (turn, *self.turns), self.end, (_agree(turn), *self.sure), self.count,
            (low + more, high + more),
        )  # fmt: skip

    def merge(self, other: _Path) -> _Path:
        """Both sets of orders (to the same end): the shorter example, what both agree on."""
        sure = tuple(_meet(a, b) for a, b in zip(self.sure, other.sure, strict=False))
        best = other if len(other.turns) < len(self.turns) else self
        walls = (min(self.walls[0], other.walls[0]), max(self.walls[1], other.walls[1]))
        return _Path(best.start, best.turns, best.end, sure, self.count + other.count, walls)


def _agree(turn: Turn) -> _Agree:
    return (turn, turn.player, _kind(turn))


def _meet(a: _Agree, b: _Agree) -> _Agree:
    return (a[0] if a[0] == b[0] else None, a[1] if a[1] == b[1] else None, a[2] if a[2] == b[2] else None)


def _kind(turn: Turn) -> str:
    action = turn.action
    kind = "warrior" if isinstance(action, HiddenWarrior | PlaceWarrior) else type(action).__name__.lower()
    return kind if turn.power is None else f"{type(turn.power).__name__.lower()}, {kind}"


@dataclass(frozen=True)
class _Pieces:
    """What a photo shows that the one before did not: the changes turns must explain."""

    warriors: Mapping[Cell, Warrior]  # new face-down warriors (values as the photo read them)
    face_up: Mapping[Cell, Warrior]  # new face-up ones: the Goblin's
    slots: frozenset[Slot]
    arrows: tuple[Cell, ...]  # one entry an arrow, a cell twice for two
    reinforced: Mapping[Cell, str]

    @property
    def empty(self) -> bool:
        return not (self.warriors or self.face_up or self.slots or self.arrows or self.reinforced)

    def cells(self) -> tuple[Cell, ...]:
        return tuple(sorted({*self.warriors, *self.face_up, *self.arrows, *self.reinforced}))


def infer(positions: Sequence[Position], *, finished: bool = False, budget: int = BUDGET) -> Inference:
    """The turns that lead through the confirmed positions of one game, from the empty board.
    ``finished``: the last position is the end of the game, so everyone still in passed after it.
    """
    positions = tuple(positions)
    before = replace(positions[0], warriors=(), palisades=frozenset(), powers_left=(), reinforcements_left=())
    start = _start(before)
    return _infer(positions, before, {start.key: start}, finished, budget)


def explain(before: Position, after: Position, to_move: str, passed: Sequence[str] = ()) -> Gap:
    """The turns from one position to the next, ``to_move`` to play first and ``passed`` out.

    >>> from engine.board import GOLD_CELLS, GOLD_VALUES
    >>> start = Position(("orange", "blue"), gold=tuple(map(Gold, GOLD_CELLS, GOLD_VALUES)))
    >>> blue = (Warrior(Cell(2, 2), "blue", None), Warrior(Cell(2, 3), "blue", None))
    >>> later = replace(start, warriors=blue)
    >>> gap = explain(start, later, "blue", ["orange"])
    >>> gap.certain, gap.orders
    ((False, False), 2)
    >>> print(gap.turns[0])
    blue warrior c3 {uncertain: which of blue's warriors came first; 2 orders fit photos 0 to 1}
    """
    frontier = {n.key: n for n in _nodes(before, [to_move], passed)}
    return _infer((after,), before, frontier, False, BUDGET).gaps[0]


def _infer(
    positions: tuple[Position, ...],
    before: Position,
    frontier: dict[_Key, _Node],
    finished: bool,
    budget: int,
) -> Inference:
    gaps: list[tuple[int, list[_Path], list[Irregularity], bool]] = []
    for n, after in enumerate(positions):
        paths, irregular, complete, frontier = _gap(before, after, frontier, budget)
        gaps.append((n + 1, paths, irregular, complete))
        before = after
    if finished:
        gaps.append((len(positions) + 1, _finish(frontier), [], True))
    return Inference(positions, _choose(gaps))


# --------------------------------------------------------------------------- one gap


def _gap(
    before: Position, after: Position, frontier: dict[_Key, _Node], budget: int
) -> tuple[list[_Path], list[Irregularity], bool, dict[_Key, _Node]]:
    """The paths that explain one gap from each state of the frontier, what no turns explain, whether
    the search saw every order, and the frontier at the later photo."""
    irregular = _irregularities(before, after)
    problems = check(after).problems
    if problems:
        irregular += [Irregularity(p.code, p.cells, p.palisades, p.message) for p in problems]
        return [], irregular, True, {n.key: n for n in _reset(after, frontier)}
    edited = _edited(before, after) if irregular else before
    if irregular:
        frontier = {n.key: n for n in _rebuilt(edited, frontier)}
    pieces = _new_pieces(edited, after)
    paths, complete = _search_all(list(frontier.items()), pieces, budget)
    if not paths:
        relaxed = [n for n in frontier.values() if n.view.state.passed]
        revived = [(n.key, m) for n in relaxed for m in _rebuilt(edited, {n.key: n}, unpass=True)]
        paths, complete = _search_all(revived, pieces, budget)
        if paths:
            irregular.append(_double_turn(relaxed, pieces))
        else:
            irregular.append(_unexplained(pieces, after))
            return [], irregular, True, {n.key: n for n in _reset(after, frontier)}
    # A search that gave up may have missed the true order: then anyone still in may be to move.
    ends = [p.end for p in paths] if complete else _reset(after, frontier)
    return paths, irregular, complete, {n.key: n for n in reversed(ends)}


def _search_all(
    starts: Sequence[tuple[_Key, _Node]], pieces: _Pieces, budget: int
) -> tuple[list[_Path], bool]:
    """The orders from each start (each under the key the paths are to say they start from), one
    path per start and end; and whether the search saw them all."""
    paths: list[_Path] = []
    search = _Search(pieces, budget)
    for key, node in starts:
        for path in search.run(node.view).values():
            evidence = {**node.evidence, **_evidence(path.turns)}
            paths.append(replace(path, start=key, end=_Node(path.end.view, evidence)))
    return paths, not search.exhausted


class _Search:
    """Every order of turns from a state that places exactly the new pieces: a search over what is
    left to place, each state once (the board is the earlier photo's and what is placed).

    Palisades are counted, not told apart: walls only split territories, so the palisades of a legal
    photo may go up in any order (the rule of territories of 4 holds at every step when it holds
    at the end); the search places them in slot order, and a turn's palisades are certain only
    when a single turn placed them all.
    """

    def __init__(self, pieces: _Pieces, budget: int) -> None:
        self.pieces = pieces
        self.budget = budget
        self.exhausted = False
        self.memo: dict[tuple[object, ...], dict[_Key, _Path]] = {}
        self.owner = {c: w.player for c, w in (*pieces.warriors.items(), *pieces.face_up.items())}
        self.owner.update(pieces.reinforced)
        self.slots = tuple(sorted(pieces.slots, key=lambda slot: slot.number))
        self.todo = frozenset[object]({*pieces.warriors, *(("up", c) for c in pieces.face_up),
                                       *(("arrow", c, n) for n, c in enumerate(pieces.arrows)),
                                       *(("reinforce", c) for c in pieces.reinforced)})  # fmt: skip

    def run(self, view: Knowledge) -> dict[_Key, _Path]:
        """The orders from ``view``, by the state they end in."""
        return self._from(view, self.todo, len(self.slots))

    def _play(self, view: Knowledge, move: Move | HiddenWarrior) -> Knowledge | None:
        if self.budget <= 0:
            self.exhausted = True
            return None
        self.budget -= 1
        try:
            return step(view, move)
        except (IllegalMove, KnowledgeError):
            return None

    def _next(self, walls: int, n: int) -> tuple[Slot, ...]:
        """The next ``n`` palisades to place when ``walls`` are left."""
        first = len(self.slots) - walls
        return self.slots[first : first + n]

    def _from(self, view: Knowledge, todo: frozenset[object], walls: int) -> dict[_Key, _Path]:
        state = view.state
        key = (state.to_move, state.passed, state.powers, state.reinforcements, todo, walls)
        if key in self.memo:
            return self.memo[key]
        out: dict[_Key, _Path] = {}
        if not todo and not walls:
            end = _Node(view)
            out[end.key] = _Path(end.key, (), end, ())
        elif not state.is_over:
            player = state.player
            for power, after_power, left, walls_left in self._powers(view, todo, walls):
                for action, after, rest, rest_walls in self._actions(after_power, left, walls_left):
                    turn = Turn(player, action, power)
                    for end_key, path in self._from(after, rest, rest_walls).items():
                        path = path.after(turn)
                        out[end_key] = out[end_key].merge(path) if end_key in out else path
            if not any(self._owner(x) == player for x in todo):
                # A pass: only the turns that follow show it.
                for end_key, path in self._from(view.play(Pass()), todo, walls).items():
                    path = path.after(Turn(player, Pass()))
                    out[end_key] = out[end_key].merge(path) if end_key in out else path
        self.memo[key] = out
        return out

    def _owner(self, item: object) -> str | None:
        if isinstance(item, Cell):
            return self.owner[item]
        if isinstance(item, tuple) and item and item[0] in ("up", "reinforce"):
            return self.owner[item[1]]
        return None

    def _powers(
        self, view: Knowledge, todo: frozenset[object], walls: int
    ) -> Iterator[tuple[ExtraWarrior | ExtraPalisade | Arrow | None, Knowledge, frozenset[object], int]]:
        state = view.state
        p = state.to_move
        if state.advanced and state.powers[p] and not state.power_used:
            character = state.characters[p]
            if character == "orc" and walls:
                move = ExtraPalisade(self._next(walls, 1)[0])
                after = self._play(view, move)
                if after is not None:
                    yield move, after, todo, walls - 1
            for item in sorted(todo, key=_order):
                power: ExtraWarrior | Arrow | None = None
                if not isinstance(item, tuple) or self._owner(item) not in (None, state.player):
                    continue
                if character == "goblin" and item[0] == "up":
                    power = ExtraWarrior(item[1], self.pieces.face_up[item[1]].value or 1)
                elif character == "elf" and item[0] == "arrow":
                    if any(
                        isinstance(x, tuple) and x[0] == "arrow" and x[1] == item[1] and x[2] < item[2]
                        for x in todo
                    ):
                        continue  # the arrows on one cell in their order
                    power = Arrow(item[1])
                if power is not None:
                    after = self._play(view, power)
                    if after is not None:
                        yield power, after, todo - {item}, walls
        yield None, view, todo, walls

    def _actions(
        self, view: Knowledge, todo: frozenset[object], walls: int
    ) -> Iterator[tuple[Action, Knowledge, frozenset[object], int]]:
        player = view.state.player
        options: list[tuple[Action, frozenset[object], int]] = []
        for item in sorted(todo, key=_order):
            if isinstance(item, Cell) and self.owner[item] == player:
                value = self.pieces.warriors[item].value
                warrior = HiddenWarrior(item) if value is None else PlaceWarrior(item, value)
                options.append((warrior, todo - {item}, walls))
            elif isinstance(item, tuple) and item[0] == "reinforce" and self.owner[item[1]] == player:
                options.append((Reinforce(item[1]), todo - {item}, walls))
        # Any two palisades still to place fit together, so in Nuggets a build of one is out while two
        # are left.
        sizes = (2,) if view.state.variant == "nuggets" and walls >= 2 else (2, 1)
        options += [(Build(self._next(walls, n)), todo, walls - n) for n in sizes if walls >= n]
        for action, rest, rest_walls in options:
            after = self._play(view, action)
            if after is not None:
                yield action, after, rest, rest_walls
        if view.state.power_used and not any(self._owner(x) == player for x in todo):
            after = self._play(view, Pass())
            if after is not None:
                yield Pass(), after, todo, walls


def _order(item: object) -> tuple[int, int]:
    if isinstance(item, Cell):
        return (0, item.number)
    if isinstance(item, Slot):
        return (1, item.number)
    assert isinstance(item, tuple)
    return (2, item[1].number * 3 + (item[2] if len(item) > 2 else 0))


def _pieces_of(turn: Turn) -> tuple[Piece, ...]:
    """The cells and palisades a turn placed (for an irregularity's message)."""
    out: list[Piece] = []
    for move in (turn.power, turn.action):
        if isinstance(move, Build):
            out += move.slots
        elif isinstance(move, ExtraPalisade):
            out.append(move.slot)
        elif isinstance(move, HiddenWarrior | PlaceWarrior | ExtraWarrior | Arrow | Reinforce):
            out.append(move.cell)
    return tuple(out)


def _evidence(turns: Sequence[Turn]) -> dict[str, tuple[Piece, ...]]:
    """For each pass in the middle of some turns, what shows it: the pieces of the turns around it."""
    out = {}
    for n, turn in enumerate(turns):
        if isinstance(turn.action, Pass) and turn.power is None:
            later = [t for t in turns[n + 1 :] if not isinstance(t.action, Pass)][:1]
            out[turn.player] = tuple(x for t in (*turns[:n][-1:], *later) for x in _pieces_of(t))
    return out


def _finish(frontier: dict[_Key, _Node]) -> list[_Path]:
    """After the last photo of a finished game: everyone still in passes, in turn order."""
    paths = []
    for key, node in frontier.items():
        view, turns = node.view, []
        while not view.state.is_over:
            turns.append(Turn(view.state.player, Pass()))
            view = view.play(Pass())
        paths.append(_Path(key, tuple(turns), _Node(view, node.evidence), tuple(map(_agree, turns))))
    return paths


# --------------------------------------------------------------------------- states


def _start(empty: Position) -> _Node:
    """The game before the first turn, on the gold the photos show."""
    gold = empty.markers or empty.gold or tuple(Gold(cell, None) for cell in GOLD_CELLS)
    values = stand_in_gold(gold, empty.variant)
    characters = tuple(str(c) for c in empty.characters)
    state = GameState.new(empty.players, values, empty.variant, characters, tuple(g.cell for g in gold))
    return _Node(Knowledge(state, 0))


def _playable(position: Position) -> Position:
    """The position with stand-ins for unread gold, so that a game can be played on it."""
    values = stand_in_gold(position.gold, position.variant)
    return replace(position, gold=tuple(Gold(g.cell, v) for g, v in zip(position.gold, values, strict=True)))


def _nodes(
    position: Position,
    to_move: Sequence[str],
    passed: Sequence[str],
    node: _Node | None = None,
    *,
    tokens: bool = True,
) -> list[_Node]:
    """The states of a position with each of ``to_move`` to play (with ``tokens``, the powers and
    reinforcements left as ``node``'s; else as the board shows them spent)."""
    if node is not None and tokens and node.view.state.advanced:
        s = node.view.state
        position = replace(position, powers_left=s.powers, reinforcements_left=s.reinforcements)
    out = []
    for colour in to_move:
        if colour in passed:
            continue
        try:
            out.append(
                _Node(Knowledge.onlooker(_playable(position), colour, passed), node.evidence if node else {})
            )
        except (KnowledgeError, ValueError):
            continue
    return out


def _passed(node: _Node) -> list[str]:
    s = node.view.state
    return [c for n, c in enumerate(s.players) if s.passed >> n & 1]


def _rebuilt(position: Position, frontier: Mapping[_Key, _Node], *, unpass: bool = False) -> list[_Node]:
    """Each state of the frontier on another board (an edited one), or with nobody passed."""
    out = []
    for node in frontier.values():
        out += _nodes(position, [node.view.state.player], [] if unpass else _passed(node), node)
    return out


def _reset(after: Position, frontier: Mapping[_Key, _Node]) -> list[_Node]:
    """After a change no turns explain, the game goes on from the photo, anyone still in to move."""
    out = []
    for node in frontier.values():
        out += _nodes(after, node.view.state.players, _passed(node), node, tokens=False)
    return out


# --------------------------------------------------------------------------- what changed


def _irregularities(before: Position, after: Position) -> list[Irregularity]:
    """The changes between two photos that no turn makes: pieces gone, moved or changed."""
    out = []
    gone = [w for w in before.warriors if _same(after.warrior_at(w.cell), w) is None]
    new = [w for w in after.warriors if before.warrior_at(w.cell) is None]
    for w in gone:
        there = after.warrior_at(w.cell)
        if there is not None and there.player != w.player:
            out.append(
                Irregularity(
                    "warrior_changed",
                    (w.cell,),
                    (),
                    f"the {w.player} warrior on {w.cell.name} is {there.player} now",
                )
            )
            continue
        if there is not None:
            continue
        moved = next((x for x in new if x.player == w.player), None)
        if moved is not None:
            new.remove(moved)
            out.append(
                Irregularity(
                    "warrior_moved",
                    (w.cell, moved.cell),
                    (),
                    f"the {w.player} warrior on {w.cell.name} stands on {moved.cell.name} now",
                )
            )
        else:
            out.append(
                Irregularity(
                    "warrior_gone", (w.cell,), (), f"the {w.player} warrior on {w.cell.name} is gone"
                )
            )
    for w in before.warriors:
        there = after.warrior_at(w.cell)
        if there is None or there.player != w.player:
            continue
        if w.value is not None and there.value is not None and w.value != there.value:
            out.append(
                Irregularity(
                    "value_changed",
                    (w.cell,),
                    (),
                    f"the warrior on {w.cell.name} was {w.value}, is {there.value} now",
                )
            )
        lost = [
            name
            for name, was, now in (
                ("face up", w.face_up, there.face_up),
                ("reinforced", w.reinforced, there.reinforced),
            )
            if was and not now
        ]
        if there.arrows < w.arrows:
            lost.append("an arrow")
        if not w.face_up and there.face_up:
            out.append(
                Irregularity(
                    "turned_face_up", (w.cell,), (), f"the warrior on {w.cell.name} lies face up now"
                )
            )
        if lost:
            out.append(
                Irregularity(
                    "token_removed", (w.cell,), (), f"the warrior on {w.cell.name} lost {' and '.join(lost)}"
                )
            )
    removed = sorted(before.palisades - after.palisades, key=lambda s: s.number)
    if removed:
        names = ", ".join(s.name for s in removed)
        out.append(Irregularity("palisade_removed", (), tuple(removed), f"palisade taken away: {names}"))
    changed = [
        g.cell
        for g in before.gold
        if (a := after.gold_at(g.cell)) is None or (None not in (a.value, g.value) and a.value != g.value)
    ]
    if changed:
        names = ", ".join(c.name for c in changed)
        out.append(Irregularity("gold_changed", tuple(changed), (), f"the gold changed on {names}"))
    return out


def _same(there: Warrior | None, w: Warrior) -> Warrior | None:
    return there if there is not None and there.player == w.player else None


def _edited(before: Position, after: Position) -> Position:
    """The earlier photo with the irregular changes made: what the turns then build on. The changes a
    record's line says (a warrior moved or gone, a palisade taken away: :meth:`Irregularity.edit`,
    which a replay of the record makes too), then those it leaves to the photos: a warrior changed
    is as the later photo shows it, tokens taken away are gone, the gold is as read now; new tokens
    stay new."""
    edited = before
    for irregularity in _irregularities(before, after):
        edited = irregularity.edit(edited)
    kept: list[Warrior] = []
    for w in edited.warriors:
        there = after.warrior_at(w.cell)
        if there is None or there.player != w.player:
            kept.append(there or w)
        else:
            kept.append(
                there._replace(
                    arrows=min(w.arrows, there.arrows), reinforced=w.reinforced and there.reinforced
                )
            )
    return replace(edited, warriors=tuple(kept), gold=after.gold)


def _new_pieces(before: Position, after: Position) -> _Pieces:
    warriors: dict[Cell, Warrior] = {}
    face_up: dict[Cell, Warrior] = {}
    reinforced: dict[Cell, str] = {}
    arrows: list[Cell] = []
    for w in after.warriors:
        was = before.warrior_at(w.cell)
        if was is None:
            goblin = w.face_up and w.value is not None and after.variant == "armadora-advanced"
            (face_up if goblin else warriors)[w.cell] = w
        arrows += [w.cell] * (w.arrows - (was.arrows if was else 0))
        if w.reinforced and not (was and was.reinforced):
            reinforced[w.cell] = w.player
    return _Pieces(warriors, face_up, after.palisades - before.palisades, tuple(arrows), reinforced)


def _double_turn(relaxed: Sequence[_Node], pieces: _Pieces) -> Irregularity:
    """The irregularity when a player taken to have passed plays again: someone played twice."""
    node = relaxed[0]
    passed = _passed(node)
    evidence = tuple(dict.fromkeys(x for colour in passed for x in node.evidence.get(colour, ())))
    cells = tuple(x for x in evidence if isinstance(x, Cell))
    slots = tuple(x for x in evidence if isinstance(x, Slot))
    names = " and ".join(passed)
    return Irregularity(
        "double_turn", cells, slots,
        f"a player played twice in a row ({', '.join(x.name for x in evidence) or 'before'}): "
        f"{names}, who would have passed then, plays again",
    )  # fmt: skip


def _unexplained(pieces: _Pieces, after: Position) -> Irregularity:
    counts = []
    for colour in after.players:
        n = sum(1 for w in (*pieces.warriors.values(), *pieces.face_up.values()) if w.player == colour)
        counts.append(f"{colour} {n} warrior{'s' if n != 1 else ''}")
    return Irregularity(
        "unexplained", pieces.cells(), tuple(sorted(pieces.slots, key=lambda s: s.number)),
        f"no order of turns explains the change ({', '.join(counts)}, {len(pieces.slots)} palisade(s))",
    )  # fmt: skip


def _gold(positions: Sequence[Position]) -> tuple[Gold, ...]:
    """The gold of the game: each cell's value from the latest photo that read it."""
    last = positions[-1]
    cells = [g.cell for g in (last.markers or last.gold)]
    out = []
    for cell in cells:
        value = next(
            (
                g.value
                for p in reversed(positions)
                for g in (p.markers or p.gold)
                if g.cell == cell and g.value is not None
            ),
            None,
        )
        out.append(Gold(cell, value))
    return tuple(out)


# --------------------------------------------------------------------------- choosing


def _choose(gaps: Sequence[tuple[int, list[_Path], list[Irregularity], bool]]) -> tuple[Gap, ...]:
    """Keep the orders that later photos allow, choose one through them all, and mark what is
    certain: a turn every order that fits has in that place."""
    alive: list[list[_Path]] = [[] for _ in gaps]
    ends: set[_Key] | None = None  # the states the next gap may start from (None: any)
    for g in range(len(gaps) - 1, -1, -1):
        _, paths, irregular, complete = gaps[g]
        alive[g] = [p for p in paths if ends is None or not complete or p.end.key in ends]
        ends = None if not alive[g] else {p.start for p in alive[g]}
    out = []
    chosen_end: _Key | None = None
    for g, (number, _, irregular, complete) in enumerate(gaps):
        paths = alive[g]
        choices = [p for p in paths if chosen_end is None or p.start == chosen_end] or paths
        if not choices:
            out.append(Gap(number, (), (), 0, tuple(irregular), complete))
            chosen_end = None
            continue
        path = min(choices, key=lambda p: (len(p.turns), sum(isinstance(t.action, Pass) for t in p.turns)))
        chosen_end = path.end.key
        sure = paths[0].sure
        for other in paths[1:]:
            sure = tuple(_meet(a, b) for a, b in zip(sure, other.sure, strict=False))
        orders = sum(p.count for p in paths)
        # Palisades are told apart only where a single turn, a single build, placed them all.
        one_build = all(p.walls == (1, 1) for p in paths)
        certain = tuple(
            complete and n < len(sure) and sure[n][0] == turn and (one_build or not _places_walls(turn))
            and not (isinstance(turn.power, ExtraPalisade) and isinstance(turn.action, Build))
            for n, turn in enumerate(path.turns)
        )  # fmt: skip
        turns = tuple(
            turn
            if ok
            else replace(turn, note=_note(sure[n] if n < len(sure) else None, orders, number, complete))
            for n, (turn, ok) in enumerate(zip(path.turns, certain, strict=True))
        )
        out.append(Gap(number, turns, certain, orders, tuple(irregular), complete))
    return tuple(out)


def _places_walls(turn: Turn) -> bool:
    return isinstance(turn.action, Build) or isinstance(turn.power, ExtraPalisade)


def _note(agree: _Agree | None, orders: int, number: int, complete: bool) -> str:
    """Why a turn is not certain, in words."""
    where = f"photos {number - 1} to {number}"
    if not complete:
        return f"uncertain: too many turns between {where} to be sure of their order"
    why = "who played what, and when a pass came"
    if agree is not None and agree[1] is not None and agree[2] is not None:
        if agree[2].endswith("build"):
            why = f"which palisades {agree[1]} placed"
        elif agree[2].endswith("warrior"):
            why = f"which of {agree[1]}'s warriors came first"
        else:
            why = "the order of the turns"
    return f"uncertain: {why}; {orders} orders fit {where}"
