"""The scanner's stages on their own: arrays in, arrays out, on hand-made inputs.

The whole scanner on rendered photos is tested in test_scan.py; here each
stage meets the cases it must tell apart, built so that a wrong answer shows.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from functools import partial

import cv2
import numpy as np
import pytest
from faces import photo_of_face

from calibration.profile import Profile, ProfileError, default_profile, load_profile
from engine.board import CELLS, GOLD_CELLS, SLOTS, Cell, Slot
from vision.bench.metrics import compare, match_colours
from vision.colour import rgb_to_bgr_float, shaded_distance
from vision.geometry import CANONICAL, FaceRaster, board_corners_mm, cell_centre_mm, slot_segment_mm
from vision.locate.features import FoundBy, NoBoardError, camera_from_homography, locate, project
from vision.locate.find import art_twin
from vision.locate.grid import GridFit
from vision.locate.lattice import lattice_move
from vision.looks import reference_looks
from vision.read.assemble import assemble, choose_cells, choose_slots, contradicted
from vision.read.cells import EMPTY, GOLD, CellReading
from vision.read.rectify import balance, face_view, rectify, to_float
from vision.read.slots import (
    FEATURES,
    PROFILE_BANDS,
    PROFILE_SIGNS,
    SlotReading,
    across_profiles,
    estimate_wood,
    leans_mm,
    line_signs,
    profile_signs,
    read_slots,
    relative_to_bare,
    slot_signs,
    wood_beside_line,
)

COLOURS = ("orange", "green", "blue", "purple")


def reading(labels: dict[Cell, int], sure: float = 0.98) -> CellReading:
    """A cell reading that says each listed cell's label (default empty) with ``sure`` probability."""
    width = 2 + len(COLOURS)
    probs = np.full((40, width), (1 - sure) / (width - 1))
    for cell in CELLS:
        probs[cell.number, labels.get(cell, GOLD if cell in GOLD_CELLS else EMPTY)] = sure
    return CellReading(COLOURS, probs, probs.copy(), np.zeros(40))


# --- geometry and colour -------------------------------------------------------------------------


def test_view_maps_cells_to_their_pixels() -> None:
    view = FaceRaster(2.0)
    x0, y0, x1, y1 = view.cell_box(Cell(4, 7))
    assert (x1, y1) == (760, 490)  # the grid's bottom-right corner: (20 + 360) * 2, (20 + 225) * 2
    assert x1 - x0 == y1 - y0 == 90


def test_shaded_distance_forgives_shadow_but_not_hue() -> None:
    orange = rgb_to_bgr_float((0xE0, 0x7B, 0x24))
    assert shaded_distance(orange * 0.6, orange) < 0.1
    assert shaded_distance(rgb_to_bgr_float((0xD4, 0xA6, 0x2A)), orange) > 0.15  # gold: close, not equal
    assert shaded_distance(rgb_to_bgr_float((0x2F, 0x6D, 0xB5)), orange) > 0.5


# --- profile -------------------------------------------------------------------------------------


def test_profile_round_trips_through_json(tmp_path) -> None:
    face = cv2.resize(default_profile().face, (500, 331), interpolation=cv2.INTER_AREA)
    profile = Profile("mine", face, {"red": (200, 30, 30)}, extra={"x": 1})
    path = tmp_path / "p.json"
    path.write_text(json.dumps(profile.to_json()))
    loaded = load_profile(path)
    assert loaded.name == "mine" and loaded.colours == {"red": (200, 30, 30)} and loaded.extra == {"x": 1}
    assert loaded.face.shape == profile.face.shape
    assert np.abs(loaded.face.astype(int) - profile.face).mean() < 6  # JPEG loss; a channel swap is ~30


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "a profile is a JSON object"),
        ({"version": 9}, "unsupported profile version 9"),
        ({"version": 1, "face_jpeg": "!!"}, "face_jpeg: missing or not base64"),
        ({"version": 1, "face_jpeg": "aGVsbG8="}, "face_jpeg: not a JPEG image"),
    ],
)
def test_bad_profiles_are_named(tmp_path, document: object, message: str) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ProfileError, match=message):
        load_profile(path)


def test_profile_colour_errors_name_the_entry() -> None:
    document = default_profile().to_json()
    document["colours"] = {"red": "crimson"}
    with pytest.raises(ProfileError, match=r"colours.red: expected a colour like"):
        Profile.from_json(document)


def test_missing_profile_file_is_a_profile_error(tmp_path) -> None:
    with pytest.raises(ProfileError, match="cannot read profile"):
        load_profile(tmp_path / "absent.json")


# --- locate --------------------------------------------------------------------------------------


