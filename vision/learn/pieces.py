"""What any photo of a board teaches about its copy, whatever else it shows.

Shared by the setup photo (:mod:`calibration.setup`) and by the scanner's
guess at a copy it has no profile of (:mod:`vision.learn.improvise`): the board
seen from above, the gold's colour and with it the light's, where a warrior
lies on its cell and its picture, and the face with what tokens hid filled in.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

import cv2
import numpy as np
import numpy.typing as npt

from engine.board import GOLD_CELLS, Cell
from vision.colour import channel_mean, shaded_distance
from vision.geometry import GOLD_DIAMETER_MM, PITCH_MM, WARRIOR_SIDE_MM, FaceRaster, cell_centre_mm
from vision.locate.grid import GOLD_ALIKE, gold_likeness
from vision.logistic import fit_logistic, logistic, with_constant
from vision.looks import RGB
from vision.parallel import each
from vision.templates import PlainBank, near_best, plain_bank, plain_peaks
from vision.weights import load_weights

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]
Floats = npt.NDArray[np.floating[Any]]
#: Where a warrior lies on a top-down view: its centre (view pixels) and turn (degrees).
Place = tuple[float, float, float]

#: The face is kept at the reference face's resolution.
FACE_VIEW = FaceRaster(5.0)
#: The cells are judged on a coarser view.
READ_VIEW = FaceRaster(2.0)


@dataclass(frozen=True)
class PieceParams:
    """How a photo's pieces are found and pictured: the hand-set numbers."""

    #: A gold pixel: its colour within :data:`vision.locate.grid.GOLD_ALIKE` of the gold's direction and at
    #: least this colourful.
    gold_saturation: float = 0.2
    uniform_distance: float = 0.12
    #: Around each warrior the face is filled in this far beyond its side (as
    #: :data:`GOLD_FILL_RADIUS_MM` beyond a gold token).
    warrior_fill_margin_mm: float = 1.5
    #: A warrior's back: the pixels this near its colour, filling a square this many times its side.
    back_distance: float = 0.2
    back_size: tuple[float, ...] = (0.85, 1.12)
    #: A warrior is looked for on its cell's edges capped at this percentile of them (on the tuning
    #: copies' photos, 70 and 93 told warriors from art less well by their looks).
    edge_cap_percentile: int = 85
    #: The strips either side of a warrior's outline whose colours :func:`back_against_art` compares
    #: (mm from its edge): its back just inside, short of its emblem, and the art just outside, beyond
    #: its side and its shadow.
    back_strip_mm: tuple[float, ...] = (1.5, 5.0)
    art_strip_mm: tuple[float, ...] = (1.5, 4.5)
    #: Outline scores, colour steps and spreads are floored here before their logs: a cell of flat
    #: art has no edges and no spread at all.
    min_outline: float = 0.1
    min_lab: float = 0.3
    #: A warrior found on a view of half the size is placed again at full size this far around (px).
    refine_px: int = 3
    #: A warrior's bevel: this share of its side from its edge, left out of its back and its emblem.
    bevel: float = 0.06
    #: How far either side of a warrior's outline :func:`outlined_token` looks for the edge along it:
    #: far enough that the rim of a round reflection, curving away from the side, stays in sight...
    side_reach_mm: float = 4.0
    #: ... the edges across the side blurred this much first (Gaussian sigma), so that the two
    #: edges of a side wall's band, either of which may be the stronger, make one peak in its middle.
    side_blur_mm: float = 1.0


PIECE_PARAMS = PieceParams()


#: Around each token the face is filled in from its surroundings, this far beyond the token.
GOLD_FILL_RADIUS_MM = GOLD_DIAMETER_MM / 2 + 4.0
#: The turns a warrior is looked for at on its corner (degrees).
TOKEN_TURNS_DEG = tuple(np.arange(-20.0, 20.1, 2.5))
#: The columns of :func:`warrior_signs`.
WARRIOR_SIGNS = ("outline", "back_step", "back_spread", "art_spread")
#: Logistic weights over :func:`warrior_signs` and a constant (:func:`warrior_odds`), fitted on the
#: tuning copies' photos, each seen from above by :func:`vision.learn.improvise.board_face`
#: (``vision/data/weights/warriors.json``; ``armadora bench fit COPIES_TUNING_DIR`` writes it again).
WARRIOR_WEIGHTS = load_weights("warriors")
#: The same signs' weights fitted on every world's tuning copies together, each world's cells weighed
#: the same total (``warriors-every-world.json``): where the probability itself is read (a doubt
#: mark, a setup's corner) rather than ranked among the photo's own cells. On 60 raster and 26
#: path-traced tuning photos the fit saw, the raster world's weights misread 124 of 800 path-traced
#: cells and 34 of 1,824 raster ones, these 43 and 35. The improvised profile, whose thresholds and
#: readers were fitted around the raster world's weights, read worse with these in both worlds.
EVERY_WORLD_WEIGHTS = load_weights("warriors-every-world")


