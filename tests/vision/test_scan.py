"""The scanner end to end: the committed sample photos, the ``armadora scan`` command and its errors.

The samples in ``sample_images/`` were rendered by ``armadora render --set
samples`` with their truth beside them; the readers' weights were fitted on
the separate tuning set, never on these.
"""

from __future__ import annotations

import io
import json
import struct
import zlib
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest
from console import run
from PIL import Image

from engine.position import Position
from vision.bench.metrics import MARKED_BELOW, compare, silent_mistakes
from vision.load import PhotoError, load_photo
from vision.locate.features import NoBoardError
from vision.scan import reassemble, scan

pytestmark = pytest.mark.slow  # reads every sample photo at full size

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"
BOARD_SAMPLES = sorted(
    path
    for path in SAMPLES.iterdir()
    if path.suffix in (".jpg", ".heic") and json.loads(path.with_suffix(".json").read_text())["board"]
)
NO_BOARD_SAMPLES = sorted(
    path
    for path in SAMPLES.iterdir()
    if path.suffix in (".jpg", ".heic") and not json.loads(path.with_suffix(".json").read_text())["board"]
)
UPRIGHT = SAMPLES / "samples-0000.jpg"


def truth_of(photo: Path) -> dict[str, object]:
    return json.loads(photo.with_suffix(".json").read_text())


@cache
def read(photo_bytes: bytes) -> Position:
    """The position the scanner reads in a photo (each photo read once for all the tests)."""
    return scan(photo_bytes).position


def mistakes(photo_bytes: bytes, truth: dict[str, object]) -> list[str]:
    result = compare(read(photo_bytes).to_json(), truth)
    gold = (
        []
        if result.gold_right == result.gold_total
        else [f"{result.gold_total - result.gold_right} gold values"]
    )
    return [*result.wrong_cells, *result.wrong_slots, *gold]


@pytest.mark.parametrize("photo", BOARD_SAMPLES, ids=lambda p: p.name)
def test_sample_photos_read_exactly(photo: Path) -> None:
    assert mistakes(photo.read_bytes(), truth_of(photo)) == []


def test_the_samples_cover_the_conditions_players_meet() -> None:
    conditions = [truth_of(p)["render"]["conditions"] for p in BOARD_SAMPLES]  # type: ignore[index]
    assert {c["exif_orientation"] for c in conditions} >= {3, 6, 8}
    assert min(c["tilt_deg"] for c in conditions) < 5 and max(c["tilt_deg"] for c in conditions) >= 45
    assert {c["players"] for c in conditions} == {2, 3, 4}
    assert any(c["glare"] for c in conditions) and any(c["distractors"] for c in conditions)
    assert any(p.suffix == ".heic" for p in BOARD_SAMPLES) and NO_BOARD_SAMPLES


def _reencoded(photo: Path, orientation: int) -> bytes:
    """The photo's pixels stored turned so that EXIF ``orientation`` turns them back upright."""
    upright = Image.open(photo)
    assert upright.getexif().get(0x0112, 1) == 1
    stored = {
        3: upright.transpose(Image.Transpose.ROTATE_180),
        6: upright.transpose(Image.Transpose.ROTATE_90),
        8: upright.transpose(Image.Transpose.ROTATE_270),
    }[orientation]
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    stored.save(out, format="JPEG", quality=92, exif=exif.tobytes())
    return out.getvalue()


@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_exif_rotated_photos_read_as_the_upright_one(orientation: int) -> None:
    turned = _reencoded(UPRIGHT, orientation)
    assert read(turned) == read(UPRIGHT.read_bytes())
    assert mistakes(turned, truth_of(UPRIGHT)) == []


def test_a_heic_photo_reads() -> None:
    import pillow_heif

    image = Image.open(UPRIGHT)
    out = io.BytesIO()
    pillow_heif.from_pillow(image).save(out, quality=90)
    assert out.getvalue()[4:12] in (b"ftypheic", b"ftypmif1", b"ftypheix")
    assert mistakes(out.getvalue(), truth_of(UPRIGHT)) == []


def test_a_photo_of_an_empty_table_is_no_board() -> None:
    with pytest.raises(NoBoardError) as caught:
        scan(NO_BOARD_SAMPLES[0].read_bytes())
    assert caught.value.reason == "no_board"


def _cut(photo: Path, share: float) -> bytes:
    """The photo with its right side cut off, from ``share`` of the board's width in from its right."""
    image = load_photo(photo.read_bytes()).image
    corners = scan(photo.read_bytes()).located.corners_px()
    right, left = corners[:, 0].max(), corners[:, 0].min()
    ok, encoded = cv2.imencode(".png", image[:, : int(right - share * (right - left))])
    assert ok
    return encoded.tobytes()


