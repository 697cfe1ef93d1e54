"""A board placed by its gold and grid pulled onto its printed cell edges, each read across itself.

The homography the grid's crossings settle can lie millimetres off (a late game hides them under
warriors and palisades, a lens bends the lines between them and pulls it), and a palisade's band,
read 1.5 mm either side of its line, then looks at the card beside it. Every cell edge still
shows somewhere along its length: here each one is read across itself on the photo's line map
(:func:`vision.locate.grid.view_lines`), and the correction to the homography that agrees with
most of them is fitted at once, beside the lens's radial bend so that the bend does not pull it.

Each edge tells only how far it moved across itself; a palisade lying on it, or a warrior's
rim, moves its peak, hence a fit on the best-agreeing part first, then Tukey's weights.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import cast

import numpy as np
import numpy.typing as npt

from engine.board import COLS, ROWS
from vision.geometry import BOARD_H_MM, BOARD_W_MM, MARGIN_MM, PITCH_MM, FaceRaster
from vision.locate.features import project, to_grey
from vision.locate.grid import GRID_VIEW, GridFit, view_lines

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]
FloatImage = npt.NDArray[np.float32]


@dataclass(frozen=True)
class FollowParams:
    """How a placement is pulled onto the cell edges (:func:`follow_edges`)."""

    #: Rounds of reading the edges and correcting, each searching this far (mm) either side of
    #: where an edge should lie: the first as far as the placements off by most were (4.5 mm on
    #: the path-traced tuning copies), the second nearer, once the first has moved it.
    search_mm: tuple[float, ...] = (5.0, 2.5)
    #: Pieces an edge is read in, and how much of each end is left to its crossing.
    pieces: int = 3
    end_mm: float = 6.0
    #: An edge's peak stands this much above its profile's median (the line map is 1 at its 99th
    #: percentile), or it is not read.
    least_peak: float = 0.15
    #: The share of the edges the first fit keeps (those it agrees with best), and Tukey's bound.
    trimmed_share: float = 0.6
    tukey_mm: float = 1.5
    #: A correction is kept only where it leaves the edges spread at most this share of what
    #: they were (:func:`_spread`), and where they spread further than ``floor_mm`` (nearer, the
    #: edge's reading itself, a third of a view pixel, is most of what is left)...
    gain: float = 0.95
    floor_mm: float = 0.15
    #: ...and a correction only where this share of the edges lies within ``agree_mm`` of where it
    #: puts them: edges that mostly disagree with any one placement are art, shadows and sticks,
    #: not the grid (a dark copy's faint lines).
    agree_mm: float = 0.75
    agree_least: float = 0.5
    #: The fewest pieces of edge read (of 279) for a correction: where the grid shows along less
    #: than a third of its length (a dark copy's faint lines, a full board), what is read is
    #: mostly art and sticks, which nine numbers can always be fitted to.
    least_edges: int = 90


FOLLOW_PARAMS = FollowParams()


@dataclass(frozen=True)
class Edges:
    """Cell edges read across themselves: each piece's middle (board mm), whether it runs down
    the board (a column's line, read across x) or along it, and how far across itself it lies
    from where the placement put it (mm, toward larger x or y)."""

    middles: FloatArray
    down: npt.NDArray[np.bool_]
    offsets: FloatArray

    def __len__(self) -> int:
        return len(self.offsets)


def _pieces(params: FollowParams) -> tuple[FloatArray, npt.NDArray[np.bool_], FloatArray]:
    """Every piece of every printed cell edge: its middle (mm), whether it runs down, and its
    span along the edge (from, to; mm)."""
    middles, down, spans = [], [], []
    length = (PITCH_MM - 2 * params.end_mm) / params.pieces
    for col in range(COLS + 1):
        for row in range(ROWS):
            for piece in range(params.pieces):
                start = MARGIN_MM + row * PITCH_MM + params.end_mm + piece * length
                middles.append((MARGIN_MM + col * PITCH_MM, start + length / 2))
                down.append(True)
                spans.append((start, start + length))
    for row in range(ROWS + 1):
        for col in range(COLS):
            for piece in range(params.pieces):
                start = MARGIN_MM + col * PITCH_MM + params.end_mm + piece * length
                middles.append((start + length / 2, MARGIN_MM + row * PITCH_MM))
                down.append(False)
                spans.append((start, start + length))
    return np.array(middles, np.float64), np.array(down), np.array(spans, np.float64)


def read_edges(
    lines: FloatImage, search_mm: float, view: FaceRaster = GRID_VIEW, params: FollowParams = FOLLOW_PARAMS
) -> Edges:
    """The cell edges found in ``lines`` (a line map in ``view``, :func:`vision.locate.grid.view_lines`)
    within ``search_mm`` of where they should lie.

    Each piece's profile across the edge is the median along it (a warrior's rim crossing part
    of it moves no median); the edge lies where the mass of its peak weighs evenly, which a
    blurred or doubled line does not pull to one side as the highest pixel would.

    >>> view = FaceRaster(3.0)
    >>> lines = np.zeros(view.size[::-1], np.float32)
    >>> x = round((MARGIN_MM + 2 * PITCH_MM + 1.0) * 3)   # the third column's line, 1 mm right
    >>> lines[:, x - 2 : x + 3] = 1.0
    >>> edges = read_edges(lines, 3.0, view)
    >>> third = edges.down & (np.abs(edges.middles[:, 0] - (MARGIN_MM + 2 * PITCH_MM)) < 1e-6)
    >>> int(third.sum()), np.round(edges.offsets[third], 2).tolist()[:2]
    (15, [1.0, 1.0])
    """
    middles, down, spans = _pieces(params)
    s = view.px_per_mm
    reach = round(search_mm * s)
    height, width = lines.shape
    found, offsets = [], []
    for number, (middle, runs_down, (start, end)) in enumerate(zip(middles, down, spans, strict=True)):
        across = middle[0] if runs_down else middle[1]
        c = round(across * s)
        a0, a1 = round(start * s), round(end * s)
        limit = width if runs_down else height
        if c - reach < 0 or c + reach + 1 > limit:
            continue
        window = slice(c - reach, c + reach + 1)
        strip = lines[a0:a1, window] if runs_down else lines[window, a0:a1].T
        profile: FloatArray = np.asarray(np.median(strip, axis=0), np.float64)
        offset = _peak_centre(profile, params)
        if offset is not None:
            found.append(number)
            offsets.append((offset - reach) / s)
    kept = np.array(found, np.intp)
    return Edges(middles[kept], down[kept], np.array(offsets, np.float64))


def _peak_centre(profile: FloatArray, params: FollowParams) -> float | None:
    """Where the peak of ``profile`` weighs evenly (pixels from its start), or None where it has no
    clear peak away from its ends."""
    raised = profile - float(np.median(profile))
    top = int(np.argmax(raised))
    if raised[top] < params.least_peak or top in (0, len(profile) - 1):
        return None
    # The peak runs while it stays above half its height.
    half = raised[top] / 2
    left = top
    while left > 0 and raised[left - 1] > half:
        left -= 1
    right = top
    while right < len(raised) - 1 and raised[right + 1] > half:
        right += 1
    if left == 0 or right == len(raised) - 1:
        return None
    weights = raised[left : right + 1]
    cumulative = np.cumsum(weights)
    middle = cumulative[-1] / 2
    # Each pixel's mass spread over its width: the pixel where half the mass is reached, and how far into it.
    at = int(np.searchsorted(cumulative, middle))
    before = cumulative[at - 1] if at > 0 else 0.0
    return float(left + at - 0.5 + (middle - before) / weights[at])


#: Board millimetres to the coordinates the correction is fitted in: centred, a tenth of a metre.
_TO_FIT = np.array([[0.01, 0, -BOARD_W_MM / 200], [0, 0.01, -BOARD_H_MM / 200], [0, 0, 1]], np.float64)


@dataclass(frozen=True)
class Correction:
    """What the cell edges say of a placement: the homography (board mm to board mm) to follow
    before it, and how much the lens bends the photo about its centre (:func:`_bend_across`)."""

    homography: FloatArray
    bend: float


def _bend_across(homography: FloatArray, middles: FloatArray, size: tuple[int, int]) -> FloatArray:
    """Where a unit of the lens's radial bend moves board points ``middles`` (mm, (N, 2)) that
    ``homography`` puts in a photo of ``size`` (width, height): in board mm, (N, 2).

    The bend moves a photo pixel from the photo's centre by its distance times the square of that
    distance over the half-diagonal: the first-order term of a lens's radial distortion.
    """
    width, height = size
    photo = project(homography, middles)
    out = photo - np.array([(width - 1) / 2, (height - 1) / 2])
    moved = out * ((out / float(np.hypot(width / 2, height / 2))) ** 2).sum(axis=1, keepdims=True)
    # Photo pixels to board mm about each point: the inverse of the homography's local Jacobian.
    steps = [project(homography, middles + step) - photo for step in ((1.0, 0.0), (0.0, 1.0))]
    return cast(FloatArray, np.linalg.solve(np.stack(steps, axis=2), moved[..., None])[..., 0])


def _homography_terms(points: FloatArray) -> tuple[FloatArray, FloatArray]:
    """How a homography's eight small changes from the identity (in :data:`_TO_FIT`'s
    coordinates) move board points ``points`` (mm) across x and across y: two (N, 8) arrays."""
    u = (points[:, 0] - BOARD_W_MM / 2) * 0.01
    v = (points[:, 1] - BOARD_H_MM / 2) * 0.01
    zero, one = np.zeros_like(u), np.ones_like(u)
    across_x = np.stack([u, v, one, zero, zero, zero, -u * u, -u * v], axis=1)
    across_y = np.stack([zero, zero, zero, u, v, one, -u * v, -v * v], axis=1)
    return across_x, across_y


def _bend(homography: FloatArray, points: FloatArray, size: tuple[int, int]) -> FloatArray:
    """What of a unit of the lens's bend (:func:`_bend_across`) at ``points`` (mm) no homography
    follows: the part a change of the homography makes best over the grid taken away, so that
    the homography's change fitted beside the bend takes all a homography can (board mm, (N, 2))."""
    grid = _grid_points()
    across_x, across_y = _homography_terms(grid)
    whole = _bend_across(homography, grid, size) * 0.01
    like = np.linalg.lstsq(np.vstack([across_x, across_y]), whole.T.ravel(), rcond=None)[0]
    here_x, here_y = _homography_terms(points)
    followed = np.stack([here_x @ like, here_y @ like], axis=1) / 0.01
    left: FloatArray = _bend_across(homography, points, size) - followed
    return left


