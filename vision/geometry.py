"""The reference kit in millimetres, and the canonical top-down view of the board.

Board coordinates are millimetres on the board's printed face, the board the
right way up: ``x`` to the right, ``y`` down, origin at the face's top-left
corner, ``z`` the height above the face. The renderer places things with
them; the scanner reads cells and slots at them.

>>> cell_centre_mm(Cell(0, 0))
(42.5, 42.5)
>>> slot_segment_mm(Slot(Cell(0, 0), Cell(0, 1)))
((65.0, 20.0), (65.0, 65.0))
>>> CANONICAL.size
(800, 530)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt

from engine.board import COLS, ROWS, Cell, Slot

BOARD_W_MM = 400.0
BOARD_H_MM = 265.0
BOARD_THICKNESS_MM = 2.0
MARGIN_MM = 20.0
PITCH_MM = 45.0
GRID_W_MM = COLS * PITCH_MM
GRID_H_MM = ROWS * PITCH_MM
GRID_LINE_MM = 1.5

GOLD_DIAMETER_MM = 30.0
TOKEN_THICKNESS_MM = 2.0
WARRIOR_SIDE_MM = 32.0
WARRIOR_CORNER_MM = 3.0
PALISADE_LENGTH_MM = 40.0
PALISADE_WIDTH_MM = 5.0
PALISADE_HEIGHT_MM = 10.0

FloatArray = npt.NDArray[np.float64]


def cell_centre_mm(cell: Cell) -> tuple[float, float]:
    """The centre of a cell on the board's face."""
    return (MARGIN_MM + (cell.col + 0.5) * PITCH_MM, MARGIN_MM + (cell.row + 0.5) * PITCH_MM)


def cell_origin_mm(cell: Cell) -> tuple[float, float]:
    """The top-left corner of a cell on the board's face."""
    return (MARGIN_MM + cell.col * PITCH_MM, MARGIN_MM + cell.row * PITCH_MM)


def slot_segment_mm(slot: Slot) -> tuple[tuple[float, float], tuple[float, float]]:
    """The grid line a slot lies on, as its two end points on the board's face."""
    x0, y0 = cell_origin_mm(slot.b)
    if slot.vertical:
        return (x0, y0), (x0, y0 + PITCH_MM)
    return (x0, y0), (x0 + PITCH_MM, y0)


def board_corners_mm() -> FloatArray:
    """The four corners of the board's face, clockwise from top-left, shape (4, 2)."""
    return np.array([[0, 0], [BOARD_W_MM, 0], [BOARD_W_MM, BOARD_H_MM], [0, BOARD_H_MM]], dtype=np.float64)


def keeps_handedness(homographies: npt.ArrayLike, at: tuple[float, float]) -> npt.NDArray[np.bool_]:
    """For homographies ``(..., 3, 3)`` from board millimetres to photo pixels: whether each keeps
    the board's "down" clockwise of its "right" near ``at``, as a photo of the face from the front
    does (the photo's y runs down too). Undefined ones (not finite there) do not.

    >>> keeps_handedness(np.stack([np.eye(3), np.diag([-1.0, 1.0, 1.0])]), (200.0, 130.0)).tolist()
    [True, False]
    """
    x, y = at
    corner = np.array([[x, y, 1.0], [x + PITCH_MM, y, 1.0], [x, y + PITCH_MM, 1.0]])
    seen = np.einsum("...ij,mj->...mi", np.asarray(homographies, np.float64), corner)
    with np.errstate(invalid="ignore", divide="ignore"):
        seen = seen[..., :2] / seen[..., 2:3]
        along, below = seen[..., 1, :] - seen[..., 0, :], seen[..., 2, :] - seen[..., 0, :]
        return cast(npt.NDArray[np.bool_], along[..., 0] * below[..., 1] - along[..., 1] * below[..., 0] > 0)


@dataclass(frozen=True)
class FaceRaster:
    """A top-down raster of the board's face: ``px_per_mm`` pixels a millimetre.

    >>> FaceRaster(2.0).size, FaceRaster(2.0).to_px(20.0, 20.0)
    ((800, 530), (40.0, 40.0))
    """

    px_per_mm: float

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels, as OpenCV's warp functions take it."""
        return (round(BOARD_W_MM * self.px_per_mm), round(BOARD_H_MM * self.px_per_mm))

    def to_px(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        return (x_mm * self.px_per_mm, y_mm * self.px_per_mm)

    def from_mm(self) -> FloatArray:
        """The 3x3 matrix taking board millimetres to this view's pixels."""
        s = self.px_per_mm
        return np.array([[s, 0, 0], [0, s, 0], [0, 0, 1]], dtype=np.float64)

    def cell_box(self, cell: Cell, inset_mm: float = 0.0) -> tuple[int, int, int, int]:
        """``(x0, y0, x1, y1)`` pixel bounds of a cell, shrunk by ``inset_mm`` on each side."""
        x, y = cell_origin_mm(cell)
        s = self.px_per_mm
        return (
            round((x + inset_mm) * s),
            round((y + inset_mm) * s),
            round((x + PITCH_MM - inset_mm) * s),
            round((y + PITCH_MM - inset_mm) * s),
        )


#: 2 pixels a millimetre (90 a cell, 10 across a palisade): what the cell and slot readers work on.
CANONICAL = FaceRaster(2.0)


def warp_terms(points: FloatArray, view: FaceRaster, order: int) -> FloatArray:
    """A smooth warp's polynomial terms at view pixels ``points`` (N, 2): x^i y^j, i + j <= ``order``,
    over coordinates centred on the view and scaled to its width
    (:func:`vision.locate.register.residual_warp`)."""
    width, height = view.size
    x = (points[:, 0] - width / 2) / width
    y = (points[:, 1] - height / 2) / width
    return np.stack([x ** (d - i) * y**i for d in range(order + 1) for i in range(d + 1)], axis=1)


def warp_shifts(coefficients: FloatArray, points: FloatArray, view: FaceRaster = CANONICAL) -> FloatArray:
    """Where a smooth warp's ``coefficients`` (:func:`vision.locate.register.residual_warp`) move view
    pixels ``points`` (N, 2): shifts (N, 2)."""
    order = round((np.sqrt(8 * len(coefficients) + 1) - 3) / 2)
    shifts: FloatArray = warp_terms(points, view, order) @ coefficients
    return shifts