def gold_pixels(
    pixels: Floats, white: npt.ArrayLike, gold_bgr: npt.ArrayLike, params: PieceParams = PIECE_PARAMS
) -> npt.NDArray[np.bool_]:
    """Which pixels (..., 3), under light ``white``, are the gold tokens' colour."""
    alike, saturation = gold_likeness(pixels, white, gold_bgr)
    return (alike > GOLD_ALIKE) & (saturation > params.gold_saturation)


def gold_colour(
    pixels: Floats, white: npt.ArrayLike, gold_bgr: npt.ArrayLike, params: PieceParams = PIECE_PARAMS
) -> FloatArray:
    """The gold tokens' colour: the middle of the gold-coloured pixels of the gold cells' discs."""
    discs = pixels[[cell.number for cell in GOLD_CELLS]].reshape(-1, 3)
    chosen = discs[gold_pixels(discs, white, gold_bgr, params=params)]
    return cast(FloatArray, np.median(chosen, axis=0).astype(np.float64))


def dominant_colour(pixels: Floats, params: PieceParams = PIECE_PARAMS) -> tuple[FloatArray, float]:
    """The colour most of a disc is (shading allowed), and the share of the disc near it."""
    colour = np.median(pixels, axis=0).astype(np.float32)
    near = np.ones(len(pixels), bool)
    for _ in range(3):
        near = shaded_distance(pixels, colour) < params.uniform_distance
        if not near.any():
            break
        colour = pixels[near].mean(axis=0).astype(np.float32)
    return colour.astype(np.float64), float(near.mean())


def _cell_edges(face: Image, cell: Cell, view: FaceRaster) -> FloatImage:
    """How strongly the colour changes at each pixel of ``cell`` (the largest Lab gradient)."""
    x0, y0, x1, y1 = view.cell_box(cell)
    lab = cv2.cvtColor(face[y0:y1, x0:x1], cv2.COLOR_BGR2LAB).astype(np.float32)
    edges = np.zeros(lab.shape[:2], np.float32)
    for channel in range(3):
        gx = cv2.Sobel(lab[..., channel], cv2.CV_32F, 1, 0)
        gy = cv2.Sobel(lab[..., channel], cv2.CV_32F, 0, 1)
        edges = np.maximum(edges, np.hypot(gx, gy))
    return edges


def find_token(face: Image, cell: Cell, view: FaceRaster, params: PieceParams = PIECE_PARAMS) -> Place:
    """Where a warrior lies on ``cell`` of a top-down ``face``: its centre (view pixels) and turn (degrees).

    The token's rounded square outline is matched against the edges in the cell, at each turn
    a hand puts it down with. The edges are capped (:attr:`PieceParams.edge_cap_percentile`): a palisade
    along the cell's side draws edges so strong that one side of the square laid on them would
    outweigh all four sides of the warrior beside it.
    """
    return _token_on_edges(_cell_edges(face, cell, view), view.cell_box(cell)[:2], view, params)


