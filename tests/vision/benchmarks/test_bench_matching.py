"""Benchmarks of matching pictures in a window: a warrior's outline at every turn, and a copy's
warrior pictures at every quarter turn, each the way the scanner does it against OpenCV's one
``matchTemplate`` a picture (or a turn).

The normal suite runs each once (``--benchmark-disable`` is in addopts) and checks its result;
to time them::

    .venv/bin/python -m pytest tests/vision/benchmarks --benchmark-enable --benchmark-only -q

Sizes as the scanner meets them: a cell's edges at half of :data:`vision.learn.pieces.FACE_VIEW`
against the outlines of :data:`vision.learn.pieces.TOKEN_TURNS_DEG`, and a 75-pixel window against
36 three-channel pictures (nine colours' pictures at four quarter turns). Every benchmark asserts
what it computed, never how long it took.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import pytest

from vision.learn.pieces import FACE_VIEW, TOKEN_TURNS_DEG, _outline, strongest_turn
from vision.templates import best_matches, template_bank

#: The scale a cell's edges are first searched at (half the face's).
COARSE = FACE_VIEW.px_per_mm / 2


def _cell_edges() -> np.ndarray:
    rng = np.random.default_rng(0)
    edges = cv2.GaussianBlur(rng.random((112, 112)).astype(np.float32) * 40, (0, 0), 1.5)
    corners = cv2.boxPoints(((58.0, 53.0), (64.0, 64.0), 7.5))
    cv2.polylines(edges, [np.round(corners).astype(np.int32)], True, 120.0, 2)
    return np.asarray(edges, np.float32)


def _every_turn(edges: np.ndarray, s: float) -> tuple[tuple[int, int], float]:
    """The reference: every turn's outline matched by OpenCV, the first of the strongest kept."""
    matches = []
    for angle in TOKEN_TURNS_DEG:
        _, peak, _, where = cv2.minMaxLoc(cv2.matchTemplate(edges, _outline(angle, s), cv2.TM_CCORR))
        matches.append((peak, (int(where[0]), int(where[1])), float(angle)))
    _, place, turn = max(matches, key=lambda match: match[0])
    return place, turn


TURN_WAYS: dict[str, Callable[[np.ndarray, float], tuple[tuple[int, int], float]]] = {
    "every_turn": _every_turn,
    "strongest_turn": strongest_turn,
}


@pytest.mark.parametrize("way", TURN_WAYS)
def test_bench_warrior_turn(benchmark: Any, way: str) -> None:
    edges = _cell_edges()
    place, turn = benchmark(TURN_WAYS[way], edges, COARSE)
    assert (place, turn) == _every_turn(edges, COARSE)
    assert turn == pytest.approx(7.5, abs=2.5)


def _pictures() -> tuple[np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(1)
    window = cv2.GaussianBlur(rng.random((75, 75, 3)).astype(np.float32), (0, 0), 1.5)
    pictures = [cv2.GaussianBlur(rng.random((57, 57, 3)).astype(np.float32), (0, 0), 1.5) for _ in range(35)]
    return window, [window[6:63, 10:67].copy(), *pictures]


def _opencv(window: np.ndarray, pictures: list[np.ndarray]) -> np.ndarray:
    return np.array(
        [cv2.minMaxLoc(cv2.matchTemplate(window, picture, cv2.TM_CCOEFF_NORMED))[1] for picture in pictures]
    )


@pytest.mark.parametrize("way", ["opencv", "bank"])
def test_bench_warrior_pictures(benchmark: Any, way: str) -> None:
    window, pictures = _pictures()
    if way == "opencv":
        found = benchmark(_opencv, window, pictures)
    else:
        bank = template_bank(pictures)
        found = benchmark(best_matches, window, bank)
    np.testing.assert_allclose(found, _opencv(window, pictures), atol=1e-5)
    assert found[0] == pytest.approx(1.0, abs=1e-5)
