"""Registration to the millimetre, and the texture match it makes possible, on hand-made photos."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

import cv2
import numpy as np
import pytest
from faces import photo_of_face

import vision.locate.find
from calibration.profile import default_profile
from engine.board import CELLS, Cell, Slot
from vision.geometry import CANONICAL, board_corners_mm, cell_centre_mm, slot_segment_mm, warp_shifts
from vision.locate.features import FoundBy, Located, NoBoardError, project
from vision.locate.grid import GRID_PARAMS, GRID_WAYS, GridParams
from vision.locate.register import register
from vision.params import SCAN_PARAMS
from vision.read.cells import cell_coordinates
from vision.read.rectify import face_view, rectify, to_float
from vision.read.slots import FEATURES as SLOT_FEATURES
from vision.read.slots import slot_signs
from vision.texture import fine_detail, texture_match
from vision.timing import Timer

#: A tilted board about 3 px/mm across a 1600x1100 photo: board millimetres to photo pixels.
TRUE_HOMOGRAPHY = np.array([[3.0, 0.25, 120.0], [0.08, 2.7, 90.0], [0.0002, 0.0004, 1.0]])


def corner_error_mm(homography: np.ndarray) -> float:
    """How far, in board millimetres, ``homography`` puts the board's true corners."""
    seen = project(TRUE_HOMOGRAPHY, board_corners_mm())
    back = project(np.linalg.inv(homography), seen)
    return float(np.linalg.norm(back - board_corners_mm(), axis=1).max())


def shifted(homography: np.ndarray, dx_mm: float, dy_mm: float, turn_deg: float = 0.0) -> np.ndarray:
    """``homography`` moved on the board by a small shift and turn about the board's centre."""
    t = np.deg2rad(turn_deg)
    centre = np.array([[1, 0, 200], [0, 1, 132.5], [0, 0, 1]])
    turn = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    move = np.array([[1, 0, dx_mm], [0, 1, dy_mm], [0, 0, 1]])
    return homography @ move @ centre @ turn @ np.linalg.inv(centre)


def test_face_view_and_rectify_agree_on_where_each_millimetre_is() -> None:
    face = face_view(default_profile())
    seen = to_float(rectify(photo_of_face(TRUE_HOMOGRAPHY)[0], TRUE_HOMOGRAPHY))
    (dx, dy), _ = cv2.phaseCorrelate(face.mean(axis=-1), seen.mean(axis=-1))
    assert abs(dx) < 0.1 and abs(dy) < 0.1  # view pixels: a twentieth of a millimetre


@pytest.mark.parametrize(
    ("dx_mm", "dy_mm", "turn_deg"), [(1.5, -1.0, 0.0), (-3.0, 2.0, 0.4), (0.0, 0.0, -0.6)]
)
def test_register_corrects_a_located_board_that_is_millimetres_off(
    dx_mm: float, dy_mm: float, turn_deg: float
) -> None:
    rough = shifted(TRUE_HOMOGRAPHY, dx_mm, dy_mm, turn_deg)
    assert corner_error_mm(rough) > 1.0
    registration = register(photo_of_face(TRUE_HOMOGRAPHY)[0], rough, face_view(default_profile()))
    assert registration.agreeing >= 40
    assert corner_error_mm(registration.homography) < 0.3


def test_register_keeps_the_homography_when_nothing_matches() -> None:
    blank = np.full((1100, 1600, 3), 128, np.uint8)
    rough = shifted(TRUE_HOMOGRAPHY, 1.0, 1.0)
    registration = register(blank, rough, face_view(default_profile()))
    assert registration.agreeing == 0
    np.testing.assert_array_equal(registration.homography, rough)


