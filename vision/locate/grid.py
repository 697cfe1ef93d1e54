"""Find a board whose art is unknown: by its gold tokens, then to the millimetre by its printed grid.

Every copy of the game has the same 8 gold tokens on the same 8 cells, and a
grid of thin dark lines printed on every cell edge. The gold tokens are
found as yellow discs; four of them, matched to four gold cells, give a
homography, kept when the other gold cells land on gold tokens too (the
layout has no symmetry, so only the right way up fits them all). Where too
few tokens show, the grid's own lines give a homography instead
(:mod:`vision.locate.gridlines`), then the board's outline. The grid's crossings
then pull that homography onto the printed lines, and the grid's extent and
the gold settle where on them the board lies (:mod:`vision.locate.lattice`); a fit
whose lines go on past the grid's edge is a tiled table's, not a board's. Where
warriors and palisades hide every crossing, an outline that lies on the gold
tokens is the board.

This is how a setup photo of a copy never seen is found (:mod:`calibration.setup`),
and how the scanner reads a board without a profile of its copy.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import NamedTuple, cast

import cv2
import numpy as np
import numpy.typing as npt

from engine.board import COLS, GOLD_CELLS, ROWS
from vision.colour import channel_mean, channel_norm
from vision.geometry import (
    GRID_LINE_MM,
    MARGIN_MM,
    PITCH_MM,
    FaceRaster,
    board_corners_mm,
    cell_centre_mm,
    keeps_handedness,
)
from vision.locate.features import FoundBy, to_grey
from vision.locate.gridlines import lattice_homographies
from vision.locate.lattice import gold_tokens, lines_around, lines_beyond, settle
from vision.parallel import each
from vision.read.rectify import reduce_for_view, warp_to_view
from vision.texture import dark_lines, upper_percentile

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]

#: Gold is looked for on the photo reduced to this long side.
SEARCH_LONG_SIDE = 1000
#: A gold pixel's colour, once the photo's average colour is taken as grey, points this near the gold's
#: (cosine of the angle between their chroma) and has at least this much colour. Tokens are also
#: looked for among pixels nearer still: on ochre art under warm light every pixel of the board can
#: pass the first, and the tokens run into the art.
GOLD_ALIKE = 0.85
GOLD_ALIKES = (GOLD_ALIKE, 0.95)


@dataclass(frozen=True)
class GridParams:
    """How the board is found by its gold and grid: the hand-set numbers."""

    #: The light's colour is the power mean of the photo's pixels with this exponent, the brightest
    #: counting most (:func:`light_colour`).
    white_power: int = 6
    #: The least colour of a gold pixel (with :data:`GOLD_ALIKES`), tried from the most lenient.
    gold_saturation_floors: tuple[float, ...] = (0.22, 0.35, 0.5, 0.65)
    #: A gold token's area as a share of the photo, from a small steep board to one filling the frame.
    min_token_area: float = 0.00015
    max_token_area: float = 0.012
    #: Circles (cv2.HOUGH_GRADIENT_ALT): the edge threshold, how perfect a circle must be, and the share
    #: of its disc (inside its rim) that must be gold.
    circle_edge: int = 150
    circle_roundness: float = 0.7
    circle_gold_share: float = 0.5
    #: Candidate tokens tried where the first :data:`MAX_CANDIDATES` all fail (the gold's own among
    #: many gold-coloured blobs: a wooden table, ochre art).
    more_candidates: int = 20
    #: A gold cell is hit when a candidate lies within this share of a pitch of where it falls.
    hit_radius: float = 0.3
    #: A start putting every gold cell within this share of a pitch of where a start pulled onto the
    #: grid already put it is that start again: it is not pulled onto the grid again.
    same_start: float = 0.01
    #: At least this many of the 8 gold cells must be hit.
    min_hits: int = 5
    #: A triangle of candidates or gold cells flatter than this (radians) may fit either way round:
    #: three in a row, or two tokens found twice.
    flat_turn: float = 0.05
    #: Seen at 60 degrees, the near end of the board is about 3 times larger than the far end.
    max_pitch_ratio: float = 3.0
    #: Each round searches this far (mm) around each crossing; then half as far, then less.
    search_mm: tuple[float, ...] = (5.0, 2.5, 1.5)
    #: Blocks of 3x3 cells are first matched this far (mm) around where the gold put them; at least this
    #: many of the 7 must agree on the correction, within this distance (mm).
    block_search_mm: float = 16.0
    min_blocks: int = 5
    block_agree_mm: float = 2.5
    arm_mm: float = 14.0
    #: A board's outline: edges at these thresholds (cv2.Canny), enclosing at least this share of the
    #: reduced photo, its hull four-cornered within this share of its perimeter (cv2.approxPolyDP).
    outline_edges: tuple[tuple[int, int], ...] = ((30, 90), (60, 150))
    min_outline_area: float = 0.04
    outline_approx: float = 0.02
    #: The photo's thin dark lines (:func:`photo_lines`): darker than what lies within this many
    #: pixels of the reduced photo (:data:`SEARCH_LONG_SIDE`), several times a grid line's width
    #: there, whether the board fills the frame or a third of it.
    line_kernel_px: int = 9
    #: A way of laying the gold whose grid lies on the photo's lines (:func:`line_evidence`) one
    #: robust standard deviation better than its way's others (:func:`standout`) is tried as early
    #: as one with this many more gold cells on tokens: told against the photo's own other layouts,
    #: whatever its contrast. On the tuning photos of both worlds (224 of them, 211 locking onto the
    #: grid), the first start to lock came at most 10th (52nd by the gold alone), at 0.25 and 0.5.
    line_weight: float = 0.5
    #: Where none of this many ways of laying the gold, best first, has locked onto the grid, the
    #: grid is hidden or the gold misread: the grid's lines and the board's outline are tried
    #: instead of the rest (up to 5 x :attr:`layouts` of them, a second or more each ten).
    gold_tries: int = 20
    #: At least this many crossings must agree for a start to have locked onto the grid.
    min_crossings: int = 12
    #: At most this many ways of laying the gold cells on the candidates are tried in each pass: where
    #: art the colour of gold makes false candidates, the right way can rank low.
    layouts: int = 16
    #: A settled fit shows at least this much gold, summed over the 8 gold cells' discs
    #: (:func:`vision.locate.lattice.settle`).
    min_gold_sum: float = 4.0
    #: The grid's lines may go on past its outer lines this strongly at most, as a share of how they
    #: show on it (:func:`vision.locate.lattice.lines_beyond`): on 184 of the tuning copies' photos a
    #: board's went on at 0.28 at most, where a tiled table's went on at 0.88 and more.
    max_lines_beyond: float = 0.5
    #: This many crossings agreeing settles it; fewer and the next way of laying the gold is tried too.
    confirming_crossings: int = 30
    #: ...unless the fit also puts this many of the 8 gold cells on gold tokens: the layout has no
    #: symmetry, so no other placement that the grid confirms does that. A crowded board hides most
    #: crossings under its warriors and palisades, and there every other way was tried for nothing.
    confirming_gold: int = 7
    #: Once a start has locked onto the grid, this many more that do no better end the pass: the ways
    #: of laying the gold come best first, and a later one seldom beats an earlier fit (where one did
    #: on the tuning photos, the pass had found none before it).
    patience: int = 4
    #: Where no start locks onto the grid (a full board hides its crossings under warriors and
    #: palisades), an outline that puts at least this many of the 8 gold cells on gold tokens is the
    #: board: the outline and the gold are signs of their own. On the tuning photos where nothing
    #: locked, a board's outline put 5 to 7 there, a table's shapes 2 at most.
    outline_gold: int = 5
    #: A gold token is a disc of a token's size at least this share gold
    #: (:func:`vision.locate.lattice.gold_tokens`), looked for within these shares of a pitch of
    #: where the outline, then the fit to the tokens found, puts each gold cell: an outline is the
    #: board's edge or its frame's printed line, a sixth of a pitch apart, and placed by its corners.
    #: Art dotted with gold circles (a dark copy's) hides the candidates among them, but hardly fills
    #: a token's disc away from the tokens: the board's other cells' discs must be, at their median,
    #: under half as full.
    token_fill: float = 0.7
    token_reach: tuple[float, ...] = (0.6, 0.25)


GRID_PARAMS = GridParams()


#: At most this many candidate tokens are tried, the roundest first; where they all fail, this many
#: blobs (the gold's own among many gold-coloured ones: a wooden table, ochre art).
MAX_CANDIDATES = 12
#: The grid is refined on a top-down view with this many pixels a millimetre.
GRID_VIEW = FaceRaster(3.0)


#: Quadruples of gold cells to lay on the candidates.
Bases = tuple[tuple[int, ...], ...]


class Start(NamedTuple):
    """A start for the grid: a homography, the gold cells it put on candidates (None if not laid by
    them), the candidates and their roundness, and how early to try it (:func:`best_first`)."""

    homography: FloatArray
    hits: int | None
    candidates: FloatArray
    roundness: FloatArray
    rank: float = 0.0


@dataclass(frozen=True, eq=False)
class GridFit:
    """A board found by its gold and grid: ``homography`` maps board millimetres to photo pixels."""

    homography: FloatArray
    #: Gold cells with a gold token where the first homography put them.
    gold_hits: int
    #: Every gold-coloured round blob seen (photo pixels), and how round each is.
    tokens: FloatArray
    roundness: FloatArray
    #: Crossings of the grid found where the refined homography puts them, of those looked for.
    crossings: int
    looked_for: int
    #: Where the fit started: the gold tokens, the grid's lines or the board's outline.
    found_by: FoundBy = FoundBy.GOLD
    #: Pulled onto the board's cell edges (:func:`vision.locate.follow.followed`).
    followed: bool = False


def _chroma_unit(bgr: FloatArray) -> FloatArray:
    grey = bgr.mean(axis=-1, keepdims=True)
    c = bgr - grey
    return cast(FloatArray, c / np.maximum(np.linalg.norm(c, axis=-1, keepdims=True), 1e-6))


def light_colour(
    pixels: npt.ArrayLike, normalise: bool = True, params: GridParams = GRID_PARAMS
) -> FloatArray:
    """The colour of the light (BGR) by the "shades of grey" estimate: its channels' mean 1, or
    unnormalised, about how a white surface shows in ``pixels``' own units.

    A high power mean of each channel, which a large coloured table sways less than the plain mean.
    """
    # Powers in single precision, ten times faster; the mean is summed in double, by einsum: the
    # same sums as numpy's mean down the columns, in less than half its time.
    flat = np.asarray(pixels, np.float32).reshape(-1, 3)
    top = max(float(flat.max()), 1e-6)
    powered = np.power(flat / np.float32(top), np.float32(params.white_power))
    mean = np.einsum("ij->j", powered, dtype=np.float64) / len(powered)
    white = np.power(mean, 1 / params.white_power)
    if not normalise:
        return cast(FloatArray, white * top)
    return cast(FloatArray, white / max(float(white.mean()), 1e-6))


def gold_likeness(
    pixels: npt.NDArray[np.floating], white: npt.ArrayLike, gold_bgr: npt.ArrayLike
) -> tuple[FloatImage, FloatImage]:
    """For pixels (..., 3) under light ``white``: how nearly their colour points the gold's way
    (cosine), and how much colour they have (chroma over grey)."""
    balanced = cast(FloatImage, np.asarray(pixels, np.float32) / np.asarray(white, np.float32))
    grey = channel_mean(balanced)
    colour = balanced - grey[..., None]
    norm = channel_norm(colour)
    target = _chroma_unit(np.asarray(gold_bgr, np.float64)[None, :])[0].astype(np.float32)
    alike = (colour @ target) / np.maximum(norm, 1e-6)
    return alike.astype(np.float32), (norm / np.maximum(grey, 1e-3)).astype(np.float32)


@dataclass(frozen=True, eq=False)
class GoldMap:
    """The photo reduced for the gold search (``scale`` of the photo's size), and each pixel's
    :func:`gold_likeness` with the light's colour (:func:`light_colour`) taken off first, so that
    warm or cold light does not turn gold into something else."""

    small: Image
    scale: float
    alike: FloatImage
    saturation: FloatImage


def gold_map(image: Image, gold_bgr: npt.ArrayLike, params: GridParams = GRID_PARAMS) -> GoldMap:
    """:class:`GoldMap` of ``image``, for :func:`gold_candidates` and :func:`circle_candidates`."""
    factor = min(1.0, SEARCH_LONG_SIDE / max(image.shape[:2]))
    small = (
        cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA) if factor < 1 else image
    )
    return _gold_map_in_light(cast(Image, small), factor, gold_bgr, params=params)


def _gold_map_in_light(
    small: Image,
    scale: float,
    gold_bgr: npt.ArrayLike,
    where: npt.NDArray[np.bool_] | None = None,
    params: GridParams = GRID_PARAMS,
) -> GoldMap:
    """:class:`GoldMap` of the reduced photo ``small``, the light's colour taken from its pixels
    ``where`` (all of them if None)."""
    pixels = small.astype(np.float32)
    white = light_colour(pixels if where is None else pixels[where], params=params)
    alike, saturation = gold_likeness(pixels, white, gold_bgr)
    return GoldMap(small, scale, alike, saturation)


def gold_under_board_light(
    seen: GoldMap, gold_bgr: npt.ArrayLike, homography: FloatArray, params: GridParams = GRID_PARAMS
) -> Image:
    """:func:`gold_mask` of ``seen`` with the light's colour taken from the board's own pixels, where
    ``homography`` (board mm to ``seen.small``'s pixels) puts it, rather than from the whole photo:
    a large coloured table (terracotta tiles under warm light) sways the whole photo's estimate until
    the tokens show no colour."""
    board = np.zeros(seen.small.shape[:2], np.uint8)
    corners = cv2.perspectiveTransform(board_corners_mm()[None], homography)[0]
    cv2.fillConvexPoly(board, np.round(corners).astype(np.int32), 1)
    if not board.any():
        return np.zeros(seen.small.shape[:2], np.uint8)
    return gold_mask(
        _gold_map_in_light(seen.small, seen.scale, gold_bgr, board > 0, params=params), params=params
    )


def gold_mask(seen: GoldMap, params: GridParams = GRID_PARAMS) -> Image:
    """1 where :class:`GoldMap`'s pixels look like gold at the lowest saturation floor, else 0."""
    return ((seen.alike > GOLD_ALIKE) & (seen.saturation > min(params.gold_saturation_floors))).astype(
        np.uint8
    )


def gold_candidates(
    seen: GoldMap, keep: int = MAX_CANDIDATES, params: GridParams = GRID_PARAMS
) -> tuple[FloatArray, FloatArray]:
    """Centres (photo pixels) of the ``keep`` roundest blobs the colour of gold and the size of a
    token, and their roundness: blobs at each of :data:`GOLD_ALIKES` and
    :attr:`GridParams.gold_saturation_floors`, a token found at several kept at its roundest."""
    small, factor, alike, saturation = seen.small, seen.scale, seen.alike, seen.saturation
    total = small.shape[0] * small.shape[1]
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    centres: list[tuple[float, float]] = []
    scores: list[float] = []
    # Ochre art beside a token can join it into one blob at low thresholds and not at higher ones.
    for closeness, floor in itertools.product(GOLD_ALIKES, params.gold_saturation_floors):
        gold = ((alike > closeness) & (saturation > floor)).astype(np.uint8)
        opened = cv2.morphologyEx(gold, cv2.MORPH_OPEN, kernel)
        contours, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            hull = cv2.convexHull(contour)
            area = cv2.contourArea(hull)
            if not params.min_token_area * total <= area <= params.max_token_area * total or len(hull) < 5:
                continue
            (cx, cy), (a, b), _ = cv2.fitEllipse(hull)
            if min(a, b) < 0.3 * max(a, b):
                continue
            ellipse_area = np.pi * a * b / 4
            fill = cv2.contourArea(contour) / max(ellipse_area, 1.0)
            score = min(area, ellipse_area) / max(area, ellipse_area) * min(fill, 1.0)
            # The same token seen at another threshold: keep its roundest outline.
            near = next(
                (i for i, (x, y) in enumerate(centres) if abs(x - cx) + abs(y - cy) < 0.4 * max(a, b)), None
            )
            if near is not None:
                if score > scores[near]:
                    centres[near], scores[near] = (cx, cy), score
                continue
            centres.append((cx, cy))
            scores.append(score)
    order = np.argsort(scores)[::-1][:keep]
    found = np.array(centres, np.float64).reshape(-1, 2) / factor
    return found[order], np.array(scores, np.float64)[order]


def circle_candidates(seen: GoldMap, params: GridParams = GRID_PARAMS) -> tuple[FloatArray, FloatArray]:
    """Centres (photo pixels) of circles the size of a token whose disc is mostly the colour of gold,
    strongest circle first, and the share of each disc that is gold.

    On art printed in ochre the gold runs into the art around it and no blob of gold alone is round
    (:func:`gold_candidates` misses it), but a token's rim still draws a circle.
    """
    small, factor = seen.small, seen.scale
    total = small.shape[0] * small.shape[1]
    smallest = max(3, int(np.sqrt(params.min_token_area * total / np.pi)))
    largest = int(np.sqrt(params.max_token_area * total / np.pi)) + 1
    grey = to_grey(small)
    found = cv2.HoughCircles(
        grey, cv2.HOUGH_GRADIENT_ALT, 1.5, 1.5 * smallest,
        param1=params.circle_edge, param2=params.circle_roundness, minRadius=smallest, maxRadius=largest,
    )  # fmt: skip
    gold = gold_mask(seen, params=params)
    centres, shares = [], []
    for x, y, radius in np.zeros((0, 3)) if found is None else found[0]:
        # The disc drawn in a window around it alone, not over the whole photo each time.
        cx, cy, r = round(float(x)), round(float(y)), max(1, round(0.8 * float(radius)))
        x0, y0 = max(0, cx - r), max(0, cy - r)
        window = gold[y0 : cy + r + 1, x0 : cx + r + 1]
        disc = np.zeros(window.shape, np.uint8)
        cv2.circle(disc, (cx - x0, cy - y0), r, 1, -1)
        share = float(window[disc > 0].mean())
        if share >= params.circle_gold_share:
            centres.append((float(x), float(y)))
            shares.append(share)
    return (
        np.array(centres, np.float64).reshape(-1, 2)[:MAX_CANDIDATES] / factor,
        np.array(shares, np.float64)[:MAX_CANDIDATES],
    )


BOARD_CORNERS_MM = board_corners_mm()
ALONG_ROW = np.array([PITCH_MM, 0.0])
GOLD_MM = np.array([cell_centre_mm(cell) for cell in GOLD_CELLS], np.float64)
#: Quadruples of gold cells, spread over the board, whose homography is tried first.
BASES = ((0, 4, 7, 3), (1, 5, 6, 2), (0, 5, 6, 3), (1, 4, 7, 2))
#: Then every other quadruple of gold cells enclosing at least this area (mm²; the grid's is 81,000).
MIN_BASIS_AREA_MM2 = 15_000.0


def _spread_bases(min_area: float) -> tuple[tuple[int, ...], ...]:
    """Quadruples of gold cells but :data:`BASES` whose hull has 4 corners and ``min_area`` mm²."""
    tried = {frozenset(basis) for basis in BASES}
    bases = []
    for quad in itertools.combinations(range(len(GOLD_MM)), 4):
        hull = cv2.convexHull(GOLD_MM[list(quad)].astype(np.float32))
        if len(hull) == 4 and cv2.contourArea(hull) >= min_area and frozenset(quad) not in tried:
            bases.append(quad)
    return tuple(bases)


SPREAD_BASES = _spread_bases(MIN_BASIS_AREA_MM2)


def _turns(points: FloatArray, params: GridParams = GRID_PARAMS) -> npt.NDArray[np.int8]:
    """For quadruples of points (..., 4, 2): which way each of their four triangles turns, 1 clockwise
    (as the photo's and the board's axes are drawn, y down), -1 the other way, 0 too nearly flat to
    tell (its sides within :attr:`GridParams.flat_turn` radians of one line).

    >>> _turns(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])).tolist()
    [1, 1, 1, 1]
    >>> _turns(np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.001], [0.0, -1.0]])).tolist()
    [0, -1, -1, -1]
    """
    turns = []
    for a, b, c in ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)):
        ab, ac = points[..., b, :] - points[..., a, :], points[..., c, :] - points[..., a, :]
        cross = ab[..., 0] * ac[..., 1] - ab[..., 1] * ac[..., 0]
        flat = np.abs(cross) <= params.flat_turn * np.linalg.norm(ab, axis=-1) * np.linalg.norm(ac, axis=-1)
        turns.append(np.where(flat, 0, np.sign(cross)).astype(np.int8))
    return np.stack(turns, axis=-1)


