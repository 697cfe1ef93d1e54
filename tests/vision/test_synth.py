"""The synthetic photo renderer (vision.worlds.raster): determinism, truthful positions and corners,
files, sets.

Photos are rendered small (a few hundred pixels wide) to keep the file fast;
the geometry does not depend on the size.
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import random
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from PIL import Image, ImageOps

from engine import Position, check
from vision.worlds.raster import SAMPLE_SPECS, SET_SEEDS, render_photo, render_sample, set_seed, write_set
from vision.worlds.raster.commands import register
from vision.worlds.raster.dataset import SET_SIZE, mixture
from vision.worlds.raster.positions import random_position
from vision.worlds.raster.scene import board_art

SMALL = (640, 480)
POSITION_KEYS = ("variant", "players", "gold", "warriors", "palisades")


def displayed(data: bytes) -> Image.Image:
    """The photo as a viewer shows it: decoded, its EXIF orientation applied."""
    if data[4:12] in (b"ftypheic", b"ftypmif1"):
        from pillow_heif import register_heif_opener

        register_heif_opener()
    image = Image.open(io.BytesIO(data))
    return ImageOps.exif_transpose(image).convert("RGB")


def grey(data: bytes) -> np.ndarray:
    return np.asarray(displayed(data).convert("L"), dtype=np.float32)


def face_correlation(photo_grey: np.ndarray, corners: list[list[float]], px_per_mm: float = 2.0) -> float:
    """How well the photo, warped back onto the board's face by ``corners``, matches the board's art."""
    w, h = round(400 * px_per_mm), round(265 * px_per_mm)
    target = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    matrix = cv2.getPerspectiveTransform(np.array(corners, np.float32), target)
    back = cv2.GaussianBlur(cv2.warpPerspective(photo_grey, matrix, (w, h)), (0, 0), 2)
    art_grey = cv2.cvtColor(board_art(), cv2.COLOR_BGR2GRAY).astype(np.float32)
    art = cv2.GaussianBlur(cv2.resize(art_grey, (w, h), interpolation=cv2.INTER_AREA), (0, 0), 2)
    a, b = back - back.mean(), art - art.mean()
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))


# --------------------------------------------------------------------------- determinism


def test_same_seed_and_arguments_give_the_same_bytes() -> None:
    first = render_photo(11, size=SMALL, players=3)
    second = render_photo(11, size=SMALL, players=3)
    assert first.data == second.data
    assert first.truth == second.truth
    assert first.suffix == ".jpg"


def test_different_seeds_give_different_photos_and_positions() -> None:
    photos = [render_photo(seed, size=SMALL, players=2, stage="mid") for seed in (21, 22, 23)]
    assert len({p.data for p in photos}) == 3
    assert len({json.dumps(p.truth["warriors"]) + json.dumps(p.truth["gold"]) for p in photos}) == 3


def test_an_override_changes_only_what_it_names() -> None:
    plain = render_photo(31, size=SMALL).truth
    tilted = render_photo(31, size=SMALL, tilt_deg=44.0).truth
    assert tilted["render"]["conditions"]["tilt_deg"] == 44.0
    assert plain["render"]["conditions"]["tilt_deg"] != 44.0
    assert {k: plain[k] for k in POSITION_KEYS} == {k: tilted[k] for k in POSITION_KEYS}
    assert plain["render"]["conditions"]["kelvin"] == tilted["render"]["conditions"]["kelvin"]


def test_unknown_conditions_are_refused() -> None:
    with pytest.raises(TypeError, match="unknown conditions"):
        render_photo(1, size=SMALL, tilt=30)
    with pytest.raises(ValueError, match="exif_orientation"):
        render_photo(1, size=SMALL, exif_orientation=5)


# --------------------------------------------------------------------------- truth


@pytest.mark.parametrize(
    ("players", "stage"), [(2, "early"), (3, "mid"), (4, "late"), (2, "end"), (3, "end"), (4, "end")]
)
def test_truth_is_a_legal_position_with_hidden_warriors(players: int, stage: str) -> None:
    truth = render_photo(100 + players, size=SMALL, players=players, stage=stage).truth
    assert truth["board"] is True
    position = Position.from_json(truth)
    assert check(position).problems == ()
    assert {k: truth[k] for k in POSITION_KEYS} == {k: position.to_json()[k] for k in POSITION_KEYS}
    assert len(position.players) == players
    assert set(position.players) <= {"orange", "green", "blue", "purple"}
    assert len(position.gold) == 8
    assert all(w["value"] is None for w in truth["warriors"])
    if stage == "end":
        assert len(truth["warriors"]) + len(truth["palisades"]) > 25
    if stage == "early":
        assert len(truth["warriors"]) + len(truth["palisades"]) <= 12


def test_colours_and_turn_orders_vary() -> None:
    orders = {random_position(random.Random(seed), 3, "early")[0].players for seed in range(30)}
    assert len(orders) >= 12
    assert {colour for order in orders for colour in order} == {"orange", "green", "blue", "purple"}


@pytest.mark.parametrize("seed", [41, 42, 43])
def test_corners_are_where_the_board_is(seed: int) -> None:
    photo = render_photo(seed, size=SMALL, stage="early", distractors=(), glare=0.0)
    corners = photo.truth["render"]["corners_px"]
    image = grey(photo.data)
    assert face_correlation(image, corners) > 0.75
    # The same check fails for a board taken the wrong way round, or 12 pixels off.
    assert face_correlation(image, corners[2:] + corners[:2]) < 0.6
    assert face_correlation(image, [[x + 12, y] for x, y in corners]) < 0.6


def test_corners_run_clockwise_from_the_upright_top_left() -> None:
    photo = render_photo(51, size=SMALL, tilt_deg=0.0, azimuth_deg=0.0, roll_deg=0.0, exif_orientation=1)
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = photo.truth["render"]["corners_px"]
    assert (
        x1 > x0 and y3 > y0 and x2 > x3 and y2 > y1
    )  # upright: top-left, top-right, bottom-right, bottom-left
    upside_down = render_photo(51, size=SMALL, tilt_deg=0.0, azimuth_deg=180.0, roll_deg=0.0)
    (u0, v0), (u1, _), _, _ = upside_down.truth["render"]["corners_px"]
    assert u1 < u0 and v0 > SMALL[1] / 2


@pytest.mark.parametrize("orientation", [1, 3, 6, 8])
def test_exif_orientation_says_how_to_display_the_stored_pixels(orientation: int) -> None:
    photo = render_photo(61, size=SMALL, exif_orientation=orientation, portrait=False)
    stored = Image.open(io.BytesIO(photo.data))
    assert stored.getexif().get(0x0112) == orientation
    assert list(stored.size) == photo.truth["render"]["stored_size"]
    shown = displayed(photo.data)
    width, height = photo.truth["render"]["size"]
    assert shown.size == (width, height) == SMALL
    for x, y in photo.truth["render"]["corners_px"]:
        assert 0 <= x < width and 0 <= y < height
    # Displayed, it is the same picture as the unrotated photo of the same seed.
    upright = np.asarray(
        displayed(render_photo(61, size=SMALL, exif_orientation=1, portrait=False).data), float
    )
    assert np.abs(np.asarray(shown, float) - upright).mean() < 3


def test_some_photos_are_portrait() -> None:
    photo = render_photo(71, size=SMALL, portrait=True)
    assert photo.truth["render"]["size"] == [SMALL[1], SMALL[0]]
    assert displayed(photo.data).size == (SMALL[1], SMALL[0])


@pytest.mark.slow
def test_board_fills_the_asked_share_of_the_frame_and_stays_inside() -> None:
    # A 400 x 265 board fills at most about 80 % of a 4:3 frame: beyond that it is framed as large as fits.
    for seed, fill in ((81, 0.3), (82, 0.5), (83, 0.65)):
        kwargs: dict[str, Any] = {"azimuth_deg": 0.0, "tilt_deg": 10.0, "portrait": False}
        truth = render_photo(seed, size=SMALL, board_area_fraction=fill, **kwargs).truth
        corners = np.array(truth["render"]["corners_px"], np.float32)
        area = cv2.contourArea(corners) / (SMALL[0] * SMALL[1])
        assert abs(area - truth["render"]["conditions"]["board_area_fraction"]) < 0.01
        assert area == pytest.approx(fill, abs=0.03)
        for x, y in truth["render"]["corners_px"]:
            assert 0 <= x < SMALL[0] and 0 <= y < SMALL[1]
    squeezed = render_photo(84, size=SMALL, board_area_fraction=0.9, azimuth_deg=90.0, portrait=False).truth
    assert 0.3 < squeezed["render"]["conditions"]["board_area_fraction"] < 0.6


@pytest.mark.slow
def test_distractors_never_cover_the_grid() -> None:
    seen: set[str] = set()
    for seed in range(90, 96):
        common: dict[str, Any] = {"size": SMALL, "shadow": 0.0, "glare": 0.0, "stage": "mid"}
        busy = render_photo(seed, distractors=("hand", "cup", "dice"), **common)
        clear = render_photo(seed, distractors=(), **common)
        seen |= {d["kind"] for d in busy.truth["render"]["conditions"]["distractors"]}
        grid = np.array(busy.truth["render"]["grid_corners_px"], np.float32)
        busy_grey, clear_grey = grey(busy.data), grey(clear.data)
        inside = np.zeros(busy_grey.shape, np.uint8)
        cv2.fillConvexPoly(inside, np.round(grid).astype(np.int32), 1)
        diff = np.abs(busy_grey - clear_grey)[inside > 0]
        # A hand's soft shadow may brush the grid; a hand, cup or die over it would change much more.
        assert (diff > 40).mean() < 0.002, seed
    assert seen == {"hand", "cup", "dice"}


# --------------------------------------------------------------------------- files and kinds


def test_a_heic_photo_decodes_to_its_truth_size() -> None:
    photo = render_photo(131, size=SMALL, fmt="heic", exif_orientation=6, portrait=False)
    assert photo.suffix == ".heic"
    assert photo.data[4:8] == b"ftyp"
    shown = displayed(photo.data)
    assert shown.size == tuple(photo.truth["render"]["size"]) == SMALL
    assert (
        face_correlation(np.asarray(shown.convert("L"), np.float32), photo.truth["render"]["corners_px"])
        > 0.4
    )


def test_a_photo_without_board_says_so() -> None:
    photo = render_photo(141, size=SMALL, kind="no_board", loose_pieces=4)
    assert photo.truth["board"] is False
    assert not set(POSITION_KEYS) & set(photo.truth)
    assert "corners_px" not in photo.truth["render"]
    assert displayed(photo.data).size == tuple(photo.truth["render"]["size"])


def test_set_seed_spaces_are_disjoint() -> None:
    spans = sorted((base, base + SET_SIZE) for base in SET_SEEDS.values())
    assert all(end <= start for (_, end), (start, _) in itertools.pairwise(spans))
    assert set_seed("test", 7) == SET_SEEDS["test"] + 7
    with pytest.raises(ValueError):
        set_seed("test", SET_SIZE)
    with pytest.raises(ValueError):
        set_seed("training", 0)


def test_the_set_mixture_has_every_kind() -> None:
    slots = [mixture(i) for i in range(400)]
    no_board = sum(s["kind"] == "no_board" for s in slots) / len(slots)
    heic = sum(s["fmt"] == "heic" for s in slots) / len(slots)
    assert 0.03 <= no_board <= 0.07 and 0.01 <= heic <= 0.06
    assert {s["players"] for s in slots} == {2, 3, 4}


def test_write_set_writes_photos_beside_their_truth(tmp_path: Path) -> None:
    paths = write_set(tmp_path, set_name="test", count=2, start=12, size=(320, 240))
    assert [p.name for p in paths] == ["test-0012.jpg", "test-0013.jpg"]
    for path in paths:
        truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        assert truth["render"]["set"] == "test"
        assert truth["render"]["seed"] == SET_SEEDS["test"] + int(path.stem[-4:])
        again = render_photo(
            truth["render"]["seed"], size=(320, 240), set_name="test", **mixture(int(path.stem[-4:]))
        )
        assert again.data == path.read_bytes()
    assert json.loads((tmp_path / "test-0013.json").read_text(encoding="utf-8"))["board"] is False


def test_render_command_writes_a_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="armadora")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(
        ["render", "--set", "tuning", "--count", "1", "--out", str(tmp_path), "--size", "320x240"]
    )
    assert args.run(args) == 0
    assert (tmp_path / "tuning-0000.jpg").is_file() and (tmp_path / "tuning-0000.json").is_file()
    assert "tuning-0000.jpg" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        parser.parse_args(["render", "--set", "tuning", "--out", str(tmp_path), "--size", "big"])


@pytest.mark.slow
def test_the_samples_cover_the_conditions_they_promise() -> None:
    truths = [render_sample(i, size=(816, 612)).truth for i in range(len(SAMPLE_SPECS))]
    conditions = [t["render"]["conditions"] for t in truths]
    boards = [t for t in truths if t["board"]]
    assert len(truths) == 12 and len(boards) == 11
    assert {c["exif_orientation"] for c in conditions} >= {3, 6, 8}
    assert [t["render"]["format"] for t in truths].count("heic") == 1
    assert {len(t["players"]) for t in boards} == {2, 3, 4}
    tilts = [c["tilt_deg"] for t, c in zip(truths, conditions, strict=True) if t["board"]]
    assert min(tilts) < 5 and max(tilts) >= 45
    assert {round(c["azimuth_deg"]) % 360 for c in conditions} >= {0, 90, 180, 270}
    assert min(c["kelvin"] for c in conditions) <= 3000 and max(c["kelvin"] for c in conditions) >= 6000
    assert any(c["glare"] for c in conditions) and any(c["shadow"]["strength"] >= 0.5 for c in conditions)
    placed = {d["kind"] for c in conditions for d in c["distractors"]}
    assert placed == {"hand", "cup", "dice"}
    for spec, c in zip(SAMPLE_SPECS, conditions, strict=True):
        assert sorted(d["kind"] for d in c["distractors"]) == sorted(spec.get("distractors", ())), spec
    assert {c["stage"] for c in conditions if "stage" in c} >= {"early", "end"}
