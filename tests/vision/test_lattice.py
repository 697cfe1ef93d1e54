"""Finding a board by its gold, outline and grid, and settling a fit locked whole cells off or turned.

Photos are rendered from the tuning copies only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from faces import photo_of_face
from renders import TuningPhoto

from calibration.profile import REFERENCE_GOLD
from vision.geometry import GOLD_DIAMETER_MM, PITCH_MM, board_corners_mm
from vision.learn.improvise import IMPROVISE_PARAMS
from vision.locate.features import FoundBy, Located
from vision.locate.find import placed_by_numerals
from vision.locate.grid import (
    BASES,
    GOLD_ALIKE,
    GOLD_MM,
    GRID_PARAMS,
    MAX_CANDIDATES,
    MIN_BASIS_AREA_MM2,
    SPREAD_BASES,
    GoldMap,
    best_first,
    circle_candidates,
    gold_candidates,
    gold_homographies,
    gold_map,
    gold_mask,
    gold_under_board_light,
    line_evidence,
    locate_by_grid,
    outline_quads,
    photo_lines,
)
from vision.locate.lattice import gold_tokens, lattice_move, lines_around, lines_beyond, nearby_moves, settle
from vision.looks import Kind
from vision.read.numerals import numerals_shown
from vision.timing import Timer

pytestmark = pytest.mark.slow  # renders and searches 12 MP photos

GOLD_BGR = np.array(REFERENCE_GOLD[::-1], float)
INSIDE_MM = np.array([[x, y] for x in np.linspace(20, 380, 9) for y in np.linspace(20, 245, 6)])
GAME_PHOTO = 207  # a tuning photo of orange and white warriors (orange looks like gold)


def _error_mm(homography: npt.NDArray[np.float64], truth: npt.NDArray[np.float64]) -> float:
    seen = cv2.perspectiveTransform(INSIDE_MM[None], homography)[0]
    return float(np.abs(cv2.perspectiveTransform(seen[None], np.linalg.inv(truth))[0] - INSIDE_MM).max())


def _found_error_mm(image: npt.NDArray[np.uint8], truth: npt.NDArray[np.float64]) -> float:
    """How far off the board :func:`locate_by_grid` finds is (mm), or infinity where it finds none."""
    fit = locate_by_grid(image, GOLD_BGR)
    return np.inf if fit is None else _error_mm(fit.homography, truth)


def _nearest_layout_mm(
    candidates: npt.NDArray[np.float64],
    truth: npt.NDArray[np.float64],
    bases: tuple[tuple[tuple[int, ...], ...], ...] = (BASES, SPREAD_BASES),
) -> float:
    """How near the board the nearest way of laying the gold on ``candidates`` comes (mm)."""
    errors = [
        _error_mm(first, truth)
        for quadruples in bases
        for first, _ in gold_homographies(candidates, keep=GRID_PARAMS.layouts, bases=quadruples)
    ]
    return min(errors, default=np.inf)


def _reduced(
    image: npt.NDArray[np.uint8], homography: npt.NDArray[np.float64]
) -> tuple[GoldMap, npt.NDArray[np.uint8], npt.NDArray[np.float64]]:
    """The gold search's map of ``image``, its reduced photo in grey, and ``homography`` (board mm
    to ``image``'s pixels) moved onto the reduced photo, as :func:`settle` takes them."""
    seen = gold_map(image, GOLD_BGR)
    grey = np.asarray(cv2.cvtColor(seen.small, cv2.COLOR_BGR2GRAY), np.uint8)
    return seen, grey, np.diag([seen.scale, seen.scale, 1.0]) @ homography


@pytest.fixture
def no_circles(monkeypatch: pytest.MonkeyPatch) -> None:
    """Gold tokens found as round blobs only."""
    monkeypatch.setattr("vision.locate.grid.circle_candidates", lambda seen: (np.zeros((0, 2)), np.zeros(0)))


def test_a_move_shifts_and_turns_the_board() -> None:
    turned = lattice_move(0, 0, half_turn=True)
    # Turned half round, the grid's corners swap, and turning twice is no move.
    corners = np.c_[board_corners_mm(), np.ones(4)] @ turned.T
    assert np.allclose(corners[:, :2], board_corners_mm()[[2, 3, 0, 1]])
    assert np.allclose(turned @ turned, np.eye(3))
    assert np.allclose(lattice_move(2, -1) @ np.array([0.0, 0.0, 1.0]), [90.0, -45.0, 1.0])