def _design(edges: Edges, homography: FloatArray, size: tuple[int, int]) -> FloatArray:
    """Each edge's offset as a linear function of a homography's eight small changes from the
    identity (:func:`_homography_terms`) and of the lens's bend (:func:`_bend`)."""
    across_x, across_y = _homography_terms(edges.middles)
    bend = _bend(homography, edges.middles, size) * 0.01
    return np.where(
        edges.down[:, None], np.column_stack([across_x, bend[:, 0]]), np.column_stack([across_y, bend[:, 1]])
    )


def _robust_fit(design: FloatArray, measured: FloatArray, params: FollowParams) -> FloatArray:
    """Coefficients fitted to ``measured`` (in :data:`_TO_FIT`'s units): the best-agreeing
    :attr:`FollowParams.trimmed_share` first, then Tukey's weights to :attr:`FollowParams.tukey_mm`."""
    coefficients = np.linalg.lstsq(design, measured, rcond=None)[0]
    misfit = np.abs(design @ coefficients - measured)
    kept = misfit <= np.quantile(misfit, params.trimmed_share)
    coefficients = np.linalg.lstsq(design[kept], measured[kept], rcond=None)[0]
    bound = params.tukey_mm * 0.01
    for _ in range(5):
        misfit = np.abs(design @ coefficients - measured)
        weights = np.where(misfit < bound, (1 - (misfit / bound) ** 2) ** 2, 0.0)
        if np.count_nonzero(weights) < design.shape[1] + 2:
            break
        root = np.sqrt(weights)
        coefficients = np.linalg.lstsq(design * root[:, None], measured * root, rcond=None)[0]
    return cast(FloatArray, coefficients)


