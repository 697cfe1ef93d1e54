"""ISMCTS move suggestions: the anytime search, root statistics merged across processes, the top 3.

:func:`run_search` grows one tree in this process for a time budget or a number of
iterations and returns the root's statistics; :func:`suggest` runs it in one process
or several (root parallelism: independent trees on different seeds, statistics
merged by move) and ranks the moves by visits.

>>> from engine.board import GOLD_VALUES
>>> from engine.game import GameState
>>> from engine.knowledge import Knowledge
>>> view = Knowledge.of(GameState.new(("orange", "blue"), GOLD_VALUES), "orange")
>>> s = suggest(view, iterations=60, seed=1, kernel="python")
>>> len(s.candidates), s.iterations
(3, 60)
>>> round(sum(c.share for c in s.candidates), 2) <= 1.0
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import engine.kernel_core as core
from engine.board import GOLD_VALUES
from engine.encoding import action_move, kernel_state, move_json
from engine.game import GameState, Move, Pass
from engine.kernel import Kernel, load, warm_up
from engine.knowledge import Knowledge

DEFAULT_SECONDS = 0.8
TREE_CAPACITY = 400_000
ORDER_CAPACITY = 4_000_000  # actions listed in order of appeal, about 100 per expanded node
FIRST_CHUNK = 32
CHUNK_SECONDS = 0.01
SAFETY_SECONDS = 0.004  # stop this much early: the answer still has to be assembled
# A timed search stops early once the game is decided: after DECIDED_ITERATIONS, when the most
# visited move wins (or the best move loses) in all but DECIDED_MARGIN of the playouts.
DECIDED_ITERATIONS = 4000
DECIDED_MARGIN = 0.01

# A root's statistics: action -> (visits, wins, {action under it -> (visits, wins)}).
Edge = tuple[int, float]
RootStats = dict[int, tuple[int, float, dict[int, Edge]]]


@dataclass(frozen=True)
class Candidate:
    """A suggested move, the share of the search's visits it took and its estimated win probability."""

    move: Move
    visits: int
    share: float
    win: float

    def to_json(self) -> dict[str, Any]:
        """The move in words and as data (cells ``[row, col]`` as in the position JSON), and its figures."""
        return {"move": str(self.move), **move_json(self.move), "visits": self.visits, "share": self.share,
                "win": self.win}  # fmt: skip


@dataclass(frozen=True)
class Suggestion:
    """The best moves found, best first, and what the search cost."""

    candidates: tuple[Candidate, ...]
    iterations: int
    seconds: float
    processes: int
    kernel: str

    @property
    def move(self) -> Move:
        return self.candidates[0].move

    def to_json(self) -> dict[str, Any]:
        return {
            "moves": [c.to_json() for c in self.candidates],
            "iterations": self.iterations,
            "seconds": round(self.seconds, 3),
            "processes": self.processes,
            "kernel": self.kernel,
        }


class _Workspace:
    """The arrays one search needs, allocated once per process and kernel."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.work = kernel.ints(core.STATE_SIZE)
        self.tree = kernel.ints(TREE_CAPACITY * core.NODE_FIELDS)
        self.wins = kernel.floats(TREE_CAPACITY)
        self.counters = kernel.ints(3)
        self.order = kernel.ints(ORDER_CAPACITY)
        self.rng = kernel.ints(1)
        self.values = kernel.ints(16)
        self.appeal = kernel.floats(core.NUM_ACTIONS)
        self.path = kernel.ints(core.MAX_DEPTH)
        self.sc = kernel.ints(core.SCRATCH_SIZE)
        self.rew = kernel.floats(4)


@cache
def _workspace(kernel_name: str) -> _Workspace:
    return _Workspace(load(kernel_name))


def prepare(kernel: str | None = None) -> Kernel:
    """Warm up for searches in this process: the kernel compiled, the arrays allocated and touched.

    The web server calls this once at start-up, so that no request pays for it.
    """
    k = warm_up(kernel)
    ws = _workspace(k.name)
    for array in (ws.tree, ws.order, ws.wins):
        array[:] = [0] * len(array) if k.name == "python" else 0
    view = Knowledge.of(GameState.new(("orange", "blue"), GOLD_VALUES), "orange")
    run_search(kernel_state(k, view), None, 0, 8, k.name)
    return k


def run_search(
    state: Sequence[int], seconds: float | None, seed: int, iterations: int | None, kernel: str
) -> tuple[RootStats, int]:
    """Grow one tree from a kernel state until the time or the iterations run out: (root stats, iterations).

    With ``iterations`` the result depends on the seed alone, not on the machine.
    """
    ws = _workspace(kernel)
    c = ws.kernel.core
    root = ws.kernel.ints(core.STATE_SIZE)
    for i, x in enumerate(state):
        root[i] = x
    c.tree_reset(ws.tree, ws.counters)
    c.seed_rng(ws.rng, seed)
    start = time.perf_counter()
    deadline = start + seconds - SAFETY_SECONDS if seconds is not None else None
    chunk = FIRST_CHUNK
    while True:
        if iterations is not None:
            chunk = min(chunk, iterations - ws.counters[1])
            if chunk <= 0:
                break
        before = time.perf_counter()
        c.ismcts(
            root, ws.work, ws.tree, ws.wins, ws.counters, ws.order, ws.rng, ws.values, ws.appeal,
            ws.path, ws.sc, ws.rew, chunk,
        )  # fmt: skip
        now = time.perf_counter()
        if deadline is not None:
            if now >= deadline or _decided(ws):
                break
            per = (now - before) / chunk
            chunk = max(1, min(int(CHUNK_SECONDS / max(per, 1e-7)), int((deadline - now) / max(per, 1e-7))))
            if chunk == 0:
                break
    return root_stats(ws.tree, ws.wins), int(ws.counters[1])


def _decided(ws: _Workspace) -> bool:
    """Whether every move wins, or none does, so that more search cannot change the outcome."""
    if ws.counters[1] < DECIDED_ITERATIONS:
        return False
    children = _children(ws.tree, ws.wins, 0)
    _, visits, wins, _ = max(children, key=lambda c: c[1])
    best_rate = max(w / v for _, v, w, _ in children if v)
    return wins >= (1 - DECIDED_MARGIN) * visits or best_rate <= DECIDED_MARGIN


def _children(tree: Any, wins: Any, node: int) -> list[tuple[int, int, float, int]]:
    """(action, visits, wins, node) of each child."""
    out = []
    child = int(tree[node * core.NODE_FIELDS + core.N_CHILD])
    while child >= 0:
        base = child * core.NODE_FIELDS
        out.append(
            (int(tree[base + core.N_ACTION]), int(tree[base + core.N_VISITS]), float(wins[child]), child)
        )
        child = int(tree[base + core.N_SIBLING])
    return out


def root_stats(tree: Any, wins: Any) -> RootStats:
    """The root's children and, under each, the children that complete its move."""
    return {
        action: (visits, total, {a: (v, w) for a, v, w, _ in _children(tree, wins, node)})
        for action, visits, total, node in _children(tree, wins, 0)
    }


