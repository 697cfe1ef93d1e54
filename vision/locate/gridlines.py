"""Find a board's printed grid by its lines alone, where neither its gold nor its outline places it.

On art printed in ochre the gold tokens are lost among blobs of their own
colour, but the grid's lines still show: the photo's straight, thin dark lines
that cross other such lines (a wooden table's grain crosses few). They fall
into two families, each meeting at a vanishing point. Undoing the
perspective those two points give (the line through them goes to infinity)
leaves each family parallel, and the grid's lines in it evenly spaced: the
longest run of evenly spaced lines gives the pitch along that family, whatever
palisades and warriors hide. Which family runs along the board's long side,
which whole cells the lattice is off by and which way up it lies is left to
:func:`vision.locate.lattice.settle`; :func:`lattice_homographies` offers both ways
of laying the board's rows and columns on the two families.

>>> run = even_run(np.array([30.0, 100.0, 200.0, 300.0, 400.0, 470.0]), np.ones(6), 50.0, 500.0)
>>> run.lines, round(run.period, 6), round(run.first, 6)
(4, 100.0, 100.0)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from vision.geometry import MARGIN_MM, PITCH_MM, keeps_handedness
from vision.locate.features import to_grey
from vision.texture import dark_lines

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class GridlineParams:
    """How the grid's lines are found in perspective: the hand-set numbers, in pixels of the searched
    image unless said."""

    #: Dark lines stand out against a disc this wide (pixels of the photo at about 1000 pixels long),
    #: and the darkest this share of pixels, or at least this much darker than around them, are line.
    hat_px: int = 9
    line_percentile: float = 90.0
    min_line_darkness: float = 12.0
    #: Segments at least this long and bridging gaps this long (shares of the photo's long side), with
    #: this many votes (cv2.HoughLinesP).
    hough_votes: int = 40
    min_segment: float = 0.04
    max_segment_gap: float = 0.006
    #: A segment counts when it crosses another at this angle (degrees) at least, each within this
    #: share of the photo's long side of its ends; it weighs as many crossings as it has, up to a cap.
    crossing_deg: float = 25.0
    crossing_reach: float = 0.02
    max_weight: int = 4
    #: Vanishing points are tried through every pair of this many segments, the weightiest; a segment
    #: points at one within this angle (degrees). The board's grid makes two families of lines, a
    #: tiled table two more.
    vanishing_segments: int = 40
    points_at_deg: float = 1.0
    max_families: int = 4
    #: Lines within this many pixels (of the rectified photo) are one; a line is on a run's pitch within
    #: this share of it (or this many pixels); a pitch is tried between every two lines up to this many
    #: pitches apart.
    same_line_px: float = 3.0
    on_pitch: float = 0.07
    on_pitch_px: float = 2.0
    max_skip: int = 8
    #: A family's pitch lies between these shares of the photo's long side; a run shorter than this
    #: many lines is no grid.
    pitch_range: tuple[float, float] = (0.012, 0.3)
    min_run: int = 3


GRIDLINE_PARAMS = GridlineParams()


@dataclass(frozen=True)
class EvenRun:
    """``lines`` evenly spaced positions, ``period`` apart, starting at ``first``."""

    lines: int
    period: float
    first: float


def line_segments(grey: Image, params: GridlineParams = GRIDLINE_PARAMS) -> FloatArray:
    """Straight thin dark lines in ``grey`` (a photo about 1000 pixels long): ``(N, 4)`` end points
    ``x0, y0, x1, y1``."""
    hat = dark_lines(grey, params.hat_px)
    dark = hat > max(float(np.percentile(hat, params.line_percentile)), params.min_line_darkness)
    long_side = max(grey.shape[:2])
    found = cv2.HoughLinesP(
        dark.astype(np.uint8) * 255,
        1,
        np.pi / 720,
        threshold=params.hough_votes,
        minLineLength=params.min_segment * long_side,
        maxLineGap=params.max_segment_gap * long_side,
    )
    return np.zeros((0, 4)) if found is None else found.reshape(-1, 4).astype(np.float64)


def crossings(
    segments: FloatArray, reach: float, params: GridlineParams = GRIDLINE_PARAMS
) -> npt.NDArray[np.intp]:
    """How many other segments each crosses steeply (:attr:`GridlineParams.crossing_deg`), both within
    ``reach``
    pixels of their ends or nearer.

    >>> crossings(np.array([[0.0, 5, 10, 5], [5, 0, 5, 4], [20, 0, 30, 0]]), 2.0).tolist()
    [1, 1, 0]
    """
    start, along = segments[:, :2], segments[:, 2:] - segments[:, :2]
    cross = along[:, None, 0] * along[None, :, 1] - along[:, None, 1] * along[None, :, 0]
    length = np.linalg.norm(along, axis=1)
    steep = np.abs(cross) > np.sin(np.radians(params.crossing_deg)) * np.maximum(
        length[:, None] * length[None], 1e-9
    )
    gap = start[None, :, :] - start[:, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        # Where segment i's line (start_i + t along_i) meets segment j's (start_j + u along_j).
        t = (gap[..., 0] * along[None, :, 1] - gap[..., 1] * along[None, :, 0]) / cross
        u = (gap[..., 0] * along[:, None, 1] - gap[..., 1] * along[:, None, 0]) / cross
    # Each segment's reach as a share of its own length: t runs along segment i (rows), u along j.
    own, other = reach / np.maximum(length[:, None], 1e-9), reach / np.maximum(length[None, :], 1e-9)
    meet = steep & (t > -own) & (t < 1 + own) & (u > -other) & (u < 1 + other)
    return cast(npt.NDArray[np.intp], meet.sum(axis=1))


def _lines(segments: FloatArray) -> FloatArray:
    """Each segment's line, homogeneous, scaled so that ``line @ (x, y, 1)`` is a distance."""
    lines = np.cross(
        np.c_[segments[:, :2], np.ones(len(segments))], np.c_[segments[:, 2:], np.ones(len(segments))]
    )
    return cast(FloatArray, lines / np.linalg.norm(lines[:, :2], axis=1, keepdims=True))