def edge_correction(
    edges: Edges, homography: FloatArray, size: tuple[int, int], params: FollowParams = FOLLOW_PARAMS
) -> Correction | None:
    """How to move the placement ``homography`` (board mm to the pixels of a photo of ``size``,
    width and height) so that the cell edges lie where ``edges`` found them, or None where too few
    were read, it brings them too little nearer, or too few agree with it.

    >>> middles, down, _ = _pieces(FOLLOW_PARAMS)
    >>> shifted = Edges(middles, down, np.where(down, 0.8, -0.4))   # 0.8 mm right, 0.4 mm up
    >>> correction = edge_correction(shifted, np.diag([3.0, 3.0, 1.0]), (1600, 1200))
    >>> np.round(correction.homography[:2, 2], 2).tolist(), abs(round(correction.bend, 3))
    ([0.8, -0.4], 0.0)
    """
    if len(edges) < params.least_edges:
        return None
    design = _design(edges, homography, size)
    a = _robust_fit(design, edges.offsets * 0.01, params)
    left = edges.offsets - (design @ a) / 0.01
    agreeing = float((np.abs(left) < params.agree_mm).mean())
    if not _nearer(edges.offsets, left, params) or agreeing < params.agree_least:
        return None
    change = np.array([[1 + a[0], a[1], a[2]], [a[3], 1 + a[4], a[5]], [a[6], a[7], 1.0]])
    return Correction(cast(FloatArray, np.linalg.inv(_TO_FIT) @ change @ _TO_FIT), float(a[8]))