@pytest.mark.parametrize(
    ("cols", "rows", "half_turn"), [(0, 0, False), (0, 0, True), (2, 0, False), (-2, 1, True), (1, -1, False)]
)
def test_a_fit_off_by_whole_cells_or_turned_is_settled_back(
    cols: int, rows: int, half_turn: bool, tuning_photo: TuningPhoto
) -> None:
    photo, truth = tuning_photo(GAME_PHOTO)
    wrong = truth @ np.linalg.inv(lattice_move(cols, rows, half_turn))
    seen, grey, on_small = _reduced(photo.image, wrong)
    move, gold_sum = settle(lines_around(grey, on_small), gold_mask(seen), on_small)
    assert _error_mm(wrong @ move, truth) < 0.5
    assert gold_sum >= GRID_PARAMS.min_gold_sum


def test_a_board_seen_from_its_far_side_among_gold_looking_warriors_is_found_right_way_round(
    tuning_photo: TuningPhoto,
) -> None:
    photo, truth = tuning_photo(GAME_PHOTO)
    assert _found_error_mm(photo.image, truth) < 2.0


def test_an_ochre_board_whose_few_round_tokens_miss_every_first_basis_is_found(
    tuning_photo: TuningPhoto,
) -> None:
    # The gold's rims show on ochre art for only some tokens: every spread quadruple of gold cells
    # is tried once the first four fail.
    photo, truth = tuning_photo(239)
    assert _found_error_mm(photo.image, truth) < 2.0


@pytest.mark.usefixtures("no_circles")
def test_a_board_whose_round_tokens_miss_every_first_basis_is_found_by_the_blobs_alone() -> None:
    # Two gold tokens hidden (by a hand, say) leave every first quadruple one short; the other
    # round blobs of gold still give the board (a spread quadruple, or a first one that the grid
    # pulls and settles), circles or no circles.
    # The printed face, not a render: which of a busy render's many gold-looking blobs come first
    # moves with the last bits of its JPEG encoder, and with them whether the right quadruple
    # comes within the gold's tries (29th of a render of the tuning copies' photo 207 on one
    # machine, within 20 on another).
    image, truth = photo_of_face([[260.0, 180.0], [1380.0, 240.0], [1330.0, 1000.0], [300.0, 1060.0]])
    pitch_px = np.linalg.norm(
        np.diff(cv2.perspectiveTransform(GOLD_MM[None, :1] + [[0.0], [45.0]], truth)[0], axis=0)
    )
    for cell, centre in enumerate(cv2.perspectiveTransform(GOLD_MM[None], truth)[0]):
        if cell not in (2, 3):
            cv2.circle(image, np.round(centre).astype(int), round(0.33 * pitch_px), GOLD_BGR.tolist(), -1)
    assert _nearest_layout_mm(gold_candidates(gold_map(image, GOLD_BGR))[0], truth, (BASES,)) > 20.0
    assert _found_error_mm(image, truth) < 2.0


@pytest.mark.usefixtures("no_circles")
def test_a_board_whose_tokens_are_crowded_out_by_rounder_gold_blobs_is_found(
    monkeypatch: pytest.MonkeyPatch, tuning_photo: TuningPhoto
) -> None:
    # A table scattered with rounder gold-coloured things than the tokens (a wooden table's knots,
    # coins): the roundest blobs are theirs, and the tokens are found among more blobs.
    photo, truth = tuning_photo(207)
    image = photo.image.copy()
    height, width = image.shape[:2]
    board = cv2.perspectiveTransform(board_corners_mm()[None], truth)[0].astype(np.float32)
    radius = round(0.03 * width)
    placed = 0
    for y in range(radius * 2, height - radius * 2, radius * 3):
        for x in range(radius * 2, width - radius * 2, radius * 3):
            if placed < MAX_CANDIDATES and cv2.pointPolygonTest(board, (x, y), True) < -2 * radius:
                cv2.circle(image, (x, y), radius, REFERENCE_GOLD[::-1], -1, cv2.LINE_AA)
                placed += 1
    assert placed == MAX_CANDIDATES
    monkeypatch.setattr("vision.locate.grid.outline_homographies", lambda seen: [])
    assert _nearest_layout_mm(gold_candidates(gold_map(image, GOLD_BGR))[0], truth) > 20.0
    assert _found_error_mm(image, truth) < 2.0


