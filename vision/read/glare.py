"""Where a lamp's reflection clipped the photo: missing data, read as doubt.

A glossy card under a lamp reflects it. Where the reflection is brighter than
the camera can record, the pixels sit at the top of the photo's range in every
channel, and the art, tokens and sticks under them are gone. No reader can see
through that, and a reader fitted on other photos has no way to know what it
does not see. So the scanner does not read such pixels: a cell or a slot that
is largely under clipped glare is reported doubtful, whatever its reader said,
so that the player looks at it instead of trusting it.

Clipping is a property of the photo's own encoding (its 8-bit ceiling), not a
level fitted on any set of photos.

>>> import numpy as np
>>> face = np.full((530, 800, 3), 120, np.uint8)
>>> face[40:130, 310:400] = 255  # a highlight over d5, the gold cell at [0, 3]
>>> cells, slots = clipped_shares(clipped_mask(face))
>>> round(float(cells[3]), 2), round(float(cells[0]), 2)
(1.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from engine.board import CELLS, GOLD_CELLS, SLOTS, Slot
from vision.colour import channel_sum
from vision.geometry import (
    CANONICAL,
    GRID_LINE_MM,
    PALISADE_WIDTH_MM,
    PITCH_MM,
    WARRIOR_SIDE_MM,
    FaceRaster,
    cell_origin_mm,
    slot_segment_mm,
)
from vision.learn.pieces import on_one_line, outlined_token
from vision.locate.features import Camera
from vision.read.rectify import rectify
from vision.read.slots import palisade_mask

Image = npt.NDArray[np.uint8]
Mask = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class GlareParams:
    """How clipped glare is found and what it does to the readings' confidence."""

    #: A channel this near the top of the 8-bit range (255) has clipped: JPEG's rounding and a
    #: phone's tone curve keep a clipped highlight a few levels under 255.
    ceiling: int = 247
    #: This many channels at the ceiling make a pixel lost; one clipped channel only tints it.
    channels: int = 2
    #: Clipped specks narrower than this (a bright emblem, a numeral's stroke) are not glare.
    min_width_mm: float = 1.5
    #: The part of a cell's inner square, or of a slot's band, under glare that makes it doubtful.
    doubt_share: float = 0.2
    #: The confidence a reading under glare is given at most: under the page's 0.8, so it is marked.
    doubtful: float = 0.7
    #: Half the width of the band along a grid line where a palisade would stand and lean.
    slot_half_width_mm: float = 6.0
    #: A cell's square is read this far inside its edges (the lines and palisades beside it aside).
    cell_inset_mm: float = 5.0
    #: A clipped patch with at least this share of its pixels where a palisade could stand or lean
    #: (:func:`on_card`'s ``reach``) may be a stick's lit face rather than the card.
    within_reach: float = 0.9
    #: A warrior under the reflection shows by its outline: the sides the light and the camera
    #: catch (its side wall, its shadow) step sharply from the clipped white. A side this strong at
    #: least (the mean Lab gradient along it, :func:`vision.learn.pieces.outlined_token`: a step
    #: of about 15 levels of lightness) counts; two of the four must be so strong...
    outline_step: float = 60.0
    #: ... and straight: at this many of the nine points along its middle where its edge is found
    #: (:func:`vision.learn.pieces.outlined_token`)...
    side_on_line: int = 7
    #: ... the edge lies this near one straight line (:func:`vision.learn.pieces.on_one_line`): a
    #: side wall is a band a millimetre or two wide, either of whose edges may be the stronger, and
    #: the square found for a warrior may be turned a little from it; the round rim of a
    #: reflection as large as a warrior curves away from any line.
    side_off_line_mm: float = 0.7
    #: ... and the warrior's top lies under the same reflection as the card around it: at least
    #: this share of its square (3 mm in from its edge) clipped.
    top_clipped: float = 0.7
    #: Edges this near a palisade read, or a printed line, are not a warrior's outline (a stick's
    #: edges spread wider than a printed line's; a warrior's side may lie near a line).
    beside_mm: float = 1.5
    line_beside_mm: float = 0.5
    #: The raster the outlines are looked for on: sharp enough for a side wall a millimetre or two
    #: wide.
    outline_px_per_mm: float = 3.0


GLARE_PARAMS = GlareParams()


def clipped_mask(
    topdown: Image, parameters: GlareParams = GLARE_PARAMS, view: FaceRaster = CANONICAL
) -> Mask:
    """Which pixels of a top-down BGR view of the board (``view``'s raster) are clipped glare.

    >>> view = np.zeros((530, 800, 3), np.uint8)
    >>> view[10:20, 10:20] = 255
    >>> view[100, 100] = 255  # one pixel: a speck, not glare
    >>> int(clipped_mask(view).sum())
    100
    """
    # The clipped channels counted plane by plane (channel_sum), as numpy's count across the last
    # axis takes twenty times longer.
    at_ceiling = channel_sum((topdown >= parameters.ceiling).astype(np.float32)) >= parameters.channels
    width = max(1, round(parameters.min_width_mm * view.px_per_mm))
    kernel = np.ones((width, width), np.uint8)
    opened = cv2.morphologyEx(at_ceiling.astype(np.uint8), cv2.MORPH_OPEN, kernel)
    mask: Mask = opened.astype(bool)
    return mask


