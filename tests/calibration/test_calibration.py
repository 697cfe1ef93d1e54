"""Calibration: a setup photo of a copy the scanner has never seen becomes a profile that reads it.

Photos are rendered from the tuning copies only (:data:`vision.worlds.raster.copies.TUNING_COPIES`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from renders import Renders

import vision.locate.find
from calibration.profile import (
    REFERENCE_GOLD,
    Profile,
    ProfileError,
    default_profile,
    load_profile,
    save_profile,
)
from calibration.setup import CORNERS, Calibration, SetupError, _corner_colours, calibrate
from engine.board import CELLS, GOLD_CELLS, SLOTS, Cell
from vision.bench.accuracy import photos_with_truth
from vision.bench.metrics import compare
from vision.colour import rgb_to_bgr_float
from vision.colour_names import colour_name, unique_names
from vision.geometry import CANONICAL, WARRIOR_SIDE_MM, board_corners_mm, cell_centre_mm
from vision.learn.improvise import _bare_lines, _merged_by_emblem, _recurring_groups
from vision.learn.pieces import FACE_VIEW, WARRIOR_SIGNS, WARRIOR_WEIGHTS, placed_warriors, warrior_odds
from vision.load import load_photo
from vision.locate.features import FoundBy, Located, NoBoardError
from vision.locate.grid import (
    GOLD_ALIKE,
    GRID_PARAMS,
    gold_candidates,
    gold_homographies,
    gold_map,
    locate_by_grid,
    refine_on_grid,
)
from vision.locate.register import art_match
from vision.params import SCAN_PARAMS
from vision.read.rectify import face_view
from vision.read.tokens import (
    IMPROVISED_WEIGHTS,
    LEARNT_WEIGHTS,
    OUTLINE_WEIGHTS,
    hidden_occupied,
    hidden_signs,
    match_levels,
    occupied_odds,
)
from vision.scan import scan
from vision.train.fit import warrior_data
from vision.worlds.raster.copies import TUNING_COPIES
from vision.worlds.raster.dataset import render_in_set
from vision.worlds.raster.render import RenderedPhoto, render_photo
from vision.worlds.raster.setup import render_setup
from webui.cli import main

ROOT = Path(__file__).resolve().parents[2]
Bgr = tuple[int, int, int]
COPY = TUNING_COPIES[4]  # two close greens among its colours
SIZE = (3200, 2400)


@pytest.fixture(scope="session")
def setup_photo(renders: Renders) -> Callable[..., RenderedPhoto]:
    """``setup_photo(*corner_colours, gold_elsewhere=False)``: a setup photo of COPY (its own colours
    in turn order when none are given), rendered once a session."""
    gold = (Cell(0, 2), Cell(1, 1), Cell(1, 5), Cell(1, 7), Cell(3, 0), Cell(3, 4), Cell(4, 2), Cell(4, 6))

    def photo(*colours: str | None, gold_elsewhere: bool = False) -> RenderedPhoto:
        return renders.setup(
            7,
            COPY,
            colours or None,
            gold_cells=gold if gold_elsewhere else None,
            size=SIZE,
            quality=92,
            tilt_deg=20.0,
        )

    return photo


@pytest.fixture(scope="session")
def learnt(setup_photo: Callable[..., RenderedPhoto]) -> Calibration:
    """What COPY's setup photo teaches."""
    return calibrate(setup_photo().data, name=COPY.name)


@pytest.mark.slow
def test_a_setup_photo_teaches_the_copys_colours_in_turn_order(learnt: Calibration) -> None:
    profile = learnt.profile
    assert profile.kind == "learnt"
    assert len(profile.colours) == 4
    assert set(profile.tokens) == set(profile.colours)
    # Two close greens stay two colours, told apart by a number when named after the same colour.
    truth = list(COPY.colours.values())
    for (name, rgb), hex_ in zip(profile.colours.items(), truth, strict=True):
        expected = tuple(int(hex_[i : i + 2], 16) for i in (1, 3, 5))
        assert max(abs(a - b) for a, b in zip(rgb, expected, strict=True)) < 60, (name, rgb, hex_)
    assert learnt.gold_hits == 8 and learnt.crossings >= 40
    assert set(profile.hidden_cells) >= {"a5", "h5", "a1", "h1", "d5"}
    assert not profile.wood_seen


@pytest.mark.slow
def test_the_bench_reads_with_the_profile_as_its_file_gives_it_back(
    setup_photo: Callable[..., RenderedPhoto], learnt: Calibration
) -> None:
    from calibration.scan_commands import _learner

    benched = _learner()(setup_photo().data, COPY.name)
    # The page and `scan --profile` read the face from the profile's JPEG, not the one in memory.
    assert not np.array_equal(benched.face, learnt.profile.face)
    assert np.array_equal(benched.face, Profile.from_json(learnt.profile.to_json()).face)
    assert benched.colours == learnt.profile.colours and benched.kind == learnt.profile.kind


