"""The Cycles world (vision/worlds/cycles): its plans, and small real renders checked against their truth.

The tests that render are skipped where Blender's ``bpy`` is not installed (the optional
``render`` extra), unless ARMADORA_REQUIRE_BPY=1, which makes a missing bpy a failure; the
plans need no Blender and are checked everywhere.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from engine.board import GOLD_CELLS
from engine.check import check
from engine.position import Position
from vision.worlds.cycles.art import EMBLEMS, STYLES, Style
from vision.worlds.cycles.camera import Camera
from vision.worlds.cycles.kit import COPIES, MORE_TUNING_COPIES, REFERENCE, TUNING_COPIES, Kit, copy_named
from vision.worlds.cycles.plan import MM, Plan, is_forced_hard, make_plan
from vision.worlds.cycles.positions import CORNERS
from vision.worlds.cycles.sets import SETUP_SEED, photo_name, render_photo, render_set, setup_jobs, truth_of

try:
    import bpy  # noqa: F401
except ImportError:
    if os.environ.get("ARMADORA_REQUIRE_BPY") == "1":
        raise  # a failure here is the point
    HAVE_BPY = False
else:
    HAVE_BPY = True

needs_bpy = pytest.mark.skipif(not HAVE_BPY, reason="bpy (the render extra) is not installed")

SEED = 4  # a game photo of the reference kit, board seen from the side, moderate light


@pytest.fixture(scope="module")
def frame(tmp_path_factory: pytest.TempPathFactory) -> tuple[NDArray[Any], dict[str, Any]]:
    out = tmp_path_factory.mktemp("cycles")
    plan = make_plan("reference", SEED, 320, 240)
    assert plan.kind == "game"
    name = photo_name("reference", SEED)
    render_photo(plan, out, name, samples=4, threads=1)
    bgr = cv2.imread(str(out / f"{name}.jpg"))
    assert bgr is not None
    photo = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    truth = json.loads((out / f"{name}.json").read_text())
    return photo, truth


@needs_bpy
def test_the_truth_is_a_legal_position_of_the_reference_kit(
    frame: tuple[NDArray[Any], dict[str, Any]],
) -> None:
    _photo, truth = frame
    position = Position.from_json(truth)
    assert check(position).legal
    assert truth["board"] is True and "copy" not in truth
    assert set(position.players) <= set(REFERENCE.colour_keys)
    assert sorted(g.value or 0 for g in position.gold) == [3, 4, 4, 5, 5, 6, 6, 7]
    assert all(w.value is None for w in position.warriors)
    assert truth["render"]["world"] == "cycles" and truth["render"]["seed"] == SEED


@needs_bpy
def test_the_grid_corners_lie_inside_the_frame(frame: tuple[NDArray[Any], dict[str, Any]]) -> None:
    photo, truth = frame
    h, w = photo.shape[:2]
    for key in ("corners_px", "grid_corners_px"):
        pts = np.array(truth["render"][key])
        assert pts.shape == (4, 2)
        assert (pts >= 0).all() and (pts[:, 0] <= w - 1).all() and (pts[:, 1] <= h - 1).all(), key
    area = cv2.contourArea(np.array(truth["render"]["corners_px"], np.float32)) / (w * h)
    assert 0.2 <= area <= 0.95


def _yellowness(photo: NDArray[Any], pt: NDArray[Any]) -> float:
    x, y = np.round(pt).astype(int)
    patch = photo[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).astype(float)
    r, g, b = patch.mean(axis=0)
    return float(((r + g) / 2 - b) / (r + g + b + 1e-6))


@needs_bpy
def test_gold_shows_at_the_projected_gold_cells(frame: tuple[NDArray[Any], dict[str, Any]]) -> None:
    """The disc around its numeral is yellower than the bare board beside the cell."""
    photo, truth = frame
    plan = make_plan("reference", SEED, 320, 240)
    cam: Camera = plan.camera
    top = plan.board_top + REFERENCE.token_mm * MM
    pitch = REFERENCE.pitch_mm * MM
    gold, board = [], []
    cells = [tuple(g["cell"]) for g in truth["gold"]]
    assert sorted(cells) == sorted(GOLD_CELLS)
    for row, col in cells:
        x, y = (v * MM for v in REFERENCE.cell_centre_mm(row, col))
        ring = [(x + dx, y + dy, top) for dx, dy in ((0.011, 0), (-0.011, 0), (0, 0.011), (0, -0.011))]
        gold.append(np.mean([_yellowness(photo, p) for p in cam.project(np.array(ring))]))
        # The bare board in the cell's corners, clear of the disc, the sticks and the neighbours.
        e = 0.38 * pitch
        corners = [(x + sx * e, y + sy * e, plan.board_top) for sx in (-1, 1) for sy in (-1, 1)]
        board.append(np.mean([_yellowness(photo, p) for p in cam.project(np.array(corners))]))
    assert board, "no bare board next to the gold in this photo"
    assert np.median(gold) > np.median(board) + 0.05, (gold, board)


def test_the_same_seed_gives_the_same_truth() -> None:
    a = truth_of(make_plan("copies", 100_003, 640, 480, hard_share=0.3))
    b = truth_of(make_plan("copies", 100_003, 640, 480, hard_share=0.3))
    c = truth_of(make_plan("copies", 100_004, 640, 480, hard_share=0.3))
    assert a == b
    assert a != c


def _legal_and_framed(plan: Plan) -> dict[str, Any]:
    """The truth of a plan with a board, checked: a legal position, the board in the frame, hard as forced."""
    truth = truth_of(plan)
    assert truth["board"] is True
    assert check(Position.from_json(truth)).legal
    corners = np.array(truth["render"]["corners_px"])
    assert (corners >= 0).all() and (corners <= [plan.width - 1, plan.height - 1]).all()
    assert 0.2 <= truth["render"]["conditions"]["board_area_fraction"] <= 0.92
    for kind in plan.forced_hard:
        if kind != "glare":  # glare is told by the render: clipped pixels on the card
            assert kind in truth["render"]["hard"]
    return truth


def test_plans_over_many_seeds_are_legal_framed_and_hard_as_asked() -> None:
    forced = 0
    for seed in range(120):
        plan = make_plan("reference", seed, 1600, 1200, hard_share=0.3)
        forced += bool(plan.forced_hard)
        if plan.kind == "empty":
            truth = truth_of(plan)
            assert truth["board"] is False and "players" not in truth
            continue
        _legal_and_framed(plan)
    assert forced == sum(is_forced_hard(s, 0.3) for s in range(120)) == 36


@pytest.mark.parametrize(
    ("set_name", "family", "start", "setup_seed"),
    [
        ("tuning-copies", TUNING_COPIES, 150_000, 920_000),
        ("more-tuning-copies", MORE_TUNING_COPIES, 160_000, 930_000),
    ],
    ids=["tuning-copies", "more-tuning-copies"],
)
def test_a_tuning_family_plans_are_legal_framed_and_show_each_of_its_copies(
    set_name: str, family: tuple[Kit, ...], start: int, setup_seed: int
) -> None:
    shown: Counter[str] = Counter()
    for seed in range(start, start + 120):
        plan = make_plan(set_name, seed, 1600, 1200, hard_share=0.3)
        assert plan.kind == "game" and plan.kit is family[seed % len(family)]
        truth = _legal_and_framed(plan)
        assert truth["copy"] == plan.kit.name and truth["render"]["set"] == set_name
        assert set(truth["players"]) <= set(plan.kit.colour_keys)
        shown[truth["copy"]] += 1
    assert shown == {kit.name: 20 for kit in family}
    for i, kit in enumerate(family):
        setup = make_plan(set_name, setup_seed + i, 1600, 1200, setup_of=kit)
        truth = _legal_and_framed(setup)
        assert setup.kind == "setup" and truth["copy"] == kit.name and truth["palisades"] == []
        assert truth["players"] == list(kit.colour_keys)
        assert truth["render"]["conditions"]["tilt_deg"] <= 25.0  # taken with care


def _style_colours(style: Style) -> set[str]:
    return {code.upper() for code in (*style.ground, *style.shapes, style.frame, style.line, style.ink)}


def _family_colours(kits: tuple[Kit, ...]) -> set[tuple[int, int, int]]:
    return {rgb for kit in kits for _key, rgb in kit.colours}


@pytest.mark.parametrize("family", [TUNING_COPIES, MORE_TUNING_COPIES], ids=["tuning", "more-tuning"])
def test_a_tuning_family_shares_no_name_colour_or_art_with_the_test_copies(family: tuple[Kit, ...]) -> None:
    assert len(family) == len(COPIES) == 6
    names = {kit.name for kit in family}
    styles = {kit.style for kit in family}
    assert len(names) == len(styles) == 6
    assert not names & {kit.name for kit in COPIES}
    assert not styles & {kit.style for kit in COPIES}
    assert not _family_colours(family) & _family_colours(COPIES)
    test_art = set().union(*(_style_colours(STYLES[kit.style]) for kit in COPIES))
    for kit in family:
        assert not _style_colours(STYLES[kit.style]) & test_art, kit.style
        assert len(set(kit.colour_keys)) == len(kit.colours) == 4
        assert len(set(kit.emblems)) == 4 and set(kit.emblems) <= set(EMBLEMS)
        assert 43.0 <= kit.pitch_mm <= 47.0 and 17.0 <= kit.frame_mm <= 22.0
    # The colours a classifier finds hardest are there as in the test copies: a white or near
    # white, a black or near black, a yellow or one beside the gold.
    keys = {key for kit in family for key in kit.colour_keys}
    assert keys & {"white", "pearl", "snow", "ivory", "cream"}
    assert keys & {"black", "ink", "charcoal"}
    assert keys & {"yellow", "lemon", "saffron"}
    for kit in (*COPIES, *TUNING_COPIES, *MORE_TUNING_COPIES):  # every family is found by name
        assert kit.name is not None and copy_named(kit.name) is kit
    with pytest.raises(KeyError):
        copy_named("nowhere")


def test_the_two_tuning_families_share_no_name_colour_or_art() -> None:
    assert not {kit.name for kit in TUNING_COPIES} & {kit.name for kit in MORE_TUNING_COPIES}
    assert not {kit.style for kit in TUNING_COPIES} & {kit.style for kit in MORE_TUNING_COPIES}
    assert not _family_colours(TUNING_COPIES) & _family_colours(MORE_TUNING_COPIES)
    first = set().union(*(_style_colours(STYLES[kit.style]) for kit in TUNING_COPIES))
    for kit in MORE_TUNING_COPIES:
        assert not _style_colours(STYLES[kit.style]) & first, kit.style


def test_the_tuning_copies_photos_say_their_set_and_their_setups_follow_the_setup_seed() -> None:
    assert photo_name("tuning-copies", 150_000) == "tcopy-150000"
    assert photo_name("more-tuning-copies", 160_000) == "mcopy-160000"
    assert (photo_name("reference", 4), photo_name("copies", 100_000)) == ("ref-000004", "copy-100000")
    every = [(f"setup-{kit.name}", 920_000 + i, kit) for i, kit in enumerate(TUNING_COPIES)]
    assert setup_jobs("tuning-copies", 150_000, 60, 920_000) == every
    assert setup_jobs("tuning-copies", 150_001, 2, 920_000) == every[1:3]
    assert setup_jobs("copies", 100_000, 1, SETUP_SEED) == [
        (f"setup-{COPIES[4].name}", SETUP_SEED + 4, COPIES[4])
    ]
    assert setup_jobs("reference", 0, 60, SETUP_SEED) == []


# sha256 of the truths of the first twelve photos of the sets and of the test copies' setup photos,
# taken before the tuning copies were added: adding a set must not move another set's photos.
BEFORE_TUNING = {
    "reference": "67e6b4fb3d5fb883b02b959c037850918cd687051553e181681f3e3a0b538beb",
    "copies": "9f3c6bc68084e8a4e6fe6d2bedddc0d4cf4e9a1d2715a44b55b1e805d7a5f16f",
    "setups": "27700c1e64eeb05f58ed6f8083723fca5123a6b70caa2f57b19b1cceb54a4af5",
}
# ... and of the tuning copies' first twelve photos and six setup photos, before the more tuning
# copies were added.
BEFORE_MORE_TUNING = "7bb71580fd1b3f3a215087591f1e8365f2a51aaf864c6805188826838daebee4"


def _digest(truths: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(truths, sort_keys=True).encode()).hexdigest()


def test_the_existing_sets_plans_are_as_before_the_tuning_copies() -> None:
    reference = [truth_of(make_plan("reference", s, 1600, 1200, hard_share=0.3)) for s in range(12)]
    copies = [truth_of(make_plan("copies", s, 1600, 1200, hard_share=0.3)) for s in range(100_000, 100_012)]
    setups = [
        truth_of(make_plan("copies", SETUP_SEED + i, 1600, 1200, setup_of=kit))
        for i, kit in enumerate(COPIES)
    ]
    assert _digest(reference) == BEFORE_TUNING["reference"]
    assert _digest(copies) == BEFORE_TUNING["copies"]
    assert _digest(setups) == BEFORE_TUNING["setups"]


def test_the_tuning_copies_plans_are_as_before_the_more_tuning_copies() -> None:
    tuning = [
        truth_of(make_plan("tuning-copies", s, 1600, 1200, hard_share=0.3)) for s in range(150_000, 150_012)
    ]
    tuning += [
        truth_of(make_plan("tuning-copies", 920_000 + i, 1600, 1200, setup_of=kit))
        for i, kit in enumerate(TUNING_COPIES)
    ]
    assert _digest(tuning) == BEFORE_MORE_TUNING


@needs_bpy
@pytest.mark.parametrize(
    ("set_name", "start", "count", "family"),
    [
        ("copies", 100_000, 1, COPIES),
        ("tuning-copies", 150_000, 2, TUNING_COPIES),
        ("more-tuning-copies", 160_000, 1, MORE_TUNING_COPIES),
    ],
    ids=["copies", "tuning-copies", "more-tuning-copies"],
)
def test_a_copies_folder_gets_the_setup_photos_of_its_copies(
    tmp_path: Path, set_name: str, start: int, count: int, family: tuple[Kit, ...]
) -> None:
    from vision.bench.accuracy import SETUP_PREFIX, photos_with_truth  # how the bench reads the folder

    size: dict[str, Any] = {"width": 160, "height": 120, "samples": 2, "threads": 1}
    shown = {family[s % len(family)] for s in range(start, start + count)}
    assert len(shown) == count
    assert render_set(tmp_path, set_name, start, count, **size) == count + len(shown)
    pairs = photos_with_truth(tmp_path)  # the photos the bench reads: the setups left out
    assert [jpg.name for jpg, _ in pairs] == [
        f"{photo_name(set_name, s)}.jpg" for s in range(start, start + count)
    ]
    assert {p.name for p in tmp_path.glob(f"{SETUP_PREFIX}*.jpg")} == {f"setup-{k.name}.jpg" for k in shown}
    for _jpg, truth_path in pairs:
        photo = json.loads(truth_path.read_text())
        kit = copy_named(photo["copy"])
        assert kit in shown and photo["render"]["set"] == set_name
        # `armadora bench scan --calibrate` learns a copy from SETUP_PREFIX + its truth's "copy".
        assert (tmp_path / f"{SETUP_PREFIX}{photo['copy']}.jpg").stat().st_size > 1000
        setup = json.loads((tmp_path / f"setup-{kit.name}.json").read_text())
        assert setup["copy"] == kit.name and setup["board"] is True
        assert setup["render"]["set"] == set_name and setup["render"]["conditions"]["kind"] == "setup"
        assert setup["palisades"] == [] and len(setup["gold"]) == 8
        assert setup["players"] == list(kit.colour_keys)
        on_corners = {tuple(w["cell"]): w["player"] for w in setup["warriors"]}
        assert on_corners == {tuple(c): k for c, k in zip(CORNERS, kit.colour_keys, strict=True)}
        assert check(Position.from_json(setup)).legal
        assert set(Position.from_json(photo).players) <= set(kit.colour_keys)
    # Resumed: nothing left to render.
    assert render_set(tmp_path, set_name, start, count, **size) == 0