def test_locate_finds_a_turned_and_tilted_board() -> None:
    corners = [[1300, 200], [1380, 1100], [650, 1150], [750, 260]]  # seen from its right side, tilted
    photo, truth = photo_of_face(corners)
    located = locate(photo, default_profile())
    error = np.abs(located.corners_px() - project(truth, board_corners_mm())).max()
    assert error < 3.0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("corners", "reason"),
    [
        ([[600, 500], [900, 500], [900, 700], [600, 700]], "too_small"),
        ([[-300, 100], [1300, 100], [1300, 1160], [-300, 1160]], "cut_off"),
    ],
)
def test_locate_says_why_there_is_no_usable_board(corners: list[list[float]], reason: str) -> None:
    photo, _ = photo_of_face(corners)
    with pytest.raises(NoBoardError) as caught:
        locate(photo, default_profile())
    assert caught.value.reason == reason


@pytest.mark.slow
def test_locate_refuses_a_photo_without_a_board() -> None:
    rng = np.random.default_rng(1)
    table = cv2.GaussianBlur(rng.integers(0, 255, (900, 1200, 3), dtype=np.uint8), (0, 0), 3)
    with pytest.raises(NoBoardError) as caught:
        locate(table, default_profile())
    assert caught.value.reason == "no_board"


def test_camera_from_a_tilted_view_leans_tall_things_away_from_it() -> None:
    # The board's near edge (bottom of the photo) is wider: the camera stands beyond the bottom edge.
    photo, truth = photo_of_face([[500, 300], [1100, 300], [1300, 1000], [300, 1000]])
    camera = camera_from_homography(truth, *photo.shape[1::-1])
    assert 25 < camera.tilt_degrees < 60
    leans = leans_mm(camera)
    assert (leans[:, 1] < -1).all()  # every palisade top lands further up the face, away from the camera
    assert np.allclose(leans_mm(None), 0)


# --- rectify -------------------------------------------------------------------------------------


def test_balance_undoes_a_warm_light() -> None:
    photo, truth = photo_of_face([[200, 150], [1400, 150], [1400, 945], [200, 945]])
    warm = np.clip(photo * np.array([0.55, 0.9, 1.15]), 0, 255).astype(np.uint8)  # BGR: less blue
    face = face_view(default_profile())
    view = to_float(rectify(warm, truth, CANONICAL))
    balanced = balance(view, face)
    assert np.abs(balanced.image - face).mean() < 0.5 * np.abs(view - face).mean()
    assert balanced.glare.mean() < 0.02  # a colour cast is not glare
    # White glare would show with more blue than red under the face's own (bluer) light.
    assert balanced.white[0] > 1.2 * balanced.white[2]


def test_balance_takes_off_glare() -> None:
    photo, truth = photo_of_face([[200, 150], [1400, 150], [1400, 945], [200, 945]])
    ys, xs = np.mgrid[: photo.shape[0], : photo.shape[1]]
    wash = 0.6 * np.exp(-((xs - 800) ** 2 + (ys - 550) ** 2) / (2 * 150.0**2))[..., None]
    glared = (photo * (1 - wash) + 250 * wash).astype(np.uint8)
    face = face_view(default_profile())
    view = to_float(rectify(glared, truth, CANONICAL))
    balanced, glare = (lambda b: (b.image, b.glare))(balance(view, face))
    centre = (slice(230, 300), slice(360, 440))  # the glare's middle in the 2 px/mm view
    assert glare[centre].mean() > 0.1 > 5 * glare[:60, :60].mean()  # found where it is, not elsewhere
    assert np.abs(balanced - face)[centre].mean() < 0.5 * np.abs(view - face)[centre].mean()


# --- slots and cells: the rules pick the allowed reading --------------------------------------------


#: A palisade's lit wood, as the tests below paint it.
LIT_WOOD = np.array([0.45, 0.63, 0.82], np.float32)


def lined_face() -> np.ndarray:
    """Plain art with every slot's printed line."""
    s = CANONICAL.px_per_mm
    face = np.full((CANONICAL.size[1], CANONICAL.size[0], 3), 0.85, np.float32)
    for slot in SLOTS:
        (x0, y0), (x1, y1) = slot_segment_mm(slot)
        cv2.line(face, (round(x0 * s), round(y0 * s)), (round(x1 * s), round(y1 * s)), (0.2, 0.2, 0.25), 3)
    return face


def across(slot: Slot) -> np.ndarray:
    """The unit step across ``slot``'s line, in view pixels."""
    return np.array([1.0, 0.0]) if slot.vertical else np.array([0.0, 1.0])


def paint_across(
    photo: np.ndarray, slot: Slot, offsets: range, colour_at: Callable[[int], np.ndarray]
) -> None:
    """Paint ``slot``'s length, one pixel-wide line for each offset across it, in its colour."""
    start, end = (np.array(point) * CANONICAL.px_per_mm for point in slot_segment_mm(slot))
    for k in offsets:
        a, b = np.round(start + k * across(slot)), np.round(end + k * across(slot))
        cv2.line(photo, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), colour_at(k).tolist(), 1)