def outlined_token(
    face: Image,
    cell: Cell,
    view: FaceRaster,
    params: PieceParams = PIECE_PARAMS,
    ignore: npt.NDArray[np.bool_] | None = None,
) -> tuple[Place, FloatArray, FloatArray]:
    """Where a warrior would lie on ``cell`` (:func:`find_token`), how strongly the colour changes
    along each side of its outline there, strongest first: the mean edge (the largest Lab
    gradient, as :func:`_cell_edges`) along the middle of each side, its rounded corners left out;
    and, side by side in the same order, where across it (mm, within
    :attr:`PieceParams.side_reach_mm`) the edge is strongest at nine points evenly along its
    middle: on one straight line along a warrior's side (:func:`on_one_line`).

    A warrior standing where nothing else draws edges (a lamp's reflection clipping the card and
    its own top alike) shows only there, by the sides the light and the camera catch. The edges
    where ``ignore`` (a mask of the whole ``face``) holds, e.g. the palisades read, do not count.

    >>> view = FaceRaster(2.0)
    >>> face = np.full((view.size[1], view.size[0], 3), 255, np.uint8)  # the card clipped white
    >>> x0, y0, x1, y1 = view.cell_box(Cell(0, 0))
    >>> _ = cv2.rectangle(face, (x0 + 13, y0 + 13), (x1 - 13, y1 - 13), (90, 90, 90), 2)
    >>> (x, y, turn), sides, across = outlined_token(face, Cell(0, 0), view)
    >>> round(x - (x0 + x1) / 2), round(y - (y0 + y1) / 2), round(turn), [bool(side > 60) for side in sides]
    (0, 0, 0, [True, True, True, True])
    >>> [on_one_line(points, 0.5) for points in across]
    [9, 9, 9, 9]
    >>> [bool(side > 60) for side in outlined_token(face, Cell(0, 1), view)[1]]  # a bare cell
    [False, False, False, False]
    """
    edges = _cell_edges(face, cell, view)
    x0, y0, x1, y1 = view.cell_box(cell)
    if ignore is not None:
        edges[ignore[y0:y1, x0:x1]] = 0.0
    origin = (x0, y0)
    place = _token_on_edges(edges, origin, view, params, lone_outline=True)
    x, y, angle = place
    s = view.px_per_mm
    corners = cv2.boxPoints(((x - x0, y - y0), (WARRIOR_SIDE_MM * s, WARRIOR_SIDE_MM * s), angle))
    sides, peaks = [], []
    # Sampled beyond the reach by the blur's own reach, so that the blur sees no border inside it.
    reach, blur = round(params.side_reach_mm * s), params.side_blur_mm * s
    margin = math.ceil(3 * blur)
    across = np.arange(-reach - margin, reach + margin + 1)
    for k in range(4):
        start, end = corners[k], corners[(k + 1) % 4]
        along = np.zeros(edges.shape, np.uint8)
        ends = [np.round(start + share * (end - start)).astype(np.int32) for share in (0.15, 0.85)]
        cv2.line(along, tuple(map(int, ends[0])), tuple(map(int, ends[1])), 1, max(1, round(s)))
        sides.append(float(edges[along > 0].mean()) if along.any() else 0.0)
        normal = np.array([start[1] - end[1], end[0] - start[0]]) / max(float(np.hypot(*(end - start))), 1e-9)
        points = start + np.linspace(0.15, 0.85, 9)[:, None] * (end - start)
        xy = np.round(points[:, None, :] + across[None, :, None] * normal).astype(np.intp)
        xs, ys = np.clip(xy[..., 0], 0, edges.shape[1] - 1), np.clip(xy[..., 1], 0, edges.shape[0] - 1)
        strengths = cv2.GaussianBlur(edges[ys, xs].astype(np.float32), (2 * margin + 1, 1), blur, sigmaY=1e-3)
        inside = strengths[:, margin : len(across) - margin]
        peaks.append(across[margin + np.argmax(inside, axis=1)] / s)
    order = np.argsort(sides)[::-1]
    return place, np.array(sides)[order], np.array(peaks)[order]


def on_one_line(points: npt.ArrayLike, tolerance: float) -> int:
    """The most of ``points`` (where an edge lies across a side, at places evenly along it) that one
    straight line passes within ``tolerance`` of, the line drawn through two of them.

    A warrior's side is straight whichever way the square found for it is turned, and a point or
    two may show something else (the far edge of its side wall, a speck of shadow); the rim of a
    round reflection curves away from any line over much of its length.

    >>> on_one_line([4, 3, 2, 1, 0, -1, -2, -3, -4], 0.5)  # straight, at a slant
    9
    >>> on_one_line([0, 0, 0, 0, 6, 0, 0, 0, -5], 0.5)  # straight but for two stray points
    7
    >>> on_one_line([5, 2.6, 1, 0.2, 0, 0.2, 1, 2.6, 5], 0.7)  # a rim's bow
    4
    >>> on_one_line([3, 9], 0.5)  # two points are always on one line
    2
    """
    across = np.asarray(points, np.float64)
    if len(across) < 3:
        return len(across)
    # Every line through two of the points at once: a row a line, a column a point.
    first, second = np.array(list(itertools.combinations(range(len(across)), 2))).T
    along = np.arange(len(across), dtype=np.float64)
    rise = (across[second] - across[first])[:, None]
    lines = across[first, None] + rise * (along[None, :] - first[:, None]) / (second - first)[:, None]
    return int(np.count_nonzero(np.abs(across[None, :] - lines) <= tolerance, axis=1).max())


def _token_on_edges(
    edges: FloatImage,
    origin: tuple[int, int],
    view: FaceRaster,
    params: PieceParams = PIECE_PARAMS,
    lone_outline: bool = False,
) -> Place:
    """:func:`find_token` on a cell's :func:`_cell_edges`, the cell's top left at ``origin``;
    ``lone_outline``: the cell may be flat but for the outline (:func:`outlined_token`)."""
    x0, y0 = origin
    cap = np.float32(np.percentile(edges, params.edge_cap_percentile))
    if lone_outline and cap <= 0:
        # A cell flat but for an outline (the card and a warrior's top clipped alike under a lamp's
        # reflection) has no edge at that percentile: capped there, the outline would vanish.
        cap = edges.max()
    edges = np.minimum(edges, cap)
    edges = cast(FloatImage, cv2.GaussianBlur(edges, (0, 0), 0.5 * view.px_per_mm))
    # Every turn on a view of half the size, then the best turn and its neighbours at full size
    # around where it lay: a quarter of the work, the same place to a pixel.
    coarse = cast(FloatImage, cv2.resize(edges, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA))
    scale = coarse.shape[1] / edges.shape[1]
    (px, py), rough = strongest_turn(coarse, view.px_per_mm * scale)
    step = float(TOKEN_TURNS_DEG[1] - TOKEN_TURNS_DEG[0])
    best = (-1.0, 0.0, 0.0, 0.0)
    for angle in (rough - step, rough, rough + step):
        template = _outline(float(angle), view.px_per_mm)
        reach = params.refine_px
        left, top = max(0, round(px / scale) - reach), max(0, round(py / scale) - reach)
        window = edges[top : top + template.shape[0] + 2 * reach, left : left + template.shape[1] + 2 * reach]
        if window.shape[0] < template.shape[0] or window.shape[1] < template.shape[1]:
            continue
        peak, (wx, wy) = _best_match(window, template)
        if peak > best[0]:
            half = (template.shape[0] - 1) / 2
            best = (peak, x0 + left + wx + half, y0 + top + wy + half, float(angle))
    return best[1], best[2], best[3]