def test_the_spread_bases_are_new_and_spread() -> None:
    tried = {frozenset(basis) for basis in BASES}
    assert len(SPREAD_BASES) == len({frozenset(basis) for basis in SPREAD_BASES}) > 20
    for basis in SPREAD_BASES:
        assert frozenset(basis) not in tried
        hull = cv2.convexHull(GOLD_MM[list(basis)].astype(np.float32))
        assert len(hull) == 4 and cv2.contourArea(hull) >= MIN_BASIS_AREA_MM2


def test_a_board_whose_gold_shows_too_few_round_tokens_is_found_by_its_outline(
    tuning_photo: TuningPhoto,
) -> None:
    # Ochre art runs into most of the gold: no way of laying the gold comes near, but the board's
    # edge outlines it, and the grid and the gold settle which way round it lies.
    photo, truth = tuning_photo(245)
    seen = gold_map(photo.image, GOLD_BGR)
    for find in (gold_candidates, circle_candidates):
        assert _nearest_layout_mm(find(seen)[0], truth) > 20.0
    assert _found_error_mm(photo.image, truth) < 2.0


def test_a_four_cornered_outline_is_found_round_its_corners() -> None:
    small = np.full((600, 800, 3), 200, np.uint8)
    corners = np.array([[150, 120], [640, 90], [700, 480], [110, 520]], np.int32)
    cv2.fillConvexPoly(small, corners, (60, 50, 40))
    flat = np.zeros(small.shape[:2], np.float32)
    quads = outline_quads(GoldMap(small, 0.5, flat, flat))
    assert len(quads) == 1
    # In the photo's own pixels (twice the reduced ones), each corner within a few pixels.
    gaps = np.linalg.norm(quads[0][:, None] - 2.0 * corners[None], axis=-1)
    assert gaps.min(axis=0).max() < 8.0 and gaps.min(axis=1).max() < 8.0


def test_a_board_whose_ochre_art_looks_all_gold_is_found_by_its_purer_gold(
    monkeypatch: pytest.MonkeyPatch, tuning_photo: TuningPhoto
) -> None:
    # Desert art under warm light: every pixel of the board points the gold's way, so the tokens
    # merge with the art into shapeless blobs; only the tokens' purer gold makes round ones.
    photo, truth = tuning_photo(644)
    with monkeypatch.context() as loose:
        loose.setattr("vision.locate.grid.GOLD_ALIKES", (GOLD_ALIKE,))
        assert _nearest_layout_mm(gold_candidates(gold_map(photo.image, GOLD_BGR))[0], truth) > 20.0
    assert _nearest_layout_mm(gold_candidates(gold_map(photo.image, GOLD_BGR))[0], truth) < 20.0
    assert _found_error_mm(photo.image, truth) < 2.0


def test_a_board_whose_gold_and_outline_fail_is_found_by_its_grid_lines(
    monkeypatch: pytest.MonkeyPatch, tuning_photo: TuningPhoto
) -> None:
    photo, truth = tuning_photo(4)
    nothing = (np.zeros((0, 2)), np.zeros(0))
    for finder in ("gold_candidates", "circle_candidates"):
        monkeypatch.setattr(f"vision.locate.grid.{finder}", lambda seen, keep=0: nothing)
    monkeypatch.setattr("vision.locate.grid.outline_homographies", lambda seen: [])
    assert _found_error_mm(photo.image, truth) < 2.0
    monkeypatch.setattr("vision.locate.grid.lattice_homographies", lambda small, scale: [])
    assert locate_by_grid(photo.image, GOLD_BGR) is None


def _tiled_table(tile_px: float = 300.0) -> npt.NDArray[np.uint8]:
    """A 2000 x 1500 photo of a gold-coloured tiled floor seen at a slant below a white wall, and no
    board."""
    plane = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    seen = np.float32([[500, 300], [1500, 300], [1950, 1450], [50, 1450]])
    to_photo = cv2.getPerspectiveTransform(plane, seen)
    image = np.zeros((1500, 2000, 3), np.uint8)
    image[:] = REFERENCE_GOLD[::-1]
    count = round(2000 / tile_px)
    for k in range(-count, 2 * count + 1):
        for ends in (((k / count, -1.0), (k / count, 2.0)), ((-1.0, k / count), (2.0, k / count))):
            line = cv2.perspectiveTransform(np.float32([ends]), to_photo)[0]
            cv2.line(image, *np.round(line).astype(int), (40, 50, 60), 3, cv2.LINE_AA)
    # The wall keeps the light's colour from being taken for the floor's.
    image[:300] = 235
    return image