@pytest.mark.slow
def test_the_setup_photos_board_is_found_to_the_millimetre(setup_photo: Callable[..., RenderedPhoto]) -> None:
    photo = setup_photo()
    image = load_photo(photo.data, min_long_side=1 << 20).image
    truth, _ = cv2.findHomography(board_corners_mm(), np.array(photo.truth["render"]["corners_px"]))
    fit = locate_by_grid(image, (42.0, 166.0, 212.0))
    assert fit is not None
    grid = np.array([[x, y] for x in np.linspace(20, 380, 9) for y in np.linspace(20, 245, 6)])
    seen = cv2.perspectiveTransform(grid[None], fit.homography)[0]
    back = cv2.perspectiveTransform(seen[None], np.linalg.inv(truth))[0]
    assert np.abs(back - grid).max() < 0.6


@pytest.mark.slow
@pytest.mark.parametrize("seed", [7, 8])
@pytest.mark.parametrize("players", [2, 3])
def test_a_setup_on_snowy_art_counts_its_corners(seed: int, players: int) -> None:
    # Snow's empty cells are as much one colour as a warrior: only colours rare on them tell, and a
    # black warrior's is rare even where the art has a few dark specks.
    snowy = next(copy for copy in TUNING_COPIES if copy.name == "frostmere")
    photo = render_setup(seed, snowy, snowy.keys[:players], size=SIZE, quality=92, tilt_deg=20.0)
    profile = calibrate(photo.data).profile
    assert len(profile.colours) == players
    assert next(iter(profile.colours)) == "black"


@pytest.mark.slow
def test_named_players_name_the_corners(setup_photo: Callable[..., RenderedPhoto]) -> None:
    names = ("alpha", "beta", "gamma", "delta")
    profile = calibrate(setup_photo().data, players=names).profile
    assert tuple(profile.colours) == names


@pytest.mark.slow
@pytest.mark.parametrize(
    ("corners", "gold_elsewhere", "code", "words"),
    [
        (
            (COPY.keys[0], COPY.keys[1], None, COPY.keys[3]),
            False,
            "corner_empty",
            "a corner without a warrior: a1",
        ),
        ((COPY.keys[0], COPY.keys[2], COPY.keys[2]), False, "same_colour", "two corners of one colour"),
        ((), True, "gold", "gold"),
    ],
)
def test_a_bad_setup_is_refused_saying_what_is_missing(
    corners: tuple[str | None, ...],
    gold_elsewhere: bool,
    code: str,
    words: str,
    setup_photo: Callable[..., RenderedPhoto],
) -> None:
    with pytest.raises(SetupError) as refused:
        calibrate(setup_photo(*corners, gold_elsewhere=gold_elsewhere).data)
    assert refused.value.code.startswith(code) or refused.value.code == "no_board"
    assert words in str(refused.value)


def _with_disc(
    data: bytes, homography: np.ndarray, cell: Cell, rings: tuple[tuple[float, Bgr], ...]
) -> bytes:
    """The photo (upright, at full size as calibration loads it) with discs painted on ``cell``,
    from the outside in: each ring's radius (mm) and colour."""
    image = load_photo(data, min_long_side=1 << 20).image.copy()
    x, y = cell_centre_mm(cell)
    angles = np.linspace(0, 2 * np.pi, 64, endpoint=False)
    for radius, bgr in rings:
        ring = np.stack([x + radius * np.cos(angles), y + radius * np.sin(angles)], axis=-1)
        points = cv2.perspectiveTransform(ring[None], homography)[0]
        cv2.fillPoly(image, [np.round(points).astype(np.int32)], bgr, lineType=cv2.LINE_AA)
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return encoded.tobytes()


def _with_gold_disc(data: bytes, homography: np.ndarray, cell: Cell) -> bytes:
    """The photo with a round token-sized gold shape painted on ``cell``, the way an autumn copy's
    tree crowns lie in its art."""
    return _with_disc(data, homography, cell, ((15.0, (30, 110, 160)), (13.0, (42, 166, 212))))


@pytest.mark.slow
def test_round_gold_art_off_the_gold_cells_does_not_refuse_a_setup_with_its_eight_tokens(
    setup_photo: Callable[..., RenderedPhoto], learnt: Calibration
) -> None:
    # The box holds eight gold tokens: with one on every gold cell, a ninth gold disc is art.
    painted = _with_gold_disc(setup_photo().data, learnt.homography, Cell(0, 1))
    assert list(calibrate(painted, name=COPY.name).profile.colours) == list(learnt.profile.colours)
    # With a gold cell bare, the same shape is named as where its token seems to lie.
    moved = setup_photo(gold_elsewhere=True)
    with pytest.raises(SetupError, match="no gold token on d5"):
        calibrate(moved.data)


