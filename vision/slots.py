"""Read each palisade slot of the balanced top-down view: palisade or not.

A palisade covers its grid line along its whole length, whatever the angle:
seen from the side its top leans away from the camera, but its near face
still hides the line. So each slot is read on a narrow band along its line,
and asks how much of the band's length looks like wood rather than the printed face.

Two things can cover part of a band without a palisade on it: a warrior's
corner, briefly, and a palisade at the slot's end leaning into it. The end the
camera makes things lean toward is left out, by the length of that lean.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.board import SLOTS
from vision.colour import shaded_distance
from vision.geometry import CANONICAL, PALISADE_HEIGHT_MM, PITCH_MM, View, slot_segment_mm
from vision.locate import Camera

FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]

#: Half the width of the band read across a line: inside the palisade's 2.5 mm half-width.
BAND_HALF_MM = 1.5
#: Positions read along each slot.
STEPS = 36
#: Gap at each end of a slot that a palisade (40 mm on a 45 mm pitch) never reaches, plus blur.
END_GAP_MM = 4.0
#: A pixel is wood when it is nearer the palisades' colour than the face under it, and this near.
WOOD_LIMIT = 0.2
#: A palisade's side faces can turn well away from the light: wood is allowed to be this dark.
WOOD_MIN_SHADE = 0.25
#: A band differs from the face when its median pixel is further than this from it.
FACE_LIMIT = 0.22
SHARPNESS = 12.0
MIDPOINT = 0.5


@dataclass(frozen=True, eq=False)
class SlotReading:
    """Per slot (67, in slot number order): probability of a palisade, and the covered share."""

    probabilities: FloatArray
    covered: FloatArray


def leans_mm(camera: Camera | None, height_mm: float = PALISADE_HEIGHT_MM) -> FloatArray:
    """Where the top of something ``height_mm`` tall at each slot's middle lands on the face.

    As a displacement in board millimetres, shape (67, 2): zero seen from straight above.
    """
    middles = np.array([np.mean(slot_segment_mm(slot), axis=0) for slot in SLOTS])
    if camera is None:
        return np.zeros_like(middles)
    tops = camera.project(np.c_[middles, np.full(len(middles), height_mm)])
    return _unproject(camera, tops) - middles


def _unproject(camera: Camera, pixels: FloatArray) -> FloatArray:
    """Board millimetres (on the face) seen at ``pixels``."""
    homography = camera.intrinsics @ np.c_[camera.rotation[:, :2], camera.translation]
    points = np.c_[pixels, np.ones(len(pixels))] @ np.linalg.inv(homography).T
    return points[:, :2] / points[:, 2:3]


def _band_samples(
    view: View, leans: FloatArray, shift: float = 0.0
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    """Pixel coordinates of each slot's band, shape (67, STEPS, across), and which steps to read.

    The band runs along the slot's line, moved across it by ``shift`` times the
    lean: 0 reads the palisade's foot, 1 where its top lands.
    """
    across = np.arange(-BAND_HALF_MM, BAND_HALF_MM + 1e-9, 1.0 / view.px_per_mm)
    along = np.linspace(0.0, PITCH_MM, STEPS)
    xs = np.empty((len(SLOTS), STEPS, len(across)))
    ys = np.empty_like(xs)
    keep = np.ones((len(SLOTS), STEPS), bool)
    for number, slot in enumerate(SLOTS):
        (x0, y0), (x1, y1) = slot_segment_mm(slot)
        direction = np.array([x1 - x0, y1 - y0]) / PITCH_MM
        normal = np.array([-direction[1], direction[0]])
        offset = shift * float(leans[number] @ normal) * normal
        px = x0 + offset[0] + direction[0] * along[:, None] + normal[0] * across[None, :]
        py = y0 + offset[1] + direction[1] * along[:, None] + normal[1] * across[None, :]
        xs[number], ys[number] = px * view.px_per_mm, py * view.px_per_mm
        reach = float(leans[number] @ direction)
        start_gap = END_GAP_MM + max(0.0, reach)
        end_gap = END_GAP_MM + max(0.0, -reach)
        keep[number] = (along >= start_gap) & (along <= PITCH_MM - end_gap)
    return xs, ys, keep


def _band(
    balanced: FloatImage, face: FloatImage, wood: FloatImage, xs: FloatArray, ys: FloatArray
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Per slot and step: is the band wood, and does it differ from the face."""
    xi = np.clip(np.round(xs).astype(np.intp), 0, balanced.shape[1] - 1)
    yi = np.clip(np.round(ys).astype(np.intp), 0, balanced.shape[0] - 1)
    pixels = balanced[yi, xi]  # (67, STEPS, across, 3)
    to_wood = shaded_distance(pixels, wood, min_shade=WOOD_MIN_SHADE)
    to_face = shaded_distance(pixels, face[yi, xi])
    woody = ((to_wood < to_face) & (to_wood < WOOD_LIMIT)).mean(axis=2) > 0.5
    differs = np.median(to_face, axis=2) > FACE_LIMIT
    return woody, differs


def read_slots(
    balanced: FloatImage,
    face: FloatImage,
    wood: FloatImage,
    camera: Camera | None,
    view: View = CANONICAL,
) -> SlotReading:
    """Palisade probabilities for the 67 slots.

    ``wood`` is the palisades' colour (float BGR); ``camera`` sees the board,
    to know which way tall things lean (None: straight from above). A step
    along a slot is covered when wood shows at the palisade's foot or where
    its top lands, or when both its foot and its lit side differ from the face
    (a side turned from the light is too dark to tell its colour).
    """
    leans = leans_mm(camera)
    foot_x, foot_y, keep = _band_samples(view, leans, 0.0)
    wood_foot, differs_foot = _band(balanced, face, wood, foot_x, foot_y)
    wood_top, _ = _band(balanced, face, wood, *_band_samples(view, leans, 1.0)[:2])
    _, differs_side = _band(balanced, face, wood, *_band_samples(view, leans, 0.5)[:2])
    covered_step = wood_foot | wood_top | (differs_foot & differs_side)
    covered = (covered_step & keep).sum(axis=1) / np.maximum(keep.sum(axis=1), 1)
    probabilities = 1.0 / (1.0 + np.exp(-SHARPNESS * (covered - MIDPOINT)))
    return SlotReading(probabilities.astype(np.float64), covered.astype(np.float64))