def test_the_palisades_wood_is_read_off_the_photo_as_its_lit_faces_colour() -> None:
    face = lined_face()
    photo = face.copy()
    for slot in SLOTS[::9]:
        # Across its line a palisade shows a narrow lit face beside its shaded side and shadow.
        paint_across(photo, slot, range(-10, 11), lambda k: LIT_WOOD if k == 3 else LIT_WOOD * 0.45)
    wood = estimate_wood(photo, face, np.array([0.2, 0.3, 0.5], np.float32))
    assert np.allclose(wood, LIT_WOOD, rtol=0.1)


def test_the_palisades_wood_is_read_where_their_tops_land_when_their_feet_are_in_shade() -> None:
    face = lined_face()
    # Seen from the side: the foot in the shaded side's shade, the lit top 6 mm across.
    leans = np.array([6.0 * across(slot) for slot in SLOTS])
    photo = face.copy()
    for slot in SLOTS[::9]:
        paint_across(photo, slot, range(-4, 16), lambda k: LIT_WOOD if k >= 9 else LIT_WOOD * 0.45)
    fallback = np.array([0.2, 0.3, 0.5], np.float32)
    assert np.allclose(estimate_wood(photo, face, fallback, CANONICAL, leans), LIT_WOOD, rtol=0.1)
    assert estimate_wood(photo, face, fallback, CANONICAL).sum() < 0.6 * LIT_WOOD.sum()


def test_wood_a_warriors_colour_claims_is_measured_where_a_stick_of_that_colour_lies() -> None:
    face = lined_face()
    photo = face.copy()
    brick = np.array([0.35, 0.5, 0.8], np.float32)  # a copy's warriors' colour, near its wood's
    stick_of_brick, stick_of_wood, bare = SLOTS[0], SLOTS[20], SLOTS[40]
    paint_across(photo, stick_of_brick, range(-6, 7), lambda k: brick)
    paint_across(photo, stick_of_wood, range(-6, 7), lambda k: LIT_WOOD)
    claimed = slot_signs(photo, face, LIT_WOOD, None, tokens=(brick,)).claimed
    assert claimed[stick_of_brick.number] > 0.9
    assert claimed[stick_of_wood.number] < 0.1 and claimed[bare.number] < 0.1
    # With no warrior's colour near it, the same stick is wood, claimed by none.
    blue = np.array([0.7, 0.4, 0.2], np.float32)
    assert slot_signs(photo, face, LIT_WOOD, None, tokens=(blue,)).claimed.max() < 0.1


def test_a_palisades_shaded_side_along_the_line_shows_the_line_but_not_narrowly() -> None:
    face = lined_face()
    photo = face.copy()
    covered = list(range(0, len(SLOTS), 9))
    for number in covered:
        # Seen from the side: its shaded side from 3 mm before the line to just past it, then its
        # lit top.
        paint_across(photo, SLOTS[number], range(-6, 9), lambda k: LIT_WOOD if k > 1 else LIT_WOOD * 0.45)
    visible, narrow, *_ = line_signs(photo, face, CANONICAL)
    bare = [n for n in range(len(SLOTS)) if n not in covered]
    assert visible[covered].mean() > 0.9
    assert narrow[covered].mean() < 0.05
    assert narrow[bare].mean() > 0.9
    # In haze every line is faint, but still narrow.
    hazy = 0.3 * photo + 0.7 * 0.85
    assert line_signs(hazy.astype(np.float32), face, CANONICAL).narrow[bare].mean() > 0.9


def test_a_sticks_far_edge_against_the_card_passes_for_a_line_but_has_wood_beside_it() -> None:
    # Seen from the side, a stick's lit top lands beyond its line, and the seam between its far
    # edge and the card is dark and narrow between two lighter sides: the printed line's profile.
    face = lined_face()
    photo = face.copy()
    covered = list(range(0, len(SLOTS), 9))
    for number in covered:
        paint_across(photo, SLOTS[number], range(-1, 9), lambda k: LIT_WOOD if k > 1 else np.full(3, 0.2))
    match = line_signs(photo, face, CANONICAL)
    beside = wood_beside_line(match, photo, face, LIT_WOOD)
    bare = [n for n in range(len(SLOTS)) if n not in covered]
    assert match.narrow[covered].mean() > 0.9 and match.narrow[bare].mean() > 0.9
    assert beside[covered].mean() > 0.9 and beside[bare].mean() < 0.05
    signs = slot_signs(photo, face, LIT_WOOD, None)
    line_narrow = signs.features[:, FEATURES.index("line_narrow")]
    assert line_narrow[covered].min() > 0.9
    assert signs.line_bare[covered].max() < 0.1 and signs.line_bare[bare].min() > 0.9