def test_a_board_whose_grid_no_start_locks_onto_is_found_by_its_outline_lying_on_its_gold(
    monkeypatch: pytest.MonkeyPatch, tuning_photo: TuningPhoto
) -> None:
    # A full board hides every crossing under its warriors and palisades: no start locks onto the
    # grid, but the board's outline and its gold tokens agree on where it lies.
    photo, truth = tuning_photo(GAME_PHOTO)
    monkeypatch.setattr("vision.locate.grid.refine_on_grid", lambda image, first, **_: (first, 0, 54))
    fit = locate_by_grid(photo.image, GOLD_BGR)
    assert fit is not None and fit.found_by is FoundBy.OUTLINE
    assert fit.gold_hits >= GRID_PARAMS.outline_gold and fit.crossings == 0
    # Fitted to the tokens' tops, which stand above the board: near enough for the art's patches
    # to register it (vision.locate.register).
    assert _error_mm(fit.homography, truth) < PITCH_MM / 5
    # The gold alone, or the outline alone, is not enough.
    assert locate_by_grid(photo.image, GOLD_BGR, ways=(FoundBy.GOLD, FoundBy.GRID_LINES)) is None
    assert locate_by_grid(photo.image, GOLD_BGR, replace(GRID_PARAMS, outline_gold=9)) is None


def test_a_tiled_floor_the_colour_of_gold_is_no_board(
    monkeypatch: pytest.MonkeyPatch, tuning_photo: TuningPhoto
) -> None:
    image = _tiled_table()
    assert locate_by_grid(image, GOLD_BGR) is None
    with monkeypatch.context() as hidden:
        # Nor where no crossing is seen at all: its outlines lie on too few gold cells.
        hidden.setattr("vision.locate.grid.refine_on_grid", lambda image, first, **_: (first, 0, 54))
        assert locate_by_grid(image, GOLD_BGR) is None
    # Its tiles lock a grid fit and show gold everywhere: only the lines going on past the grid's
    # edge tell it from a board, whose lines end there.
    tiles = locate_by_grid(image, GOLD_BGR, replace(GRID_PARAMS, max_lines_beyond=np.inf))
    assert tiles is not None and tiles.crossings >= GRID_PARAMS.confirming_crossings
    _, grey, on_small = _reduced(image, tiles.homography)
    assert lines_beyond(lines_around(grey, on_small)) > 0.5
    photo, truth = tuning_photo(GAME_PHOTO)
    _, grey, on_small = _reduced(photo.image, truth)
    assert lines_beyond(lines_around(grey, on_small)) < GRID_PARAMS.max_lines_beyond


def test_gold_under_warm_light_on_a_terracotta_floor_shows_in_the_boards_own_light(
    tuning_photo: TuningPhoto,
) -> None:
    # The floor fills most of the photo: taken as the light's colour, it leaves the tokens grey.
    photo, truth = tuning_photo(1292)
    seen, grey, on_small = _reduced(photo.image, truth)
    lines = lines_around(grey, on_small)
    _, whole_photo = settle(lines, gold_mask(seen), on_small)
    move, own = settle(lines, gold_under_board_light(seen, GOLD_BGR, on_small), on_small)
    assert whole_photo < GRID_PARAMS.min_gold_sum <= 7.0 < own
    assert np.allclose(move, np.eye(3))


def test_a_fit_where_no_line_stands_out_is_still_settled() -> None:
    # A start laid on speckled cloth crossed by clean light bands where the grid's lines would be:
    # every shift's lines show less than the cloth beside them, and the least bad is still chosen.
    rng = np.random.default_rng(5)
    grey = np.where(rng.random((750, 1000)) < 0.2, 0, 128).astype(np.uint8)
    # One pixel a millimetre, the board's origin 200 pixels right and 150 down.
    start = np.array([[1.0, 0.0, 200.0], [0.0, 1.0, 150.0], [0.0, 0.0, 1.0]])
    for k in range(-10, 20):
        grey[:, max(0, 200 + 20 + 45 * k - 2) : max(0, 200 + 20 + 45 * k + 3)] = 200
        grey[max(0, 150 + 20 + 45 * k - 2) : max(0, 150 + 20 + 45 * k + 3)] = 200
    move, gold_sum = settle(lines_around(grey, start), np.zeros_like(grey), start)
    assert move.shape == (3, 3) and gold_sum == 0.0


