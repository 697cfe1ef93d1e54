"""Settle a board found on its printed grid: the grid repeats and is symmetric, the gold is not.

A homography pulled onto the grid's crossings (:func:`vision.locate.grid.refine_on_grid`)
may have locked on whole cells away from the board's true place, or with the
board turned half round: every interior crossing looks like every other, and an
8 x 5 grid turned half round is the same grid. Two things tell these apart:
the printed lines stop at the grid's outer edge (its extent), and the 8 gold
tokens lie on 8 cells of no symmetry. :func:`settle` weighs every whole-cell
shift, turned or not, by both.

>>> import numpy as np
>>> [round(float(v)) for v in lattice_move(1, 0, half_turn=True) @ np.array([20.0, 20.0, 1.0])]
[425, 245, 1]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from engine.board import COLS, GOLD_CELLS, OFF_GOLD_CELLS, ROWS, Cell
from vision.geometry import BOARD_H_MM, BOARD_W_MM, GOLD_DIAMETER_MM, GRID_LINE_MM, MARGIN_MM, PITCH_MM
from vision.texture import dark_lines

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]

#: Shifts of up to this many cells either way are weighed.
SHIFT_COLS = 4
SHIFT_ROWS = 3
#: The board and that much around it are seen at this many pixels a millimetre.
PX_PER_MM = 2.0


@dataclass(frozen=True)
class LatticeParams:
    """How a grid fit is settled on the lattice: the hand-set numbers."""

    #: A line segment's middle is looked at, this far (mm) from its crossings, against the art this far
    #: (mm) either side of it.
    segment_end_mm: float = 8.0
    beside_mm: tuple[float, ...] = (3.0, 5.0)
    #: Shifts whose lines show at least this share of the best one's are told apart by their gold.
    extent_share: float = 0.9
    #: Past the grid's edge a board's frame and a table's edge may cross some of its lines' paths: a
    #: high percentile of the segments there tells the lines going on (:func:`lines_beyond`).
    beyond_percentile: float = 65.0
    #: Each gold cell is looked at within this radius (mm) of its centre (a token's is 15 mm).
    gold_disc_mm: float = 10.0


LATTICE_PARAMS = LatticeParams()


_CELL_COLS = COLS + 2 * SHIFT_COLS
_CELL_ROWS = ROWS + 2 * SHIFT_ROWS
_ORIGIN_MM = np.array([SHIFT_COLS * PITCH_MM, SHIFT_ROWS * PITCH_MM])


def lattice_move(cols: int, rows: int, half_turn: bool = False) -> FloatArray:
    """The map of board millimetres taking the board ``cols`` and ``rows`` cells along, after turning
    it half round about its centre if ``half_turn``: a homography ``h`` becomes ``h @ move``."""
    shift = np.array([[1.0, 0.0, cols * PITCH_MM], [0.0, 1.0, rows * PITCH_MM], [0.0, 0.0, 1.0]])
    if not half_turn:
        return shift
    turn = np.array([[-1.0, 0.0, BOARD_W_MM], [0.0, -1.0, BOARD_H_MM], [0.0, 0.0, 1.0]])
    return cast(FloatArray, shift @ turn)


def _whole_cell_moves(cols: int, rows: int) -> Iterator[tuple[int, int, bool]]:
    """Every whole-cell move at most ``cols`` columns and ``rows`` rows along, turned half round or
    not, other than none, as :func:`lattice_move`'s (columns, rows, half turn)."""
    for half_turn in (False, True):
        for c in range(-cols, cols + 1):
            for r in range(-rows, rows + 1):
                if half_turn or (c, r) != (0, 0):
                    yield c, r, half_turn


def nearby_moves(cols: int = 2, rows: int = 1) -> tuple[FloatArray, ...]:
    """Every whole-cell move (:func:`lattice_move`) at most ``cols`` columns and ``rows`` rows along,
    turned half round or not, other than none: where a grid locked a few cells off, or turned, lies.

    >>> len(nearby_moves()), len(nearby_moves(cols=0, rows=0))
    (29, 1)
    """
    return tuple(lattice_move(*move) for move in _whole_cell_moves(cols, rows))