def _points_at(
    segments: FloatArray, points: FloatArray, params: GridlineParams = GRIDLINE_PARAMS
) -> npt.NDArray[np.bool_]:
    """For homogeneous points ``(M, 3)`` (at infinity too): which segments point at each, ``(M, N)``."""
    middle = (segments[:, :2] + segments[:, 2:]) / 2
    along = segments[:, 2:] - segments[:, :2]
    along = along / np.linalg.norm(along, axis=1, keepdims=True)
    # The direction from each segment's middle towards each point: (w x - middle) up to its sign.
    towards = points[:, None, :2] - points[:, None, 2:3] * middle[None]
    norm = np.maximum(np.linalg.norm(towards, axis=2), 1e-12)
    sine = np.abs(along[None, :, 0] * towards[..., 1] - along[None, :, 1] * towards[..., 0]) / norm
    return cast(npt.NDArray[np.bool_], sine < np.sin(np.radians(params.points_at_deg)))


def vanishing_point(
    segments: FloatArray, weights: FloatArray, params: GridlineParams = GRIDLINE_PARAMS
) -> tuple[FloatArray, npt.NDArray[np.bool_]] | None:
    """The point (homogeneous, unit length) most of the segments' weight points at, and which do.

    Tried through every pair of the :attr:`GridlineParams.vanishing_segments` weightiest, then refitted to all
    that point at it by least squares.
    """
    if len(segments) < 2:
        return None
    lines = _lines(segments)
    top = np.argsort(-weights, kind="stable")[: params.vanishing_segments]
    first, second = np.triu_indices(len(top), 1)
    points = np.cross(lines[top[first]], lines[top[second]])
    points = points[np.linalg.norm(points, axis=1) > 1e-12]
    if not len(points):
        return None
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    support = _points_at(segments, points, params=params) @ weights
    inliers = _points_at(segments, points[np.argmax(support)][None], params=params)[0]
    point = _meeting_point(lines[inliers], weights[inliers])
    return point, _points_at(segments, point[None], params=params)[0]


def _meeting_point(lines: FloatArray, weights: FloatArray) -> FloatArray:
    """The point (homogeneous, unit length) nearest all of ``lines``, by weighted least squares."""
    _, _, vt = np.linalg.svd(lines * np.sqrt(weights)[:, None])
    return cast(FloatArray, vt[-1])