def _setup_discs(corners: list[tuple[float, float, float]], washed: int) -> np.ndarray:
    """Cell discs (BGR, white 1) of a setup: mottled art, ``washed`` empty cells lost to glare's
    white, and on the corners in turn the colours ``corners`` (the rest bare art)."""
    rng = np.random.default_rng(3)
    discs = rng.uniform(0.2, 0.6, (len(CELLS), 200, 3)) * np.array([0.5, 0.8, 0.9])
    empty = [c.number for c in CELLS if c not in CORNERS and c not in GOLD_CELLS]
    discs[empty[:washed]] = 0.97
    for cell, bgr in zip(CORNERS, corners, strict=False):
        discs[cell.number] = np.asarray(bgr) + rng.normal(0, 0.01, (200, 3))
    return discs


#: No corner's outline stands out from every empty cell's.
NOT_OUTLINED = np.zeros(len(CORNERS), bool)


def test_a_corner_warrior_as_white_as_the_glare_on_the_art_is_told_by_its_looks() -> None:
    # Glare washes several empty cells to white: a white warrior's colour is then neither rare on
    # the art nor plainer than it, and only its square outline and flat back tell it.
    corners = [(0.75, 0.7, 0.2), (0.2, 0.2, 0.8), (0.15, 0.15, 0.15), (0.96, 0.96, 0.96)]
    discs = _setup_discs(corners, washed=6)
    white = np.ones(3)
    assert len(_corner_colours(discs, white, np.array([1.0, 1.0, 1.0, 0.02]), NOT_OUTLINED)[0]) == 3
    found, warnings = _corner_colours(discs, white, np.array([1.0, 1.0, 1.0, 0.99]), NOT_OUTLINED)
    assert len(found) == 4 and found[3].min() > 0.9 and warnings == []
    # Bare art that does not look like a warrior stays an empty corner.
    bare = _setup_discs(corners[:2], washed=6)
    assert len(_corner_colours(bare, white, np.array([1, 1, 0.02, 0.02]), NOT_OUTLINED)[0]) == 2


def test_a_corner_warrior_as_dark_as_the_art_is_told_by_an_outline_standing_out() -> None:
    # A black warrior on black art: neither rare nor plain, its back no step from the art, and its
    # outline no sure sign on busy art in general; but sharper than any empty cell's, it is one.
    corners = [(0.75, 0.7, 0.2), (0.2, 0.2, 0.8), (0.15, 0.15, 0.15)]
    discs = _setup_discs(corners, washed=0)
    discs[CORNERS[2].number] = discs[CORNERS[3].number]
    white, looks = np.ones(3), np.array([1.0, 1.0, 0.02, 0.02])
    assert len(_corner_colours(discs, white, looks, NOT_OUTLINED)[0]) == 2
    assert len(_corner_colours(discs, white, looks, np.array([False, False, True, False]))[0]) == 3


def test_two_corners_the_light_washes_to_one_white_are_learnt_with_a_warning() -> None:
    # A pale pink and a white warrior both clip to white under a bright lamp: a good setup, which
    # is learnt and says what to retake, where two warriors of one colour in plain light are refused.
    washed = [(0.995, 0.99, 0.995), (0.2, 0.2, 0.8), (0.999, 0.999, 0.999)]
    looks = np.array([1.0, 1.0, 1.0, 0.02])
    found, warnings = _corner_colours(_setup_discs(washed, washed=0), np.ones(3), looks, NOT_OUTLINED)
    assert len(found) == 3
    assert len(warnings) == 1 and "a5 and a1 look alike" in warnings[0] and "retake" in warnings[0]
    plain = [(0.2, 0.5, 0.8), (0.2, 0.2, 0.8), (0.21, 0.5, 0.79)]
    with pytest.raises(SetupError, match="two corners of one colour: a5 and a1"):
        _corner_colours(_setup_discs(plain, washed=0), np.ones(3), looks, NOT_OUTLINED)


def _with_pale_token(data: bytes, homography: np.ndarray, cell: Cell) -> bytes:
    """The photo with the token on ``cell`` painted over by one a lamp's highlight washes out: a
    token's rim and size, in no gold at all."""
    return _with_disc(data, homography, cell, ((16.0, (150, 150, 150)), (14.5, (236, 238, 240))))


@pytest.mark.slow
def test_a_gold_token_washed_out_by_a_highlight_still_counts_by_its_round_outline(
    setup_photo: Callable[..., RenderedPhoto], learnt: Calibration
) -> None:
    washed = _with_pale_token(setup_photo().data, learnt.homography, Cell(0, 3))
    assert list(calibrate(washed, name=COPY.name).profile.colours) == list(learnt.profile.colours)


@pytest.mark.slow
def test_a_two_player_setup_leaves_the_last_corners_empty(setup_photo: Callable[..., RenderedPhoto]) -> None:
    profile = calibrate(setup_photo(COPY.keys[2], COPY.keys[0]).data).profile
    assert len(profile.colours) == 2


@pytest.mark.slow
def test_players_must_match_the_corners(setup_photo: Callable[..., RenderedPhoto]) -> None:
    with pytest.raises(SetupError, match="3 players named"):
        calibrate(setup_photo().data, players=("a", "b", "c"))