def gold_twins(least: int = len(GOLD_CELLS) // 2) -> tuple[FloatArray, ...]:
    """The whole-cell moves (:func:`lattice_move`) other than none that put at least ``least`` of the
    gold cells on gold cells: the places the gold alone can hardly tell from the board's own, where
    its lines hardly show. The art inside the cells can.

    Turned half round and two columns along, six of the eight gold cells stay on gold:

    >>> any(np.allclose(move, lattice_move(-2, 0, half_turn=True)) for move in gold_twins())
    True
    >>> len(gold_twins()), len(gold_twins(least=7))
    (4, 0)
    """
    gold = {(cell.col, cell.row) for cell in GOLD_CELLS}
    turned = {False: gold, True: {(COLS - 1 - c, ROWS - 1 - r) for c, r in gold}}
    return tuple(
        lattice_move(cols, rows, half_turn)
        for cols, rows, half_turn in _whole_cell_moves(COLS - 1, ROWS - 1)
        if len({(c + cols, r + rows) for c, r in turned[half_turn]} & gold) >= least
    )


def around_view(image: Image, homography: FloatArray) -> Image:
    """``image`` (``homography`` maps board mm to its pixels) seen from above, the board and the
    shifts weighed around it, at :data:`PX_PER_MM`; what lies outside the photo is 0."""
    to_mm = np.array(
        [[1 / PX_PER_MM, 0.0, -_ORIGIN_MM[0]], [0.0, 1 / PX_PER_MM, -_ORIGIN_MM[1]], [0.0, 0.0, 1.0]]
    )
    size = (
        round((BOARD_W_MM + 2 * _ORIGIN_MM[0]) * PX_PER_MM),
        round((BOARD_H_MM + 2 * _ORIGIN_MM[1]) * PX_PER_MM),
    )
    return cast(
        Image,
        cv2.warpPerspective(
            image,
            homography @ to_mm,
            size,
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=0,
        ),
    )


def _px(mm: float, origin: float) -> int:
    return round((mm + origin) * PX_PER_MM)


def line_presence(grey: Image, params: LatticeParams = LATTICE_PARAMS) -> tuple[FloatArray, FloatArray]:
    """How much each grid segment of :func:`around_view`'s lattice stands out darker than the art
    beside it: vertical segments (line, cell row) and horizontal ones (line, cell column)."""
    hat = dark_lines(grey, round(4 * GRID_LINE_MM * PX_PER_MM) | 1)
    ox, oy = _ORIGIN_MM
    vertical = _upright_presence(
        hat, _CELL_COLS + 1, _CELL_ROWS, ox, oy, SHIFT_COLS, SHIFT_ROWS, params=params
    )
    # A horizontal line is an upright one of the image turned over its diagonal.
    horizontal = _upright_presence(
        hat.T, _CELL_ROWS + 1, _CELL_COLS, oy, ox, SHIFT_ROWS, SHIFT_COLS, params=params
    )
    return vertical, horizontal


def _upright_presence(
    hat: FloatImage,
    lines: int,
    cells: int,
    origin_across: float,
    origin_along: float,
    shift_across: int,
    shift_along: int,
    params: LatticeParams = LATTICE_PARAMS,
) -> FloatArray:
    """:func:`line_presence` of the upright segments of ``hat``, whose pixel ``[i, j]`` lies at
    ``j / PX_PER_MM - origin_across`` board mm across the lines and ``i / PX_PER_MM - origin_along``
    along them, the board shifted up to ``shift_across`` and ``shift_along`` cells."""
    near, far = (round(d * PX_PER_MM) for d in params.beside_mm)
    presence = np.zeros((lines, cells))
    for k in range(lines):
        x = _px(MARGIN_MM + (k - shift_across) * PITCH_MM, origin_across)
        for j in range(cells):
            top = MARGIN_MM + (j - shift_along) * PITCH_MM
            ends = (
                _px(top + params.segment_end_mm, origin_along),
                _px(top + PITCH_MM - params.segment_end_mm, origin_along),
            )
            band = hat[ends[0] : ends[1]]
            presence[k, j] = _contrast(
                band[:, x - 1 : x + 2], band[:, x - far : x - near], band[:, x + near : x + far]
            )
    return presence


def _contrast(on: FloatImage, *beside: FloatImage) -> float:
    if on.size == 0:
        return 0.0
    around = np.concatenate([b.ravel() for b in beside])
    return float(on.mean() - (around.mean() if around.size else 0.0))


def gold_presence(gold: Image, params: LatticeParams = LATTICE_PARAMS) -> FloatArray:
    """The share of gold within :attr:`LatticeParams.gold_disc_mm` of each cell's centre in
    :func:`around_view`'s
    lattice, ``gold`` being 1 where a pixel looks like gold: (cell row, cell column)."""
    radius = round(params.gold_disc_mm * PX_PER_MM)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1)).astype(np.float32)
    ox, oy = _ORIGIN_MM
    rows = [_px(MARGIN_MM + (j - SHIFT_ROWS + 0.5) * PITCH_MM, oy) for j in range(_CELL_ROWS)]
    columns = [_px(MARGIN_MM + (k - SHIFT_COLS + 0.5) * PITCH_MM, ox) for k in range(_CELL_COLS)]
    # The disc summed at the cells' centres alone, not filtered over the whole view; beyond the
    # view counts as no gold.
    windows = np.lib.stride_tricks.sliding_window_view(np.pad(gold, radius), disc.shape)
    around = windows[np.ix_(rows, columns)].astype(np.float32)
    out: FloatArray = np.einsum("rcij,ij->rc", around, disc / disc.sum(), dtype=np.float64)
    return out


