"""What of the board lies beyond the photo's edge: the cells and slots no reader sees.

A photo that cuts the board off still shows the rest of it. Beyond the frame the top-down view
holds only the warp's border, which reads as a dark warrior, a row of palisades or a colour no
player has. So a cell whose reading disc leaves the photo, or a slot whose stretch of line a
stick would cover does, is not read: it is reported unseen (no warrior, no palisade,
confidence 0) for the player to check. A cell whose disc is in the photo but not all of its
square is read, and doubted: a warrior may lie off its middle, over the edge; so is a slot beside
a cell either way, whose reader looks across the line at both cells. With more of the
board beyond the frame than :attr:`FrameParams.most_beyond`, the photo is refused, as the
features refuse it.

>>> scale = np.diag([2.0, 2.0, 1.0])  # 2 px a mm: the board is 800 px wide, the photo 700
>>> beyond = beyond_frame(scale, 700, 600)
>>> [cell.name for cell in CELLS if beyond.cells[cell.number]]
['h5', 'h4', 'h3', 'h2', 'h1']
>>> [slot.name for slot in SLOTS if beyond.slots[slot.number]]
['h5-h4', 'h4-h3', 'h3-h2', 'h2-h1']
>>> [slot.name for slot in SLOTS if beyond.slots_partly[slot.number]]
['g5|h5', 'g4|h4', 'g3|h3', 'g2|h2', 'g1|h1']
>>> [cell.name for cell in CELLS if beyond_frame(scale, 750, 600).cells_partly[cell.number]]
['h5', 'h4', 'h3', 'h2', 'h1']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from engine.board import CELLS, SLOTS
from vision.geometry import (
    GRID_H_MM,
    GRID_W_MM,
    MARGIN_MM,
    PALISADE_LENGTH_MM,
    PITCH_MM,
    cell_centre_mm,
    cell_origin_mm,
    slot_segment_mm,
)
from vision.locate.features import cut_off, project, sides_beyond
from vision.read.cells import READ_RADIUS_MM

Mask = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class FrameParams:
    """Where the board leaves the photo: the hand-set numbers."""

    #: Points this near the photo's edge (pixels) are beyond it: the warp blends its border in there.
    edge_px: float = 1.0
    #: A cell is read while the disc its reader looks at (this radius, mm) lies in the photo.
    cell_radius_mm: float = READ_RADIUS_MM
    #: Points on each disc's rim and along each slot's line checked (a cell's square: its corners).
    rim_points: int = 16
    line_points: int = 9
    #: More than this share of the cells unseen, and the photo is refused: what is left is not worth
    #: a player's checking the rest by hand.
    most_beyond: float = 0.25


FRAME_PARAMS = FrameParams()


@dataclass(frozen=True, eq=False)
class Beyond:
    """What of the board the photo's edge cuts off, per cell and per slot in number order."""

    #: Cells whose reading disc leaves the photo: nothing is read there.
    cells: Mask
    #: Slots whose stretch of line a stick covers leaves the photo: no palisade is read there.
    slots: Mask
    #: Cells read, whose square leaves the photo though their disc does not: doubtful.
    cells_partly: Mask
    #: Slots read beside a cell unseen or partly seen: doubtful.
    slots_partly: Mask

    @property
    def anything(self) -> bool:
        """Whether the photo leaves out any of the board."""
        masks = (self.cells, self.slots, self.cells_partly, self.slots_partly)
        return any(bool(mask.any()) for mask in masks)


@cache
def _points_mm(params: FrameParams) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Board millimetres checked: per cell its disc's rim ``(40, rim, 2)`` and its square's corners
    ``(40, 4, 2)``, per slot points along the stretch of line a stick covers ``(67, line, 2)``."""
    turns = np.linspace(0.0, 2 * np.pi, params.rim_points, endpoint=False)
    rim = params.cell_radius_mm * np.stack([np.cos(turns), np.sin(turns)], axis=1)
    discs = np.array([np.add(cell_centre_mm(cell), rim) for cell in CELLS])
    square = np.array([[0.0, 0.0], [PITCH_MM, 0.0], [PITCH_MM, PITCH_MM], [0.0, PITCH_MM]])
    squares = np.array([np.add(cell_origin_mm(cell), square) for cell in CELLS])
    # A stick is shorter than the pitch and centred on its slot.
    gap = (PITCH_MM - PALISADE_LENGTH_MM) / 2 / PITCH_MM
    along = np.linspace(gap, 1.0 - gap, params.line_points)[:, None]
    ends = np.array([slot_segment_mm(slot) for slot in SLOTS])
    lines = ends[:, None, 0] + along * (ends[:, None, 1] - ends[:, None, 0])
    return discs, squares, lines


def beyond_frame(
    homography: FloatArray, width: int, height: int, params: FrameParams = FRAME_PARAMS
) -> Beyond:
    """What of the board placed by ``homography`` (board millimetres to photo pixels) lies beyond
    the edge of a ``width`` x ``height`` photo."""

    def beyond(points_mm: FloatArray) -> Mask:
        px = project(homography, points_mm.reshape(-1, 2)).reshape(points_mm.shape)
        edge = params.edge_px
        out = (
            (px[..., 0] < edge)
            | (px[..., 0] > width - 1 - edge)
            | (px[..., 1] < edge)
            | (px[..., 1] > height - 1 - edge)
        )
        return np.asarray(out.any(axis=1), bool)

    discs, squares, lines = _points_mm(params)
    cells = beyond(discs)
    slots = beyond(lines)
    cut = beyond(squares)
    beside = np.array([cut[slot.a.number] or cut[slot.b.number] for slot in SLOTS])
    return Beyond(cells, slots, cut & ~cells, beside & ~slots)


def refuse_cut_off(
    beyond: Beyond, homography: FloatArray, width: int, height: int, params: FrameParams = FRAME_PARAMS
) -> None:
    """Raise :class:`vision.locate.features.NoBoardError` (``cut_off``) when more of the board's
    cells are unseen (:func:`beyond_frame`) than :attr:`FrameParams.most_beyond`, naming the sides
    the grid leaves the photo by.

    >>> scale = np.diag([2.0, 2.0, 1.0])
    >>> refuse_cut_off(beyond_frame(scale, 700, 600), scale, 700, 600)  # one column: read
    >>> refuse_cut_off(beyond_frame(scale, 560, 600), scale, 560, 600)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    vision.locate.features.NoBoardError: the board is cut off at the right of the photo; keep all ...
    """
    if beyond.cells.mean() <= params.most_beyond:
        return
    left, top, right, bottom = MARGIN_MM, MARGIN_MM, MARGIN_MM + GRID_W_MM, MARGIN_MM + GRID_H_MM
    grid = np.array([[left, top], [right, top], [right, bottom], [left, bottom]])
    raise cut_off(sides_beyond(project(homography, grid), width, height) or ["edge"])
