"""Registration to the millimetre, and the texture match it makes possible, on hand-made photos."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.profile import default_profile
from engine.board import CELLS, Cell
from vision.cells import cell_pixels, texture_match
from vision.geometry import CANONICAL, board_corners_mm, cell_centre_mm
from vision.locate import project
from vision.rectify import face_view, rectify, to_float
from vision.register import register

#: A tilted board about 3 px/mm across a 1600x1100 photo: board millimetres to photo pixels.
TRUE_HOMOGRAPHY = np.array([[3.0, 0.25, 120.0], [0.08, 2.7, 90.0], [0.0002, 0.0004, 1.0]])


def photo_of_face(
    homography: np.ndarray = TRUE_HOMOGRAPHY, size: tuple[int, int] = (1600, 1100)
) -> np.ndarray:
    """The reference face as a camera would see it: art pixel j's centre lies at (j + 0.5) / 5 mm."""
    face = default_profile().face
    per_mm = face.shape[1] / 400
    art_to_mm = np.array([[1 / per_mm, 0, 0.5 / per_mm], [0, 1 / per_mm, 0.5 / per_mm], [0, 0, 1]])
    canvas = np.full((size[1], size[0], 3), 80, np.uint8)
    return cv2.warpPerspective(
        face, homography @ art_to_mm, size, dst=canvas, borderMode=cv2.BORDER_TRANSPARENT
    )


def corner_error_mm(homography: np.ndarray) -> float:
    """How far, in board millimetres, ``homography`` puts the board's true corners."""
    seen = project(TRUE_HOMOGRAPHY, board_corners_mm())
    back = project(np.linalg.inv(homography), seen)
    return float(np.linalg.norm(back - board_corners_mm(), axis=1).max())


def shifted(homography: np.ndarray, dx_mm: float, dy_mm: float, turn_deg: float = 0.0) -> np.ndarray:
    """``homography`` moved on the board by a small shift and turn about the board's centre."""
    t = np.deg2rad(turn_deg)
    centre = np.array([[1, 0, 200], [0, 1, 132.5], [0, 0, 1]])
    turn = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    move = np.array([[1, 0, dx_mm], [0, 1, dy_mm], [0, 0, 1]])
    return homography @ move @ centre @ turn @ np.linalg.inv(centre)


def test_face_view_and_rectify_agree_on_where_each_millimetre_is() -> None:
    face = face_view(default_profile())
    seen = to_float(rectify(photo_of_face(), TRUE_HOMOGRAPHY))
    (dx, dy), _ = cv2.phaseCorrelate(face.mean(axis=-1), seen.mean(axis=-1))
    assert abs(dx) < 0.1 and abs(dy) < 0.1  # view pixels: a twentieth of a millimetre


@pytest.mark.parametrize(
    ("dx_mm", "dy_mm", "turn_deg"), [(1.5, -1.0, 0.0), (-3.0, 2.0, 0.4), (0.0, 0.0, -0.6)]
)
def test_register_corrects_a_located_board_that_is_millimetres_off(
    dx_mm: float, dy_mm: float, turn_deg: float
) -> None:
    rough = shifted(TRUE_HOMOGRAPHY, dx_mm, dy_mm, turn_deg)
    assert corner_error_mm(rough) > 1.0
    registration = register(photo_of_face(), rough, face_view(default_profile()))
    assert registration.agreeing >= 40
    assert corner_error_mm(registration.homography) < 0.3


def test_register_keeps_the_homography_when_nothing_matches() -> None:
    blank = np.full((1100, 1600, 3), 128, np.uint8)
    rough = shifted(TRUE_HOMOGRAPHY, 1.0, 1.0)
    registration = register(blank, rough, face_view(default_profile()))
    assert registration.agreeing == 0
    np.testing.assert_array_equal(registration.homography, rough)


def test_texture_match_tells_the_printed_art_from_a_plain_token_of_the_same_colour() -> None:
    face = face_view(default_profile())
    photo = face.copy()
    covered = Cell(2, 3)
    x, y = (round(v * CANONICAL.px_per_mm) for v in cell_centre_mm(covered))
    r = round(16 * CANONICAL.px_per_mm)
    # A token of exactly the art's mean colour there: colour alone cannot tell it from the face.
    photo[y - r : y + r, x - r : x + r] = face[y - r : y + r, x - r : x + r].mean(axis=(0, 1))
    seen = np.ones(cell_pixels(face[..., 0]).shape, bool)
    match, amount = texture_match(photo, face, seen)
    textured = amount > 0.01
    assert match[covered.number] < 0.3
    others = [cell.number for cell in CELLS if cell != covered and textured[cell.number]]
    assert len(others) > 30
    assert match[others].min() > 0.95
