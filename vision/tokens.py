"""Is a copy's warrior on a cell whose art the profile never saw? Match the warrior's own picture.

A setup photo hides four cells' art under its corner warriors, so there the
face cannot say what an empty cell looks like. But it shows what each
colour's warrior looks like (:attr:`calibration.profile.Profile.tokens`):
the same print, emblem and all, on every warrior of that colour. Each such
cell is searched for each warrior's middle, at every turn and offset a hand
puts a warrior down with; art seldom looks like a warrior's emblem.
"""

from __future__ import annotations

from functools import lru_cache
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from calibration.profile import Profile
from engine.board import Cell
from vision.geometry import CANONICAL, WARRIOR_SIDE_MM, View, cell_centre_mm
from vision.logistic import fit_logistic, logistic

FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]

#: The middle of the warrior matched: its rounded corners and edges turn with it and blur.
MIDDLE_MM = 22.0
#: Turns tried (degrees): the warrior in the setup and in the photo each turned up to 15.
TURNS_DEG = tuple(np.arange(-30.0, 30.1, 7.5))
#: A warrior's middle lies this far (mm) from its cell's centre at most.
REACH_MM = 6.0
BLUR_PX = 0.8

#: The columns of :func:`hidden_signs`.
FEATURES = ("token_match", "token_coloured")
#: Logistic weights over the features and a constant, with a profile learnt from a setup photo
#: and with one improvised from the photo read, fitted on the tuning copies only
#: (``armadora bench fit COPIES_TUNING_DIR`` prints them again).
LEARNT_WEIGHTS: tuple[float, ...] = (19.041, 10.369, -16.311)
IMPROVISED_WEIGHTS: tuple[float, ...] = (6.842, 7.721, -4.623)


@lru_cache(maxsize=8)
def _templates(profile: Profile, view: View) -> tuple[tuple[str, tuple[FloatImage, ...]], ...]:
    """Each colour's warrior middle, blurred like a photo, at every turn of :data:`TURNS_DEG`."""
    side = round(MIDDLE_MM * view.px_per_mm) | 1
    out = []
    for name, image in profile.tokens.items():
        scale = view.px_per_mm * WARRIOR_SIDE_MM / image.shape[0]
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        centre = ((small.shape[1] - 1) / 2, (small.shape[0] - 1) / 2)
        turned = []
        for angle in TURNS_DEG:
            turn = np.asarray(cv2.getRotationMatrix2D(centre, float(angle), 1.0), np.float64)
            turn[:, 2] += (side - 1) / 2 - np.array(centre)
            middle = cv2.warpAffine(small, turn, (side, side), flags=cv2.INTER_LINEAR)
            turned.append(
                cast(FloatImage, cv2.GaussianBlur(middle.astype(np.float32) / 255, (0, 0), BLUR_PX))
            )
        out.append((name, tuple(turned)))
    return tuple(out)


def token_match(
    balanced: FloatImage, profile: Profile, cells: list[Cell], view: View = CANONICAL
) -> FloatArray:
    """Per cell (rows) and colour of ``profile.colours`` (columns): how well its warrior's middle
    matches somewhere near the cell's centre (normalised correlation, -1..1; -1 for a colour whose
    warrior the profile has no picture of)."""
    templates = _templates(profile, view)
    columns = {name: k for k, name in enumerate(profile.colours)}
    result = np.full((len(cells), len(profile.colours)), -1.0)
    if not templates:
        return result
    side = templates[0][1][0].shape[0]
    reach = round(REACH_MM * view.px_per_mm)
    image = cast(FloatImage, cv2.GaussianBlur(balanced, (0, 0), BLUR_PX * 0.5))
    for row, cell in enumerate(cells):
        x, y = (round(v * view.px_per_mm) for v in cell_centre_mm(cell))
        half = (side - 1) // 2 + reach
        window = image[max(0, y - half) : y + half + 1, max(0, x - half) : x + half + 1]
        if window.shape[0] < side or window.shape[1] < side:
            continue
        for name, turned in templates:
            result[row, columns[name]] = max(
                float(cv2.minMaxLoc(cv2.matchTemplate(window, t, cv2.TM_CCOEFF_NORMED))[1]) for t in turned
            )
    return result


def hidden_signs(matches: FloatArray, token_coloured: FloatArray) -> FloatArray:
    """The signs weighed on a hidden cell: its best warrior match, and its share of token colours."""
    best = matches.max(axis=1) if matches.shape[1] else np.zeros(len(matches))
    return np.column_stack([best, token_coloured])


def hidden_occupied(signs: FloatArray, weights: npt.ArrayLike = LEARNT_WEIGHTS) -> FloatArray:
    """P(a warrior on the cell) for each row of :func:`hidden_signs`."""
    return logistic(np.column_stack([signs, np.ones(len(signs))]), weights)


def fit_hidden_weights(signs: FloatArray, labels: npt.NDArray[np.bool_]) -> FloatArray:
    """Weights for :func:`hidden_occupied`, fitted to cells whose truth is known."""
    return fit_logistic(np.column_stack([signs, np.ones(len(signs))]), labels)
