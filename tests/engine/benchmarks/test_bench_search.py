"""Benchmarks of the search kernel (compiled when numba is installed).

The normal suite runs each once and checks what it computed; to time them::

    .venv/bin/pytest tests/engine/benchmarks/test_bench_search.py --benchmark-enable --benchmark-only -q

Targets (medians, compiled kernel, one core): a determinized playout from the start
<= 25 us (40,000 a second), 1,000 ISMCTS iterations from the start <= 40 ms (so that
2 processes reach 40,000 iterations in a 0.8 s suggestion). ``armadora bench search`` measures
the same through the command line, suggestions on 2 processes included.
"""

from __future__ import annotations

from typing import Any

import engine.kernel_core as core
from engine.board import GOLD_VALUES
from engine.encoding import kernel_state
from engine.game import GameState
from engine.kernel import warm_up
from engine.knowledge import Knowledge
from engine.search import run_search

START = Knowledge.of(GameState.new(("orange", "blue"), GOLD_VALUES), "orange")


def test_bench_playouts(benchmark: Any) -> None:
    """100 playouts from the start, fresh hidden values each."""
    k = warm_up()
    root = kernel_state(k, START)
    work, rng, values, sc, rew = (
        k.ints(core.STATE_SIZE),
        k.ints(1),
        k.ints(16),
        k.ints(core.SCRATCH_SIZE),
        k.floats(4),
    )
    k.core.seed_rng(rng, 1)
    mean = benchmark(k.core.playouts, root, work, rng, values, sc, rew, 100)
    assert 0.2 < mean < 0.8  # the first player wins some, not all
    assert k.core.is_over(work)


def test_bench_ismcts_iterations(benchmark: Any) -> None:
    """1,000 ISMCTS iterations from the start in one process."""
    k = warm_up()
    state = [int(x) for x in kernel_state(k, START)]
    stats, iterations = benchmark(run_search, state, None, 1, 1000, k.name)
    assert iterations == 1000
    assert sum(visits for visits, _, _ in stats.values()) == 1000
    assert len(stats) > 20  # progressive widening opened many first moves