def even_run(
    positions: FloatArray,
    weights: FloatArray,
    shortest: float,
    longest: float,
    params: GridlineParams = GRIDLINE_PARAMS,
) -> EvenRun | None:
    """The longest run of evenly spaced ``positions`` (parallel lines' offsets), its period between
    ``shortest`` and ``longest``; of runs as long, the weightiest.

    Lines within :attr:`GridlineParams.same_line_px` are merged first; a run is refitted by least squares.
    """
    order = np.argsort(positions)
    sorted_at, sorted_w = positions[order], weights[order]
    group = np.r_[0, np.cumsum(np.diff(sorted_at) > params.same_line_px)]
    count = int(group[-1]) + 1 if len(group) else 0
    weight = np.bincount(group, sorted_w, count)
    at = np.bincount(group, sorted_at * sorted_w, count) / np.maximum(weight, 1e-12)
    best: tuple[int, float] = (0, 0.0)
    run: EvenRun | None = None
    for i in range(count):
        for j in range(i + 1, count):
            for skip in range(1, params.max_skip + 1):
                period = (at[j] - at[i]) / skip
                if not shortest <= period <= longest:
                    continue
                steps = (at - at[i]) / period
                tooth = np.round(steps)
                on = np.abs(steps - tooth) * period < max(params.on_pitch_px, params.on_pitch * period)
                teeth = np.unique(tooth[on]).astype(int)
                pieces = np.split(teeth, np.flatnonzero(np.diff(teeth) != 1) + 1)
                longest_piece = max(pieces, key=len)
                chosen = on & np.isin(tooth, longest_piece)
                key = (len(longest_piece), float(weight[chosen].sum()))
                if key <= best:
                    continue
                best = key
                root = np.sqrt(weight[chosen])
                design = np.c_[np.ones(int(chosen.sum())), tooth[chosen]] * root[:, None]
                origin, fitted = np.linalg.lstsq(design, at[chosen] * root, rcond=None)[0]
                run = EvenRun(len(longest_piece), float(fitted), float(origin + fitted * longest_piece[0]))
    return run


def line_families(
    segments: FloatArray, weights: FloatArray, params: GridlineParams = GRIDLINE_PARAMS
) -> list[npt.NDArray[np.bool_]]:
    """Up to :attr:`GridlineParams.max_families` families of segments, each pointing at one vanishing point
    (:func:`vanishing_point`), the weightiest first: each is set aside before the next is sought.

    """
    families: list[npt.NDArray[np.bool_]] = []
    left = np.ones(len(segments), bool)
    while len(families) < params.max_families:
        rest = np.flatnonzero(left)
        found = vanishing_point(segments[rest], weights[rest], params=params)
        if found is None:
            break
        family = np.zeros(len(segments), bool)
        family[rest[found[1]]] = True
        if family.sum() < params.min_run:
            break
        families.append(family)
        left &= ~family
    return families


def _direction(segments: FloatArray) -> FloatArray:
    """The segments' mean direction, as a unit vector, whichever way each was drawn."""
    along = segments[:, 2:] - segments[:, :2]
    # Doubling the angles makes a direction and its reverse the same.
    angle = np.arctan2(along[:, 1], along[:, 0])
    length = np.linalg.norm(along, axis=1)
    mean = 0.5 * np.arctan2((length * np.sin(2 * angle)).sum(), (length * np.cos(2 * angle)).sum())
    return np.array([np.cos(mean), np.sin(mean)])


