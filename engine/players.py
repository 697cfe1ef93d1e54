"""The ladder of players behind one interface: random, greedy, pimc and ismcts.

Each sees only a :class:`~engine.knowledge.Knowledge` (its own values, nobody else's) and
answers a legal move within its time budget.

>>> import random
>>> from engine.board import GOLD_VALUES
>>> from engine.game import GameState
>>> from engine.knowledge import Knowledge
>>> view = Knowledge.of(GameState.new(("orange", "blue"), GOLD_VALUES), "orange")
>>> rng = random.Random(3)
>>> [view.state.why_illegal(make_player(n, kernel="python").choose(view, 0.05, rng)) for n in PLAYERS]
[None, None, None, None, None]
"""

from __future__ import annotations

import random
import time
from typing import Protocol

import engine.kernel_core as core
from engine.board import Cell
from engine.encoding import decode, kernel_state
from engine.game import Move, Peek, random_move
from engine.kernel import load
from engine.knowledge import Knowledge
from engine.search import suggest

GREEDY_DRAWS = 8
MAX_MOVES = 3 * 512


class Player(Protocol):
    """Anything that chooses a move for the player to move of a view."""

    name: str

    def choose(self, view: Knowledge, seconds: float, rng: random.Random) -> Move: ...


class RandomPlayer:
    """Uniform over the kinds of move on offer (warrior, build, pass), then within the kind."""

    name = "random"

    def __init__(self, kernel: str | None = None, iterations: int | None = None) -> None:
        """No kernel needed: the rules' own move lists do; no time either."""

    def choose(self, view: Knowledge, seconds: float, rng: random.Random) -> Move:
        return random_move(view.state, rng)


class _KernelPlayer:
    def __init__(self, kernel: str | None = None, iterations: int | None = None) -> None:
        self.iterations = iterations
        self.kernel = load(kernel)
        k = self.kernel
        self.work = k.ints(core.STATE_SIZE)
        self.rng = k.ints(1)
        self.values = k.ints(16)
        self.sc = k.ints(core.SCRATCH_SIZE)
        self.rew = k.floats(4)
        self.moves = k.ints(MAX_MOVES)


def _greedy_look(view: Knowledge) -> Peek | None:
    """The greedy Mage's rule: look, while it has a token, at the hidden warrior whose territory holds
    the most gold (first in cell order among equals), if that territory holds any."""
    state = view.state
    looks = [m for m in state.power_moves() if isinstance(m, Peek) and not view.known & m.cell.bit]
    if not looks:
        return None
    gold_at = {cell.number: value for cell, value in zip(state.gold_cells, state.gold, strict=True)}

    def gold(cell: Cell) -> int:
        region = state.walls.territory_of[cell.number]
        return sum(v for i, v in gold_at.items() if region >> i & 1)

    best = max(looks, key=lambda m: (gold(m.cell), -m.cell.number))
    return best if gold(best.cell) else None


class GreedyPlayer(_KernelPlayer):
    """One ply on a static evaluation: the gold margin if the game ended now, hidden values averaged
    over a few draws. Never passes while it holds warriors.

    In the advanced game its rule for powers: a power (an arrow, the extra palisade or face-up
    warrior) when it alone gains more than the best action, the reinforcement as an action
    like the others, and the Mage's look as :func:`_greedy_look` says."""

    name = "greedy"

    def __init__(self, kernel: str | None = None, iterations: int | None = None) -> None:
        super().__init__(kernel, iterations)
        self.dets = self.kernel.ints(GREEDY_DRAWS * core.STATE_SIZE)
        self.out = self.kernel.ints(3)

    def choose(self, view: Knowledge, seconds: float, rng: random.Random) -> Move:
        look = _greedy_look(view)
        if look is not None:
            return look
        c = self.kernel.core
        root = kernel_state(self.kernel, view)
        c.seed_rng(self.rng, rng.getrandbits(32))
        c.greedy(
            root, self.dets, GREEDY_DRAWS, self.work, self.sc, self.rng, self.values, self.moves, self.out
        )
        return decode(int(self.out[0]), int(self.out[1]), int(self.out[2]))


class PimcPlayer(_KernelPlayer):
    """Determinized flat Monte Carlo: every warrior (cell and value), single palisade and pass in
    turn, each tried on fresh draws of the hidden values and played out; the best mean wins. With
    ``iterations``, that many playouts a move whatever the time."""

    name = "pimc"

    def choose(self, view: Knowledge, seconds: float, rng: random.Random) -> Move:
        k = self.kernel
        c = k.core
        root = kernel_state(k, view)
        c.seed_rng(self.rng, rng.getrandbits(32))
        n = c.list_moves(root, self.moves)
        visits = k.ints(n)
        wins = k.floats(n)
        deadline = time.perf_counter() + seconds
        done = 0
        chunk = n
        while True:
            before = time.perf_counter()
            c.flat_monte_carlo(
                root, self.work, self.moves, n, visits, wins, done % n, self.rng, self.values, self.sc,
                self.rew, chunk,
            )  # fmt: skip
            done += chunk
            if self.iterations is not None:
                if done >= self.iterations:
                    break
                chunk = min(chunk * 2, self.iterations - done)
                continue
            now = time.perf_counter()
            left = deadline - now
            if left <= 0:
                break
            chunk = max(1, min(chunk * 2, int(left / max((now - before) / chunk, 1e-7))))
        best = max(range(n), key=lambda m: (wins[m] / visits[m] if visits[m] else -1.0, -m))
        return decode(int(self.moves[3 * best]), int(self.moves[3 * best + 1]), int(self.moves[3 * best + 2]))


class IsmctsPlayer:
    """Information Set MCTS (engine.search) in this process, for the time given; with ``iterations``,
    that many a move whatever the time (the same move from the same seed on any machine)."""

    name = "ismcts"
    powers = True

    def __init__(self, kernel: str | None = None, iterations: int | None = None) -> None:
        self.kernel = kernel
        self.iterations = iterations

    def choose(self, view: Knowledge, seconds: float, rng: random.Random) -> Move:
        seed = rng.getrandbits(31)
        return suggest(
            view, seconds, iterations=self.iterations, seed=seed, kernel=self.kernel, powers=self.powers
        ).move


class NoPowerIsmctsPlayer(IsmctsPlayer):
    """The same search, which never uses a power of the advanced game (its opponents may)."""

    name = "ismcts-nopower"
    powers = False


PLAYERS: dict[str, type[RandomPlayer] | type[GreedyPlayer] | type[PimcPlayer] | type[IsmctsPlayer]] = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
    "pimc": PimcPlayer,
    "ismcts": IsmctsPlayer,
    "ismcts-nopower": NoPowerIsmctsPlayer,
}


def make_player(name: str, kernel: str | None = None, iterations: int | None = None) -> Player:
    """A player by name; ValueError naming the players there are otherwise. With ``iterations`` the
    searching players (pimc, ismcts) think for that many iterations a move rather than for the time
    their ``choose`` is given: their moves then depend on the seed alone."""
    if name not in PLAYERS:
        raise ValueError(f"unknown player {name!r} (players: {', '.join(PLAYERS)})")
    return PLAYERS[name](kernel, iterations)