def test_the_photo_s_lines_lie_where_the_true_board_puts_the_grid_and_not_half_a_cell_off(
    tuning_photo: TuningPhoto,
) -> None:
    photo, truth = tuning_photo(GAME_PHOTO)
    _, grey, on_small = _reduced(photo.image, truth)
    lines = photo_lines(grey)
    right = line_evidence(lines, on_small)
    for across, down in ((0.5, 0.0), (0.0, 0.5), (0.5, 0.5)):
        off = on_small @ np.array([[1.0, 0, across * PITCH_MM], [0, 1.0, down * PITCH_MM], [0, 0, 1.0]])
        # Half a cell off one way, half the grid's lines fall in the cells; both ways, all of them,
        # and the cells' middles fall on the lines.
        assert line_evidence(lines, off) < (0 if across and down else right / 3)
    assert right > float(lines.mean())


def test_the_gold_is_laid_a_bounded_number_of_ways_where_none_locks_onto_the_grid(
    monkeypatch: pytest.MonkeyPatch, tuning_photo: TuningPhoto
) -> None:
    # A grid hidden under warriors or glare: no way of laying the gold locks onto it, and the
    # search moves on (here to nothing else) after a bounded number of tries, not all of them.
    photo, _ = tuning_photo(GAME_PHOTO)
    monkeypatch.setattr("vision.locate.grid.refine_on_grid", lambda image, first, **_: (first, 0, 54))
    monkeypatch.setattr("vision.locate.grid.lattice_homographies", lambda *args: [])
    monkeypatch.setattr("vision.locate.grid.outline_homographies", lambda seen: [])
    tried: list[object] = []

    def counted(*args: Any, **kwargs: Any) -> Iterator[Any]:
        for start in best_first(*args, **kwargs):
            tried.append(start)
            yield start

    monkeypatch.setattr("vision.locate.grid.best_first", counted)
    assert locate_by_grid(photo.image, GOLD_BGR, replace(GRID_PARAMS, gold_tries=10_000)) is None
    offered = len(tried)
    tried.clear()
    assert locate_by_grid(photo.image, GOLD_BGR) is None
    assert len(tried) == GRID_PARAMS.gold_tries < offered


def _dark_board_dotted_with_gold(
    half_turn: bool = False, tokens: int = 8, seed: int = 5
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float64]]:
    """A 1600 x 1200 photo of a dark board seen at a slant on a light table, its art dotted with
    gold circles up to two thirds of a token's size, its grid not printed, ``tokens`` of its gold
    tokens on their cells (turned half round if ``half_turn``), and where it lies (board mm to
    pixels)."""
    rng = np.random.default_rng(seed)
    corners = board_corners_mm().astype(np.float32)
    seen = np.float32([[260, 330], [1380, 260], [1500, 900], [140, 1010]])
    truth = cv2.getPerspectiveTransform(corners, seen).astype(np.float64)
    # Drawn at 4 px/mm from above, then put in perspective.
    scale = 4.0
    width, height = (int(v * scale) for v in corners[2])
    face = np.zeros((height, width, 3), np.uint8)
    face[:] = (38, 34, 32)
    gold = tuple(int(v) for v in GOLD_BGR)
    for _ in range(140):
        centre = rng.uniform((10, 10), (width - 10, height - 10)).astype(int)
        radius = int(rng.uniform(2.0, GOLD_DIAMETER_MM / 3) * scale)
        cv2.circle(face, tuple(int(v) for v in centre), radius, gold, -1, cv2.LINE_AA)
    for x, y in GOLD_MM[:tokens]:
        if half_turn:
            x, y = corners[2, 0] - x, corners[2, 1] - y
        cv2.circle(face, (round(x * scale), round(y * scale)), round(GOLD_DIAMETER_MM / 2 * scale), gold, -1)
    to_photo = truth @ np.diag([1 / scale, 1 / scale, 1.0])
    image = np.full((1200, 1600, 3), 205, np.uint8)
    inside = cv2.warpPerspective(np.full(face.shape[:2], 255, np.uint8), to_photo, (1600, 1200))
    board = cv2.warpPerspective(face, to_photo, (1600, 1200))
    image[inside > 127] = board[inside > 127]
    if half_turn:
        truth = truth @ lattice_move(0, 0, half_turn=True)
    return cv2.GaussianBlur(image, (5, 5), 0), truth


