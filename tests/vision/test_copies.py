"""Copies of the game in the renderer: the reference kit unchanged, other copies' art and colours, setups.

Photos are rendered small to keep the file fast; the art is made once per copy and cached.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine import GOLD_CELLS, GOLD_VALUES, Position, check
from vision.geometry import GRID_LINE_MM, MARGIN_MM, PITCH_MM
from vision.worlds.raster import render_photo
from vision.worlds.raster.commands import register
from vision.worlds.raster.copies import (
    COLOUR_KEY,
    REFERENCE_COPY,
    TEST_COPIES,
    TUNING_COPIES,
    Copy,
    copy_named,
    delta_e,
    make_copy,
    reference_art,
)
from vision.worlds.raster.dataset import SET_SEEDS, SET_SIZE, SETUP_SEEDS, setup_seed, write_set
from vision.worlds.raster.pieces import ALL_EMBLEMS, EMBLEMS, PLAYER_HEX, emblem_mask
from vision.worlds.raster.setup import SETUP_CORNERS, render_setup

SMALL = (400, 300)
ALL_COPIES = (REFERENCE_COPY, *TUNING_COPIES, *TEST_COPIES)
CORNERS = [list(c) for c in SETUP_CORNERS]

# sha256 of the sorted truth JSON, computed before copies existed: the reference kit's scenes must
# stay as they were (the scanner's test sets are measured on those photos). The photo's bytes are
# not pinned: the JPEG encoder and OpenCV's filters differ in their last bits between releases
# and CPUs (a new machine's install gave other bytes for the same scene).
BEFORE_COPIES = {
    "board": "086afde9396a7ca4dc3536b7dcb4b27e1b7b4022f41f02c17b723780ff92858b",
    "no_board": "474219e06b119ef464443ebc31b080e691f532d3d05ee3c7460cfc1456e6e02f",
}


def _digest(truth: dict[str, object]) -> str:
    return hashlib.sha256(json.dumps(truth, sort_keys=True).encode()).hexdigest()


# --------------------------------------------------------------------------- the reference kit


def test_the_reference_copy_renders_as_before_copies() -> None:
    board = render_photo(7, size=(800, 600), players=4, stage="mid")
    assert _digest(board.truth) == BEFORE_COPIES["board"]
    again = render_photo(7, size=(800, 600), players=4, stage="mid", copy=REFERENCE_COPY)
    assert again.data == board.data and "copy" not in board.truth
    loose = render_photo(8, size=(800, 600), kind="no_board", loose_pieces=6)
    assert _digest(loose.truth) == BEFORE_COPIES["no_board"]


def test_the_reference_copy_is_the_kit() -> None:
    assert dict(REFERENCE_COPY.colours) == PLAYER_HEX
    assert REFERENCE_COPY.art is reference_art()
    assert REFERENCE_COPY.emblems is None and REFERENCE_COPY.is_reference
    assert copy_named("reference") is REFERENCE_COPY


# --------------------------------------------------------------------------- the copies


def _grid_contrast(art: np.ndarray) -> list[float]:
    """For every cell edge: how much darker the line's middle is than the cell interiors beside it."""
    grey = cv2.cvtColor(art, cv2.COLOR_BGR2GRAY).astype(np.float32)
    s = art.shape[1] / 400.0
    half = round(GRID_LINE_MM * s / 2) - 1  # the line's middle, clear of its anti-aliased edges
    gaps: list[float] = []
    for vertical in (True, False):
        lines, cells_along = (9, 5) if vertical else (6, 8)
        for k, n in itertools.product(range(lines), range(cells_along)):
            at = round((MARGIN_MM + k * PITCH_MM) * s - 0.5)
            lo, hi = (
                round((MARGIN_MM + n * PITCH_MM + 3) * s),
                round((MARGIN_MM + (n + 1) * PITCH_MM - 3) * s),
            )
            sides = [d for d in (-1, 1) if 0 <= k + (d - 1) // 2 < lines - 1]  # only sides inside the grid
            if vertical:
                line = grey[lo:hi, at - half : at + half + 1]
                inner = [grey[lo:hi, at + d * round(4 * s) : at + d * round(12 * s) : d] for d in sides]
            else:
                line = grey[at - half : at + half + 1, lo:hi]
                inner = [grey[at + d * round(4 * s) : at + d * round(12 * s) : d, lo:hi] for d in sides]
            gaps.append(float(np.mean([i.mean() for i in inner]) - line.mean()))
    return gaps


@pytest.mark.slow
@pytest.mark.parametrize("copy", ALL_COPIES, ids=lambda c: c.name)
def test_every_copy_has_dark_grid_lines_on_every_cell_edge(copy: Copy) -> None:
    art = copy.art
    assert art.shape == (1325, 2000, 3) and art.dtype == np.uint8
    gaps = _grid_contrast(art)
    assert len(gaps) == 9 * 5 + 6 * 8
    assert min(gaps) > 15, min(gaps)


@pytest.mark.slow
def test_copies_look_different_from_each_other() -> None:
    small = [cv2.resize(c.art, (200, 132), interpolation=cv2.INTER_AREA).astype(float) for c in ALL_COPIES]
    for a, b in itertools.combinations(small, 2):
        assert np.abs(a - b).mean() > 10


def test_token_colours_within_a_copy_are_distinct_and_well_named() -> None:
    for copy in ALL_COPIES:
        assert len(copy.keys) == 4 and all(COLOUR_KEY.match(k) for k in copy.keys)
        closest = min(delta_e(a, b) for a, b in itertools.combinations(copy.colours.values(), 2))
        assert closest > 18, copy.name
        assert all(e in ALL_EMBLEMS for e in copy.emblem_map(EMBLEMS[:4]).values())


@pytest.mark.slow
@pytest.mark.parametrize("side", [TUNING_COPIES, TEST_COPIES], ids=["tuning", "test"])
def test_each_side_holds_the_hard_cases(side: tuple[Copy, ...]) -> None:
    assert len(side) == 6
    keys = [set(c.keys) for c in side]
    assert any("white" in k for k in keys) and any("black" in k for k in keys)
    close = [min(delta_e(a, b) for a, b in itertools.combinations(c.colours.values(), 2)) for c in side]
    assert any(18 <= d <= 27 for d in close)
    brightness = [float(c.art.mean()) for c in side]
    assert min(brightness) < 55 and max(brightness) > 180


def test_tuning_and_test_copies_are_disjoint() -> None:
    for attr in ("name", "seed", "palette"):
        tuning = {getattr(c, attr) for c in TUNING_COPIES}
        test = {getattr(c, attr) for c in TEST_COPIES}
        assert len(tuning) == len(test) == 6 and not tuning & test, attr
    everywhere = {k for c in (*TUNING_COPIES, *TEST_COPIES) for k in c.keys}
    assert {"red", "white", "black", "teal"} <= everywhere


def test_make_copy_is_deterministic_and_checked() -> None:
    first, second = make_copy("spare", 999), make_copy("spare", 999)
    assert first == second and first.art is second.art
    with pytest.raises(ValueError):
        make_copy("Bad Name", 1)
    with pytest.raises(ValueError):
        copy_named("nowhere")


def test_every_emblem_draws_something_centred() -> None:
    rng = np.random.default_rng(0)
    for kind in ALL_EMBLEMS:
        mask = emblem_mask(kind, 101, 3.0, rng)
        assert 0.04 < mask.mean() < 0.5, kind
        ys, xs = np.nonzero(mask > 0.5)
        assert abs(xs.mean() - 50) < 12 and abs(ys.mean() - 50) < 12, kind


# --------------------------------------------------------------------------- photos of copies


def test_a_copy_photo_uses_its_colours_and_names_itself() -> None:
    copy = TEST_COPIES[2]
    photo = render_photo(17, size=SMALL, copy=copy, players=4, stage="mid")
    truth = photo.truth
    assert truth["copy"] == copy.name and truth["render"]["copy"]["name"] == copy.name
    assert sorted(truth["players"]) == sorted(copy.keys)
    assert check(Position.from_json(truth)).problems == ()
    assert truth["render"]["conditions"]["colours_hex"] == {p: copy.colours[p] for p in truth["players"]}
    assert truth["render"]["conditions"]["emblems"] == dict(zip(copy.keys, copy.emblems or (), strict=True))
    loose = render_photo(18, size=SMALL, copy=copy, kind="no_board", loose_pieces=5)
    assert loose.truth["copy"] == copy.name and loose.truth["board"] is False


# --------------------------------------------------------------------------- setup photos


def test_a_setup_photo_has_the_corner_warriors_in_order_and_the_gold() -> None:
    copy = TUNING_COPIES[3]
    photo = render_setup(41, copy, size=SMALL)
    truth = photo.truth
    assert truth["copy"] == copy.name and truth["render"]["kind"] == "setup"
    assert [w["cell"] for w in truth["warriors"]] == CORNERS
    assert [w["player"] for w in truth["warriors"]] == list(copy.keys) == truth["players"]
    assert all(w["value"] is None for w in truth["warriors"])
    assert sorted(g["cell"] for g in truth["gold"]) == sorted(list(c) for c in GOLD_CELLS)
    assert sorted(g["value"] for g in truth["gold"]) == sorted(GOLD_VALUES)
    assert truth["palisades"] == [] and len(truth["render"]["corners_px"]) == 4
    assert truth["colours_hex"] == dict(copy.colours)
    conditions = truth["render"]["conditions"]
    assert conditions["tilt_deg"] <= 35 and 0.3 <= conditions["board_area_fraction"] <= 0.86
    assert "hand" not in [d["kind"] for d in conditions["distractors"]]
    assert render_setup(41, copy, size=SMALL).data == photo.data


def test_bad_setups_render_as_asked() -> None:
    copy = TEST_COPIES[0]
    red, other = copy.keys[0], copy.keys[2]
    photo = render_setup(42, copy, (red, None, red, other), size=SMALL)
    truth = photo.truth
    assert [(w["cell"], w["player"]) for w in truth["warriors"]] == [
        ([0, 0], red),
        ([4, 0], red),
        ([4, 7], other),
    ]
    assert truth["setup"]["colours"] == [red, None, red, other]
    assert truth["players"] == [red, other]
    moved = [(2, 2), (2, 3), (2, 4), (2, 5), (1, 2), (1, 3), (3, 2), (3, 3)]
    elsewhere = render_setup(43, copy, gold_cells=moved, size=SMALL).truth
    assert sorted(tuple(g["cell"]) for g in elsewhere["gold"]) == sorted(moved)
    with pytest.raises(ValueError, match="no colour"):
        render_setup(44, copy, ("orange",), size=SMALL)


# --------------------------------------------------------------------------- sets and the command


def test_copy_sets_are_deterministic_and_write_each_copys_setup(tmp_path: Path) -> None:
    first = write_set(tmp_path / "a", set_name="copies-test", count=2, start=6, size=(320, 240))
    second = write_set(tmp_path / "b", set_name="copies-test", count=2, start=6, size=(320, 240))
    names = [p.name for p in first]
    assert names == [
        f"setup-{TEST_COPIES[0].name}.jpg",
        "copies-test-0006.jpg",
        f"setup-{TEST_COPIES[1].name}.jpg",
        "copies-test-0007.jpg",
    ]
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes()
        assert a.with_suffix(".json").read_bytes() == b.with_suffix(".json").read_bytes()
    truth = json.loads((tmp_path / "a" / "copies-test-0007.json").read_text(encoding="utf-8"))
    assert truth["copy"] == TEST_COPIES[1].name
    assert truth["render"]["seed"] == SET_SEEDS["copies-test"] + 7
    setup = json.loads((tmp_path / "a" / f"setup-{TEST_COPIES[1].name}.json").read_text(encoding="utf-8"))
    assert setup["render"]["seed"] == setup_seed(TEST_COPIES[1])


def test_setup_seeds_lie_outside_every_set() -> None:
    spans = [(base, base + SET_SIZE) for base in SET_SEEDS.values()]
    seeds = [setup_seed(c) for c in ALL_COPIES]
    assert len(set(seeds)) == len(seeds)
    assert all(not lo <= s < hi for s in seeds for lo, hi in spans)
    assert all(not lo <= s < hi for s in SETUP_SEEDS.values() for lo, hi in spans)


def test_render_command_writes_a_setup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="armadora")
    register(parser.add_subparsers(dest="command", required=True))
    name = TUNING_COPIES[0].name
    colours = ",".join([TUNING_COPIES[0].keys[1], "-", TUNING_COPIES[0].keys[1]])
    argv = ["render", "--setup", name, "--out", str(tmp_path), "--size", "320x240", "--colours", colours]
    args = parser.parse_args(argv)
    assert args.run(args) == 0
    truth = json.loads((tmp_path / f"setup-{name}.json").read_text(encoding="utf-8"))
    assert truth["setup"]["colours"] == [TUNING_COPIES[0].keys[1], None, TUNING_COPIES[0].keys[1], None]
    assert f"setup-{name}.jpg" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        parser.parse_args(["render", "--set", "test", "--setup", name, "--out", str(tmp_path)])