def test_texture_match_tells_the_printed_art_from_a_plain_token_of_the_same_colour() -> None:
    face = face_view(default_profile())
    photo = face.copy()
    covered = Cell(2, 3)
    x, y = (round(v * CANONICAL.px_per_mm) for v in cell_centre_mm(covered))
    r = round(16 * CANONICAL.px_per_mm)
    # A token of exactly the art's mean colour there: colour alone cannot tell it from the face.
    photo[y - r : y + r, x - r : x + r] = face[y - r : y + r, x - r : x + r].mean(axis=(0, 1))
    ys, xs = cell_coordinates()
    match, amount = texture_match(*fine_detail(photo, face), ys, xs, np.ones(ys.shape, bool))
    textured = amount > 0.01
    assert match[covered.number] < 0.3
    others = [cell.number for cell in CELLS if cell != covered and textured[cell.number]]
    assert len(others) > 30
    assert match[others].min() > 0.95


def test_slot_texture_tells_a_palisade_from_the_printed_line_under_it() -> None:
    face = face_view(default_profile())
    photo = face.copy()
    covered = Slot.between(Cell(2, 3), Cell(2, 4))  # a vertical line
    (x0, y0), (_, y1) = (np.array(p) * CANONICAL.px_per_mm for p in slot_segment_mm(covered))
    x = round(x0)
    top, bottom = round(min(y0, y1)) + 4, round(max(y0, y1)) - 4
    # A plain stick 5 mm wide of the art's own mean colour there, seen from straight above.
    photo[top:bottom, x - 5 : x + 5] = face[top:bottom, x - 5 : x + 5].mean(axis=(0, 1))
    wood = face[top:bottom, x - 5 : x + 5].mean(axis=(0, 1))
    features = slot_signs(photo, face, wood, None).features
    hidden = features[:, SLOT_FEATURES.index("art_hidden")]
    assert hidden[covered.number] > 0.3
    assert np.delete(hidden, covered.number).max() < 0.05


def test_a_board_found_badly_is_looked_for_again_and_the_better_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    photo = photo_of_face(TRUE_HOMOGRAPHY)[0]
    wrong = shifted(TRUE_HOMOGRAPHY, 25.0, -15.0, 4.0)
    asked: list[int] = []

    def fake_locate(image: np.ndarray, profile: object, first_attempt: int = 0, **_: object) -> Located:
        asked.append(first_attempt)
        if first_attempt == 0:
            return Located(wrong, 40, 60, attempt=0)
        return Located(shifted(TRUE_HOMOGRAPHY, 1.0, 1.0), 400, 500, attempt=first_attempt)

    monkeypatch.setattr(vision.locate.find, "locate", fake_locate)
    view = vision.locate.find.board_view(photo, default_profile())
    assert asked[:2] == [0, 1]
    assert corner_error_mm(view.located.homography) < 0.3


