"""A warrior's place and turn on its cell: matching only the turns the spectra cannot rule out finds
what matching every turn exactly finds."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.learn.pieces as pieces
from engine.board import CELLS, GOLD_CELLS
from vision.geometry import WARRIOR_SIDE_MM, cell_centre_mm
from vision.learn.pieces import FACE_VIEW, find_token, placed_tokens


def _art(rng: np.random.Generator, low: int, spread: int) -> np.ndarray:
    """A face at :data:`FACE_VIEW` of blotchy art."""
    width, height = FACE_VIEW.size
    noise = cv2.resize(rng.random((height // 20, width // 20, 3)), (width, height))
    return (low + spread * noise).astype(np.uint8)


def _warrior(face: np.ndarray, centre: tuple[float, float], turn: float, colour: tuple[int, ...]) -> None:
    side = WARRIOR_SIDE_MM * FACE_VIEW.px_per_mm
    corners = cv2.boxPoints((centre, (side, side), turn))
    cv2.fillPoly(face, [np.round(corners).astype(np.int32)], colour)


def _game_face(seed: int) -> np.ndarray:
    """Blotchy art, a warrior on every other cell at a turn of its own, a few cells left flat (a
    lamp's reflection clipping the card white)."""
    rng = np.random.default_rng(seed)
    face = _art(rng, 60, 120)
    for cell in CELLS[::2]:
        x, y = FACE_VIEW.to_px(*cell_centre_mm(cell))
        centre = (x + rng.uniform(-8, 8), y + rng.uniform(-8, 8))
        _warrior(face, centre, rng.uniform(-22, 22), tuple(int(v) for v in rng.integers(0, 255, 3)))
    for cell in CELLS[5:9]:
        x0, y0, x1, y1 = FACE_VIEW.cell_box(cell)
        face[y0:y1, x0:x1] = 255
    return face


@pytest.mark.parametrize("seed", [1, 2])
def test_the_place_found_is_the_one_every_turn_matched_exactly_finds(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    face = _game_face(seed)
    cells = [cell for cell in CELLS if cell not in GOLD_CELLS]
    found, signs = placed_tokens(face, cells, FACE_VIEW)
    monkeypatch.setattr(pieces, "near_best", lambda peaks, error: np.arange(len(peaks)))
    every, every_signs = placed_tokens(face, cells, FACE_VIEW)
    assert found == every
    np.testing.assert_array_equal(signs, every_signs)


def test_a_warrior_is_found_where_it_lies() -> None:
    face = _art(np.random.default_rng(3), 120, 60)
    cell = CELLS[10]
    x, y = FACE_VIEW.to_px(*cell_centre_mm(cell))
    _warrior(face, (x + 6.0, y - 4.0), 12.5, (40, 90, 200))
    fx, fy, _ = find_token(face, cell, FACE_VIEW)
    assert (fx, fy) == pytest.approx((x + 6.0, y - 4.0), abs=3.0)  # within 0.6 mm
