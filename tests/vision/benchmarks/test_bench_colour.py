"""Benchmarks of the scanner's per-pixel channel reductions, against numpy's own.

The normal suite runs each once (``--benchmark-disable`` is in addopts) and checks its result;
to time them::

    .venv/bin/python -m pytest tests/vision/benchmarks --benchmark-enable --benchmark-only -q

A view the readers work on (:data:`vision.geometry.CANONICAL`, 800 x 530) and the face a copy is
learnt at (:data:`vision.learn.pieces.FACE_VIEW`, 2000 x 1325). Every benchmark asserts what it
computed, never how long it took.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from vision.colour import channel_mean, channel_sum
from vision.geometry import CANONICAL
from vision.learn.pieces import FACE_VIEW

VIEWS = {"canonical": CANONICAL, "face": FACE_VIEW}
WAYS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "channel_mean": channel_mean,
    "numpy_mean": lambda image: image.mean(axis=-1),
    "channel_sum": channel_sum,
    "numpy_sum": lambda image: image.sum(axis=-1),
}


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("view", VIEWS)
def test_bench_channel_reduction(benchmark: Any, view: str, way: str) -> None:
    width, height = VIEWS[view].size
    image = np.random.default_rng(0).random((height, width, 3), dtype=np.float32)
    result = benchmark(WAYS[way], image)
    expected = image.sum(axis=-1) if way.endswith("sum") else image.mean(axis=-1)
    assert np.array_equal(result, expected)
