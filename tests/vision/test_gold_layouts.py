"""Laying the fixed gold layout on the gold tokens found in a photo: where the gold search starts."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from vision.geometry import keeps_handedness
from vision.locate.grid import BASES, GOLD_MM, GRID_PARAMS, _homographies, _same, gold_homographies

FloatArray = npt.NDArray[np.float64]


def _camera(tilt_deg: float, turn_deg: float, mirrored: bool = False) -> FloatArray:
    """A homography from board millimetres to pixels of a photo taken ``tilt_deg`` off straight above,
    the board turned ``turn_deg`` in it (``mirrored``: seen through a mirror, as no camera sees it)."""
    tilt, turn = np.radians(tilt_deg), np.radians(turn_deg)
    rotation = cv2.Rodrigues(np.array([tilt, 0.0, 0.0]))[0] @ cv2.Rodrigues(np.array([0.0, 0.0, turn]))[0]
    centred = np.array([[1.0, 0, -200.0], [0, 1.0, -130.0], [0, 0, 1.0]])
    on_table = np.c_[rotation[:, :2], [0.0, 0.0, 700.0]]  # the board 70 cm before the lens
    intrinsics = np.array([[1500.0, 0, 800.0], [0, 1500.0, 600.0], [0, 0, 1.0]])
    flip = np.diag([-1.0, 1.0, 1.0]) if mirrored else np.eye(3)
    homography: FloatArray = flip @ intrinsics @ on_table @ centred
    homography /= homography[2, 2]
    return homography


def _solved(src: FloatArray, dst: FloatArray) -> FloatArray:
    """The homography taking four points to four others, its last entry 1, from its eight equations."""
    rows = []
    for (x, y), (u, v) in zip(src, dst, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    solution = np.linalg.solve(np.array(rows), dst.reshape(8))
    homography: FloatArray = np.append(solution, 1.0).reshape(3, 3)
    return homography


def _seen(homography: FloatArray, points: FloatArray) -> FloatArray:
    seen: FloatArray = cv2.perspectiveTransform(points[None], homography)[0].astype(np.float64)
    return seen


@pytest.mark.parametrize("seed", range(5))
def test_the_closed_form_layouts_are_the_four_point_homographies(seed: int) -> None:
    rng = np.random.default_rng(seed)
    src = GOLD_MM[list(BASES[seed % len(BASES)])]
    dst = np.stack([_seen(_camera(*rng.uniform((0, -180), (55, 180))), src) + rng.normal(0, 20, (4, 2))])
    got = _homographies(src, dst)[0]
    assert np.allclose(_seen(got, src), dst[0], atol=1e-6)
    assert np.allclose(got, _solved(src, dst[0]), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("tilt", "turn"), [(0.0, 0.0), (35.0, 20.0), (50.0, -140.0), (45.0, 90.0)])
def test_the_gold_is_laid_on_its_tokens_among_others_with_one_token_unseen(tilt: float, turn: float) -> None:
    truth = _camera(tilt, turn)
    tokens = _seen(truth, GOLD_MM)[1:]  # a hand over one
    rng = np.random.default_rng(7)
    others = _seen(truth, rng.uniform((0.0, 0.0), (400.0, 260.0), (4, 2)))  # gold-coloured art
    candidates = np.concatenate([tokens, others])[rng.permutation(len(tokens) + len(others))]
    (first, hits), *rest = gold_homographies(candidates)
    assert hits >= len(tokens)
    assert np.abs(_seen(first, GOLD_MM) - _seen(truth, GOLD_MM)).max() < 0.5
    # Each layout kept is another one: none puts the gold on the same tokens as one before it.
    layouts = [first, *(homography for homography, _ in rest)]
    assert not any(_same(later, layouts[:k]).any() for k, later in enumerate(layouts) if k)


def test_no_layout_turns_the_board_over() -> None:
    """Tokens as a mirror would show the gold: the layouts that lay most of it there see the
    board from behind, and none of those is kept."""
    mirrored = _seen(_camera(30.0, 10.0, mirrored=True), GOLD_MM)
    layouts = gold_homographies(mirrored)
    assert layouts  # some of the gold can still be laid on them, the board seen from the front
    for homography, hits in layouts:
        assert keeps_handedness(homography[None], (200.0, 130.0))[0]
        assert GRID_PARAMS.min_hits <= hits < len(GOLD_MM)