@pytest.mark.slow
def test_a_photo_without_a_board_teaches_nothing() -> None:
    data = (ROOT / "sample_images" / "samples-0005.jpg").read_bytes()
    with pytest.raises(SetupError, match="no board found"):
        calibrate(data)


@pytest.mark.slow
def test_a_profile_round_trips_under_two_megabytes(tmp_path: Path, learnt: Calibration) -> None:
    path = tmp_path / "copy.json"
    size = save_profile(learnt.profile, path)
    assert size == path.stat().st_size < 2_000_000
    again = load_profile(path)
    original = learnt.profile
    assert again.colours == original.colours and again.hidden_cells == original.hidden_cells
    assert set(again.tokens) == set(original.tokens) and not again.wood_seen
    assert again.kind == "learnt"
    assert float(np.abs(again.face.astype(float) - original.face.astype(float)).mean()) < 4


def test_version_1_profiles_still_load(tmp_path: Path) -> None:
    document = default_profile().to_json()
    document["version"] = 1
    path = tmp_path / "old.json"
    path.write_text(json.dumps(document))
    profile = load_profile(path)
    assert profile.kind == "reference" and profile.tokens == {} and profile.wood_seen


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"tokens": {"nobody": "aGVsbG8="}}, "tokens"),
        ({"hidden_cells": "a5"}, "hidden_cells"),
        ({"wood_seen": "no"}, "wood_seen"),
        ({"tokens": {"orange": "!!"}}, "tokens.orange"),
    ],
)
def test_a_broken_version_2_profile_is_refused_by_name(change: dict[str, object], words: str) -> None:
    document = default_profile().to_json() | change
    with pytest.raises(ProfileError, match=words):
        Profile.from_json(document)


@pytest.mark.slow
def test_the_calibrated_profile_reads_a_game_of_that_copy(learnt: Calibration) -> None:
    photo = render_photo(4_000_004, players=3, copy=COPY, size=SIZE, quality=92, tilt_deg=25.0)
    result = scan(photo.data, profile=learnt.profile)
    comparison = compare(result.position.to_json(), photo.truth)
    assert comparison.occupancy_right == 40
    assert comparison.cells_right >= 39 and comparison.slots_right >= 66


def test_a_hidden_corner_is_judged_by_its_warrior_match_against_the_photos_own_levels() -> None:
    # Two colours; cells the face reads surely empty, and surely holding each colour's warrior.
    art = np.array([[0.20, 0.30], [0.35, 0.33], [0.30, 0.25]])
    warriors = np.array([[0.95, 0.30], [0.30, 0.90]])
    levels = match_levels(art, warriors)
    # Looks that say neither (an outline scoring 2.5, colours spreading as on the tuning copies'
    # empty cells, and stepping at the back's edge just enough for even odds): the matches decide.
    outline, back, art_spread = np.log([2.5, 9.0, 15.0])
    w = WARRIOR_WEIGHTS
    step = -(w[0] * outline + w[2] * back + w[3] * art_spread + w[4]) / w[1]
    unclear = np.tile([outline, step, back, art_spread], (2, 1))
    assert abs(warrior_odds(unclear)[0]) < 1e-6
    # An empty corner printed all in a token's colour, matching no better than the art does,
    # and a warrior whose print shows little of its colour.
    corners = np.array([[0.34, 0.31], [0.30, 0.88]])
    occupied = hidden_occupied(hidden_signs(corners, np.array([1.0, 0.1]), unclear, *levels), LEARNT_WEIGHTS)
    assert occupied[0] < 0.5 < occupied[1]
    # A blurred photo lowers every match alike: the same warrior at 0.55 is still a warrior there.
    blurred = match_levels(art * 0.8, warriors * 0.6)
    occupied = hidden_occupied(
        hidden_signs(corners * 0.6, np.array([1.0, 0.1]), unclear, *blurred), LEARNT_WEIGHTS
    )
    assert occupied[0] < 0.5 < occupied[1]
    # A warrior half hidden by a palisade matches weakly: how full the board is elsewhere decides.
    weak = np.array([[0.30, 0.45]])
    on_full_board = hidden_occupied(
        hidden_signs(weak, np.ones(1), unclear[:1], *levels, occupied_odds(28, 28)), LEARNT_WEIGHTS
    )
    on_bare_board = hidden_occupied(
        hidden_signs(weak, np.ones(1), unclear[:1], *levels, occupied_odds(0, 28)), LEARNT_WEIGHTS
    )
    assert on_bare_board[0] < 0.5 < on_full_board[0]