@pytest.mark.parametrize("photo", BOARD_SAMPLES[:3], ids=lambda p: p.name)
def test_a_photo_cutting_the_board_off_reads_the_rest_and_names_what_it_cannot_see(photo: Path) -> None:
    result = scan(_cut(photo, 0.2))
    (cut,) = [problem for problem in result.warnings if problem.code == "cut_off"]
    named = {cell.name for cell in cut.cells}
    assert named and cut.palisades
    confidence = result.confidence_json()
    reading = {"confidence": confidence, "warnings": [problem.to_json() for problem in result.warnings]}
    comparison = compare(result.position.to_json(), truth_of(photo))
    # What the photo shows is read as it is; what it cuts off is named, never read in silence.
    assert set(comparison.wrong_cells) <= named
    assert silent_mistakes(comparison, reading) == ()
    assert all(confidence["cells"][name] < MARKED_BELOW for name in named)
    assert all(confidence["slots"][slot.name] < MARKED_BELOW for slot in cut.palisades)
    unseen = {slot for slot in cut.palisades if confidence["slots"][slot.name] == 0.0}
    assert unseen and not unseen & set(result.position.palisades)


def test_a_photo_cutting_off_half_the_board_is_refused_saying_so() -> None:
    with pytest.raises(NoBoardError) as refused:
        scan(_cut(UPRIGHT, 0.5))
    assert refused.value.reason == "cut_off"
    assert "keep all of it in frame" in str(refused.value)


# --- the command ---------------------------------------------------------------------------------


def test_scan_prints_the_drawing(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "scan", str(UPRIGHT))
    assert code == 0
    assert "a   b   c   d   e   f   g   h" in out and "palisades" in out


def test_scan_json_has_position_confidence_warnings_check_timing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    debug = tmp_path / "debug.jpg"
    code, out, _ = run(capsys, "scan", str(UPRIGHT), "--json", "--debug-image", str(debug))
    assert code == 0
    document = json.loads(out)
    assert set(document) >= {"position", "confidence", "warnings", "check", "timing_ms"}
    assert compare(document["position"], truth_of(UPRIGHT)).exact
    assert len(document["confidence"]["cells"]) == 40 and len(document["confidence"]["slots"]) == 67
    assert all(0.0 <= v <= 1.0 for v in document["confidence"]["cells"].values())
    assert {"load", "locate", "cells", "slots"} <= set(document["timing_ms"])
    assert document["check"]["legal"] is True
    picture = cv2.imread(str(debug))
    assert picture is not None and picture.shape[0] > 500


def test_scan_with_named_players(capsys: pytest.CaptureFixture[str]) -> None:
    truth = truth_of(UPRIGHT)
    code, out, _ = run(capsys, "scan", str(UPRIGHT), "--json", "--players", ",".join(truth["players"]))  # type: ignore[arg-type]
    assert code == 0 and json.loads(out)["position"]["players"] == truth["players"]


