"""The printed grid found by its lines alone (:mod:`vision.locate.gridlines`)."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from engine.board import COLS, ROWS
from vision.geometry import MARGIN_MM, PITCH_MM, board_corners_mm
from vision.locate.gridlines import crossings, even_run, lattice_homographies, line_segments, vanishing_point
from vision.locate.lattice import lattice_move

FloatArray = npt.NDArray[np.float64]

GRID_MM = np.array(
    [[MARGIN_MM + c * PITCH_MM, MARGIN_MM + r * PITCH_MM] for c in range(COLS + 1) for r in range(ROWS + 1)]
)
#: A board seen from its near long side, tilted, and turned a little in the photo.
SEEN = np.array([[[210.0, 140.0]], [[830.0, 170.0]], [[930.0, 640.0]], [[90.0, 600.0]]])


def _truth() -> FloatArray:
    homography, _ = cv2.findHomography(board_corners_mm(), SEEN.reshape(4, 2))
    return np.asarray(homography, np.float64)


def _lined_photo(truth: FloatArray, hidden: int = 0) -> npt.NDArray[np.uint8]:
    """A 1000 x 750 photo of a board whose only marks are its grid's lines, on a table of planks
    whose grain crosses nothing; ``hidden`` interior segments of its lines covered as palisades do."""
    photo = np.full((750, 1000), 150, np.uint8)
    for x in range(-400, 1400, 70):
        cv2.line(photo, (x, 0), (x + 300, 749), 95, 2, cv2.LINE_AA)
    cv2.fillConvexPoly(photo, np.round(SEEN.reshape(4, 2)).astype(np.int32), 215, cv2.LINE_AA)
    for col in range(COLS + 1):
        ends = cv2.perspectiveTransform(GRID_MM[[col * (ROWS + 1), col * (ROWS + 1) + ROWS]][None], truth)[0]
        cv2.line(photo, *np.round(ends).astype(int), 40, 2, cv2.LINE_AA)
    for row in range(ROWS + 1):
        ends = cv2.perspectiveTransform(GRID_MM[[row, COLS * (ROWS + 1) + row]][None], truth)[0]
        cv2.line(photo, *np.round(ends).astype(int), 40, 2, cv2.LINE_AA)
    rng = np.random.default_rng(4)
    for _ in range(hidden):
        col, row = int(rng.integers(1, COLS)), int(rng.integers(0, ROWS))
        x, y = MARGIN_MM + col * PITCH_MM, MARGIN_MM + row * PITCH_MM
        block = np.array([[x - 4, y + 3], [x + 4, y + 3], [x + 4, y + 42], [x - 4, y + 42]], np.float64)
        cv2.fillConvexPoly(
            photo, np.round(cv2.perspectiveTransform(block[None], truth)[0]).astype(np.int32), 215
        )
    return photo


def _off_by_whole_cells_mm(homography: FloatArray, truth: FloatArray) -> float:
    """How far (mm, on the grid) ``homography`` is from ``truth`` moved by the nearest whole cells,
    turned or not."""
    errors = []
    for cols, rows, half_turn in itertools.product(range(-4, 5), range(-3, 4), (False, True)):
        moved = cv2.perspectiveTransform(GRID_MM[None], homography @ lattice_move(cols, rows, half_turn))
        back = cv2.perspectiveTransform(moved, np.linalg.inv(truth))[0]
        errors.append(float(np.abs(back - GRID_MM).max()))
    return min(errors)


@pytest.mark.parametrize("hidden", [0, 12])
def test_the_grid_is_found_by_its_lines_among_a_tables_grain(hidden: int) -> None:
    truth = _truth()
    found = lattice_homographies(_lined_photo(truth, hidden), 0.5)
    assert len(found) == 2
    # The photo was handed over reduced by half: the homographies map to twice its pixels.
    full = np.diag([2.0, 2.0, 1.0]) @ truth
    errors = sorted(_off_by_whole_cells_mm(h, full) for h in found)
    # One way of laying the rows and columns on the two families is right to a few millimetres.
    assert errors[0] < 3.0
    # The other lays them crosswise: not the board, whatever the cells' shift.
    assert errors[1] > 20.0


def test_a_photo_without_two_families_of_crossing_lines_gives_nothing() -> None:
    photo = np.full((750, 1000), 150, np.uint8)
    for x in range(-400, 1400, 70):
        cv2.line(photo, (x, 0), (x + 300, 749), 95, 2, cv2.LINE_AA)
    assert lattice_homographies(photo, 1.0) == []


def test_every_line_of_the_grid_is_found_and_the_grain_crosses_little() -> None:
    segments = line_segments(_lined_photo(_truth()))
    counts = crossings(segments, 20.0)
    middles = (segments[:, :2] + segments[:, 2:]) / 2
    inside = np.array(
        [cv2.pointPolygonTest(SEEN.astype(np.float32), (float(x), float(y)), True) > 5 for x, y in middles]
    )
    assert (counts[~inside] == 0).mean() > 0.9
    assert (counts[inside] > 0).all()


def test_the_vanishing_point_of_converging_lines_is_found_among_others() -> None:
    point = np.array([500.0, -2000.0])
    segments = []
    for x in range(100, 900, 80):
        start = np.array([x, 700.0])
        towards = (point - start) / np.linalg.norm(point - start)
        segments.append([*start, *(start + 200 * towards)])
    segments += [[50.0, 100.0 + 40 * k, 300.0, 110.0 + 40 * k] for k in range(6)]
    found = vanishing_point(np.array(segments), np.ones(len(segments)))
    assert found is not None
    at, inliers = found
    assert np.allclose(at[:2] / at[2], point, atol=5.0)
    assert inliers.tolist() == [True] * 10 + [False] * 6


def test_an_even_run_leaves_out_lines_between_and_beyond() -> None:
    # Lines every 50 from 100 to 350, a stray one at 180 and another far off.
    positions = np.array([100.0, 150.0, 180.0, 200.0, 250.0, 300.0, 350.0, 600.0])
    run = even_run(positions, np.ones(len(positions)), 20.0, 200.0)
    assert run is not None
    assert (run.lines, round(run.period, 6), round(run.first, 6)) == (6, 50.0, 100.0)
    assert even_run(np.array([10.0]), np.ones(1), 20.0, 200.0) is None