def _from_square(quads: FloatArray) -> FloatArray:
    """Homographies from the unit square's corners (0, 0), (1, 0), (1, 1), (0, 1) to each quad
    (N, 4, 2), as (N, 3, 3) with their last entry 1. No homography takes the square where three of
    a quad's corners lie on one line: NaN where they are its last three, a singular matrix where
    they are others (which :func:`vision.geometry.keeps_handedness` refuses, as it does NaN).

    In closed form: thousands of layouts a photo are worked out at once, each with a handful of
    products where solving its eight equations took a factorisation.

    >>> quads = np.array([[[1.0, 1.0], [5.0, 2.0], [4.0, 6.0], [0.0, 3.0]], [[0, 0], [1, 0], [2, 1], [3, 2]]])
    >>> square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    >>> _project(_from_square(quads)[:1], square).round(9).tolist()
    [[[1.0, 1.0], [5.0, 2.0], [4.0, 6.0], [0.0, 3.0]]]
    >>> bool(np.isnan(_from_square(quads)[1]).all())  # its last three corners on one line
    True
    """
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = (quads[:, k].T for k in range(4))
    sx, sy = x0 - x1 + x2 - x3, y0 - y1 + y2 - y3
    dx1, dx2, dy1, dy2 = x1 - x2, x3 - x2, y1 - y2, y3 - y2
    homographies = np.empty((len(quads), 3, 3))
    with np.errstate(invalid="ignore", divide="ignore"):
        det = dx1 * dy2 - dx2 * dy1
        g, h = (sx * dy2 - dx2 * sy) / det, (dx1 * sy - sx * dy1) / det
        homographies[:, 0] = np.stack([x1 - x0 + g * x1, x3 - x0 + h * x3, x0], axis=-1)
        homographies[:, 1] = np.stack([y1 - y0 + g * y1, y3 - y0 + h * y3, y0], axis=-1)
    homographies[:, 2] = np.stack([g, h, np.ones_like(g)], axis=-1)
    homographies[~np.isfinite(homographies).all(axis=(1, 2))] = np.nan
    return homographies