def test_a_lamps_reflection_over_bare_lines_is_the_card_showing_not_a_palisade() -> None:
    face = lined_face()
    photo = face.copy()
    glared = list(range(0, len(SLOTS), 7))
    for number in glared:
        # The glossy card mirrors the lamp: white across the line and beyond, the print gone.
        paint_across(photo, SLOTS[number], range(-40, 41), lambda k: np.ones(3, np.float32))
    clipped = (photo >= 1.0).all(axis=-1)
    blind = slot_signs(photo, face, LIT_WOOD, None).features
    seeing = slot_signs(photo, face, LIT_WOOD, None, clipped=clipped).features
    shows = FEATURES.index("line_shows")
    edges = [FEATURES.index(f"edge_change_{band}") for band in range(PROFILE_BANDS)]
    # Read blind, the lost line and its lost edges look like something covering it...
    assert blind[glared, shows].mean() < 0.1
    assert (blind[np.ix_(glared, edges)] < -1).any()
    # ...but where the photo clipped, the card itself shows: the line is there, nothing changed.
    assert seeing[glared, shows].min() > 0.9
    assert np.abs(seeing[np.ix_(glared, edges)]).max() < 1e-6
    assert (read_slots(seeing).probabilities[glared] < 0.5).all()


def test_wood_that_shows_only_as_glare_would_wash_it_is_not_a_matte_stick() -> None:
    # Dark art under a broad reflection the light model took off too little of: along some lines
    # it is pale, and wood only if glare may lie on wood. Sticks are matte: those are doubtful.
    face = lined_face() * 0.12
    photo = face.copy()
    sticks, washed = list(range(0, len(SLOTS), 9)), list(range(4, len(SLOTS), 9))
    for number in sticks:
        paint_across(photo, SLOTS[number], range(-4, 5), lambda k: LIT_WOOD)
    for number in washed:
        paint_across(photo, SLOTS[number], range(-4, 5), lambda k: LIT_WOOD * 0.2 + 0.6)
    glare = np.full(photo.shape[:2], 0.3, np.float32)
    features, matte, _, _ = slot_signs(photo, face, LIT_WOOD, None, glare=glare)
    foot = features[:, FEATURES.index("wood_foot")]
    assert foot[sticks].min() > 0.9 and foot[washed].min() > 0.9
    assert matte[sticks].min() > 0.9 and matte[washed].max() < 0.1
    # Read as palisades, the washed ones are contradicted by their own wood; the sticks are not.
    reading = SlotReading(np.full(len(SLOTS), 0.99), features, matte_foot=matte)
    doubted = contradicted(reading, frozenset(SLOTS[n] for n in sticks + washed))
    assert doubted[washed].all() and not doubted[sticks].any()


def lit_beyond(top_from: float, k: int) -> np.ndarray:
    """A palisade's colour ``k`` pixels across its line: lit from ``top_from`` outward (its top,
    on the side of ``top_from``'s sign), shaded nearer."""
    return LIT_WOOD if k * np.sign(top_from) >= abs(top_from) else LIT_WOOD * 0.45


def test_signs_told_against_the_photos_bare_slots_do_not_move_with_a_light_that_moves_them_all() -> None:
    rng = np.random.default_rng(3)
    features = rng.random((len(SLOTS), len(FEATURES)))
    features[:, FEATURES.index("line_narrow")] = np.where(np.arange(len(SLOTS)) < 40, 1.0, 0.1)
    # A light that makes every slot, bare or not, look more like wood and lighter than the face.
    lit = features.copy()
    told = [name not in ("line_shows", "line_narrow", "lean") for name in FEATURES]
    lit[:, told] += 0.3
    assert np.allclose(relative_to_bare(lit), relative_to_bare(features))
    # Too few slots whose line says they are bare: the signs are read as they are.
    features[:, FEATURES.index("line_narrow")] = 0.1
    assert relative_to_bare(features) is features


def test_the_profile_across_a_slot_runs_toward_where_its_palisades_top_lands() -> None:
    face = lined_face()
    photo = face.copy()
    # Half the slots lean one way, half the other; each palisade's lit top lands where it leans.
    turns = np.array([1.0 if n % 2 else -1.0 for n in range(len(SLOTS))])
    leans = np.array([6.0 * turn * across(slot) for turn, slot in zip(turns, SLOTS, strict=True)])
    for number in range(0, len(SLOTS), 3):
        turn = turns[number]
        offsets = range(-4, 16) if turn > 0 else range(-15, 5)
        top_from = 9 * turn
        paint_across(photo, SLOTS[number], offsets, partial(lit_beyond, top_from))
    seen, printed = across_profiles(photo, face, CANONICAL, leans)
    middle = seen.shape[1] // 2
    for number in range(0, len(SLOTS), 3):
        # Turned, every profile shows the lit top past the middle, on the lean's side.
        assert np.allclose(seen[number, middle + 10], LIT_WOOD, atol=0.02)
        assert np.allclose(seen[number, middle - 10], printed[number, middle - 10], atol=0.02)