def strongest_turn(edges: FloatImage, s: float) -> tuple[tuple[int, int], float]:
    """Where the outline of :data:`TOKEN_TURNS_DEG` matching ``edges`` (a view of ``s`` pixels a
    millimetre) most strongly lies (its top left), and its turn: the first turn, where two match
    alike, as matching every turn exactly finds it.

    Every turn's best match is told roughly at once by the spectra, and only the turns that may be
    the best are matched exactly (:func:`vision.templates.near_best`): nearly always one.
    """
    near = near_best(*plain_peaks(edges, _outline_bank(s)))
    matches = [(_best_match(edges, _outline(TOKEN_TURNS_DEG[k], s)), TOKEN_TURNS_DEG[k]) for k in near]
    (_, place), turn = max(matches, key=lambda match: match[0][0])
    return place, float(turn)


def _best_match(edges: FloatImage, template: FloatImage) -> tuple[float, tuple[int, int]]:
    """The strongest match of ``template`` over ``edges`` and where its top left lies."""
    _, peak, _, where = cv2.minMaxLoc(cv2.matchTemplate(edges, template, cv2.TM_CCORR))
    return float(peak), (int(where[0]), int(where[1]))


def place_by_colour(
    face: Image, cell: Cell, colour: npt.ArrayLike, view: FaceRaster, params: PieceParams = PIECE_PARAMS
) -> Place | None:
    """Where a warrior of a known back ``colour`` (float BGR 0..1) lies on ``cell``: the square its
    colour fills, or None when its colour fills no warrior-sized square there (art of its colour)."""
    x0, y0, x1, y1 = view.cell_box(cell)
    pixels = (face[y0:y1, x0:x1] * np.float32(1 / 255)).astype(np.float32)
    near = (shaded_distance(pixels, np.asarray(colour, np.float32)) < params.back_distance).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(near)
    if count < 2:
        return None
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    contours, _ = cv2.findContours(
        (labels == biggest).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    (cx, cy), (w, h), angle = cv2.minAreaRect(hull)
    side = WARRIOR_SIDE_MM * view.px_per_mm
    if not (params.back_size[0] * side <= min(w, h) and max(w, h) <= params.back_size[1] * side):
        return None
    # A square's turn is known only up to a quarter turn: the smallest one.
    angle = (angle + 45.0) % 90.0 - 45.0
    return x0 + cx, y0 + cy, angle


def outline_score(face: Image, cell: Cell, place: Place, view: FaceRaster) -> float:
    """How much stronger the edges are along a warrior's outline at ``place`` than the cell's typical
    (median) edge: above about 3 where a warrior surely lies, about 1 to 2 on art.

    The median, not the mean: a light emblem on a dark back draws strong edges inside the warrior
    that would raise the mean and hide its outline."""
    return _outline_on_edges(_cell_edges(face, cell, view), view.cell_box(cell)[:2], place, view)


def _outline_on_edges(edges: FloatImage, origin: tuple[int, int], place: Place, view: FaceRaster) -> float:
    """:func:`outline_score` on a cell's :func:`_cell_edges`, the cell's top left at ``origin``."""
    x0, y0 = origin
    x, y, angle = place
    s = view.px_per_mm
    along = np.zeros(edges.shape, np.uint8)
    corners = cv2.boxPoints(((x - x0, y - y0), (WARRIOR_SIDE_MM * s, WARRIOR_SIDE_MM * s), angle))
    cv2.polylines(along, [np.round(corners).astype(np.int32)], True, 1, max(1, round(s)))
    if not along.any():
        return 0.0
    return float(edges[along > 0].mean() / max(float(np.median(edges)), 1e-3))


def back_against_art(
    face: Image, place: Place, view: FaceRaster, params: PieceParams = PIECE_PARAMS
) -> tuple[float, float, float]:
    """How the square at ``place`` (:func:`find_token`) stands out from the art around it, as a
    warrior's flat back does: the colour step (CIE76) between the strips just inside and just
    outside its outline (:attr:`PieceParams.back_strip_mm`, :attr:`PieceParams.art_strip_mm`), side by
    side, the second
    smallest of the four (a palisade or a pale shadow can spoil one side); and how far colours
    spread within those strips inside and outside (the sides' median distance from their own
    middle colour, their median).

    An outline's edges say little on flat art, where every edge is faint, and on busy art, where
    every edge is strong: a warrior's back is one colour, unlike the art on every side.

    >>> face = np.full((100, 100, 3), 200, np.uint8)
    >>> _ = cv2.rectangle(face, (34, 34), (65, 65), (40, 60, 160), -1)
    >>> step, back, art = back_against_art(face, (49.5, 49.5, 0.0), FaceRaster(1.0))
    >>> step > 50, back < 1, art < 1
    (True, True, True)
    >>> back_against_art(face, (15.0, 15.0, 0.0), FaceRaster(1.0))[0] < 1
    True
    """
    size, strips = _strips(view.px_per_mm, params=params)
    crop = upright(face, place, size, cv2.BORDER_REFLECT)
    # Only the strips' pixels, each strip after the other, are turned to Lab: half the crop.
    pixels = crop.reshape(-1, 3)[np.concatenate(strips)].astype(np.float32) / 255
    # Channels as rows: each strip's medians then run along memory.
    lab = np.ascontiguousarray(cv2.cvtColor(pixels[None], cv2.COLOR_BGR2LAB)[0].T)
    ends = np.cumsum([len(strip) for strip in strips])
    # Per side: the back's strip, then the art's.
    parts = np.split(lab, ends[:-1], axis=1)
    steps, spreads = [], []
    for k in range(4):
        middles = []
        for pixels in parts[2 * k : 2 * k + 2]:
            middle = medians(pixels)
            middles.append(middle)
            away = pixels - middle[:, None]
            spreads.append(float(medians(np.sqrt(np.add.reduce(away * away, axis=0)))))
        steps.append(float(np.linalg.norm(middles[0] - middles[1])))
    return sorted(steps)[1], float(np.median(spreads[0::2])), float(np.median(spreads[1::2]))


def medians(values: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
    """The median along the last axis, as :func:`numpy.median` gives it, without its overhead:
    a warrior's strips are medians by the thousand a photo.

    >>> values = np.array([[3.0, 1.0, 2.0, 8.0], [5.0, 4.0, 6.0, 7.0]], np.float32)
    >>> medians(values).tolist(), np.median(values, axis=-1).tolist()
    ([2.5, 5.5], [2.5, 5.5])
    >>> float(medians(np.array([3.0, 1.0, 2.0])))
    2.0
    """
    count = values.shape[-1]
    half = count // 2
    if count % 2:
        return np.partition(values, half, axis=-1)[..., half]
    ordered = np.partition(values, (half - 1, half), axis=-1)
    # The two middle values' mean in their own precision, as numpy.median takes it.
    return (ordered[..., half - 1] + ordered[..., half]) / 2


@lru_cache(maxsize=4)
def _strips(s: float, params: PieceParams = PIECE_PARAMS) -> tuple[int, tuple[npt.NDArray[np.intp], ...]]:
    """The side of a square crop centred on an upright warrior at ``s`` pixels a millimetre, and
    per side of it (left, right, top, bottom) the flat indices in that crop of the back's strip
    and of the art's, in that order."""
    half = WARRIOR_SIDE_MM / 2
    size = round(2 * (half + params.art_strip_mm[1] + 1) * s) | 1
    centre = (size - 1) / 2
    dy, dx = (np.mgrid[0:size, 0:size] - centre) / s
    # Every pixel belongs to the side its square ring is nearest.
    ring = np.maximum(np.abs(dx), np.abs(dy))
    across = np.abs(dx) >= np.abs(dy)
    sides = [across & (dx < 0), across & (dx >= 0), ~across & (dy < 0), ~across & (dy >= 0)]
    inner = (ring > half - params.back_strip_mm[1]) & (ring < half - params.back_strip_mm[0])
    outer = (ring > half + params.art_strip_mm[0]) & (ring < half + params.art_strip_mm[1])
    strips = tuple(np.flatnonzero(band & side) for side in sides for band in (inner, outer))
    for strip in strips:
        strip.setflags(write=False)
    return size, strips


def warrior_signs(
    face: Image, cell: Cell, place: Place, view: FaceRaster, params: PieceParams = PIECE_PARAMS
) -> FloatArray:
    """The signs of a warrior at ``place`` on ``cell`` (:data:`WARRIOR_SIGNS`), as logs: its
    :func:`outline_score` and its :func:`back_against_art`."""
    return _signs(face, outline_score(face, cell, place, view), place, view, params)


def _signs(face: Image, outline: float, place: Place, view: FaceRaster, params: PieceParams) -> FloatArray:
    values = np.array([outline, *back_against_art(face, place, view, params=params)], np.float64)
    return cast(
        FloatArray,
        np.log(np.maximum(values, [params.min_outline, params.min_lab, params.min_lab, params.min_lab])),
    )


def placed_tokens(
    face: Image, cells: list[Cell], view: FaceRaster, params: PieceParams = PIECE_PARAMS
) -> tuple[list[Place], FloatArray]:
    """Per cell, where :func:`find_token` finds a warrior and (rows) that warrior's
    :func:`warrior_signs`: the cell's edges worked out once for both."""

    def placed(cell: Cell) -> tuple[Place, FloatArray]:
        edges, origin = _cell_edges(face, cell, view), view.cell_box(cell)[:2]
        place = _token_on_edges(edges, origin, view, params)
        return place, _signs(face, _outline_on_edges(edges, origin, place, view), place, view, params)

    found = each(placed, cells)
    rows = np.array([signs for _, signs in found], np.float64)
    return [place for place, _ in found], rows.reshape(len(cells), len(WARRIOR_SIGNS))


def warrior_odds(signs: FloatArray, weights: npt.ArrayLike = WARRIOR_WEIGHTS) -> FloatArray:
    """The log odds of a warrior for each row of :func:`warrior_signs`, by their looks alone."""
    odds = with_constant(signs) @ np.asarray(weights, np.float64)
    return np.asarray(odds, np.float64)


def warrior_probability(signs: FloatArray, weights: npt.ArrayLike = WARRIOR_WEIGHTS) -> FloatArray:
    """P(a warrior) for each row of :func:`warrior_signs`, by their looks alone."""
    return logistic(with_constant(signs), weights)


def fit_warrior_weights(
    signs: FloatArray, labels: npt.NDArray[np.bool_], example_weights: FloatArray | None = None
) -> FloatArray:
    """Weights for :func:`warrior_odds`, fitted to cells whose truth is known."""
    return fit_logistic(with_constant(signs), labels, example_weights=example_weights)


def balanced_face(balanced: FloatImage) -> Image:
    """A balanced float view (BGR, white about 1) as the 8-bit face the pieces are found on.

    >>> balanced_face(np.array([[[0.5, 1.2, -0.1]]], np.float32)).tolist()
    [[[127, 255, 0]]]
    """
    return np.clip(balanced * 255, 0, 255).astype(np.uint8)


def placed_warriors(
    balanced: FloatImage, cells: list[Cell], view: FaceRaster, params: PieceParams = PIECE_PARAMS
) -> tuple[list[Place], FloatArray]:
    """:func:`placed_tokens` on a balanced float view (BGR, white about 1): where a warrior would lie
    on each cell (as :func:`find_token` finds it on :func:`balanced_face`), and its looks."""
    return placed_tokens(balanced_face(balanced), cells, view, params=params)


def face_looks(
    face: Image, cells: list[Cell], view: FaceRaster, params: PieceParams = PIECE_PARAMS
) -> FloatArray:
    """Per cell (rows), the :func:`warrior_signs` of the warrior :func:`find_token` finds there."""
    return placed_tokens(face, cells, view, params=params)[1]


@lru_cache(maxsize=4)
def _outline_bank(s: float) -> PlainBank:
    """The outlines of :data:`TOKEN_TURNS_DEG` at ``s`` pixels a millimetre, in that order, ready
    for :func:`vision.templates.plain_peaks`: made once per scale."""
    return plain_bank([_outline(float(angle), s) for angle in TOKEN_TURNS_DEG])


@lru_cache(maxsize=128)
def _outline(angle: float, s: float) -> FloatImage:
    """A warrior's outline turned ``angle`` degrees at ``s`` pixels a millimetre: the template
    :func:`find_token` matches, drawn once per turn and scale and shared read only."""
    side = round((WARRIOR_SIDE_MM + 4) * s) | 1
    template = np.zeros((side, side), np.float32)
    centre = (side - 1) / 2
    corners = cv2.boxPoints(((centre, centre), (WARRIOR_SIDE_MM * s, WARRIOR_SIDE_MM * s), angle))
    cv2.polylines(
        template, [np.round(corners * 16).astype(np.int32)], True, 1.0, max(1, round(s)), cv2.LINE_AA, 4
    )
    template.setflags(write=False)
    return template


def token_image(face: Image, place: Place, view: FaceRaster) -> Image:
    """The warrior at ``place`` (:func:`find_token`) cut out upright, its whole square."""
    return upright(face, place, round(WARRIOR_SIDE_MM * view.px_per_mm))


def emblem(picture: Image, params: PieceParams = PIECE_PARAMS) -> FloatImage:
    """A warrior picture's (:func:`token_image`) middle in grey at half size, its bevel left out:
    what its emblem matches on (:func:`emblem_match`)."""
    margin = round(picture.shape[0] * params.bevel * 2)
    grey = cv2.cvtColor(picture[margin:-margin, margin:-margin], cv2.COLOR_BGR2GRAY).astype(np.float32)
    return cast(FloatImage, cv2.resize(grey, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA))


def emblem_match(a: FloatImage, b: FloatImage) -> tuple[int, float]:
    """The quarter turns of emblem ``a`` (:func:`emblem`) that best match emblem ``b`` (allowing for a
    few pixels' shift, as a warrior is placed only roughly), and how well (normalised correlation).

    A warrior's turn is known only up to a quarter turn, and its emblem's shape is the same whatever
    the light's colour or strength: where glare washes a back's colour out, the emblem's shape
    still shows.

    >>> star = np.zeros((40, 40, 3), np.uint8)
    >>> star[8:32, 18:22] = 255
    >>> star[18:22, 8:20] = 255
    >>> turn, match = emblem_match(emblem(np.rot90(star).copy()), emblem(star))
    >>> turn, round(match, 2)
    (3, 1.0)
    """
    return turned_match(emblem_turns(a), b)


def emblem_turns(a: FloatImage) -> tuple[FloatImage, ...]:
    """The middle of emblem ``a`` (:func:`emblem`) at each quarter turn, as :func:`emblem_match` lays
    it on another: made once for an emblem matched with many (:func:`turned_match`)."""
    margin = a.shape[0] // 8
    return tuple(np.ascontiguousarray(np.rot90(a, turn)[margin:-margin, margin:-margin]) for turn in range(4))


def turned_match(turns: tuple[FloatImage, ...], b: FloatImage) -> tuple[int, float]:
    """:func:`emblem_match` of the emblem whose :func:`emblem_turns` are ``turns`` with emblem ``b``."""
    best = (0, -1.0)
    for turn, middle in enumerate(turns):
        match = float(cv2.minMaxLoc(cv2.matchTemplate(b, middle, cv2.TM_CCOEFF_NORMED))[1])
        if match > best[1]:
            best = (turn, match)
    return best


def upright(face: Image, place: Place, side: int, border: int = cv2.BORDER_CONSTANT) -> Image:
    """A ``side`` pixels square of ``face`` centred on ``place`` and turned back by its turn; what
    lies outside the face is filled by OpenCV's ``border`` mode."""
    x, y, angle = place
    turn = np.asarray(cv2.getRotationMatrix2D((x, y), angle, 1.0), np.float64)
    turn[:, 2] += (side - 1) / 2 - np.array([x, y])
    return cast(Image, cv2.warpAffine(face, turn, (side, side), flags=cv2.INTER_LINEAR, borderMode=border))


def fill_tokens(face: Image, warriors: list[Place], params: PieceParams = PIECE_PARAMS) -> Image:
    """The face with what the gold and the corner warriors hide filled in from around them."""
    mask = np.zeros(face.shape[:2], np.uint8)
    s = FACE_VIEW.px_per_mm
    for cell in GOLD_CELLS:
        x, y = cell_centre_mm(cell)
        cv2.circle(mask, (round(x * s), round(y * s)), round(GOLD_FILL_RADIUS_MM * s), 255, -1)
    for x, y, angle in warriors:
        size = (WARRIOR_SIDE_MM + 2 * params.warrior_fill_margin_mm) * s
        corners = cv2.boxPoints(((x, y), (size, size), angle))
        cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], 255)
    return fill_in(face, mask, PITCH_MM * s / 60)