def _grid_points() -> FloatArray:
    """Points over the grid, a quarter of a cell apart (mm)."""
    xs = np.linspace(MARGIN_MM, MARGIN_MM + COLS * PITCH_MM, 4 * COLS + 1)
    ys = np.linspace(MARGIN_MM, MARGIN_MM + ROWS * PITCH_MM, 4 * ROWS + 1)
    return np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)


def _spread(misfits: FloatArray, bound: float) -> float:
    """How far ``misfits`` spread, each counted up to ``bound``: a root mean square that a few
    edges under palisades, far off, do not make."""
    return float(np.sqrt(np.mean(np.minimum(misfits**2, bound**2))))


def _nearer(before: FloatArray, after: FloatArray, params: FollowParams) -> bool:
    """Whether a fit leaves the edges (offsets in mm ``before`` it, misfits ``after``) enough nearer
    (:attr:`FollowParams.gain`) where they were far enough (:attr:`FollowParams.floor_mm`) to move."""
    was = _spread(before, params.agree_mm)
    return was >= params.floor_mm and _spread(after, params.agree_mm) <= params.gain * was


def follow_edges(
    image: Image, homography: FloatArray, view: FaceRaster = GRID_VIEW, params: FollowParams = FOLLOW_PARAMS
) -> FloatArray:
    """``homography`` (board mm to ``image`` pixels) pulled onto the board's cell edges.

    Each round reads the edges again where the last placed them, searching less far; a round
    whose correction the edges do not agree with ends the pull there. The lens's bend is fitted
    beside the homography's change, so that the edges it moves do not pull the homography, but
    is not followed: a view warped by it read the path-traced tuning copies less well
    (211 mistakes against 205 on 47 boards), the readers having learnt views it bends.
    """
    grey = to_grey(image)
    size = (grey.shape[1], grey.shape[0])
    for search_mm in params.search_mm:
        edges = read_edges(view_lines(grey, homography, view), search_mm, view, params)
        correction = edge_correction(edges, homography, size, params)
        if correction is None:
            break
        homography = homography @ correction.homography
    return homography


def followed(image: Image, fit: GridFit, params: FollowParams = FOLLOW_PARAMS) -> GridFit:
    """``fit`` pulled onto the board's cell edges (:func:`follow_edges`), unless it was already.

    However many of the grid's crossings agreed on a fit, a homography through them is pulled by
    the lens's bend: on the path-traced tuning copies, fits with 35 to 38 of 54 agreeing lay up to
    4 mm off at the grid's corners.
    """
    if fit.followed:
        return fit
    return replace(fit, homography=follow_edges(image, fit.homography, GRID_VIEW, params), followed=True)