@pytest.mark.parametrize("half_turn", [False, True])
def test_a_dark_board_dotted_with_gold_and_no_grid_showing_is_found_by_its_outline_and_tokens(
    monkeypatch: pytest.MonkeyPatch, half_turn: bool
) -> None:
    # Gold circles of the art crowd the round candidates, and no crossing shows: the board's outline
    # places it roughly, and the discs of a token's size full of gold near its gold cells fit it,
    # either way round.
    image, truth = _dark_board_dotted_with_gold(half_turn)
    fit = locate_by_grid(image, GOLD_BGR)
    assert fit is not None and fit.found_by is FoundBy.OUTLINE and fit.crossings < GRID_PARAMS.min_crossings
    assert fit.gold_hits == 8
    assert _error_mm(fit.homography, truth) < 2.0
    monkeypatch.setattr("vision.locate.grid._held_by_tokens", lambda *args, **kwargs: None)
    assert locate_by_grid(image, GOLD_BGR) is None


def test_a_dark_board_showing_too_few_tokens_is_not_placed_by_its_outline() -> None:
    image, _ = _dark_board_dotted_with_gold(tokens=GRID_PARAMS.outline_gold - 1)
    assert locate_by_grid(image, GOLD_BGR) is None


def test_the_gold_tokens_near_a_rough_placement_are_found_and_tell_it_turned() -> None:
    image, truth = _dark_board_dotted_with_gold(half_turn=True)
    seen, _, on_small = _reduced(image, truth)
    # Placed a third of a pitch off along the rows and turned half round: the tokens lie within
    # reach, on the gold cells of the board turned back.
    along = np.array([[1.0, 0.0, PITCH_MM / 3], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    rough = on_small @ lattice_move(0, 0, half_turn=True) @ along
    places, shares, others = gold_tokens(gold_mask(seen), rough, reach=0.6)
    assert (shares > GRID_PARAMS.token_fill).all() and np.median(others) < GRID_PARAMS.token_fill / 2
    expected = cv2.perspectiveTransform(GOLD_MM[None], np.linalg.inv(rough) @ on_small)[0]
    assert np.abs(places - expected).max() < 2.0
    # Within too short a reach, they are not.
    _, near, _ = gold_tokens(gold_mask(seen), rough, reach=0.1)
    assert (near < GRID_PARAMS.token_fill).sum() >= 4


@pytest.mark.parametrize(
    ("cols", "rows", "half_turn"), [(0, 0, True), (0, -1, True), (-2, 0, True), (2, 1, False)]
)
def test_a_board_placed_turned_or_cells_off_is_put_back_where_its_gold_numerals_read(
    cols: int, rows: int, half_turn: bool, tuning_photo: TuningPhoto
) -> None:
    # Art with round shapes of the gold's colour can hold the gold search there, every grid line on
    # a line (a half turn, with or without a row along, on the path-traced tuning copies). Not the
    # gold's twins (turned and two columns along, six gold cells stay on gold): the art tells those.
    photo, truth = tuning_photo(GAME_PHOTO)
    wrong = truth @ np.linalg.inv(lattice_move(cols, rows, half_turn))
    assert (
        numerals_shown(photo.image, truth)
        > numerals_shown(photo.image, wrong) + IMPROVISE_PARAMS.better_placed
    )
    placed = placed_by_numerals(photo.image, Located(wrong, 40, 54, found_by=FoundBy.GOLD), 0.5, Timer())
    assert placed is not None
    view, looks = placed
    assert _error_mm(view.located.homography, truth) < 2.0
    assert view.located.found_by is FoundBy.GOLD and looks.kind is Kind.IMPROVISED


def test_a_board_whose_gold_reads_surely_or_reads_best_where_it_lies_stays_there(
    tuning_photo: TuningPhoto,
) -> None:
    photo, truth = tuning_photo(GAME_PHOTO)
    turned = truth @ lattice_move(0, 0, half_turn=True)
    sure = IMPROVISE_PARAMS.placed_surely
    # Its gold read surely: not looked at again (not even turned).
    assert (
        placed_by_numerals(photo.image, Located(turned, 40, 54, found_by=FoundBy.GOLD), sure, Timer()) is None
    )
    # Its gold read doubtfully where it lies: no place nearby reads better.
    assert (
        placed_by_numerals(photo.image, Located(truth, 40, 54, found_by=FoundBy.GOLD), 0.5, Timer()) is None
    )


def test_the_nearby_moves_are_every_whole_cell_move_but_none() -> None:
    moves = nearby_moves()
    assert len(moves) == 2 * 5 * 3 - 1
    assert not any(np.allclose(move, np.eye(3)) for move in moves)
    assert any(np.allclose(move, lattice_move(-2, 1, half_turn=True)) for move in moves)
    assert len({np.round(move, 6).tobytes() for move in moves}) == len(moves)
