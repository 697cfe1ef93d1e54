"""The reference kit's printed face as a camera sees it: photos with a known homography for the
scanner's stage tests."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from calibration.profile import default_profile
from vision.geometry import board_corners_mm


def photo_of_face(
    to_photo: np.ndarray | Sequence[Sequence[float]],
    size: tuple[int, int] = (1600, 1200),
    background: int = 90,
) -> tuple[np.ndarray, np.ndarray]:
    """The reference face warped into a ``size`` photo on a plain grey ``background``, and the true
    homography from board millimetres to photo pixels.

    ``to_photo`` is that homography (3 x 3), or the four photo points where the board's corners
    land, clockwise from the top-left. Art pixel j's centre lies at (j + 0.5) / 5 mm.
    """
    given = np.asarray(to_photo, np.float64)
    homography = (
        given
        if given.shape == (3, 3)
        else cv2.getPerspectiveTransform(board_corners_mm().astype(np.float32), given.astype(np.float32))
    ).astype(np.float64)
    face = default_profile().face
    per_mm = face.shape[1] / 400
    art_to_mm = np.array([[1 / per_mm, 0, 0.5 / per_mm], [0, 1 / per_mm, 0.5 / per_mm], [0, 0, 1]])
    canvas = np.full((size[1], size[0], 3), background, np.uint8)
    photo = cv2.warpPerspective(
        face, homography @ art_to_mm, size, dst=canvas, borderMode=cv2.BORDER_TRANSPARENT
    )
    return photo, homography
