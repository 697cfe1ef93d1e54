"""The search kernel, compiled by numba when it is installed, else the same code as plain Python.

:mod:`engine.kernel_core` holds the code. Under numba a second copy of that module is
loaded and each of its functions replaced by a compiled one (cached on disk), so the
plain module stays usable beside it: the fallback and the compiled kernel share their
tests. Numba and numpy are imported here only, and only when the compiled kernel is
asked for, so ``import engine`` loads neither.

The kernel stays one module because numba resolves a compiled function's calls through
its module's globals: the compiled copy is one namespace of compiled functions.

Set ``ARMADORA_KERNEL=python`` to force the fallback.

>>> k = load("python")
>>> k.name
'python'
>>> st = k.ints(k.core.STATE_SIZE)
>>> k.core.new_game(st, 2, 0, 0)
>>> k.core.hand_count(st, 1)
16
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
from functools import cache
from types import ModuleType
from typing import Any

import engine.kernel_core as plain

BACKENDS = ("numba", "python")


class Kernel:
    """A backend: ``core`` is the module whose functions run, ``ints`` and ``floats`` allocate arrays."""

    def __init__(self, name: str, core: ModuleType, numpy: Any = None) -> None:
        self.name = name
        self.core: Any = core
        self._np = numpy

    def ints(self, n: int) -> Any:
        """An array of ``n`` zeros of 64-bit integers (a list in the fallback)."""
        return [0] * n if self._np is None else self._np.zeros(n, self._np.int64)

    def floats(self, n: int) -> Any:
        return [0.0] * n if self._np is None else self._np.zeros(n, self._np.float64)

    def __repr__(self) -> str:
        return f"<Kernel {self.name}>"


def _compiled() -> Kernel:
    # Imported here, not at the top: the rest of the engine runs without them (tests/test_layers.py).
    import numba
    import numpy

    spec = importlib.util.spec_from_file_location("engine._kernel_compiled", plain.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba's disk cache finds the module by name
    spec.loader.exec_module(module)
    for name, value in list(vars(module).items()):
        if inspect.isfunction(value) and value.__module__ == module.__name__:
            setattr(module, name, numba.njit(cache=True)(value))
    return Kernel("numba", module, numpy)


@cache
def load(name: str | None = None) -> Kernel:
    """The kernel named (``numba`` or ``python``), else the fastest one there is.

    ``ARMADORA_KERNEL`` chooses when no name is given.
    """
    wanted = name or os.environ.get("ARMADORA_KERNEL") or ""
    if wanted not in ("", *BACKENDS):
        raise ValueError(f"unknown kernel {wanted!r} (choose {' or '.join(BACKENDS)})")
    if wanted == "python":
        return Kernel("python", plain)
    try:
        return _compiled()
    except ImportError:
        if wanted == "numba":
            raise
        return Kernel("python", plain)


def warm_up(name: str | None = None) -> Kernel:
    """Compile (or load from the disk cache) every entry point now, not on the first request.

    A server calls this once at start-up; the commands call it before they read input.
    """
    kernel = load(name)
    if kernel.name == "numba":
        exercise(kernel)
    return kernel


def exercise(kernel: Kernel) -> None:
    """Call each entry point of the kernel once on a small problem."""
    core = kernel.core
    root = kernel.ints(core.STATE_SIZE)
    core.new_game(root, 2, 0, 0)
    for cell, value in ((3, 7), (9, 6), (13, 6), (15, 5), (24, 5), (28, 4), (34, 4), (38, 3)):
        core.set_gold(root, cell, value)
    rng = kernel.ints(1)
    core.seed_rng(rng, 1)
    work = kernel.ints(core.STATE_SIZE)
    values = kernel.ints(16)
    sc = kernel.ints(core.SCRATCH_SIZE)
    rew = kernel.floats(4)
    core.playouts(root, work, rng, values, sc, rew, 1)
    tree = kernel.ints(64 * core.NODE_FIELDS)
    wins = kernel.floats(64)
    counters = kernel.ints(3)
    core.tree_reset(tree, counters)
    order = kernel.ints(8 * core.NUM_ACTIONS)
    appeal = kernel.floats(core.NUM_ACTIONS)
    path = kernel.ints(core.MAX_DEPTH)
    core.ismcts(root, work, tree, wins, counters, order, rng, values, appeal, path, sc, rew, 4)
    moves = kernel.ints(3 * 400)
    out = kernel.ints(3)
    dets = kernel.ints(core.STATE_SIZE)
    core.greedy(root, dets, 1, work, sc, rng, values, moves, out)
    n = core.list_moves(root, moves)
    visits = kernel.ints(n)
    mc_wins = kernel.floats(n)
    core.flat_monte_carlo(root, work, moves, n, visits, mc_wins, 0, rng, values, sc, rew, 2)


__all__ = ["BACKENDS", "Kernel", "exercise", "load", "warm_up"]