def gold_tokens(
    gold: Image, homography: FloatArray, reach: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Where a token's disc is fullest of gold (:func:`around_view` of ``gold``, 1 where a pixel
    looks like gold) within ``reach`` of a pitch of each gold cell's centre, the board as
    ``homography`` places it or turned half round, whichever fills the gold cells' discs more: those
    places (board mm as placed, in :data:`vision.locate.grid.GOLD_MM`'s order, turned where it was
    turned), each disc's share of gold there, and the share in the disc at each other cell's centre.

    A board placed only roughly (by its outline, where its grid hardly shows) has its tokens near
    where it puts them; the fixed layout of the gold, not its symmetric outline, tells it turned.
    """
    radius = round(GOLD_DIAMETER_MM / 2 * PX_PER_MM)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1)).astype(np.float32)
    seen = around_view(gold, homography).astype(np.float32)
    fill = cv2.filter2D(seen, -1, disc / disc.sum(), borderType=cv2.BORDER_CONSTANT)
    within = round(reach * PITCH_MM * PX_PER_MM)
    dy, dx = np.indices((2 * within + 1, 2 * within + 1)) - within
    outside = dx**2 + dy**2 > within**2
    padded = cv2.copyMakeBorder(fill, within, within, within, within, cv2.BORDER_CONSTANT, value=0.0)
    best: tuple[float, FloatArray, FloatArray, FloatArray] | None = None
    for half_turn in (False, True):
        places, shares = [], []
        for cell in GOLD_CELLS:
            x, y = _cell_px(cell, half_turn)
            # The padded view's window centred on the cell's centre.
            window = np.where(outside, -1.0, padded[y : y + 2 * within + 1, x : x + 2 * within + 1])
            i, j = (int(k) for k in np.unravel_index(int(np.argmax(window)), window.shape))
            places.append(_mm_at(x + j - within, y + i - within))
            shares.append(float(window[i, j]))
        others = [fill[y, x] for cell in OFF_GOLD_CELLS for x, y in [_cell_px(cell, half_turn)]]
        total = float(np.sum(shares))
        if best is None or total > best[0]:
            best = (total, np.array(places, np.float64), np.array(shares), np.array(others, np.float64))
    assert best is not None
    return best[1], best[2], best[3]


def _cell_px(cell: Cell, half_turn: bool) -> tuple[int, int]:
    """The pixel of :func:`around_view` at ``cell``'s centre, the board placed turned half round or not."""
    row, col = (ROWS - 1 - cell.row, COLS - 1 - cell.col) if half_turn else (cell.row, cell.col)
    x, y = MARGIN_MM + (col + 0.5) * PITCH_MM, MARGIN_MM + (row + 0.5) * PITCH_MM
    return _px(x, _ORIGIN_MM[0]), _px(y, _ORIGIN_MM[1])