def on_card(clipped: Mask, reach: Mask, parameters: GlareParams = GLARE_PARAMS) -> Mask:
    """The patches of ``clipped`` that can only be the glossy card mirroring a lamp.

    A pale stick in bright light clips too: its lit face is matte and still a stick, and read as
    the card it would hide a palisade. A patch lying (:attr:`GlareParams.within_reach`) where a
    palisade could stand or lean (``reach``, e.g. :func:`vision.read.slots.palisade_mask` of every
    slot) may be either, so it is left to the readers; a lamp's reflection spreads over the cells
    too. Both still make their cells and slots doubtful (:func:`clipped_shares`).

    >>> clipped = np.zeros((60, 60), bool)
    >>> clipped[10:14, 5:50] = True  # along a grid line
    >>> clipped[30:50, 20:40] = True  # across a cell
    >>> reach = np.zeros((60, 60), bool)
    >>> reach[8:16, :] = True
    >>> card = on_card(clipped, reach)
    >>> bool(card[12, 20]), bool(card[40, 30])
    (False, True)
    """
    count, labels = cv2.connectedComponents(clipped.astype(np.uint8), connectivity=8)
    if count <= 1:
        return clipped
    sizes = np.bincount(labels.ravel(), minlength=count)
    inside = np.bincount(labels[reach], minlength=count)
    card = inside < parameters.within_reach * np.maximum(sizes, 1)
    card[0] = False
    kept: Mask = card[labels]
    return kept


def clipped_shares(
    mask: Mask, parameters: GlareParams = GLARE_PARAMS, view: FaceRaster = CANONICAL
) -> tuple[FloatArray, FloatArray]:
    """The share of each cell's inner square (40, in :data:`engine.board.CELLS` order) and of each
    slot's band (67, in :data:`engine.board.SLOTS` order) that ``mask`` marks."""
    s = view.px_per_mm
    integral = cv2.integral(mask.astype(np.uint8))

    def share(x0: float, y0: float, x1: float, y1: float) -> float:
        c0, r0, c1, r1 = (max(0, round(v * s)) for v in (x0, y0, x1, y1))
        c1, r1 = min(c1, mask.shape[1]), min(r1, mask.shape[0])
        area = max(1, (c1 - c0) * (r1 - r0))
        total = integral[r1, c1] - integral[r0, c1] - integral[r1, c0] + integral[r0, c0]
        return float(total / area)

    inset = parameters.cell_inset_mm
    cells = np.array(
        [
            share(x + inset, y + inset, x + PITCH_MM - inset, y + PITCH_MM - inset)
            for x, y in (cell_origin_mm(cell) for cell in CELLS)
        ]
    )
    half = parameters.slot_half_width_mm
    bands = []
    for slot in SLOTS:
        (x0, y0), (x1, y1) = slot_segment_mm(slot)
        # The stick covers the middle of its line, not the crossings at either end.
        if slot.vertical:
            bands.append(share(x0 - half, y0 + half, x0 + half, y1 - half))
        else:
            bands.append(share(x0 + half, y0 - half, x1 - half, y0 + half))
    return cells, np.array(bands)


def doubt_under_glare(
    confidence: FloatArray, shares: FloatArray, parameters: GlareParams = GLARE_PARAMS
) -> FloatArray:
    """``confidence`` capped at :attr:`GlareParams.doubtful` where glare covers at least
    :attr:`GlareParams.doubt_share` of the element.

    >>> doubt_under_glare(np.array([0.99, 0.99, 0.6]), np.array([0.0, 0.5, 0.5])).tolist()
    [0.99, 0.7, 0.6]
    """
    return np.where(hidden(shares, parameters), np.minimum(confidence, parameters.doubtful), confidence)


def hidden(shares: FloatArray, parameters: GlareParams = GLARE_PARAMS) -> npt.NDArray[np.bool_]:
    """Which elements glare hides: those it covers at least :attr:`GlareParams.doubt_share` of.

    >>> hidden(np.array([0.0, 0.2, 0.5])).tolist()
    [False, True, True]
    """
    lost: npt.NDArray[np.bool_] = shares >= parameters.doubt_share
    return lost


def stickless(slot_shares: FloatArray, parameters: GlareParams = GLARE_PARAMS) -> Mask:
    """The slots no palisade can stand on: the card glare (:func:`on_card`) covers more of the
    slot's band (:func:`clipped_shares`) than a stick standing there would leave uncovered.

    A stick is matte wood: standing on its line, its foot hides the card's reflection across
    :data:`vision.geometry.PALISADE_WIDTH_MM` of the band's width (twice
    :attr:`GlareParams.slot_half_width_mm`), whatever the light. Nothing is fitted: the stick's
    width and the band's say how much may clip with a stick there. A reader that sees the lamp's
    reflection on a learnt or improvised face sees neither art nor line there, which is what a
    stick's foot looks like too.

    >>> stickless(np.array([0.0, 0.5, 0.6, 1.0])).tolist()
    [False, False, True, True]
    """
    uncovered = 1.0 - PALISADE_WIDTH_MM / (2 * parameters.slot_half_width_mm)
    ruled_out: Mask = slot_shares > uncovered
    return ruled_out