def filling(face: Image, mask: npt.NDArray[np.uint8]) -> Image:
    """What :func:`fill_in` lays into ``face`` where ``mask`` covers it (the whole face, the rest as
    the fill left it): the holes filled from around them on a quarter-size copy, as inpainting at
    full size is slow for holes this large."""
    small = cv2.resize(face, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    small_mask = cv2.resize(mask, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
    filled = cv2.inpaint(small, small_mask, 3, cv2.INPAINT_TELEA)
    return cast(Image, cv2.resize(filled, (face.shape[1], face.shape[0]), interpolation=cv2.INTER_LINEAR))


def fill_in(face: Image, mask: npt.NDArray[np.uint8], blend_px: float = 0.0) -> Image:
    """``face`` with what ``mask`` covers filled in from around it, blended over ``blend_px`` (a
    Gaussian's sigma; 0 for a hard edge).

    >>> face = np.zeros((80, 120, 3), np.uint8)
    >>> face[:, :] = (30, 60, 90)
    >>> face[30:50, 50:70] = (255, 255, 255)  # a token on plain art
    >>> mask = np.zeros((80, 120), np.uint8)
    >>> mask[28:52, 48:72] = 255
    >>> for blend_px in (0.0, 2.0):
    ...     filled = fill_in(face, mask, blend_px)
    ...     print(filled[40, 60].tolist(), bool((filled[mask == 0] == face[mask == 0]).all()))
    [30, 60, 90] True
    [30, 60, 90] False
    """
    big = filling(face, mask)
    out = face.copy()
    if blend_px <= 0:
        # OpenCV's masked copy: a tenth of the time numpy's select takes over the whole face.
        cv2.copyTo(big, mask, out)
        return out
    soft = cv2.GaussianBlur(mask, (0, 0), blend_px)
    # Blend only where the fill reaches, box by box: the holes are a small part of the face, and
    # indexing the whole face by where they reach costs more than the blend itself. Each hole's
    # box is widened by as far as the blur spreads it (OpenCV's kernel reaches 3 or 4 sigmas).
    reach = math.ceil(4 * blend_px) + 1
    holes, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)

    def blended(hole: cv2.typing.MatLike) -> tuple[tuple[slice, slice], Image]:
        x, y, w, h = cv2.boundingRect(hole)
        box = np.s_[max(0, y - reach) : y + h + reach, max(0, x - reach) : x + w + reach]
        share = soft[box].astype(np.float32)[..., None] / 255
        return box, np.clip(face[box] * (1 - share) + big[box] * share, 0, 255).astype(np.uint8)

    # Where a box holds none of the fill (share 0) the blend gives the face back unchanged, and
    # where two boxes meet both give the same blend.
    for box, blend in each(blended, holes):
        out[box] = blend
    return out


def bgr_to_rgb(bgr: npt.ArrayLike) -> RGB:
    b, g, r = (round(float(np.clip(v, 0, 1)) * 255) for v in np.asarray(bgr, np.float64))
    return (r, g, b)


@dataclass(frozen=True)
class RingParams:
    """How a round token is found by its outline alone, whatever its colour."""

    #: Radii tried, as shares of the gold token's: a copy with a wider pitch shows its 30 mm tokens
    #: smaller on the reference face's millimetres.
    radius_shares: tuple[float, ...] = (0.8, 0.85, 0.9, 0.95, 1.0, 1.05, 1.1)
    #: How far from its cell's centre a token's centre is looked for (mm), in steps of this (mm).
    search_mm: float = 5.0
    step_mm: float = 1.0
    #: Points around each circle; the ring's strength is this percentile of the edge met along it,
    #: so a token's outline must go round most of the circle, as an arc of the art's never does.
    points: int = 72
    percentile: float = 25.0
    #: The grey image is smoothed this much (mm) first, against noise and print texture.
    blur_mm: float = 0.6


RING_PARAMS = RingParams()


def ring_strength(
    view: Floats, centres_mm: npt.ArrayLike, view_raster: FaceRaster, params: RingParams = RING_PARAMS
) -> FloatArray:
    """How strongly a round outline of a gold token's size circles each of ``centres_mm``.

    The edge across the circle (the grey gradient's radial part, either sign), taken at the
    :attr:`RingParams.percentile` of its points and at the best centre and radius nearby. A
    token's rim and shadow draw such an edge all the way round, in any colour and under a lamp's
    highlight; a cell of art only where its shapes happen to be that round and that large. The
    values are only meant to be compared with each other within one photo.

    >>> raster = FaceRaster(2.0)
    >>> width, height = raster.size
    >>> flat = np.full((height, width, 3), 0.5, np.float32)
    >>> disc = flat.copy()
    >>> centre = (100.0, 100.0)
    >>> _ = cv2.circle(disc, (200, 200), 30, (0.9, 0.8, 0.2), -1)
    >>> bare, token = ring_strength(flat, [centre], raster)[0], ring_strength(disc, [centre], raster)[0]
    >>> bool(bare < 1e-6 < token)
    True
    """
    sigma = params.blur_mm * view_raster.px_per_mm
    grey = cv2.GaussianBlur(channel_mean(np.asarray(view, np.float32)), (0, 0), sigma)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3) / 8
    angles = np.linspace(0.0, 2 * np.pi, params.points, endpoint=False)
    cos, sin = np.cos(angles), np.sin(angles)
    steps = np.arange(-params.search_mm, params.search_mm + 1e-9, params.step_mm)
    dx, dy = (grid.ravel() for grid in np.meshgrid(steps, steps))
    radii = np.array(params.radius_shares) * GOLD_DIAMETER_MM / 2
    scale = view_raster.px_per_mm
    height, width = grey.shape
    strengths = []
    for cx, cy in np.asarray(centres_mm, np.float64).reshape(-1, 2):
        # (offsets, radii, points) pixel coordinates of every circle tried around this centre.
        xs = (cx + dx[:, None, None] + radii[None, :, None] * cos) * scale
        ys = (cy + dy[:, None, None] + radii[None, :, None] * sin) * scale
        xi = np.clip(np.round(xs).astype(np.intp), 0, width - 1)
        yi = np.clip(np.round(ys).astype(np.intp), 0, height - 1)
        radial = np.abs(gx[yi, xi] * cos + gy[yi, xi] * sin)
        strengths.append(float(np.percentile(radial, params.percentile, axis=2).max()))
    return np.array(strengths)
