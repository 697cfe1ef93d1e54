"""The review of a finished game: each turn's chance of winning before and after, and what it cost.

A record (``docs/record.md``) holds a whole game; once every value is known (the reveal), the
review replays it turn by turn and, for the player to move, measures the chance of winning
before the turn and after it by the kernel's playouts with every value known (no value is drawn:
what a player holds in hand is what their supply still has). The search (ISMCTS, with every
value known) proposes its best few moves; each is judged by the same playouts, on the same seed
as the move played, so that the move preferred is never judged worse than the one played by
noise. A turn's ``loss`` is what the best of them is judged to win over the move played;
the largest losses are marked, as a chess site's analysis marks mistakes.

The search's own win rates are not used as chances: the tree's averages lean towards the player
it searches for (by 20 to 40 points in our games), whereas a playout from a position is a playout
from that position.

>>> from engine.record import parse
>>> record = parse('''armadora-record 1
... variant armadora
... players orange blue
... gold d5=7 b4=6 f4=6 h4=5 a2=5 e2=4 c1=4 g1=3
... 1. orange warrior c3
... 2. blue warrior d3
... 3. orange pass
... 4. blue pass
... reveal orange c3=5
... reveal blue d3=1
... ''')
>>> r = review(record, Budget(playouts=50, iterations=50, kernel="python"))
>>> [(t.index, t.mover, t.move) for t in r.turns]
[(1, 'orange', 'warrior c3 5'), (2, 'blue', 'warrior d3 1'), (3, 'orange', 'pass'), (4, 'blue', 'pass')]
>>> r.turns[-1].chance_after, 0 <= r.turns[0].chance_before <= 1
(0.0, True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from engine.board import ALL_CELLS_MASK
from engine.encoding import kernel_state
from engine.game import GameState, IllegalMove, Move, Pass, PlaceWarrior, Power
from engine.kernel import Kernel, load
from engine.kernel_core import S_ME, SCRATCH_SIZE, STATE_SIZE
from engine.knowledge import Knowledge
from engine.position import sides_of
from engine.record import HiddenWarrior, Irregularity, Record, RecordError, next_player, resume, whereabouts
from engine.search import suggest

#: The marks, from the largest loss down: a turn whose loss is at least the figure gets the mark.
MARKS = (("blunder", 0.20), ("mistake", 0.10), ("inaccuracy", 0.05))


@dataclass(frozen=True)
class Budget:
    """What the review spends on a turn: ``playouts`` for each chance, ``iterations`` of the search
    for the moves it proposes, the ``candidates`` it proposes. The same ``seed`` gives the same
    review of the same record, on any machine."""

    playouts: int = 3000
    iterations: int = 4000
    candidates: int = 3
    seed: int = 0
    kernel: str | None = None


@dataclass(frozen=True)
class TurnReview:
    """One turn reviewed: its number in the record (from 1), who moved and what, the mover's chance
    of winning before and after, the move the engine prefers with its chance, what the turn
    cost (``loss``: the preferred move's chance less the played one's, never below 0) and its mark
    ("blunder", "mistake", "inaccuracy" or "")."""

    index: int
    mover: str
    move: str
    chance_before: float
    chance_after: float
    preferred: str
    preferred_chance: float
    loss: float
    mark: str

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index, "mover": self.mover, "move": self.move,
            "chance_before": round(self.chance_before, 4), "chance_after": round(self.chance_after, 4),
            "preferred": self.preferred, "preferred_chance": round(self.preferred_chance, 4),
            "loss": round(self.loss, 4), "mark": self.mark,
        }  # fmt: skip

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> TurnReview:
        return cls(
            int(doc["index"]), str(doc["mover"]), str(doc["move"]), float(doc["chance_before"]),
            float(doc["chance_after"]), str(doc["preferred"]), float(doc["preferred_chance"]),
            float(doc["loss"]), str(doc["mark"]),
        )  # fmt: skip


@dataclass(frozen=True)
class Review:
    """A game reviewed: its turns in order, how many the record holds, the irregularities kept that it
    went on past (each after the number of turns before it), and the irregularity it stopped at (one
    still to settle, or one a replay cannot go past: the turns after it are not reviewed)."""

    turns: tuple[TurnReview, ...]
    total: int
    players: tuple[str, ...] = ()
    irregularity: Irregularity | None = None
    budget: Budget = field(default_factory=Budget)
    kept: tuple[tuple[int, Irregularity], ...] = ()

    @property
    def cut(self) -> bool:
        """Whether an irregularity stopped the review before the record's last turn."""
        return self.irregularity is not None

    @property
    def worst(self) -> TurnReview | None:
        """The turn that cost the most (the first of equals), None where no turn cost anything."""
        costly = [t for t in self.turns if t.loss > 0]
        return max(costly, key=lambda t: t.loss) if costly else None

    def to_json(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "total": self.total,
            "turns": [t.to_json() for t in self.turns],
            "worst": None if self.worst is None else self.worst.index,
            "irregularity": None if self.irregularity is None
            else {**irregularity_json(self.irregularity), "why": stop_reason(self.irregularity)},
            "kept": [{"after": after, **irregularity_json(i)} for after, i in self.kept],
            "budget": {"playouts": self.budget.playouts, "iterations": self.budget.iterations,
                       "candidates": self.budget.candidates, "seed": self.budget.seed},
        }  # fmt: skip


