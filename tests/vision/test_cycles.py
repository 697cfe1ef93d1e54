"""The Cycles world (vision/worlds/cycles): small real renders, checked against their truth.

Skipped where Blender's ``bpy`` is not installed (the optional ``render`` extra), unless
ARMADORA_REQUIRE_BPY=1, which makes a missing bpy a failure.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from engine.board import GOLD_CELLS
from engine.check import check
from engine.position import Position
from vision.worlds.cycles.camera import Camera
from vision.worlds.cycles.kit import REFERENCE, copy_named
from vision.worlds.cycles.plan import MM, is_forced_hard, make_plan
from vision.worlds.cycles.positions import CORNERS
from vision.worlds.cycles.sets import photo_name, render_photo, render_set, truth_of

if os.environ.get("ARMADORA_REQUIRE_BPY") == "1":
    import bpy  # noqa: F401  # a failure here is the point
else:
    pytest.importorskip("bpy")

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


def test_plans_over_many_seeds_are_legal_framed_and_hard_as_asked() -> None:
    forced = 0
    for seed in range(120):
        plan = make_plan("reference", seed, 1600, 1200, hard_share=0.3)
        forced += bool(plan.forced_hard)
        truth = truth_of(plan)
        if plan.kind == "empty":
            assert truth["board"] is False and "players" not in truth
            continue
        assert check(Position.from_json(truth)).legal
        corners = np.array(truth["render"]["corners_px"])
        assert (corners >= 0).all() and (corners <= [plan.width - 1, plan.height - 1]).all()
        c = truth["render"]["conditions"]
        assert 0.2 <= c["board_area_fraction"] <= 0.92
        for kind in plan.forced_hard:
            if kind != "glare":  # glare is told by the render: clipped pixels on the card
                assert kind in truth["render"]["hard"]
    assert forced == sum(is_forced_hard(s, 0.3) for s in range(120)) == 36


def test_a_copies_folder_gets_the_setup_photo_of_its_copy(tmp_path: Path) -> None:
    seed = 100_000
    assert render_set(tmp_path, "copies", seed, 1, width=160, height=120, samples=2, threads=1) == 2
    photo = json.loads((tmp_path / f"{photo_name('copies', seed)}.json").read_text())
    kit = copy_named(photo["copy"])
    setup = json.loads((tmp_path / f"setup-{kit.name}.json").read_text())
    assert (tmp_path / f"setup-{kit.name}.jpg").stat().st_size > 1000
    assert setup["copy"] == kit.name and setup["board"] is True
    assert setup["palisades"] == [] and len(setup["gold"]) == 8
    assert setup["players"] == list(kit.colour_keys)
    on_corners = {tuple(w["cell"]): w["player"] for w in setup["warriors"]}
    assert on_corners == {tuple(c): k for c, k in zip(CORNERS, kit.colour_keys, strict=True)}
    assert check(Position.from_json(setup)).legal
    assert set(Position.from_json(photo).players) <= set(kit.colour_keys)
    # Resumed: nothing left to render.
    assert render_set(tmp_path, "copies", seed, 1, width=160, height=120, samples=2, threads=1) == 0