def merge(results: Sequence[RootStats]) -> RootStats:
    """Root statistics of several trees added up move by move.

    >>> merge([{1: (2, 1.0, {110: (1, 1.0)})}, {1: (3, 2.0, {110: (2, 1.5)}), 107: (1, 0.0, {})}])
    {1: (5, 3.0, {110: (3, 2.5)}), 107: (1, 0.0, {})}
    """
    out: RootStats = {}
    for stats in results:
        for action, (visits, total, under) in stats.items():
            v0, w0, u0 = out.get(action, (0, 0.0, {}))
            merged = dict(u0)
            for a, (v, w) in under.items():
                mv, mw = merged.get(a, (0, 0.0))
                merged[a] = (mv + v, mw + w)
            out[action] = (v0 + visits, w0 + total, merged)
    return out


def candidates(view: Knowledge, stats: RootStats, top: int = 3) -> tuple[Candidate, ...]:
    """The legal moves of the most visited root actions, each completed by its most visited follow-up."""
    total = sum(visits for visits, _, _ in stats.values()) or 1
    state = view.state
    out: list[Candidate] = []
    for action, (visits, wins, under) in sorted(stats.items(), key=lambda kv: (-kv[1][0], kv[0])):
        if not visits:
            continue
        visits_n, wins_n = visits, wins
        second = -1
        if under:
            second, (visits_n, wins_n) = max(under.items(), key=lambda kv: (kv[1][0], -kv[0]))
        move = _complete(view, action, second)
        if state.why_illegal(move) is not None:
            continue
        out.append(Candidate(move, visits, visits / total, wins_n / visits_n if visits_n else 0.5))
        if len(out) == top:
            break
    return tuple(out) or (Candidate(Pass(), 0, 0.0, 0.0),)


def _complete(view: Knowledge, action: int, second: int) -> Move:
    warrior = action < core.A_SLOT or core.A_GOBLIN <= action < core.A_SEEN
    if warrior and not core.A_VALUE < second < core.A_REINF:  # a cell never followed up: its largest value
        supply = view.state.supplies[view.state.to_move]
        second = core.A_VALUE + max((v for v in range(1, 6) if supply[v - 1]), default=1)
    return action_move(action, second)


Mapper = Callable[[Callable[..., tuple[RootStats, int]], list[tuple[Any, ...]]], list[tuple[RootStats, int]]]


def suggest(
    view: Knowledge,
    seconds: float | None = DEFAULT_SECONDS,
    *,
    iterations: int | None = None,
    seed: int = 0,
    processes: int = 1,
    starmap: Mapper | None = None,
    kernel: str | None = None,
    powers: bool = True,
) -> Suggestion:
    """The top 3 moves for the player to move, from ``processes`` trees grown side by side.

    Give ``seconds`` (anytime: the best so far when time is up) or ``iterations``
    (per tree; reproducible at a fixed seed). ``starmap`` runs the trees (a
    process pool's), else they run one after another here. In the advanced game the
    answer may be a power, after which the same player asks again for the action;
    ``powers`` false never uses one.
    """
    k = load(kernel)
    state = [int(x) for x in kernel_state(k, view, powers=powers)]
    budget = None if iterations is not None else seconds
    jobs = [(state, budget, seed * 7919 + n, iterations, k.name) for n in range(processes)]
    start = time.perf_counter()
    results = starmap(run_search, jobs) if starmap is not None else [run_search(*job) for job in jobs]
    elapsed = time.perf_counter() - start
    stats = merge([r for r, _ in results])
    return Suggestion(candidates(view, stats), sum(n for _, n in results), elapsed, processes, k.name)