@dataclass(frozen=True)
class Outlines:
    """What a warrior's outline says of each cell under glare (40 masks, cell number order)."""

    #: A warrior's outline shows: the cell holds a warrior whatever its readers saw.
    found: Mask
    #: No side of a warrior's square steps from the clipped white, on a cell clipped over more of
    #: its square than any warrior covers: the clipped white is the card, and the cell holds none.
    bare: Mask


def outlines_under_glare(
    image: Image,
    homography: FloatArray,
    cell_shares: FloatArray,
    palisades: Iterable[Slot] = (),
    camera: Camera | None = None,
    parameters: GlareParams = GLARE_PARAMS,
) -> Outlines:
    """Which cells under glare (``cell_shares``, :func:`clipped_shares`' first, at least
    :attr:`GlareParams.doubt_share`) show a warrior's outline, and which surely show none, in a
    photo (BGR, ``homography`` from board millimetres to its pixels); the gold cells are not looked
    at.

    The reflection clips a warrior's flat top as it clips the card, and the readers, seeing neither
    art nor colour, read the cell empty. Its outline is left: the side wall and the shadow the
    light and the camera catch draw sharp steps from the clipped white on two sides of a square of
    the warrior's size at least (:attr:`GlareParams.outline_step`), where the bare card under the
    reflection has none, and the square's inside is clipped as the card is
    (:attr:`GlareParams.top_clipped`): :attr:`Outlines.found`. Its colour is gone with its top: a
    warrior so found is read doubtful whatever its colour is read as. Two palisades standing at a
    cell's corner draw two such sides too, as do a cell's printed lines where pale art, not a
    reflection, clipped: the edges within :attr:`GlareParams.beside_mm` of the ``palisades`` read
    (standing and leaning as ``camera`` sees them, :func:`vision.read.slots.palisade_mask`) or
    :attr:`GlareParams.line_beside_mm` of the printed lines do not count (a reflection that clips
    the card hides its lines too).

    The other way round, a reader that knows a pale colour (a copy's white or cream warriors) sees
    one in the clipped white: a white warrior clips too, in a bright light, and covers at most
    ``(WARRIOR_SIDE_MM / PITCH_MM) ** 2`` of its cell. Where more of the cell than that clipped, the
    lamp's reflection lies on the card, and a warrior under it would draw its outline; where not
    one side of the square steps sharply on a straight line, the cell is bare
    (:attr:`Outlines.bare`). The geometry sets the bound, not a fit.
    """
    looked_at = hidden(cell_shares, parameters) & np.array([cell not in GOLD_CELLS for cell in CELLS])
    found = np.zeros(len(CELLS), bool)
    bare = np.zeros(len(CELLS), bool)
    if not looked_at.any():
        return Outlines(found, bare)
    view = FaceRaster(parameters.outline_px_per_mm)
    face = rectify(image, homography, view)
    clipped = clipped_mask(face, parameters, view)
    s = view.px_per_mm
    lines = np.zeros(clipped.shape, np.uint8)
    boxes = [view.cell_box(cell) for cell in CELLS]
    for x0, y0, x1, y1 in boxes:
        cv2.rectangle(lines, (x0, y0), (x1, y1), 1, max(1, round(GRID_LINE_MM * s)))
    sticks = palisade_mask(palisades, camera, view).astype(np.uint8)
    ignored = _beside(lines, parameters.line_beside_mm * s) | _beside(sticks, parameters.beside_mm * s)
    warrior_share = (WARRIOR_SIDE_MM / PITCH_MM) ** 2
    for number in np.flatnonzero(looked_at):
        cell = CELLS[number]
        (x, y, angle), sides, across = outlined_token(face, cell, view, ignore=ignored)
        top = np.zeros(clipped.shape, np.uint8)
        corners = cv2.boxPoints(((x, y), ((WARRIOR_SIDE_MM - 6) * s,) * 2, angle))
        cv2.fillPoly(top, [np.round(corners).astype(np.int32)], 1)
        top_share = float(clipped[top > 0].mean()) if top.any() else 0.0
        on_line = np.array([on_one_line(points, parameters.side_off_line_mm) for points in across])
        straight = int(((sides >= parameters.outline_step) & (on_line >= parameters.side_on_line)).sum())
        found[number] = straight >= 2 and top_share >= parameters.top_clipped
        x0, y0, x1, y1 = boxes[number]
        bare[number] = straight == 0 and float(clipped[y0:y1, x0:x1].mean()) > warrior_share
    return Outlines(found, bare)


def _beside(mask: npt.NDArray[np.uint8], reach_px: float) -> Mask:
    """``mask`` grown by ``reach_px`` on every side."""
    side = 2 * round(reach_px) + 1
    grown: Mask = cv2.dilate(mask, np.ones((side, side), np.uint8)).astype(bool)
    return grown