def test_an_empty_hidden_corner_between_the_board_edge_and_a_grid_line_is_empty() -> None:
    # The frame left of the grid and the printed lines along two of the corner's sides draw half a
    # square's outline, as clearly as a warrior's; nothing there has a warrior's flat back.
    rng = np.random.default_rng(2)
    width, height = CANONICAL.size
    balanced = (0.7 + rng.normal(0, 0.02, (height, width, 3))).astype(np.float32)
    corner = Cell(4, 0)
    x0, y0, _, _ = CANONICAL.cell_box(corner)
    balanced[:, : x0 - 1] = (0.15, 0.2, 0.3)
    cv2.line(balanced, (x0, 0), (x0, height), (0.1, 0.1, 0.1), 3)
    cv2.line(balanced, (0, y0), (width, y0), (0.1, 0.1, 0.1), 3)
    looks = placed_warriors(balanced, [corner], CANONICAL)[1]
    assert np.exp(looks[0, 0]) > 5.0 and warrior_odds(looks)[0] < 0
    levels = match_levels(np.array([[0.20, 0.30], [0.35, 0.33]]), np.array([[0.95, 0.30], [0.30, 0.90]]))
    signs = hidden_signs(np.array([[0.40, 0.33]]), np.ones(1), looks, *levels)
    assert hidden_occupied(signs, LEARNT_WEIGHTS)[0] < 0.2
    # The reader that weighs the outline in the looks' place takes it for a warrior: its opinion
    # puts the reading in doubt rather than deciding it.
    assert hidden_occupied(signs, OUTLINE_WEIGHTS)[0] > 0.5


def test_a_hidden_corners_warrior_outline_outweighs_a_weak_picture_match() -> None:
    rng = np.random.default_rng(0)
    balanced = (0.6 + rng.normal(0, 0.03, (CANONICAL.size[1], CANONICAL.size[0], 3))).astype(np.float32)
    warrior, bare = Cell(2, 3), Cell(2, 4)
    x, y = (v * CANONICAL.px_per_mm for v in cell_centre_mm(warrior))
    side = WARRIOR_SIDE_MM * CANONICAL.px_per_mm
    box = cv2.boxPoints(((x + 3, y - 2), (side, side), 10.0))
    cv2.fillConvexPoly(balanced, np.round(box).astype(np.int32), (0.35, 0.3, 0.6))
    looks = placed_warriors(balanced, [warrior, bare], CANONICAL)[1]
    assert np.exp(looks[0, 0]) > 3.0 > 2.0 > np.exp(looks[1, 0])
    assert warrior_odds(looks)[1] < 0 < warrior_odds(looks)[0]
    # On a bare board, with a picture matching weakly (a palisade across it, a faint emblem),
    # the outline decides.
    levels = match_levels(np.array([[0.20, 0.30], [0.35, 0.33]]), np.array([[0.95, 0.30], [0.30, 0.90]]))
    weak = np.array([[0.45, 0.30], [0.45, 0.30]])
    occupied = hidden_occupied(
        hidden_signs(weak, np.ones(2), looks, *levels, occupied_odds(2, 28)), LEARNT_WEIGHTS
    )
    assert occupied[1] < 0.5 < occupied[0]


def test_without_a_profile_a_cell_that_looks_like_a_warrior_is_one_though_no_group_matches_it() -> None:
    rng = np.random.default_rng(1)
    art = (0.5 + rng.normal(0, 0.08, (CANONICAL.size[1], CANONICAL.size[0], 3))).astype(np.float32)
    warrior, bare = Cell(1, 2), Cell(1, 4)
    face = _face_with_warrior(art, warrior, (0.15, 0.15, 0.2))
    looks = placed_warriors(face, [warrior, bare], CANONICAL)[1]
    levels = match_levels(np.array([[0.20, 0.30], [0.35, 0.33]]), np.array([[0.95, 0.30], [0.30, 0.90]]))
    # A player whose colour made no group: its warrior matches no picture better than art does.
    matches = np.array([[0.33, 0.30], [0.33, 0.30]])
    occupied = hidden_occupied(hidden_signs(matches, np.zeros(2), looks, *levels), IMPROVISED_WEIGHTS)
    assert occupied[1] < 0.5 < occupied[0]
    # A warrior whose looks are spoilt (a palisade across it, a shadow over it) is still told by
    # its picture, matching as well as its group's warriors do.
    matches = np.array([[0.33, 0.30], [0.95, 0.30]])
    occupied = hidden_occupied(hidden_signs(matches, np.ones(2), looks, *levels), IMPROVISED_WEIGHTS)
    assert occupied[1] > 0.5


@pytest.mark.slow
def test_the_warriors_looks_are_fitted_on_the_cells_of_photos_whose_truth_is_known(
    tmp_path: Path, renders: Renders
) -> None:
    photo = renders.photo(4_000_020, players=3, copy=COPY, size=SIZE, quality=92, tilt_deg=20.0)
    (tmp_path / f"game{photo.suffix}").write_bytes(photo.data)
    (tmp_path / "game.json").write_text(json.dumps(photo.truth))
    (tmp_path / "empty.json").write_text(json.dumps({"board": False}))
    signs, labels, weights = warrior_data(photos_with_truth(tmp_path))
    assert signs.shape == (32, len(WARRIOR_SIGNS))
    # One world: every example counts once.
    assert np.array_equal(weights, np.ones(32))
    assert int(labels.sum()) == len(photo.truth["warriors"])
    assert int(((warrior_odds(signs) > 0) == labels).sum()) >= 31