def test_profile_signs_see_a_palisade_and_nothing_on_a_bare_line() -> None:
    face = lined_face()
    photo = face.copy()
    covered = list(range(0, len(SLOTS), 5))
    for number in covered:
        paint_across(photo, SLOTS[number], range(-5, 6), lambda k: LIT_WOOD if k > 0 else LIT_WOOD * 0.45)
    signs = profile_signs(*across_profiles(photo, face, CANONICAL, leans_mm(None)))
    assert signs.shape == (len(SLOTS), len(PROFILE_SIGNS) * PROFILE_BANDS)
    by_sign = signs.reshape(len(SLOTS), len(PROFILE_SIGNS), PROFILE_BANDS)
    bare = [n for n in range(len(SLOTS)) if n not in covered]
    middle = [PROFILE_BANDS // 2 - 1, PROFILE_BANDS // 2]
    assert np.abs(signs[bare]).max() < 1e-6
    colour_change = by_sign[:, PROFILE_SIGNS.index("colour_change")]
    assert (colour_change[covered][:, middle] > 0.1).all()
    # The wood hides the printed line: fewer steps than the face where the line was.
    assert (by_sign[covered, PROFILE_SIGNS.index("edge_change")][:, middle].min(axis=1) < 0).all()


def test_choose_slots_keeps_sure_palisades() -> None:
    probs = np.full(len(SLOTS), 0.02)
    probs[[0, 40]] = 0.97
    chosen, confidence, warnings = choose_slots(probs)
    assert chosen == {SLOTS[0], SLOTS[40]} and not warnings
    assert confidence.min() > 0.9


def test_choose_slots_avoids_a_small_territory_by_flipping_the_least_sure_slot() -> None:
    corner = [Slot.between((0, 0), (0, 1)).number, Slot.between((0, 0), (1, 0)).number]
    probs = np.full(len(SLOTS), 0.02)
    probs[corner[0]] = 0.99
    probs[corner[1]] = 0.6  # the doubtful one is the one to drop: walling in one cell is illegal
    chosen, _, warnings = choose_slots(probs)
    assert chosen == {SLOTS[corner[0]]}
    assert [w.code for w in warnings] == ["slot_changed_by_rules"]


def test_choose_slots_opens_a_small_territory_where_both_readers_together_are_least_sure() -> None:
    right, below = Slot.between((0, 0), (0, 1)).number, Slot.between((0, 0), (1, 0)).number
    probs = np.full(len(SLOTS), 0.02)
    probs[right], probs[below] = 0.99, 0.9
    # Far from the corner, slots the whole reader is less sure of: none of them walls it in.
    probs[40:48] = 0.6
    second = probs.copy()
    second[right] = 0.2  # the plain reader doubts the palisade the whole one is surest of
    chosen, confidence, warnings = choose_slots(probs, second, line_shown=np.zeros(len(SLOTS)))
    assert SLOTS[right] not in chosen and SLOTS[below] in chosen
    assert [w.code for w in warnings] == ["slot_changed_by_rules"]
    assert confidence[right] < 0.8


def test_choose_slots_opens_a_walled_in_pair_by_the_cheapest_of_several_palisades() -> None:
    # a5 and b5 walled in by two palisades the reader is sure of and one it is less sure of; far
    # away, two open lines of palisades it is even less sure of.
    walls = [Slot.between((0, 1), (0, 2)), Slot.between((0, 0), (1, 0)), Slot.between((0, 1), (1, 1))]
    probs = np.full(len(SLOTS), 0.01)
    probs[[slot.number for slot in walls]] = [0.999, 0.999, 0.95]
    far = [Slot.between((2, c), (3, c)).number for c in range(2, 8)]
    far += [Slot.between((3, c), (4, c)).number for c in range(3, 8)]
    probs[far] = 0.75
    chosen, confidence, warnings = choose_slots(probs)
    assert walls[2] not in chosen and {walls[0], walls[1]} <= chosen
    assert warnings and walls[2].name in warnings[0].message
    # The rules said a palisade around the pair was wrong, not which: the ones kept are doubted.
    assert confidence[[walls[0].number, walls[1].number]].max() <= 0.7
    assert confidence[far].min() > 0.7


def test_choose_slots_caps_at_35_palisades() -> None:
    probs = np.linspace(0.55, 0.99, len(SLOTS))
    chosen, _, _ = choose_slots(probs)
    assert len(chosen) <= 35


def test_choose_cells_puts_gold_on_gold_cells_and_warriors_elsewhere() -> None:
    probs = reading({}).probabilities
    probs[Cell(2, 2).number] = [0.1, 0.6, 0.3, 0, 0, 0]  # "gold" off a gold cell: the next best is orange
    probs[Cell(0, 3).number] = [0.0, 0.3, 0.7, 0, 0, 0]  # "orange" on a gold cell: it is gold
    cells = CellReading(COLOURS, probs, probs, np.zeros(40))
    labels, _, _, _ = choose_cells(cells, None)
    assert labels[Cell(2, 2).number] == 2 and labels[Cell(0, 3).number] == GOLD


def test_choose_cells_gives_what_looked_gold_or_out_of_play_off_the_gold_cells_to_the_players() -> None:
    probs = reading({}).probabilities
    # A white warrior in warm light looks mostly gold; it is still a warrior, not an empty cell.
    probs[Cell(2, 2).number] = [0.3, 0.6, 0.0, 0.0, 0.1, 0.0]
    # With the players named, a colour not in play is another player's warrior seen wrong.
    probs[Cell(2, 3).number] = [0.3, 0.0, 0.5, 0.0, 0.2, 0.0]
    cells = CellReading(COLOURS, probs, probs, np.zeros(40))
    labels, confidence, _, _ = choose_cells(cells, ("purple", "blue"))
    assert labels[Cell(2, 2).number] == 4 and labels[Cell(2, 3).number] == 4
    # A warrior, surely; whose, only as sure as the share its player's colour took of it.
    assert confidence[Cell(2, 2).number] == pytest.approx(0.1)
    assert confidence[Cell(2, 3).number] == pytest.approx(0.2)


def test_a_warrior_mostly_its_own_colour_keeps_what_looked_gold_as_its_own() -> None:
    probs = reading({}).probabilities
    probs[Cell(2, 2).number] = [0.1, 0.3, 0.0, 0.0, 0.6, 0.0]
    cells = CellReading(COLOURS, probs, probs, np.zeros(40))
    labels, confidence, _, _ = choose_cells(cells, ("purple", "blue"))
    assert labels[Cell(2, 2).number] == 4 and confidence[Cell(2, 2).number] == pytest.approx(0.9)


def test_a_cell_other_readers_doubt_is_only_as_sure_as_the_least_sure_of_them() -> None:
    corner, other, far = Cell(0, 0), Cell(0, 7), Cell(2, 2)
    cells = reading({corner: GOLD + 1, other: EMPTY, far: GOLD + 2})
    others = np.full((2, 40), np.nan)
    # The warrior's looks alone: unsure of the warrior read on a5, sure h5 is empty; the other
    # reader sure of a5's warrior, and unsure h5 is empty.
    others[0, corner.number], others[0, other.number] = 0.3, 0.05
    others[1, corner.number], others[1, other.number] = 0.97, 0.6
    labels, confidence, _, _ = choose_cells(replace(cells, others=others), ("orange", "green"))
    alone = choose_cells(cells, ("orange", "green"))[1]
    assert labels[corner.number] == GOLD + 1 and labels[far.number] == GOLD + 2
    assert alone[corner.number] > 0.9 and confidence[corner.number] == pytest.approx(0.3)
    assert confidence[other.number] == pytest.approx(0.4)
    # Where the other readers did not look, the first one's confidence stands.
    assert confidence[far.number] == alone[far.number]


def test_a_warrior_with_another_players_emblem_is_doubtful_and_named() -> None:
    lit, own = Cell(1, 2), Cell(3, 5)
    cells = replace(
        reading({lit: GOLD + 1, own: GOLD + 2}), emblems_differ=((lit.number, "green"), (own.number, "green"))
    )
    labels, confidence, _, warnings = choose_cells(cells, ("orange", "green"))
    alone = choose_cells(reading({lit: GOLD + 1, own: GOLD + 2}), ("orange", "green"))[1]
    # The colour read stands, in doubt; a warrior read as the colour its emblem names is not doubted.
    assert labels[lit.number] == GOLD + 1 and confidence[lit.number] == pytest.approx(0.7)
    assert confidence[own.number] == alone[own.number] > 0.9
    differs = [w for w in warnings if w.code == "emblem_differs"]
    assert len(differs) == 1 and differs[0].cells == (lit,) and "green's emblem" in differs[0].message


@pytest.mark.parametrize("orange", [14, 8])
def test_where_the_supply_says_a_colour_was_misread_the_emblem_names_the_right_one(orange: int) -> None:
    # Three blue warriors whose emblem is green's: with 14 orange, three players cannot be (a
    # 3-player supply is 11), and the emblem says whose the blue ones are; with 8 orange the
    # supply says nothing, and the emblem only doubts them.
    cells = [c for c in CELLS if c not in GOLD_CELLS]
    blues = cells[orange + 8 : orange + 11]
    labels = dict.fromkeys(cells[:orange], 2) | dict.fromkeys(cells[orange : orange + 8], 3)
    base = reading(labels | dict.fromkeys(blues, 4))
    read = replace(base, emblems_differ=tuple((cell.number, "green") for cell in blues))
    assigned, confidence, players, warnings = choose_cells(read, None)
    codes = [w.code for w in warnings]
    if orange == 14:
        assert [assigned[cell.number] for cell in blues] == [3, 3, 3]
        assert players == ("orange", "green")
        assert "emblem_names_colour" in codes and "emblem_differs" not in codes
    else:
        assert [assigned[cell.number] for cell in blues] == [4, 4, 4]
        assert "emblem_names_colour" not in codes and "emblem_differs" in codes
    assert (confidence[[cell.number for cell in blues]] <= 0.7).all()
    # Without the emblems, the supply doubts the blue ones and reads them blue.
    plain, _, _, _ = choose_cells(base, None)
    assert [plain[cell.number] for cell in blues] == [4, 4, 4]


@pytest.mark.parametrize("orange", [14, 8])
def test_where_the_supply_says_a_colour_was_misread_a_learnt_picture_names_the_right_one(orange: int) -> None:
    # As with the emblems: three blue warriors that green's learnt picture matches better are green
    # where the supply says blue was misread (14 orange), and only doubted where it says nothing.
    cells = [c for c in CELLS if c not in GOLD_CELLS]
    blues = cells[orange + 8 : orange + 11]
    greens = cells[orange : orange + 8]
    base = reading(dict.fromkeys(cells[:orange], 2) | dict.fromkeys(greens, 3) | dict.fromkeys(blues, 4))
    read = replace(base, pictures_differ=tuple((cell.number, "green") for cell in blues))
    assigned, confidence, players, warnings = choose_cells(read, None)
    codes = [w.code for w in warnings]
    moved = [w for w in warnings if w.code == "emblem_names_colour"]
    if orange == 14:
        assert [assigned[cell.number] for cell in blues] == [3, 3, 3] and players == ("orange", "green")
        assert len(moved) == 1 and "emblem or picture names" in moved[0].message
    else:
        assert [assigned[cell.number] for cell in blues] == [4, 4, 4]
        assert not moved and "emblem_differs" in codes
    assert (confidence[[cell.number for cell in blues]] <= 0.7).all()
    # Where the picture agrees with the colour read, nothing is doubted.
    agreeing = replace(base, pictures_differ=tuple((cell.number, "blue") for cell in blues))
    assert choose_cells(agreeing, None)[1].tolist() == choose_cells(base, None)[1].tolist()


def test_a_picture_moves_no_warrior_that_may_not_be_there() -> None:
    # An empty cell read as a warrior matches some colour's picture best too: a picture says whose a
    # warrior is, not that one stands there. Seventeen orange (two players' supply is 16), the
    # last of them as likely empty, its picture green's: the supply empties it, as without the picture.
    cells = [c for c in CELLS if c not in GOLD_CELLS]
    base = reading(dict.fromkeys(cells[:17], 2) | dict.fromkeys(cells[17:25], 3))
    last = cells[16].number
    probs = base.probabilities.copy()
    probs[last] = 0.0
    probs[last, [EMPTY, 2]] = 0.45, 0.55
    base = replace(base, probabilities=probs)
    read = replace(base, pictures_differ=((last, "green"),))
    assigned, confidence, _, warnings = choose_cells(read, None)
    assert assigned[last] == EMPTY == choose_cells(base, None)[0][last]
    assert "emblem_names_colour" not in [w.code for w in warnings] and confidence[last] <= 0.7


def test_a_colour_read_nowhere_that_pictures_name_within_an_overfull_one_is_a_player() -> None:
    # A lamp made a purple player's dark warriors look blue: 17 blue, more than two players' 16, six
    # of them matching purple's learnt picture better. Three players, each within 11, explain it.
    cells = [c for c in CELLS if c not in GOLD_CELLS]
    purples = cells[11:17]
    base = reading(dict.fromkeys(cells[:17], 4) | dict.fromkeys(cells[17:28], 2))
    read = replace(base, pictures_differ=tuple((cell.number, "purple") for cell in purples))
    assigned, confidence, players, warnings = choose_cells(read, None)
    assert set(players) == {"orange", "blue", "purple"}
    assert [assigned[cell.number] for cell in purples] == [5] * 6
    assert [assigned[cell.number] for cell in cells[:11]] == [4] * 11
    assert (confidence[[cell.number for cell in purples]] <= 0.7).all()
    assert [w.cells for w in warnings if w.code == "emblem_names_colour"] == [tuple(purples)]
    # Without the pictures: two players, and the seventeenth blue goes to the other.
    plain, _, plain_players, _ = choose_cells(base, None)
    assert set(plain_players) == {"orange", "blue"} and sum(label == 4 for label in plain) == 16


def test_choose_cells_respects_the_supply() -> None:
    # 2 players have 16 warriors each: a 17th orange must be something else, the least sure one.
    cells = [c for c in CELLS if c not in GOLD_CELLS][:18]
    labels = dict.fromkeys(cells[:17], 2) | {cells[17]: 4}
    probs = reading(labels).probabilities
    probs[cells[5].number, [0, 2]] = [0.45, 0.55]
    assigned, _, players, warnings = choose_cells(CellReading(COLOURS, probs, probs, np.zeros(40)), None)
    assert players == ("orange", "blue")
    assert assigned[cells[5].number] == EMPTY
    assert sum(1 for label in assigned if label == 2) == 16
    assert "too_many_of_colour" in [w.code for w in warnings]


def test_choose_cells_guesses_players_and_says_so() -> None:
    _, _, players, warnings = choose_cells(reading({Cell(2, 2): 4}), None)
    assert players == ("blue", "orange") and "players_guessed" in [w.code for w in warnings]
    _, _, players, warnings = choose_cells(reading({Cell(2, 2): 4}), ("purple", "blue"))
    assert players == ("purple", "blue") and "players_guessed" not in [w.code for w in warnings]


def test_assemble_builds_the_position_with_gold_values_and_warnings() -> None:
    cells = reading({Cell(2, 2): 2, Cell(2, 5): 3})
    probs = np.full(len(SLOTS), 0.03)
    probs[SLOTS.index(Slot.between((2, 2), (2, 3)))] = 0.7
    gold = {cell: (value, 0.99) for cell, value in zip(GOLD_CELLS, (7, 6, 6, 5, 5, 4, 4, 3), strict=True)}
    gold[GOLD_CELLS[0]] = (7, 0.5)
    shown = np.zeros((len(SLOTS), len(FEATURES)))
    shown[:, FEATURES.index("line_narrow")] = 1.0
    result = assemble(cells, SlotReading(probs, shown), gold)
    position = result.position
    assert position.players == ("orange", "green")
    assert {(w.cell, w.player) for w in position.warriors} == {(Cell(2, 2), "orange"), (Cell(2, 5), "green")}
    assert sorted(g.value for g in position.gold) == [3, 4, 4, 5, 5, 6, 6, 7]
    assert position.palisades == {Slot.between((2, 2), (2, 3))}
    codes = sorted(w.code for w in result.warnings)
    assert codes == ["uncertain_gold", "uncertain_slot"]


# --- metrics -------------------------------------------------------------------------------------


def test_match_colours_is_one_to_one() -> None:
    truth = {Cell(0, 0): "warrior:orange", Cell(0, 1): "warrior:orange", Cell(0, 2): "warrior:blue"}
    read = {Cell(0, 0): "warrior:x", Cell(0, 1): "warrior:y", Cell(0, 2): "warrior:y"}
    mapping = match_colours(read, truth)
    assert sorted(mapping.values())[0] in {"warrior:orange", "warrior:blue"}
    assert len(set(mapping.values())) == 2


def test_compare_counts_gold_values() -> None:
    truth = {
        "gold": [{"cell": [0, 3], "value": 7}, {"cell": [1, 1], "value": 6}],
        "warriors": [],
        "palisades": [],
    }
    read = {
        "gold": [{"cell": [0, 3], "value": 7}, {"cell": [1, 1], "value": 5}],
        "warriors": [],
        "palisades": [],
    }
    result = compare(read, truth)
    assert (result.gold_right, result.gold_total, result.exact) == (1, 2, True)


def test_cell_centres_fall_inside_the_canonical_view() -> None:
    w, h = CANONICAL.size
    for cell in CELLS:
        x, y = CANONICAL.to_px(*cell_centre_mm(cell))
        assert 0 < x < w and 0 < y < h


def test_a_grid_fit_turned_half_round_two_columns_off_is_moved_to_where_the_art_lies() -> None:
    """Turned half round and two columns along, six of the eight gold cells still lie on gold: where
    the grid's lines hardly show, only the art inside the cells tells that place from the board's."""
    photo, truth = photo_of_face([[250, 180], [1380, 220], [1330, 1010], [210, 960]])
    face = face_view(reference_looks(), CANONICAL)
    corners = board_corners_mm()[None]

    def fit(homography: np.ndarray) -> GridFit:
        return GridFit(homography, 6, np.zeros((0, 2)), np.zeros(0), 40, 54)

    off = truth @ np.linalg.inv(lattice_move(-2, 0, half_turn=True))
    moved = art_twin(photo, fit(off), face)
    assert moved is not None and moved.found_by is FoundBy.ART_ON_GRID
    error = cv2.perspectiveTransform(corners, moved.homography) - cv2.perspectiveTransform(corners, truth)
    assert float(np.abs(error).max()) < 0.5
    # Where the fit lies on the board's own place, none of the others matches the art.
    assert art_twin(photo, fit(truth), face) is None