def _homographies(src: FloatArray, dst: FloatArray) -> FloatArray:
    """Batched 4-point homographies: src (4, 2) to each dst (N, 4, 2), as (N, 3, 3) with their last
    entry 1; NaN where no homography takes src there (:func:`_from_square`).

    >>> src = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 2.0], [0.0, 2.0]])
    >>> _homographies(src, (src * 3 + 1)[None]).round(9)[0].tolist()
    [[3.0, 0.0, 1.0], [0.0, 3.0, 1.0], [0.0, 0.0, 1.0]]
    """
    to_src = _from_square(src[None])[0]
    with np.errstate(invalid="ignore"):
        homographies = _from_square(dst) @ np.linalg.inv(to_src)
        return homographies / homographies[:, 2:3, 2:3]


def _project(h: FloatArray, points: FloatArray) -> FloatArray:
    """Points (M, 2) through homographies (N, 3, 3): (N, M, 2)."""
    p = np.c_[points, np.ones(len(points))] @ h.transpose(0, 2, 1)
    return cast(FloatArray, p[..., :2] / p[..., 2:3])


def _gold_and_pitch(h: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Where homographies ``h`` (N, 3, 3) put the gold cells' centres (N, 8, 2), and how long a
    pitch along the row is there (N, 8): what a gap to a token is measured against."""
    projected = _project(h, GOLD_MM)
    return projected, np.linalg.norm(_project(h, GOLD_MM + ALONG_ROW) - projected, axis=-1)


@lru_cache(maxsize=8)
def _quadruples(n: int) -> npt.NDArray[np.intp]:
    """Every ordered choice of 4 of ``n`` candidates (made once per ``n``, read only).

    >>> _quadruples(4).shape, _quadruples(5)[1].tolist()
    ((24, 4), [0, 1, 2, 4])
    """
    tuples = np.array(list(itertools.permutations(range(n), 4)), np.intp)
    tuples.setflags(write=False)
    return tuples


def gold_homographies(
    candidates: FloatArray,
    keep: int = 4,
    bases: tuple[tuple[int, ...], ...] = BASES,
    params: GridParams = GRID_PARAMS,
) -> list[tuple[FloatArray, int]]:
    """Homographies putting the most gold cells on candidate tokens, best first, and how many each puts.

    Each is refitted on all the tokens it hits.
    """
    n = len(candidates)
    if n < 4:
        return []
    tuples = _quadruples(n)
    turns = _turns(candidates[tuples], params=params)

    def laid_on(basis: tuple[int, ...]) -> list[tuple[int, float, FloatArray]]:
        # A homography keeping the board in front of the camera and its handedness (as those below)
        # turns no triangle of its points over: only candidates turning as the basis does can fit.
        cells = GOLD_MM[list(basis)]
        expected = _turns(cells, params=params)
        same = (turns == expected) | (turns == 0) | (expected == 0)
        laid = tuples[same.all(axis=1)]
        h = _homographies(cells, candidates[laid])
        with np.errstate(invalid="ignore", divide="ignore"):
            # Most layouts turn the board over (seen from the front, a plane keeps its handedness),
            # put part of it behind the camera, or make part of it many times nearer than another:
            # those are left before any distance to the candidates is measured.
            w = h[:, 2, :] @ np.c_[BOARD_CORNERS_MM, np.ones(4)].T
            plausible = keeps_handedness(h, (200.0, 130.0)) & (w > 0).all(axis=1)
            h, laid = h[plausible], laid[plausible]
            projected, pitch = _gold_and_pitch(h)
            plausible = pitch.max(axis=1) < params.max_pitch_ratio * pitch.min(axis=1)
            h, laid, projected, pitch = h[plausible], laid[plausible], projected[plausible], pitch[plausible]
            # The nearest candidate by squared distance, and one square root for it alone. A basis
            # cell is laid on its own candidate: only the other cells look through them all.
            gaps = np.empty_like(pitch)
            own = projected[:, basis] - candidates[laid]
            gaps[:, basis] = np.sqrt(own[..., 0] * own[..., 0] + own[..., 1] * own[..., 1])
            rest = [cell for cell in range(len(GOLD_MM)) if cell not in basis]
            others = projected[:, rest]
            dx = others[:, :, None, 0] - candidates[None, None, :, 0]
            dy = others[:, :, None, 1] - candidates[None, None, :, 1]
            gaps[:, rest] = np.sqrt((dx * dx + dy * dy).min(axis=-1))
            hit = gaps < params.hit_radius * pitch
            hits = hit.sum(axis=1)
            hits[~np.isfinite(gaps).all(axis=1)] = 0
            error = np.where(hit, gaps / pitch, 0).sum(axis=1)
        return [(int(hits[k]), float(error[k]), h[k]) for k in np.flatnonzero(hits >= params.min_hits)]

    # Each basis's layouts are worked out apart (numpy lets go of Python's lock), then taken in order.
    found = [layout for laid in each(laid_on, bases) for layout in laid]
    found.sort(key=lambda item: (-item[0], item[1]))
    kept: list[tuple[FloatArray, int]] = []
    for _, _, h0 in found:
        refit = _refit(h0, candidates, params=params)
        if refit is None:
            continue
        if _same(refit[0], [other for other, _ in kept], params=params).any():
            continue
        kept.append(refit)
        if len(kept) == keep:
            break
    return kept


def _nearest_hits(
    h: FloatArray, candidates: FloatArray, params: GridParams = GRID_PARAMS
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
    """For each gold cell, the candidate nearest where ``h`` puts it, and whether it is near enough."""
    (projected,), (pitch,) = _gold_and_pitch(h[None])
    distance = np.linalg.norm(projected[:, None, :] - candidates[None, :, :], axis=-1)
    nearest = np.argmin(distance, axis=1)
    return nearest, distance[np.arange(len(GOLD_MM)), nearest] < params.hit_radius * pitch


def gold_hits(h: FloatArray, candidates: FloatArray, params: GridParams = GRID_PARAMS) -> int:
    """How many gold cells ``h`` (board mm to photo pixels) puts on a candidate token."""
    return int(_nearest_hits(h, candidates, params=params)[1].sum()) if len(candidates) else 0


def _refit(
    h: FloatArray, candidates: FloatArray, params: GridParams = GRID_PARAMS
) -> tuple[FloatArray, int] | None:
    nearest, hit = _nearest_hits(h, candidates, params=params)
    if hit.sum() < 4:
        return None
    refit, _ = cv2.findHomography(GOLD_MM[hit], candidates[nearest[hit]], 0)
    return (cast(FloatArray, refit) if refit is not None else h), int(hit.sum())


def _same(
    a: FloatArray, others: Sequence[FloatArray], params: GridParams = GRID_PARAMS, within: float | None = None
) -> npt.NDArray[np.bool_]:
    """For each of the homographies ``others``, whether it and ``a`` put every gold cell within
    ``within`` of a pitch of each other (:attr:`GridParams.hit_radius` unless given): on the same tokens.

    >>> along = lambda mm: np.array([[1.0, 0.0, mm], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    >>> _same(np.eye(3), [np.eye(3), along(3.0), along(15.0)]).tolist()  # a pitch is 45 mm
    [True, True, False]
    """
    if not len(others):
        return np.zeros(0, bool)
    (pa,), (pitch,) = _gold_and_pitch(a[None])
    share = params.hit_radius if within is None else within
    gaps = np.linalg.norm(pa - _project(np.stack(others), GOLD_MM), axis=-1)
    return cast(npt.NDArray[np.bool_], (gaps < share * pitch).all(axis=1))


def _crossings_mm() -> tuple[FloatArray, list[tuple[bool, bool, bool, bool]]]:
    """Every crossing of the printed grid, and which of its arms (left, right, up, down) are printed."""
    points, arms = [], []
    for row in range(ROWS + 1):
        for col in range(COLS + 1):
            points.append((MARGIN_MM + col * PITCH_MM, MARGIN_MM + row * PITCH_MM))
            arms.append((col > 0, col < COLS, row > 0, row < ROWS))
    return np.array(points, np.float64), arms


CROSSINGS_MM, CROSSING_ARMS = _crossings_mm()


def _line_map(grey: Image, view: FaceRaster) -> FloatImage:
    """Thin dark lines stand out: how much darker each pixel is than the light around it."""
    hat = dark_lines(grey, round(4 * GRID_LINE_MM * view.px_per_mm) | 1)
    return cast(FloatImage, hat / max(upper_percentile(hat, 99), 1.0))


@lru_cache(maxsize=64)
def _cross_template(
    arms: tuple[bool, bool, bool, bool], view: FaceRaster, params: GridParams = GRID_PARAMS
) -> FloatImage:
    """A crossing with ``arms`` (left, right, up, down) drawn in ``view``: made once, read only."""
    reach = round(params.arm_mm * view.px_per_mm)
    side = 2 * reach + 1
    t = np.zeros((side, side), np.float32)
    width = max(1, round(GRID_LINE_MM * view.px_per_mm))
    c = reach
    left, right, up, down = arms
    if left:
        cv2.line(t, (0, c), (c, c), 1.0, width)
    if right:
        cv2.line(t, (c, c), (side - 1, c), 1.0, width)
    if up:
        cv2.line(t, (c, 0), (c, c), 1.0, width)
    if down:
        cv2.line(t, (c, c), (c, side - 1), 1.0, width)
    return _read_only(cast(FloatImage, cv2.GaussianBlur(t, (0, 0), 0.7)))


def _read_only(image: FloatImage) -> FloatImage:
    """``image``, no longer writable: a cached template shared by every call."""
    image.setflags(write=False)
    return image


@lru_cache(maxsize=4)
def _grid_template(view: FaceRaster) -> FloatImage:
    """The printed grid's lines alone, in ``view`` (made once per view, read only)."""
    width, height = view.size
    t = np.zeros((height, width), np.float32)
    thickness = max(1, round(GRID_LINE_MM * view.px_per_mm))
    s = view.px_per_mm
    for col in range(COLS + 1):
        x = round((MARGIN_MM + col * PITCH_MM) * s)
        cv2.line(
            t,
            (x, round(MARGIN_MM * s)),
            (x, round((MARGIN_MM + ROWS * PITCH_MM) * s)),
            1.0,
            thickness,
        )
    for row in range(ROWS + 1):
        y = round((MARGIN_MM + row * PITCH_MM) * s)
        cv2.line(
            t,
            (round(MARGIN_MM * s), y),
            (round((MARGIN_MM + COLS * PITCH_MM) * s), y),
            1.0,
            thickness,
        )
    return _read_only(cast(FloatImage, cv2.GaussianBlur(t, (0, 0), 0.7)))


#: Blocks of cells (first row, first column, rows, columns) aligned one by one before the crossings.
_BLOCKS = (*tuple((r, c, 3, 3) for r in (0, 2) for c in (0, 2, 5)), (1, 3, 3, 2))


def _align_blocks(
    lines: FloatImage, view: FaceRaster, search_mm: float, params: GridParams = GRID_PARAMS
) -> FloatArray | None:
    """A correction (view pixels to view pixels) from blocks of the grid matched one by one."""
    template = _grid_template(view)
    s = view.px_per_mm
    pad = round(search_mm * s)
    line = round(GRID_LINE_MM * s)

    def aligned(block: tuple[int, int, int, int]) -> tuple[tuple[float, float], tuple[float, float]] | None:
        row, col, rows, cols = block
        x0 = round((MARGIN_MM + col * PITCH_MM) * s) - line
        y0 = round((MARGIN_MM + row * PITCH_MM) * s) - line
        x1 = round((MARGIN_MM + (col + cols) * PITCH_MM) * s) + line + 1
        y1 = round((MARGIN_MM + (row + rows) * PITCH_MM) * s) + line + 1
        if y0 - pad < 0 or x0 - pad < 0 or y1 + pad > lines.shape[0] or x1 + pad > lines.shape[1]:
            return None
        score = cv2.matchTemplate(
            lines[y0 - pad : y1 + pad, x0 - pad : x1 + pad], template[y0:y1, x0:x1], cv2.TM_CCOEFF_NORMED
        )
        _, peak, _, (px, py) = cv2.minMaxLoc(score)
        if peak < 0.15:
            return None
        centre = ((x0 + x1) / 2, (y0 + y1) / 2)
        return centre, (centre[0] + px - pad, centre[1] + py - pad)

    pairs = [pair for pair in each(aligned, _BLOCKS) if pair is not None]
    sources, targets = [source for source, _ in pairs], [target for _, target in pairs]
    if len(sources) < params.min_blocks:
        return None
    # A block can lock onto the grid a cell away, or onto a palisade: only blocks that agree count.
    correction, agree = cv2.findHomography(
        np.array(sources, np.float64), np.array(targets, np.float64), cv2.RANSAC, params.block_agree_mm * s
    )
    if correction is None or agree is None or int(agree.sum()) < params.min_blocks:
        return None
    return cast(FloatArray, correction)


def refine_on_grid(
    image: Image, homography: FloatArray, view: FaceRaster = GRID_VIEW, params: GridParams = GRID_PARAMS
) -> tuple[FloatArray, int, int]:
    """Pull ``homography`` (board mm to ``image`` pixels) onto the printed grid's crossings.

    Returns the refined homography, how many crossings agreed, and how many were looked for.
    """
    grey = to_grey(image)
    scale = view.from_mm()
    lines = view_lines(grey, homography, view)
    coarse = _align_blocks(lines, view, params.block_search_mm, params=params)
    # The crossings' first round from ``homography`` itself looks at these very lines: made once.
    starts: list[tuple[FloatArray, FloatImage | None]] = [(homography, lines)]
    if coarse is not None:
        # Where warriors and palisades hide much of the grid, the blocks can agree on a wrong
        # correction: unless it is confirmed, the crossings are looked for from where the gold put
        # the board too, and the start more of them agree with is kept.
        starts.insert(0, (homography @ np.linalg.inv(scale) @ coarse @ scale, None))
    best, most = starts[0][0], 0
    for start, start_lines in starts:
        refined, agreeing = _onto_crossings(grey, start, view, params=params, lines=start_lines)
        if agreeing > most:
            best, most = refined, agreeing
        if most >= params.confirming_crossings:
            break
    return best, most, len(CROSSINGS_MM)


def view_lines(grey: Image, homography: FloatArray, view: FaceRaster) -> FloatImage:
    """:func:`_line_map` of the photo ``grey`` warped to ``view`` with ``homography``."""
    reduced, to_reduced = reduce_for_view(grey, homography, view)
    return _line_map(warp_to_view(reduced, to_reduced @ homography, view), view)


def _onto_crossings(
    grey: Image,
    homography: FloatArray,
    view: FaceRaster,
    params: GridParams = GRID_PARAMS,
    lines: FloatImage | None = None,
) -> tuple[FloatArray, int]:
    """``homography`` pulled onto the crossings found near where it puts them, in rounds searching
    less and less far, and how many agreed in the last round that enough agreed in (0 if none).

    ``lines``: :func:`view_lines` of ``homography``, where the caller has made it already."""
    scale = view.from_mm()
    agreeing = 0
    for search_mm in params.search_mm:
        if lines is None:
            lines = view_lines(grey, homography, view)
        sources, targets = _crossings_seen(lines, view, search_mm, params)
        if len(sources) < params.min_crossings:
            break
        correction, mask = cv2.findHomography(
            np.array(sources, np.float64), np.array(targets, np.float64), cv2.RANSAC, 0.6 * view.px_per_mm
        )
        if correction is None or mask is None or int(mask.sum()) < params.min_crossings:
            break
        agreeing = int(mask.sum())
        homography = homography @ np.linalg.inv(scale) @ correction @ scale
        lines = None
    return homography, agreeing


def _crossings_seen(
    lines: FloatImage, view: FaceRaster, search_mm: float, params: GridParams = GRID_PARAMS
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Where each crossing of the grid should lie in ``lines`` (:func:`view_lines`) and where it
    was found within ``search_mm`` of there, for those found clearly enough (view pixels)."""
    reach = round((params.arm_mm + search_mm) * view.px_per_mm)
    search = round(search_mm * view.px_per_mm)

    def found(
        crossing: tuple[tuple[float, float], tuple[bool, bool, bool, bool]],
    ) -> tuple[tuple[int, int], tuple[int, int]] | None:
        (x_mm, y_mm), arm = crossing
        cx, cy = round(x_mm * view.px_per_mm), round(y_mm * view.px_per_mm)
        y0, x0 = cy - reach, cx - reach
        if y0 < 0 or x0 < 0 or cy + reach >= lines.shape[0] or cx + reach >= lines.shape[1]:
            return None
        window = lines[y0 : cy + reach + 1, x0 : cx + reach + 1]
        score = cv2.matchTemplate(window, _cross_template(arm, view, params=params), cv2.TM_CCOEFF_NORMED)
        _, peak, _, (px, py) = cv2.minMaxLoc(score)
        if peak < 0.3:
            return None
        return (cx, cy), (cx + px - search, cy + py - search)

    pairs = [pair for pair in each(found, zip(CROSSINGS_MM, CROSSING_ARMS, strict=True)) if pair is not None]
    return [source for source, _ in pairs], [target for _, target in pairs]


def outline_quads(seen: GoldMap, params: GridParams = GRID_PARAMS) -> list[FloatArray]:
    """Convex four-cornered outlines (photo pixels, round the outline) large enough to be a board:
    the board's edge against the table, or its frame's printed lines."""
    grey = cv2.GaussianBlur(to_grey(seen.small), (5, 5), 0)
    total = grey.shape[0] * grey.shape[1]
    quads: list[FloatArray] = []
    for low, high in params.outline_edges:
        edges = cv2.dilate(cv2.Canny(grey, low, high), np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            hull = cv2.convexHull(contour)
            area = cv2.contourArea(hull)
            if area < params.min_outline_area * total:
                continue
            corners = cv2.approxPolyDP(hull, params.outline_approx * cv2.arcLength(hull, True), True)
            if len(corners) != 4:
                continue
            quad = corners.reshape(4, 2).astype(np.float64)
            if along_photo_edge(quad, grey.shape[1], grey.shape[0]):
                continue
            # The same outline at another edge threshold.
            if any(
                np.abs(quad[:, None] - other[None]).sum(axis=-1).min(axis=1).max() < 0.01 * np.sqrt(total)
                for other in quads
            ):
                continue
            quads.append(quad)
    return [quad / seen.scale for quad in quads]


def along_photo_edge(quad: FloatArray, width: int, height: int, within_px: float = 2.0) -> bool:
    """Whether a side of ``quad`` (four corners, round the outline) runs along an edge of a
    ``width`` x ``height`` photo, both its ends within ``within_px`` of it: where a photo cuts the
    board off, the edges its art draws end there, and their outline closes along the photo's edge,
    not the board's.

    >>> along_photo_edge(np.array([[10.0, 10], [99, 12], [99, 80], [10, 70]]), 100, 100)
    True
    >>> along_photo_edge(np.array([[10.0, 10], [90, 12], [99, 80], [10, 70]]), 100, 100)
    False
    """
    ends = np.stack([quad, np.roll(quad, -1, axis=0)], axis=1)  # (4 sides, 2 ends, xy)
    x, y = ends[..., 0], ends[..., 1]
    on = (x <= within_px, x >= width - 1 - within_px, y <= within_px, y >= height - 1 - within_px)
    return any(bool(side.all(axis=1).any()) for side in on)


def outline_homographies(seen: GoldMap, params: GridParams = GRID_PARAMS) -> list[FloatArray]:
    """Homographies putting the board's corners on each outline's (:func:`outline_quads`), its long
    side either way: turned half round or not is for :func:`vision.locate.lattice.settle` to tell."""
    found = []
    for quad in outline_quads(seen, params=params):
        for turn in (0, 1):
            homography, _ = cv2.findHomography(BOARD_CORNERS_MM, np.roll(quad, turn, axis=0))
            if homography is not None:
                found.append(cast(FloatArray, homography))
    return found


def photo_lines(grey: Image, params: GridParams = GRID_PARAMS) -> FloatImage:
    """How much darker each pixel of ``grey`` (the reduced photo) is than the light around it: thin
    dark lines, such as the grid's, stand out (:attr:`GridParams.line_kernel_px`)."""
    return dark_lines(grey, params.line_kernel_px | 1)


def _line_samples(steps: int = 6, end_mm: float = 8.0) -> tuple[FloatArray, FloatArray]:
    """Points (board mm) along every grid segment, ``end_mm`` clear of its crossings, and as many
    half a pitch off the lines, in the cells beside them."""
    along = np.linspace(end_mm, PITCH_MM - end_mm, steps)
    on, off = [], []
    for col in range(COLS + 1):
        for row in range(ROWS):
            for t in along:
                x, y = MARGIN_MM + col * PITCH_MM, MARGIN_MM + row * PITCH_MM + t
                on.append((x, y))
                off.append((x + PITCH_MM / 2 if col < COLS else x - PITCH_MM / 2, y))
    for row in range(ROWS + 1):
        for col in range(COLS):
            for t in along:
                x, y = MARGIN_MM + col * PITCH_MM + t, MARGIN_MM + row * PITCH_MM
                on.append((x, y))
                off.append((x, y + PITCH_MM / 2 if row < ROWS else y - PITCH_MM / 2))
    return np.array(on), np.array(off)


_ON_LINES, _OFF_LINES = _line_samples()


def line_evidence(lines: FloatImage, homography: FloatArray) -> float:
    """How much more the photo's thin dark lines (``lines``, :func:`photo_lines`) show where
    ``homography`` (board mm to ``lines``' pixels) puts the grid's segments than half a cell off
    them: high for a board laid right, near 0 for one laid wrong, whatever the photo's contrast.

    >>> lines = np.zeros((300, 500), np.float32)
    >>> lines[::45, :] = lines[:, ::45] = 100.0  # a grid of pitch 45 px from (0, 0)
    >>> on_grid = np.array([[1.0, 0, -MARGIN_MM], [0, 1.0, -MARGIN_MM], [0, 0, 1.0]])
    >>> off_grid = on_grid.copy(); off_grid[0, 2] += 20  # 20 px across: beside every line
    >>> line_evidence(lines, on_grid) > 50 > abs(line_evidence(lines, off_grid))
    True
    """
    samples = []
    for points in (_ON_LINES, _OFF_LINES):
        projected = _project(homography[None], points)[0].astype(np.float32)
        inside = (
            (projected[:, 0] >= 0)
            & (projected[:, 1] >= 0)
            & (projected[:, 0] <= lines.shape[1] - 1)
            & (projected[:, 1] <= lines.shape[0] - 1)
        )
        values = cv2.remap(lines, projected[None, :, 0], projected[None, :, 1], cv2.INTER_LINEAR)[0]
        samples.append(float(np.where(inside, values, 0.0).mean()))
    return samples[0] - samples[1]


def standout(values: Sequence[float]) -> FloatArray:
    """How far each of ``values`` stands out from the others: less their median, in robust standard
    deviations (1.4826 median absolute deviations); 0 where fewer than 3 or none differ.

    >>> standout([1.0, 2.0, 3.0, 10.0]).round(2).tolist()
    [-1.01, -0.34, 0.34, 5.06]
    >>> standout([5.0, 5.0]).tolist()
    [0.0, 0.0]
    """
    array = np.asarray(values, np.float64)
    middle = np.median(array) if len(array) else 0.0
    spread = 1.4826 * float(np.median(np.abs(array - middle))) if len(array) >= 3 else 0.0
    if spread <= 0:
        return np.zeros(len(array))
    result: FloatArray = (array - middle) / spread
    return result


def best_first(
    ways: Sequence[Callable[[], Iterator[Start]]],
    most: int,
    found: Callable[[], bool] = lambda: False,
    rank: Callable[[Start], float] | None = None,
) -> Iterator[Start]:
    """The starts of several ``ways``, each way's in its own order, the one ranked higher first
    (by ``rank``, or else by more gold cells on tokens; the earlier way's on a tie).

    Looking for a way's starts can cost more than trying one, so a way is only looked at while
    nothing is ``found``, every way looked at so far has had a start tried, and none of their next
    starts puts all ``most`` gold cells on tokens.

    >>> one = lambda: iter([(None, 6, None, None), (None, 5, None, None)])
    >>> two = lambda: iter([(None, 8, None, None)])
    >>> [start[1] for start in best_first([one, two], 8)]
    [6, 8, 5]
    >>> opened = []
    >>> def three():
    ...     opened.append(3)
    ...     return iter([(None, 7, None, None)])
    >>> starts = best_first([two, one, three], 8)
    >>> [next(starts)[1] for _ in range(2)], opened
    ([8, 6], [])
    >>> [start[1] for start in starts], opened
    ([7, 5], [3])
    >>> fits = []
    >>> starts = best_first([one, two], 8, found=lambda: bool(fits))
    >>> next(starts)[1]
    6
    >>> fits.append("a fit from that start")
    >>> [start[1] for start in starts]
    [5]
    >>> by_rank = best_first([one, two], 9, rank=lambda start: -start[1])
    >>> [next(by_rank)[1] for _ in range(3)]
    [6, 5, 8]
    """
    # Per way looked at: its next start and its rank, the rest of its starts, and whether one was tried.
    heads: list[tuple[Start, float, Iterator[Start], bool]] = []
    unopened = iter(ways)

    def gold(start: Start) -> int:
        return start[1] or 0

    def ranked(start: Start) -> float:
        return gold(start) if rank is None else rank(start)

    def open_one() -> bool:
        for way in unopened:
            starts = way()
            first = next(starts, None)
            if first is not None:
                heads.append((first, ranked(first), starts, False))
                return True
        return False

    while heads or (not found() and open_one()):
        all_tried = all(tried for *_, tried in heads)
        if not found() and all_tried and max(gold(head) for head, *_ in heads) < most:
            open_one()
        index = max(range(len(heads)), key=lambda n: (heads[n][1], -n))
        start, _, starts, _ = heads[index]
        yield start
        following = next(starts, None)
        if following is None:
            del heads[index]
        else:
            heads[index] = (following, ranked(following), starts, True)


@dataclass(frozen=True, eq=False)
class GoldSearch:
    """One photo's search for its board by gold and grid, and what it has worked out so far, so
    that a wider search of the same photo (more ways, more tries: :func:`locate_by_grid`'s
    ``search``) redoes none of it: where a scan tries the gold's first layouts and later the whole
    search, the second would find the same tokens (the circles alone take 0.4 s), lay the gold on
    them and pull the same first starts onto the grid again. Made by :func:`gold_search`."""

    image: Image
    gold_bgr: FloatArray
    #: The parameters it was made with; a search may differ from them in ``gold_tries`` only.
    params: GridParams
    seen: GoldMap
    grey: Image
    gold: Image
    #: :func:`photo_lines` of ``grey``.
    lines: FloatImage
    #: What the searches have worked out: the tokens each way of finding them found (by its name),
    #: the gold laid on those tokens from each of the bases (:attr:`GridParams.layouts` kept), and each start
    #: already pulled onto the grid with what :func:`refine_on_grid` made of it.
    tokens: dict[str, tuple[FloatArray, FloatArray]] = field(default_factory=dict)
    laid: dict[tuple[str, Bases], list[tuple[FloatArray, int]]] = field(default_factory=dict)
    pulled: list[tuple[FloatArray, tuple[FloatArray, int, int]]] = field(default_factory=list)


def gold_search(image: Image, gold_bgr: npt.ArrayLike, params: GridParams = GRID_PARAMS) -> GoldSearch:
    """A :class:`GoldSearch` of ``image`` begun: the gold map, the reduced photo's grey, gold mask
    and lines, which every way of finding the board uses."""
    seen = gold_map(image, gold_bgr, params=params)
    grey = to_grey(seen.small)
    return GoldSearch(
        image, np.asarray(gold_bgr, np.float64), params, seen, grey, gold_mask(seen, params=params),
        photo_lines(grey, params),
    )  # fmt: skip


#: Every way :func:`locate_by_grid` has of finding the board, in the order it tries them.
GRID_WAYS = (FoundBy.GOLD, FoundBy.GRID_LINES, FoundBy.OUTLINE)


def locate_by_grid(
    image: Image,
    gold_bgr: npt.ArrayLike,
    params: GridParams = GRID_PARAMS,
    ways: Collection[FoundBy] = GRID_WAYS,
    search: GoldSearch | None = None,
) -> GridFit | None:
    """The board in ``image`` found by its gold tokens (or, where they fail, its outline) and its
    printed grid, or None.

    Each way of laying the gold cells on the tokens found is tried, best first, until the printed grid
    confirms one; then the lattice of the grid's lines (:func:`vision.locate.gridlines.lattice_homographies`),
    which the grid's crossings must confirm; then each outline (:func:`outline_homographies`). A
    start that locks onto the grid is then settled where the grid's lines end and the gold lies
    (:func:`vision.locate.lattice.settle`): the grid alone may hold it whole cells off, or turned. A fit
    whose lines go on past the grid's edge (:func:`vision.locate.lattice.lines_beyond`) is refused.

    Where no start locks onto the grid (a full board hides its crossings), an outline lying on
    :attr:`GridParams.outline_gold` of the gold tokens is taken, fitted to them, with the crossings it found.

    ``ways`` are those of :data:`GRID_WAYS` tried: the gold alone is the cheap part where it fails
    (the lines and the outline cost seconds then), so that a caller can try other cheap ways first,
    and search wider later with the ``search`` (:func:`gold_search` of the same photo, gold and
    parameters, ``gold_tries`` aside) that the first search worked in: the same starts are tried in
    the same order, and what was worked out for them is not worked out again.
    """
    if search is None:
        search = gold_search(image, gold_bgr, params)
    elif (
        search.image is not image
        or not np.array_equal(search.gold_bgr, np.asarray(gold_bgr, np.float64))
        or replace(search.params, gold_tries=params.gold_tries) != params
    ):
        raise ValueError("a search goes on only on the photo, gold and parameters it began with")
    best: GridFit | None = None
    seen, grey, gold, lines = search.seen, search.grey, search.gold, search.lines
    to_small = np.diag([seen.scale, seen.scale, 1.0])

    def circles(seen: GoldMap) -> tuple[FloatArray, FloatArray]:
        # A circle's score is its share of gold, not a blob's roundness: none is vouched round.
        centres, _ = circle_candidates(seen)
        return centres, np.zeros(len(centres))

    def blobs(seen: GoldMap) -> tuple[FloatArray, FloatArray]:
        """The :data:`MAX_CANDIDATES` roundest blobs: the head of the longer list a later pass takes
        (:attr:`GridParams.more_candidates`), so that one search of the blobs serves both."""
        if params.more_candidates < MAX_CANDIDATES:
            return gold_candidates(seen)
        centres, scores = tokens("more_blobs")
        return centres[:MAX_CANDIDATES], scores[:MAX_CANDIDATES]

    finders: dict[str, Callable[[GoldMap], tuple[FloatArray, FloatArray]]] = {
        "blobs": blobs,
        "circles": circles,
        "more_blobs": partial(gold_candidates, keep=params.more_candidates),
    }

    def tokens(kind: str) -> tuple[FloatArray, FloatArray]:
        if kind not in search.tokens:
            search.tokens[kind] = finders[kind](seen)
        return search.tokens[kind]

    # Where few tokens are found, many ways of laying the gold put as many cells on them, and the
    # right one can come late: how well the photo's own thin dark lines lie where each puts the
    # grid's tells them apart, and costs next to nothing beside pulling one onto the grid.
    def layouts(kind: str, bases: Bases) -> Iterator[Start]:
        candidates, roundness = tokens(kind)
        if (kind, bases) not in search.laid:
            laid = gold_homographies(candidates, keep=params.layouts, bases=bases, params=params)
            for homography, _ in laid:
                homography.setflags(write=False)
            search.laid[kind, bases] = laid
        laid = search.laid[kind, bases]
        shown = standout([line_evidence(lines, to_small @ first) for first, _ in laid])
        starts = [
            Start(first, hits, candidates, roundness, hits + params.line_weight * float(z))
            for (first, hits), z in zip(laid, shown, strict=True)
        ]
        yield from sorted(starts, key=lambda start: start.rank, reverse=True)

    def outlines() -> Iterator[Start]:
        candidates, roundness = tokens("blobs")
        # Called as the tests' stand-ins are: the outline's own defaults.
        for first in outline_homographies(seen):
            yield Start(first, None, candidates, roundness)

    def lattices() -> Iterator[Start]:
        candidates, roundness = tokens("blobs")
        # Laid on the wrong family, the grid can still lock and settle: the way showing more gold first.
        found = lattice_homographies(seen.small, seen.scale)
        placed = [to_small @ first for first in found]
        shown = [settle(lines_around(grey, small), gold, small)[1] for small in placed]
        for _, first in sorted(zip(shown, found, strict=True), key=lambda pair: -pair[0]):
            yield Start(first, None, candidates, roundness)

    # The gold tokens as blobs, then as circles; where few of them are found, the first bases may
    # each miss one, and every spread quadruple is tried, on the blobs and on the circles; where
    # many blobs of gold colour crowd the tokens out, more blobs. Their starts are tried the ones
    # with more gold on tokens first (:func:`best_first`). Where the gold fails, the grid's own
    # lines, which must then confirm the fit, and the board's outline.
    gold_ways = (
        partial(layouts, "blobs", BASES),
        partial(layouts, "circles", BASES),
        partial(layouts, "blobs", SPREAD_BASES),
        partial(layouts, "circles", SPREAD_BASES),
        partial(layouts, "more_blobs", BASES),
    )
    gold_starts = partial(
        best_first, gold_ways, len(GOLD_CELLS), lambda: best is not None, lambda start: start.rank
    )

    # The ways of finding the tokens often find the same ones (a refit on the same tokens is the
    # same start), and a pass that fails can come round to the starts it began with: each start
    # is pulled onto the grid once.
    def refine(first: FloatArray) -> tuple[FloatArray, int, int]:
        alike = np.flatnonzero(_same(first, [other for other, _ in search.pulled], params, params.same_start))
        if len(alike):
            return search.pulled[int(alike[0])][1]
        refined = refine_on_grid(image, first, params=params)
        search.pulled.append((first, refined))
        return refined

    passes = (
        (gold_starts, params.min_crossings, FoundBy.GOLD, params.gold_tries),
        (lattices, params.confirming_crossings, FoundBy.GRID_LINES, None),
        (outlines, params.min_crossings, FoundBy.OUTLINE, None),
    )

    def within(starts: Iterator[Start], tries: int | None) -> Iterator[Start]:
        # Checked before the next start is asked for: asking can open another way of finding tokens.
        for tried, start in enumerate(starts, start=1):
            yield start
            if best is None and tries is not None and tried >= tries:
                return

    on_gold: GridFit | None = None
    for starts, least, way, tries in passes:
        if way not in ways:
            continue
        unimproved = 0
        for first, hits, candidates, roundness, _ in within(starts(), tries):
            if best is not None and unimproved >= params.patience:
                break
            unimproved += 1
            refined, crossings, looked_for = refine(first)
            if crossings < params.min_crossings:
                if way is FoundBy.OUTLINE:
                    held = _held_by_gold(first, candidates, roundness, crossings, looked_for, params)
                    on_tokens = None if held is not None else _held_by_tokens(gold, to_small, first, params)
                    if on_tokens is not None:
                        held = GridFit(*on_tokens, candidates, roundness, crossings, looked_for, way)
                    if held is not None and (on_gold is None or held.gold_hits > on_gold.gold_hits):
                        on_gold = held
                continue
            # The lines where the board is placed: weighed to settle it, and, unless it moves, for
            # the lines going on past it.
            placed = to_small @ refined
            there = lines_around(grey, placed)
            move, gold_sum = settle(there, gold, placed)
            if gold_sum < params.min_gold_sum:
                own = gold_under_board_light(seen, gold_bgr, placed, params=params)
                move, gold_sum = settle(there, own, placed)
            if gold_sum < params.min_gold_sum:
                continue
            moved = not np.allclose(move, np.eye(3))
            if moved:
                refined, crossings, looked_for = refine(refined @ move)
                hits = None
            if hits is None:
                hits = gold_hits(refined, candidates, params=params)
            if crossings < least:
                continue
            if moved:
                there = lines_around(grey, to_small @ refined)
            if lines_beyond(there) > params.max_lines_beyond:
                continue
            fit = GridFit(refined, hits, candidates, roundness, crossings, looked_for, way)
            if best is None or fit.crossings > best.crossings:
                best, unimproved = fit, 0
            if crossings >= params.confirming_crossings or hits >= params.confirming_gold:
                break
        if best is not None and best.crossings >= params.min_crossings:
            return best
    return on_gold


def _held_by_tokens(
    gold: Image, to_small: FloatArray, outline: FloatArray, params: GridParams = GRID_PARAMS
) -> tuple[FloatArray, int] | None:
    """The board an ``outline`` found (board mm to photo pixels), fitted to the gold tokens seen
    near where it puts the gold cells in ``gold`` (1 where a pixel of the reduced photo, ``to_small``
    of the photo's, looks like gold), turned half round where the gold says so, and how many tokens
    hold it; None where fewer than :attr:`GridParams.outline_gold` do, or the art fills a token's
    disc as well (:attr:`GridParams.token_fill`)."""
    homography = outline
    for reach in params.token_reach:
        places, shares, others = gold_tokens(gold, to_small @ homography, reach)
        held = shares >= params.token_fill
        if held.sum() < params.outline_gold or np.median(others) >= params.token_fill / 2:
            return None
        move, inliers = cv2.findHomography(GOLD_MM[held], places[held], cv2.RANSAC, PITCH_MM / 10)
        if move is None or inliers.sum() < params.outline_gold:
            return None
        homography = homography @ move
    return homography, int(held.sum())


def _held_by_gold(
    outline: FloatArray,
    candidates: FloatArray,
    roundness: FloatArray,
    crossings: int,
    looked_for: int,
    params: GridParams = GRID_PARAMS,
) -> GridFit | None:
    """The board an ``outline`` found, fitted to the gold tokens it lies on, where it lies on at
    least :attr:`GridParams.outline_gold` of them; else None."""
    if len(candidates) < params.outline_gold:
        return None
    refit = _refit(outline, candidates, params=params)
    if refit is None or refit[1] < params.outline_gold:
        return None
    return GridFit(refit[0], refit[1], candidates, roundness, crossings, looked_for, FoundBy.OUTLINE)