def test_a_board_found_well_is_not_looked_for_again(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []

    def fake_locate(image: np.ndarray, profile: object, first_attempt: int = 0, **_: object) -> Located:
        asked.append(first_attempt)
        return Located(shifted(TRUE_HOMOGRAPHY, 1.0, 1.0), 400, 500, attempt=first_attempt)

    monkeypatch.setattr(vision.locate.find, "locate", fake_locate)
    vision.locate.find.board_view(photo_of_face(TRUE_HOMOGRAPHY)[0], default_profile())
    assert asked == [0]


def test_features_placing_the_board_unsurely_are_confirmed_on_its_grid_without_the_gold_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[int] = []
    searched: list[object] = []

    def fake_locate(image: np.ndarray, profile: object, first_attempt: int = 0, **_: object) -> Located:
        asked.append(first_attempt)
        return Located(shifted(TRUE_HOMOGRAPHY, 2.0, -1.5, 0.5), 40, 500, attempt=first_attempt)

    monkeypatch.setattr(vision.locate.find, "locate", fake_locate)
    monkeypatch.setattr(vision.locate.find, "locate_by_grid", lambda *args: searched.append(args))
    # However many patches agree, the features alone are never sure enough here.
    unsure = replace(SCAN_PARAMS, confident_patches=10**6)
    view, _, improvised = vision.locate.find.find_board(
        photo_of_face(TRUE_HOMOGRAPHY)[0], None, Timer(), unsure
    )
    assert asked == [0] and not searched and not improvised
    assert corner_error_mm(view.located.homography) < 0.3


@pytest.mark.parametrize("slow_finds", [True, False])
def test_the_slow_features_run_before_the_whole_grid_search_which_they_spare_where_sure(
    monkeypatch: pytest.MonkeyPatch, slow_finds: bool
) -> None:
    # ORB misses and the gold's first layouts lock onto nothing: SIFT comes next, and the rest of
    # the gold and grid's search, seconds where it finds nothing, runs only where SIFT fails too.
    asked: list[int] = []
    searched: list[tuple[int, tuple[FoundBy, ...]]] = []

    def fake_locate(image: np.ndarray, profile: object, first_attempt: int = 0, **_: object) -> Located:
        asked.append(first_attempt)
        if first_attempt == 0 or not slow_finds:
            raise NoBoardError("no_board", "no board found: too few of its art's features")
        return Located(shifted(TRUE_HOMOGRAPHY, 1.0, 1.0), 400, 500, attempt=first_attempt)

    def fake_grid(
        image: np.ndarray, gold: object, grid: GridParams, ways: Collection[FoundBy], search: object
    ) -> None:
        searched.append((grid.gold_tries, tuple(ways)))

    monkeypatch.setattr(vision.locate.find, "locate", fake_locate)
    monkeypatch.setattr(vision.locate.find, "locate_by_grid", fake_grid)
    photo = photo_of_face(TRUE_HOMOGRAPHY)[0]
    first = (SCAN_PARAMS.first_gold_tries, (FoundBy.GOLD,))
    if slow_finds:
        view, _, improvised = vision.locate.find.find_board(photo, None, Timer(), SCAN_PARAMS)
        assert corner_error_mm(view.located.homography) < 0.3 and not improvised
        assert asked == [0, 1] and searched == [first]
    else:
        with pytest.raises(NoBoardError):
            vision.locate.find.find_board(photo, None, Timer(), SCAN_PARAMS)
        assert searched == [first, (GRID_PARAMS.gold_tries, GRID_WAYS)]


def barrel(photo: np.ndarray, k: float) -> np.ndarray:
    """``photo`` through a lens that bends straight lines: radial distortion ``k`` about its centre."""
    height, width = photo.shape[:2]
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    half = np.float32(np.hypot(width, height) / 2)
    u, v = (xs - width / 2) / half, (ys - height / 2) / half
    grow = 1 + np.float32(k) * (u * u + v * v)
    map_x, map_y = width / 2 + u * grow * half, height / 2 + v * grow * half
    return cv2.remap(photo, map_x.astype(np.float32), map_y.astype(np.float32), cv2.INTER_LINEAR)


def test_what_a_bent_lens_leaves_of_the_homography_is_followed_by_a_smooth_warp() -> None:
    face = face_view(default_profile())
    bent = barrel(photo_of_face(TRUE_HOMOGRAPHY)[0], 0.05)
    registration = register(bent, TRUE_HOMOGRAPHY, face)
    assert registration.warp is not None

    def corner_misfit(warp: np.ndarray | None) -> float:
        """How far (view pixels) the face's corner cells lie from where the view shows them."""
        seen = to_float(rectify(bent, registration.homography, CANONICAL, warp)).mean(axis=-1)
        misfits = []
        for cell in (Cell(0, 0), Cell(0, 7), Cell(4, 0), Cell(4, 7)):
            x0, y0, x1, y1 = CANONICAL.cell_box(cell, 2.0)
            (dx, dy), _ = cv2.phaseCorrelate(face[y0:y1, x0:x1].mean(axis=-1), seen[y0:y1, x0:x1])
            misfits.append(np.hypot(dx, dy))
        return float(max(misfits))

    # The best homography leaves the corners pixels off; the warp brings them within a fraction.
    assert corner_misfit(None) > 1.5
    assert corner_misfit(registration.warp) < 0.5
    # A flat card through a perfect lens leaves nothing to follow.
    flat = register(photo_of_face(TRUE_HOMOGRAPHY)[0], TRUE_HOMOGRAPHY, face)
    ys, xs = np.mgrid[0:530:10, 0:800:10]
    points = np.c_[xs.ravel(), ys.ravel()].astype(np.float64)
    assert flat.warp is None or np.abs(warp_shifts(flat.warp, points)).max() < 0.5
