"""A board placed by its gold and grid pulled onto its cell edges (vision.locate.follow)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.geometry import GRID_LINE_MM, MARGIN_MM, PITCH_MM, FaceRaster
from vision.locate.follow import (
    FOLLOW_PARAMS,
    Edges,
    _pieces,
    edge_correction,
    follow_edges,
    followed,
    read_edges,
)
from vision.locate.grid import CROSSINGS_MM, GridFit, view_lines

#: The photo's pixels a board millimetre, about a phone's at arm's length.
SCALE = 3.2


def _true_homography() -> np.ndarray:
    """Board mm to photo pixels: a board seen a little from one side."""
    corners_mm = np.array([[0, 0], [400, 0], [400, 265], [0, 265]], np.float32)
    corners_px = np.array([[130, 110], [1430, 150], [1400, 1000], [160, 960]], np.float32)
    return cv2.getPerspectiveTransform(corners_mm, corners_px).astype(np.float64)


def _photo(homography: np.ndarray, palisades: int = 0, bend: float = 0.0) -> np.ndarray:
    """A light card with the printed grid, ``palisades`` dark sticks lying on interior lines,
    seen through ``homography``, the lens bending it by ``bend`` (barrel, as a share at the corners)."""
    view = FaceRaster(4.0)
    width, height = view.size
    face = np.full((height, width), 200, np.uint8)
    s = view.px_per_mm
    line = round(GRID_LINE_MM * s)
    for col in range(9):
        x = round((MARGIN_MM + col * PITCH_MM) * s)
        cv2.line(face, (x, round(MARGIN_MM * s)), (x, round((MARGIN_MM + 5 * PITCH_MM) * s)), 60, line)
    for row in range(6):
        y = round((MARGIN_MM + row * PITCH_MM) * s)
        cv2.line(face, (round(MARGIN_MM * s), y), (round((MARGIN_MM + 8 * PITCH_MM) * s), y), 60, line)
    rng = np.random.default_rng(3)
    for _ in range(palisades):
        col, row = int(rng.integers(1, 8)), int(rng.integers(0, 5))
        x = round((MARGIN_MM + col * PITCH_MM) * s)
        y0 = round((MARGIN_MM + row * PITCH_MM + 2.5) * s)
        # A stick 5 mm wide, lying a little off its line: its dark mass is not the line's.
        cv2.rectangle(face, (x - round(1.0 * s), y0), (x + round(5.0 * s), y0 + round(40 * s)), 90, -1)
    to_photo = homography @ np.linalg.inv(view.from_mm())
    photo = cv2.warpPerspective(face, to_photo, (1600, 1100), borderValue=120)
    if bend:
        ys, xs = np.mgrid[0:1100, 0:1600].astype(np.float32)
        cx, cy = 800.0, 550.0
        r2 = ((xs - cx) ** 2 + (ys - cy) ** 2) / (cx**2 + cy**2)
        photo = cv2.remap(
            photo, cx + (xs - cx) * (1 + bend * r2), cy + (ys - cy) * (1 + bend * r2), cv2.INTER_LINEAR
        )
    return cv2.cvtColor(photo, cv2.COLOR_GRAY2BGR)


def _off_by(homography: np.ndarray, truth: np.ndarray) -> float:
    """How far (mm of the board, worst crossing) ``homography`` places the grid from ``truth``."""
    points = cv2.perspectiveTransform(CROSSINGS_MM.reshape(-1, 1, 2), np.linalg.inv(truth) @ homography)
    return float(np.linalg.norm(points.reshape(-1, 2) - CROSSINGS_MM, axis=1).max())


def _nudged(truth: np.ndarray, dx: float, dy: float, turn_deg: float) -> np.ndarray:
    c, s = np.cos(np.radians(turn_deg)), np.sin(np.radians(turn_deg))
    centre = np.array([200.0, 132.5])
    move = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    move[:2, 2] = centre - move[:2, :2] @ centre + (dx, dy)
    return truth @ move


def test_a_placement_millimetres_off_is_pulled_onto_the_edges() -> None:
    truth = _true_homography()
    start = _nudged(truth, 2.5, -1.8, 0.4)
    photo = _photo(truth)
    assert _off_by(start, truth) > 2.5
    assert _off_by(follow_edges(photo, start), truth) < 0.3


def test_sticks_lying_on_lines_do_not_pull_the_placement() -> None:
    truth = _true_homography()
    photo = _photo(truth, palisades=12)
    assert _off_by(follow_edges(photo, _nudged(truth, -1.5, 1.2, -0.3)), truth) < 0.4


def test_a_placement_already_right_stays() -> None:
    truth = _true_homography()
    assert _off_by(follow_edges(_photo(truth, palisades=6), truth), truth) < 0.2


def test_a_lens_bend_is_told_apart_from_the_placement() -> None:
    truth = _true_homography()
    view = FaceRaster(3.0)
    bends = {}
    for bend in (-0.03, 0.0, 0.03):
        photo = _photo(truth, bend=bend)
        pulled = follow_edges(photo, _nudged(truth, 1.5, -1.0, 0.2))
        grey = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
        edges = read_edges(view_lines(grey, pulled, view), 2.5, view)
        correction = edge_correction(edges, pulled, (1600, 1100))
        bends[bend] = 0.0 if correction is None else correction.bend
    # Barrel and pincushion read as bends of opposite signs and like sizes; a flat card, as none.
    assert bends[-0.03] * bends[0.03] < 0
    assert abs(bends[-0.03]) == pytest.approx(abs(bends[0.03]), rel=0.3)
    assert abs(bends[0.0]) < 0.1 * abs(bends[0.03])


def test_edges_that_disagree_make_no_correction() -> None:
    middles, down, _ = _pieces(FOLLOW_PARAMS)
    placed, size = _true_homography(), (1600, 1100)
    noise = np.random.default_rng(0).uniform(-2.0, 2.0, len(middles))
    assert edge_correction(Edges(middles, down, noise), placed, size) is None
    assert edge_correction(Edges(middles[:20], down[:20], np.full(20, 1.0)), placed, size) is None
    # Edges already where the placement puts them: nothing to correct.
    assert edge_correction(Edges(middles, down, np.zeros(len(middles))), placed, size) is None


def test_a_fit_is_followed_once() -> None:
    truth = _true_homography()
    photo = _photo(truth)
    fit = GridFit(_nudged(truth, 2.0, 1.0, 0.0), 8, np.empty((0, 2)), np.empty(0), 20, 54)
    pulled = followed(photo, fit)
    assert pulled.followed and _off_by(pulled.homography, truth) < 0.3
    assert not fit.followed
    assert followed(photo, pulled) is pulled