def _runs(
    segments: FloatArray,
    weights: FloatArray,
    upright: npt.NDArray[np.bool_],
    level: npt.NDArray[np.bool_],
    long_side: int,
    params: GridlineParams = GRIDLINE_PARAMS,
) -> tuple[FloatArray, EvenRun, EvenRun] | None:
    """A map of the photo taking the families ``upright`` and ``level`` to upright and level lines,
    and each family's run of evenly spaced lines there (the upright family's first); None where the
    families are not two directions or either shows no run."""
    (ux, uy), (lx, ly) = _direction(segments[upright]), _direction(segments[level])
    across_families = abs(float(ux * ly - uy * lx))
    if across_families < np.sin(np.radians(params.crossing_deg)):
        return None
    lines = _lines(segments)
    points = [_meeting_point(lines[family], weights[family]) for family in (upright, level)]
    # The line through both vanishing points goes to infinity; the photo's middle keeps its scale.
    horizon = np.cross(points[0], points[1])
    middle = np.r_[segments[:, :2].mean(axis=0), 1.0]
    if abs(horizon @ middle) < 1e-9 * np.linalg.norm(horizon):
        return None
    affine = np.eye(3)
    affine[2] = horizon / (horizon @ middle)
    directions = np.column_stack([(affine @ point)[:2] for point in (points[1], points[0])])
    directions /= np.maximum(np.linalg.norm(directions, axis=0), 1e-12)
    if not np.isfinite(affine).all() or abs(np.linalg.det(directions)) < 1e-6:
        # A family whose direction is lost (its point sent to infinity as well), or both one way.
        return None
    turn = np.eye(3)
    turn[:2, :2] = np.linalg.inv(directions)
    rectify = turn @ affine
    middles = cv2.perspectiveTransform(((segments[:, :2] + segments[:, 2:]) / 2).reshape(-1, 1, 2), rectify)
    middles = middles.reshape(-1, 2)
    shortest, longest = (share * long_side for share in params.pitch_range)
    across = even_run(middles[upright, 0], weights[upright], shortest, longest, params=params)
    down = even_run(middles[level, 1], weights[level], shortest, longest, params=params)
    if across is None or down is None or min(across.lines, down.lines) < params.min_run:
        return None
    return rectify, across, down


def lattice_homographies(
    small: Image, scale: float, params: GridlineParams = GRIDLINE_PARAMS
) -> list[FloatArray]:
    """Homographies (board millimetres to photo pixels) laying the board's grid on the lattice of
    the photo's grid lines, its columns on either family; ``small`` is the photo reduced by
    ``scale`` to about 1000 pixels long. Empty where no two families of evenly spaced lines show.

    Each puts the middle of the board's grid at the middle of each family's run, so it may be whole
    cells off, or turned half round; the board keeps its handedness.
    """
    grey = to_grey(small)
    segments = line_segments(grey, params=params)
    if len(segments) < 2:
        return []
    crossed = crossings(segments, params.crossing_reach * max(grey.shape[:2]), params=params)
    keep = crossed > 0
    segments, weights = segments[keep], np.minimum(crossed[keep], params.max_weight).astype(np.float64)
    found_homographies = []
    for upright, level in itertools.combinations(line_families(segments, weights, params=params), 2):
        found = _runs(segments, weights, upright, level, max(grey.shape[:2]), params=params)
        if found is not None:
            found_homographies += _laid(*found, scale)
    return found_homographies


def _laid(rectify: FloatArray, across: EvenRun, down: EvenRun, scale: float) -> list[FloatArray]:
    """The board laid on the runs ``across`` and ``down`` of the photo rectified by ``rectify`` (and
    reduced by ``scale``), its columns across and then down."""
    to_photo = np.diag([1 / scale, 1 / scale, 1.0]) @ np.linalg.inv(rectify)
    # The grid's middle lines: column line 4 of 0..8, row line 2 of 0..5.
    mid_x, mid_y = MARGIN_MM + 4 * PITCH_MM, MARGIN_MM + 2 * PITCH_MM
    x_at = across.first + across.period * ((across.lines - 1) // 2)
    y_at = down.first + down.period * ((down.lines - 1) // 2)
    sx, sy = across.period / PITCH_MM, down.period / PITCH_MM
    laid = []
    for columns_upright in (True, False):
        if columns_upright:
            lay = np.array([[sx, 0, x_at - mid_x * sx], [0, sy, y_at - mid_y * sy], [0, 0, 1]])
        else:
            lay = np.array([[0, sx, x_at - mid_y * sx], [sy, 0, y_at - mid_x * sy], [0, 0, 1]])
        homography = to_photo @ lay
        if not keeps_handedness(homography, (mid_x, mid_y)):
            # Mirrored: the board's x runs the other way along its family.
            homography = homography @ np.array([[-1.0, 0, 2 * mid_x], [0, 1, 0], [0, 0, 1]])
        laid.append(homography / homography[2, 2])
    return laid