def irregularity_json(irregularity: Irregularity) -> dict[str, Any]:
    """An irregularity as the review's JSON gives it."""
    return {
        "kind": irregularity.kind, "cells": list(irregularity.names), "message": irregularity.message,
        "kept": irregularity.kept, "text": str(irregularity),
    }  # fmt: skip


def stop_reason(irregularity: Irregularity) -> str:
    """Why the review stopped at an irregularity, in words.

    >>> from engine.record import Irregularity
    >>> stop_reason(Irregularity("warrior_gone"))
    'it is still to settle: keep it, or fix the reading of its photo'
    >>> stop_reason(Irregularity("unexplained", kept=True))
    'the record cannot say the board after an unexplained change'
    """
    if not irregularity.kept:
        return "it is still to settle: keep it, or fix the reading of its photo"
    return f"the record cannot say the board after {_a(irregularity.kind.replace('_', ' '))} change"


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def mark(loss: float) -> str:
    """The mark a turn's loss earns.

    >>> [mark(x) for x in (0.0, 0.049, 0.05, 0.1, 0.199, 0.2)]
    ['', '', 'inaccuracy', 'mistake', 'mistake', 'blunder']
    """
    return next((name for name, least in MARKS if loss >= least), "")


@dataclass(frozen=True)
class Step:
    """A turn of the record as the review replays it: the state before (after an irregularity kept,
    the board it made), the power and the action, every value filled in."""

    index: int
    before: GameState
    power: Power | None
    action: Move

    @property
    def after(self) -> GameState:
        state = self.before if self.power is None else self.before.play(self.power)
        return state.play(self.action)

    @property
    def text(self) -> str:
        return move_text(self.power, self.action)


def move_text(power: Power | None, action: Move | None) -> str:
    """A turn in the record's words, values given: ``power elf c3, warrior e3 2``."""
    parts = [str(m) for m in (power, action) if m is not None]
    return ", ".join(parts)


def steps(record: Record) -> tuple[list[Step], Irregularity | None]:
    """The record's turns, each with the state before it, past the irregularities the players kept
    that a replay goes on past (:data:`engine.record.RESUMABLE`), up to the first other one; and
    that irregularity (None where the turns reach the end).

    A face-down warrior whose value the reveal does not give is refused (RecordError: a game is
    reviewed after the reveal), but for one an irregularity later says is gone: nobody entered its
    value, so its turn takes the lowest value its player had left. RecordError too where a gold
    value is not known or a turn is illegal.
    """
    state = record.start()
    values = record.values_by_turn()  # the reveal names where each warrior ends, a turn where it went
    ends = whereabouts(record.events)
    out: list[Step] = []
    for n, event in enumerate(record.events):
        if isinstance(event, Irregularity):
            if not (event.kept and event.resumable):
                return out, event
            try:
                state = resume(state, event, next_player(record.events, n))
            except RecordError as err:
                raise RecordError(f"after turn {len(out)}: {event}: {err}") from None
            continue
        action = event.action
        if isinstance(action, HiddenWarrior):
            value = values.get(n)
            if value is None and ends[n][1] is None:
                hand = (state if event.power is None else state.play(event.power)).supplies[state.to_move]
                value = next((v for v in range(1, 6) if hand[v - 1]), None)
            if value is None:
                raise RecordError(
                    f"the value of {event.player}'s warrior on {action.cell.name} is not known: "
                    "a game is reviewed after the reveal"
                )
            action = PlaceWarrior(action.cell, value)
        step = Step(len(out) + 1, state, event.power, action)
        try:
            state = step.after
        except IllegalMove as err:
            raise RecordError(f"turn {step.index}: {err}") from None
        out.append(step)
    return out, None


class Judge:
    """The mover's chance of winning from a state, by the kernel's playouts with every value known."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.kernel: Kernel = load(budget.kernel)
        k = self.kernel
        self.work = k.ints(STATE_SIZE)
        self.rng = k.ints(1)
        self.values = k.ints(16)
        self.sc = k.ints(SCRATCH_SIZE)
        self.rew = k.floats(4)

    def chance(self, state: GameState, mover: int, seed: int) -> float:
        """The chance that ``mover``'s side wins from ``state`` (whoever is to move there); a game
        over has its result: 1 for a win, shared equally by sides level after the tie-break."""
        if state.is_over:
            return result_share(state, mover)
        root = kernel_state(self.kernel, everything_known(state))
        root[S_ME] = mover
        self.kernel.core.seed_rng(self.rng, seed)
        return float(
            self.kernel.core.playouts(
                root, self.work, self.rng, self.values, self.sc, self.rew, self.budget.playouts
            )
        )


def everything_known(state: GameState) -> Knowledge:
    """The game as someone who knows every value sees it."""
    return Knowledge(state, ALL_CELLS_MASK)


def result_share(state: GameState, player: int) -> float:
    """What the finished game gives ``player``'s side: 1 for first place alone, 1/k shared by k."""
    sides = sides_of(state.players)
    side = sides[player % len(sides)]
    first = state.score().ranking[0]
    return 1 / len(first) if side in first else 0.0