def _black_png(width: int, height: int) -> bytes:
    """A real, complete black PNG of ``width`` x ``height``: one bit a pixel, so it stays small to make."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = bytes(height * (1 + (width + 7) // 8))
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 1))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    ("content", "code", "words"),
    [
        (b"", 2, "empty"),
        (b"hello world, this is a text file\n", 2, "not an image"),
        (None, 2, "truncated"),
        (_black_png(10_000, 10_000), 2, "too large: 100.0 megapixels"),
    ],
    ids=["empty", "text", "truncated-jpeg", "100-megapixels"],
)
def test_unreadable_files_exit_2_with_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes | None, code: int, words: str
) -> None:
    path = tmp_path / "photo.jpg"
    path.write_bytes(UPRIGHT.read_bytes()[:50_000] if content is None else content)
    exit_code, out, err = run(capsys, "scan", str(path))
    assert exit_code == code
    assert words in err and "Traceback" not in err + out


def test_a_corrupt_jpeg_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = bytearray(UPRIGHT.read_bytes())
    data[2:400] = bytes(398)  # the header's segments are gone
    path = tmp_path / "corrupt.jpg"
    path.write_bytes(bytes(data))
    code, _, err = run(capsys, "scan", str(path))
    assert code == 2 and "photo" not in err.split(":")[0] and err.strip()


def test_a_photo_without_a_board_exits_3_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "scan", str(NO_BOARD_SAMPLES[0]), "--json")
    assert code == 3
    assert json.loads(out)["error_code"] == "no_board"
    assert "no board found" in err


def test_a_missing_file_or_profile_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "scan", str(tmp_path / "absent.jpg"))
    assert code == 2 and "cannot read it" in err
    bad = tmp_path / "profile.json"
    bad.write_text("{}")
    code, _, err = run(capsys, "scan", str(UPRIGHT), "--profile", str(bad))
    assert code == 2 and "unsupported profile version" in err


def test_scan_raises_photo_error_for_bytes_that_are_no_photo() -> None:
    with pytest.raises(PhotoError):
        scan(b"GIF89a" + bytes(100))


def test_an_image_of_noise_is_no_board() -> None:
    noise = np.random.default_rng(0).integers(0, 255, (1200, 1600, 3), dtype=np.uint8)
    ok, jpeg = cv2.imencode(".jpg", noise)
    assert ok
    with pytest.raises(NoBoardError):
        scan(jpeg.tobytes())


def test_bench_scan_reports_the_figures(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for name in ("samples-0000", "samples-0005"):
        for suffix in (".jpg", ".json"):
            (tmp_path / f"{name}{suffix}").write_bytes((SAMPLES / f"{name}{suffix}").read_bytes())
    code, out, _ = run(capsys, "bench", "scan", str(tmp_path), "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["photos"] == 2 and summary["board_photos"] == 1
    assert summary["cells"] == summary["slots"] == summary["exact_boards"] == 1.0
    assert summary["no_board_answered"] == 1 and not summary["crashes"]
    assert summary["median_s"] > 0
    # Each photo's CPU time too (the no-board photo's included), whatever the machine's load.
    assert summary["cpu_median_s"] > 0 and summary["cpu_p95_s"] >= summary["cpu_median_s"]
    code, out, _ = run(capsys, "bench", "scan", str(tmp_path))
    assert code == 0 and "CPU per photo     median" in out


def test_bench_scan_names_a_photo_it_cannot_open_and_reads_the_rest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for suffix in (".jpg", ".json"):
        (tmp_path / f"samples-0000{suffix}").write_bytes((SAMPLES / f"samples-0000{suffix}").read_bytes())
    # A folder of links to photos, one of them since deleted.
    (tmp_path / "samples-0001.json").write_bytes((SAMPLES / "samples-0001.json").read_bytes())
    (tmp_path / "samples-0001.jpg").symlink_to(tmp_path / "gone.jpg")
    code, out, _ = run(capsys, "bench", "scan", str(tmp_path), "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["photos"] == 1 and summary["exact_boards"] == 1.0
    assert summary["crashes"] == ["samples-0001.jpg: not read: No such file or directory"]


def test_bench_scan_can_read_every_board_cut_off_by_the_photo_s_edge(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for name in ("samples-0000", "samples-0001", "samples-0005"):
        for suffix in (".jpg", ".json"):
            (tmp_path / f"{name}{suffix}").write_bytes((SAMPLES / f"{name}{suffix}").read_bytes())
    code, out, _ = run(capsys, "bench", "scan", str(tmp_path), "--cut", "0.2", "--json")
    assert code == 0
    summary = json.loads(out)
    # Both boards lose a fifth (the first at the right, the second at the left): what is lost is
    # wrong but named, never silent; the photo without a board is read as it is.
    assert summary["board_photos"] == 2 and summary["no_board_answered"] == 1 and not summary["crashes"]
    assert summary["cells"] < 1.0 and summary["silent_mistakes"] == 0
    code, _, err = run(capsys, "bench", "scan", str(tmp_path), "--cut", "1.5")
    assert code == 2 and "--cut takes a share of the board from 0 to 1" in err


def test_bench_scan_can_read_every_board_as_an_unknown_copy(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The way a copy without a profile is read, measured on photos of any kit: the reference kit's
    # sample is read by its gold and grid, with looks improvised from the photo.
    data = (SAMPLES / "samples-0000.jpg").read_bytes()
    unknown = scan(data, as_unknown=True)
    assert unknown.readings is not None and unknown.readings.unknown
    assert unknown.warnings[0].code == "unknown_copy"
    assert not scan(data).readings.unknown  # type: ignore[union-attr]
    for suffix in (".jpg", ".json"):
        (tmp_path / f"samples-0000{suffix}").write_bytes((SAMPLES / f"samples-0000{suffix}").read_bytes())
    code, out, _ = run(capsys, "bench", "scan", str(tmp_path), "--improvise", "--json")
    assert code == 0 and json.loads(out)["board_photos"] == 1
    code, _, err = run(capsys, "bench", "scan", str(tmp_path), "--improvise", "--calibrate")
    assert code == 2 and "--improvise reads every board without a profile" in err


@pytest.mark.parametrize(
    "players", [("purple", "green"), ("green", "orange"), ("orange", "blue", "green")], ids="-".join
)
def test_a_reading_reassembled_for_other_players_is_the_scan_for_them(players: tuple[str, ...]) -> None:
    data = (SAMPLES / "samples-0000.jpg").read_bytes()
    again = reassemble(scan(data, players=None), players)
    direct = scan(data, players=players)
    assert again.position == direct.position
    assert again.confidence_json() == direct.confidence_json()
    assert [w.to_json() for w in again.warnings] == [w.to_json() for w in direct.warnings]