def _face_with_warrior(art: np.ndarray, cell: Cell, back: tuple[float, float, float]) -> np.ndarray:
    """``art`` (float BGR at :data:`CANONICAL`) with a warrior of one flat ``back`` colour on ``cell``,
    its emblem a lighter ring, a little off the cell's centre and turned."""
    x, y = (v * CANONICAL.px_per_mm for v in cell_centre_mm(cell))
    side = WARRIOR_SIDE_MM * CANONICAL.px_per_mm
    face = art.copy()
    box = cv2.boxPoints(((x - 2, y + 3), (side, side), -8.0))
    cv2.fillConvexPoly(face, np.round(box).astype(np.int32), back)
    cv2.circle(face, (round(x - 2), round(y + 3)), round(side / 5), tuple(min(1.0, c + 0.3) for c in back), 2)
    return face


def test_a_warrior_shows_by_its_flat_back_on_busy_art_of_its_own_colour_and_flat_art_does_not() -> None:
    rng = np.random.default_rng(3)
    h, w = CANONICAL.size[1], CANONICAL.size[0]
    # Busy art: blotches of light and dark about a grey-green, edges everywhere.
    blotches = cv2.resize(
        rng.uniform(-0.25, 0.25, (h // 6, w // 6, 1)), (w, h), interpolation=cv2.INTER_NEAREST
    )
    busy = np.clip(np.array([0.45, 0.55, 0.5]) + blotches[..., None], 0, 1).astype(np.float32)
    warrior, bare = Cell(2, 3), Cell(2, 5)
    on_busy = _face_with_warrior(busy, warrior, (0.45, 0.55, 0.5))
    looks = placed_warriors(on_busy, [warrior, bare], CANONICAL)[1]
    # The bare cell's blotches outline a warrior's square as clearly as a sure warrior's (3).
    assert np.exp(looks[1, 0]) > 3.0
    odds = warrior_odds(looks)
    assert odds[1] < 0 < odds[0]
    # Flat snow with one printed stroke across a bare cell: its edge is strong against the cell's
    # typical (no) edge, but nothing square stands out from the snow; a white warrior does.
    snow = np.full((h, w, 3), (0.86, 0.88, 0.9), np.float32) + rng.normal(0, 0.004, (h, w, 3)).astype(
        np.float32
    )
    x, y = (round(v * CANONICAL.px_per_mm) for v in cell_centre_mm(bare))
    cv2.line(snow, (x - 30, y - 10), (x + 30, y + 14), (0.55, 0.55, 0.6), 2)
    on_snow = _face_with_warrior(snow, warrior, (0.97, 0.97, 0.97))
    odds = warrior_odds(placed_warriors(on_snow, [warrior, bare], CANONICAL)[1])
    assert odds[1] < 0 < odds[0]


@pytest.mark.slow
def test_without_a_profile_an_unknown_copy_is_still_found_and_flagged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    photo = render_photo(4_000_010, players=2, copy=COPY, size=SIZE, quality=92, tilt_deg=15.0)
    tried: list[int] = []
    real_locate = vision.locate.find.locate

    def counted(image: np.ndarray, profile: object, first_attempt: int = 0, **options: object) -> Located:
        tried.append(first_attempt)
        return real_locate(image, profile, first_attempt, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(vision.locate.find, "locate", counted)
    result = scan(photo.data)
    assert result.warnings[0].code == "unknown_copy"
    comparison = compare(result.position.to_json(), photo.truth)
    assert comparison.occupancy_right >= 36
    # Its gold and grid placed it and its art is not the reference kit's: the slow feature
    # searches, which would not find that art either, were never run.
    assert tried == [0]


@pytest.mark.slow
def test_the_art_inside_the_cells_tells_the_reference_kit_from_another_copy_on_the_same_grid() -> None:
    reference = render_photo(4_000_011, players=2, size=SIZE, quality=92, tilt_deg=15.0)
    other = render_photo(4_000_010, players=2, copy=COPY, size=SIZE, quality=92, tilt_deg=15.0)
    face = face_view(default_profile())
    matches = []
    for photo in (reference, other):
        image = load_photo(photo.data, min_long_side=1 << 20).image
        fit = locate_by_grid(image, rgb_to_bgr_float(REFERENCE_GOLD) * 255)
        assert fit is not None
        matches.append(art_match(image, fit.homography, face))
    assert matches[0] > SCAN_PARAMS.art_match_margin > matches[1]


@pytest.mark.slow
def test_another_copy_whose_frame_the_reference_features_find_is_read_as_unknown() -> None:
    # This copy shares the reference kit's frame: its features find the board, but little of the
    # reference art registers on it. Read with the reference profile, 28 of its slots were wrong.
    # The board is full and one player's outlines are all unclear: that player's warriors are
    # found by their colour and emblem.
    photo = render_in_set("copies-tuning", 302)
    view = vision.locate.find.board_view(load_photo(photo.data).image, default_profile())
    assert view.agreeing is not None and view.agreeing < SCAN_PARAMS.art_matched_patches
    result = scan(photo.data)
    assert result.warnings[0].code == "unknown_copy"
    comparison = compare(result.position.to_json(), photo.truth)
    assert comparison.slots_right >= 64
    assert comparison.occupancy_right >= 38


@pytest.mark.slow
def test_a_board_printed_in_ochre_is_found_by_its_gold_tokens_rims(monkeypatch: pytest.MonkeyPatch) -> None:
    # On ochre art the gold runs into the art and no blob of gold alone is round (where gold is
    # looked for only as loosely as the art's colour passes: the purer gold finds this one too).
    monkeypatch.setattr("vision.locate.grid.GOLD_ALIKES", (GOLD_ALIKE,))
    ochre = next(copy for copy in TUNING_COPIES if copy.name == "autumn-moor")
    photo = render_photo(4_000_100, players=3, copy=ochre, size=SIZE, quality=92, tilt_deg=25.0)
    loaded = load_photo(photo.data)
    gold = np.array(REFERENCE_GOLD[::-1], float)
    by_blobs = [
        refine_on_grid(loaded.image, h)[1]
        for h, _ in gold_homographies(gold_candidates(gold_map(loaded.image, gold))[0])
    ]
    assert max(by_blobs, default=0) < GRID_PARAMS.min_crossings
    fit = locate_by_grid(loaded.image, gold)
    assert fit is not None
    truth, _ = cv2.findHomography(
        board_corners_mm(), np.array(photo.truth["render"]["corners_px"]) * loaded.scale
    )
    inside = np.array([[x, y] for x in (40.0, 200.0, 360.0) for y in (40.0, 130.0, 230.0)])
    seen = cv2.perspectiveTransform(inside[None], fit.homography)[0]
    assert np.abs(cv2.perspectiveTransform(seen[None], np.linalg.inv(truth))[0] - inside).max() < 2.0
    result = scan(photo.data)
    assert result.warnings[0].code == "unknown_copy"
    assert compare(result.position.to_json(), photo.truth).occupancy_right >= 38


@pytest.mark.slow
def test_calibrate_command_writes_a_profile_and_scan_reads_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setup_photo: Callable[..., RenderedPhoto]
) -> None:
    setup = tmp_path / "setup.jpg"
    setup.write_bytes(setup_photo().data)
    out = tmp_path / "mine.json"
    assert main(["calibrate", str(setup), "--out", str(out), "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["profile"] == str(out) and len(said["colours"]) == 4
    assert load_profile(out).name == "mine"


@pytest.mark.slow
def test_calibrate_command_refuses_a_bad_setup_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setup_photo: Callable[..., RenderedPhoto]
) -> None:
    setup = tmp_path / "setup.jpg"
    setup.write_bytes(setup_photo(COPY.keys[0], COPY.keys[2], COPY.keys[2]).data)
    out = tmp_path / "mine.json"
    assert main(["calibrate", str(setup), "--out", str(out)]) == 3
    err = capsys.readouterr().err
    assert "two corners of one colour" in err and "no profile written" in err
    assert not out.exists()
    (tmp_path / "junk.jpg").write_bytes(b"not a photo")
    assert main(["calibrate", str(tmp_path / "junk.jpg"), "--out", str(out)]) == 2
    assert not out.exists()


def test_colour_names() -> None:
    assert colour_name((0x2F, 0x6D, 0xB5)) == "blue"
    assert colour_name((200, 40, 40)) == "red"
    assert unique_names(["red", "red", "red"]) == ["red", "red-2", "red-3"]
    assert CORNERS[0] == Cell(0, 0)


@pytest.mark.parametrize("lean_mm", [0.0, 8.0])
def test_an_improvised_face_is_bare_as_far_as_a_palisade_would_lean(lean_mm: float) -> None:
    # A steep photo shows a palisade's top several millimetres off its line: the improvised face
    # must not keep it there, or the slot reader would compare the palisade with itself.
    s = FACE_VIEW.px_per_mm
    face = np.full((round(265 * s), round(400 * s), 3), 150, np.uint8)
    line_y = 20.0 + 45.0  # the line between the first two rows
    top = round((line_y + 8.0) * s)
    face[top - round(s) : top + round(s), round(30 * s) : round(370 * s)] = (40, 90, 160)
    bare = _bare_lines(face, np.tile([0.0, lean_mm], (len(SLOTS), 1)))
    # Within one cell, clear of the bands round the lines across.
    stripe = bare[top - round(s) : top + round(s), round(75 * s) : round(100 * s)].astype(float)
    left_alone = bool(np.abs(stripe - (40, 90, 160)).max() < 1)
    assert left_alone == (lean_mm == 0.0)


@pytest.mark.slow
def test_a_calibrated_board_whose_art_is_not_found_is_found_by_its_gold_and_grid(
    monkeypatch: pytest.MonkeyPatch, learnt: Calibration, renders: Renders
) -> None:
    # A small board seen steeply can show too little of its art's features to be found by them.
    photo = renders.photo(4_000_020, players=3, copy=COPY, size=SIZE, quality=92, tilt_deg=20.0)

    def no_features(image: np.ndarray, profile: object, first_attempt: int = 0, **_: object) -> Located:
        raise NoBoardError("no_board", "no board found: too few of its art's features")

    monkeypatch.setattr(vision.locate.find, "locate", no_features)
    result = scan(photo.data, profile=learnt.profile)
    assert result.located.found_by is not FoundBy.FEATURES
    assert not any(w.code == "unknown_copy" for w in result.warnings)
    assert compare(result.position.to_json(), photo.truth).occupancy_right >= 39
    monkeypatch.setattr(vision.locate.find, "locate_by_grid", lambda image, gold, *_: None)
    with pytest.raises(NoBoardError):
        scan(photo.data, profile=learnt.profile)


def _teal_picture(rng: np.random.Generator, emblem: bool) -> np.ndarray:
    """A warrior-sized picture of a teal back, with an arrow emblem or with art's mottling instead."""
    side = round(WARRIOR_SIDE_MM * FACE_VIEW.px_per_mm)
    picture = np.zeros((side, side, 3), np.uint8)
    picture[:] = (138, 140, 20)
    if emblem:
        arrow = np.array(
            [[0.5, 0.25], [0.72, 0.5], [0.58, 0.5], [0.58, 0.75], [0.42, 0.75], [0.42, 0.5], [0.28, 0.5]]
        )
        cv2.fillPoly(picture, [np.round(arrow * side).astype(np.int32)], (235, 235, 235))
    else:
        mottle = cv2.GaussianBlur(rng.normal(0, 60, (side, side)).astype(np.float32), (0, 0), 6)
        picture = np.clip(picture + mottle[..., None] * (0.4, 0.4, 0.1), 0, 255).astype(np.uint8)
    return np.clip(picture + rng.normal(0, 4, picture.shape), 0, 255).astype(np.uint8)


def test_warriors_of_a_colour_with_no_clear_outline_are_grouped_by_their_emblem() -> None:
    # One player's outlines can all be unclear: the colour is still that player's when its cells
    # repeat one emblem, whichever way each warrior was put down.
    rng = np.random.default_rng(3)
    warriors = [np.rot90(_teal_picture(rng, emblem=True), turn) for turn in (0, 1, 3)]
    art = [_teal_picture(rng, emblem=False) for _ in range(3)]
    white = np.ones(3)
    groups = _recurring_groups([art[0], *warriors, art[1], art[2]], white, [])
    assert len(groups) == 1
    colour, members = groups[0]
    assert len(members) == 3
    assert all(np.abs(member.astype(float) - members[0]).mean() < 10 for member in members)
    assert np.abs(colour * 255 - (138, 140, 20)).max() < 15
    # Art of one colour is not a player, nor is a colour a sure warrior already showed.
    assert _recurring_groups(art, white, []) == []
    assert _recurring_groups(warriors, white, [colour]) == []


def test_one_players_warriors_lit_apart_in_two_colour_groups_are_one_group_by_their_emblem() -> None:
    # A lamp's warm fall-off spreads one player's teal over two groups; another player's warriors,
    # their back the same teal here, bear another emblem and stay apart.
    rng = np.random.default_rng(5)
    lit = [np.rot90(_teal_picture(rng, emblem=True), turn) for turn in (0, 0, 2)]
    shaded = [np.rot90((_teal_picture(rng, emblem=True) * 0.7).astype(np.uint8), 1) for _ in range(2)]
    other = [_teal_picture(rng, emblem=False) for _ in range(2)]
    for picture in other:
        cv2.circle(
            picture,
            (picture.shape[1] // 2, picture.shape[0] // 2),
            picture.shape[0] // 5,
            (235, 235, 235),
            -1,
        )
    groups = _merged_by_emblem([(np.full(3, 0.5), lit), (np.full(3, 0.3), shaded), (np.full(3, 0.4), other)])
    assert [len(members) for _, members in groups] == [5, 2]
    colour, members = groups[0]
    assert np.allclose(colour, 0.5)
    # The shaded ones were turned as the lit ones lie.
    upright = np.median(np.stack(lit), axis=0)
    assert all(
        np.abs(member.astype(float) / member.mean() - upright / upright.mean()).mean() < 0.25
        for member in members
    )
    assert groups[1][1] == other


@pytest.mark.slow
def test_art_taken_for_warriors_of_one_colour_is_no_player_when_no_two_emblems_match() -> None:
    # Pale art drew two sharp outlines of one colour: taken for a player, its picture matched more
    # art elsewhere. No two of its emblems match, so it is art.
    photo = render_in_set("copies-tuning", 466)
    result = scan(photo.data)
    truth = {tuple(warrior["cell"]) for warrior in photo.truth["warriors"]}
    read = {tuple(warrior["cell"]) for warrior in result.position.to_json()["warriors"]}
    assert read == truth