def _mm_at(x: int, y: int) -> tuple[float, float]:
    """The board mm at :func:`around_view`'s pixel ``(x, y)``."""
    return x / PX_PER_MM - float(_ORIGIN_MM[0]), y / PX_PER_MM - float(_ORIGIN_MM[1])


def lines_around(
    grey: Image, homography: FloatArray, params: LatticeParams = LATTICE_PARAMS
) -> tuple[FloatArray, FloatArray]:
    """:func:`line_presence` of the photo, or the photo reduced, ``grey`` where ``homography`` (board
    millimetres to its pixels) places the board (:func:`around_view`): what :func:`settle` and
    :func:`lines_beyond` weigh, made once for both."""
    return line_presence(around_view(grey, homography), params=params)


def lines_beyond(lines: tuple[FloatArray, FloatArray], params: LatticeParams = LATTICE_PARAMS) -> float:
    """How strongly the grid's lines go on past its outer lines, for one cell, as a share of how
    strongly they show on the grid: the :attr:`LatticeParams.beyond_percentile` of those segments of
    :func:`line_presence` (``lines``, :func:`lines_around` the board as placed) over the median of the
    grid's own.

    A board's printed lines end at its grid's edge; a tiled table's go on (where the photo shows
    more of it than a wall or a cloth), and its tiles can lock a grid fit as well as a board's lines
    do.
    """
    vertical, horizontal = lines
    columns, rows = slice(SHIFT_COLS, SHIFT_COLS + COLS + 1), slice(SHIFT_ROWS, SHIFT_ROWS + ROWS + 1)
    on = np.r_[
        vertical[columns, SHIFT_ROWS : SHIFT_ROWS + ROWS].ravel(),
        horizontal[rows, SHIFT_COLS : SHIFT_COLS + COLS].ravel(),
    ]
    past = np.r_[
        vertical[columns, [SHIFT_ROWS - 1, SHIFT_ROWS + ROWS]].ravel(),
        horizontal[rows, [SHIFT_COLS - 1, SHIFT_COLS + COLS]].ravel(),
    ]
    return float(np.percentile(past, params.beyond_percentile) / max(float(np.median(on)), 1e-6))


def settle(
    lines: tuple[FloatArray, FloatArray],
    gold: Image,
    homography: FloatArray,
    params: LatticeParams = LATTICE_PARAMS,
) -> tuple[FloatArray, float]:
    """The move (:func:`lattice_move`) putting a board locked on its grid by ``homography`` where
    its lines end and its gold lies, and the gold's share summed over the 8 gold cells there.

    ``lines`` are :func:`lines_around` the board as ``homography`` places it, and ``gold`` (1 where a
    pixel looks like gold) is the photo, or the photo reduced, that ``homography`` maps board
    millimetres to. Among the shifts whose lines show nearly as well as the best one's, the one
    putting the most gold on the gold cells is taken.
    """
    vertical, horizontal = lines
    golds = gold_presence(around_view(gold, homography), params=params)
    shifts = [(c, r) for c in range(-SHIFT_COLS, SHIFT_COLS + 1) for r in range(-SHIFT_ROWS, SHIFT_ROWS + 1)]
    extent = {}
    for c, r in shifts:
        k, j = c + SHIFT_COLS, r + SHIFT_ROWS
        extent[c, r] = float(
            vertical[k : k + COLS + 1, j : j + ROWS].sum() + horizontal[j : j + ROWS + 1, k : k + COLS].sum()
        )
    best_extent = max(extent.values())
    rows = np.array([cell.row for cell in GOLD_CELLS])
    cols = np.array([cell.col for cell in GOLD_CELLS])
    choices = []
    for (c, r), shown in extent.items():
        # Measured from the best down, so that where no lines stand out (all darker art) the best
        # is still among them.
        if shown < best_extent - (1 - params.extent_share) * abs(best_extent):
            continue
        for half_turn in (False, True):
            at_rows = (ROWS - 1 - rows if half_turn else rows) + r + SHIFT_ROWS
            at_cols = (COLS - 1 - cols if half_turn else cols) + c + SHIFT_COLS
            choices.append((float(golds[at_rows, at_cols].sum()), shown, c, r, half_turn))
    gold_sum, _, c, r, half_turn = max(choices)
    return lattice_move(c, r, half_turn), gold_sum