Progress = Callable[[int, int], None]


def review(
    record: Record,
    budget: Budget | None = None,
    *,
    progress: Progress | None = None,
    lock: AbstractContextManager[Any] | None = None,
) -> Review:
    """Review every turn of a record whose values are all known, past the irregularities kept that a
    replay goes on past, up to the first other irregularity (:func:`steps`).

    ``progress(k, n)`` is called after each of the ``n`` turns reviewed. ``lock`` is held around
    each search (the search's arrays are one per process: a server's threads take turns).
    RecordError where the record cannot be replayed with every value.
    """
    budget = budget or Budget()
    todo, irregular = steps(record)
    judge = Judge(budget)
    out: list[TurnReview] = []
    for step in todo:
        out.append(review_turn(step, judge, lock or nullcontext()))
        if progress is not None:
            progress(len(out), len(todo))
    return Review(
        tuple(out), len(record.turns), record.players, irregular, budget, gone_past(record, irregular)
    )


def gone_past(record: Record, stop: Irregularity | None) -> tuple[tuple[int, Irregularity], ...]:
    """The irregularities before ``stop`` (the review went on past them), each after the number of
    turns before it."""
    out: list[tuple[int, Irregularity]] = []
    turns = 0
    for event in record.events:
        if event is stop:
            break
        if isinstance(event, Irregularity):
            out.append((turns, event))
        else:
            turns += 1
    return tuple(out)


def turn_seed(budget: Budget, index: int) -> int:
    """The playouts' seed of a turn: the same for every move judged on it."""
    return budget.seed * 1_000_003 + index * 7919 + 1


def review_turn(step: Step, judge: Judge, lock: AbstractContextManager[Any]) -> TurnReview:
    budget = judge.budget
    before = step.before
    mover = before.to_move
    seed = turn_seed(budget, step.index)
    played_after = step.after
    chance_before = judge.chance(before, mover, seed)
    chance_after = judge.chance(played_after, mover, seed)
    best_text, best_chance = step.text, chance_after
    for move in proposals(before, budget, lock):
        after = before.play(move)
        if after == played_after:
            continue  # the move played, already judged
        chance = judge.chance(after, mover, seed)
        if chance > best_chance:
            best_text, best_chance = move_text(None, move), chance
    loss = max(0.0, best_chance - chance_after)
    return TurnReview(
        step.index, before.player, step.text, chance_before, chance_after, best_text, best_chance, loss,
        mark(loss),
    )  # fmt: skip


def proposals(state: GameState, budget: Budget, lock: AbstractContextManager[Any]) -> Sequence[Move]:
    """The search's best moves for the player to move, every value known (none where passing is all
    there is to do)."""
    if budget.candidates < 1 or budget.iterations < 1 or state.legal_moves() == [Pass()]:
        return ()
    with lock:
        found = suggest(
            everything_known(state), iterations=budget.iterations, seed=budget.seed, kernel=budget.kernel
        )
    return [c.move for c in found.candidates[: budget.candidates]]


def table(r: Review) -> str:
    """The review as text: a line a turn, the marks, and where it stopped."""
    lines = [f"{'turn':>4}  {'player':<8} {'move':<26} {'before':>6} {'after':>6}  {'preferred':<26} loss"]
    symbols = {"blunder": "??", "mistake": "?", "inaccuracy": "?!", "": ""}
    for t in r.turns:
        preferred = "" if t.preferred == t.move else t.preferred
        lines.append(
            f"{t.index:>4}. {t.mover:<8} {t.move + symbols[t.mark]:<26} {100 * t.chance_before:5.1f}% "
            f"{100 * t.chance_after:5.1f}%  {preferred:<26} {100 * t.loss:4.1f}"
            + (f"  {t.mark}" if t.mark else "")
        )
    for name, _ in MARKS:
        marked = [f"{t.index}. {t.mover} {t.move}" for t in r.turns if t.mark == name]
        if marked:
            plural = {"blunder": "blunders", "mistake": "mistakes", "inaccuracy": "inaccuracies"}[name]
            lines.append(f"{plural}: {len(marked)} ({'; '.join(marked)})")
    worst = r.worst
    lines.append(
        "the worst turn: none cost anything" if worst is None
        else f"the worst turn: {worst.index}. {worst.mover} {worst.move}, {100 * worst.loss:.1f} points "
        f"(the engine prefers {worst.preferred})"
    )  # fmt: skip
    for after, irregularity in r.kept:
        lines.append(f"after turn {after}, kept and gone on past: {irregularity}")
    if r.irregularity is not None:
        lines.append(
            f"reviewed up to turn {len(r.turns)} of {r.total}: the record notes an irregularity there, "
            f"{r.irregularity} ({stop_reason(r.irregularity)})"
        )
    return "\n".join(lines)
