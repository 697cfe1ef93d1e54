"""``armadora bench scan DIR``: accuracy and speed of the scanner on photos with their truth beside them.

Every photo ``NAME.jpg`` (or ``.jpeg``, ``.png``, ``.webp``, ``.heic``) with a
``NAME.json`` truth is read once, in this process, timed from the file's
bytes to the position. A truth of ``{"board": false}`` expects "no board".
"""

from __future__ import annotations

import json
import resource
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.bench.metrics import MARKED_BELOW, Comparison, compare, needless_marks, silent_mistakes
from vision.load import PhotoError, load_photo
from vision.locate.features import NoBoardError
from vision.looks import Looks
from vision.parallel import threads
from vision.scan import scan

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif")
SETUP_PREFIX = "setup-"

#: What teaches the looks of a copy from its setup photo's bytes and the copy's name
#: (:func:`calibration.setup.calibrate`, handed in: the scanner does not know profiles' files);
#: :class:`ValueError` with the reason in words when the photo teaches nothing.
Learner = Callable[[bytes, str], Looks]


def photos_with_truth(folder: Path) -> list[tuple[Path, Path]]:
    """Each photo in ``folder`` that has a ``.json`` truth beside it, in name order.

    Setup photos (``setup-COPY.jpg``, :mod:`calibration.setup`) teach a copy; they are not read.
    """
    pairs = []
    for photo in sorted(folder.iterdir()):
        truth = photo.with_suffix(".json")
        if photo.name.startswith(SETUP_PREFIX):
            continue
        if photo.suffix.lower() in PHOTO_SUFFIXES and truth.exists():
            pairs.append((photo, truth))
    return pairs


#: The truth's ``render.hard`` tags that make a photo hard to read.
HARD_TAGS = ("glare", "warm", "tilt")


@dataclass
class Tally:
    """How the board photos of one group were read."""

    boards: int = 0
    missed: int = 0
    cells_right: int = 0
    occupancy_right: int = 0
    slots_right: int = 0
    gold_right: int = 0
    gold_total: int = 0
    exact: int = 0
    #: Photos read exactly or with every mistake marked (:func:`vision.bench.metrics.silent_mistakes`).
    trusted: int = 0
    silent: int = 0
    #: Parts read right but marked all the same (:func:`vision.bench.metrics.needless_marks`).
    needless: int = 0

    def add(self, comparison: Comparison, silent: tuple[str, ...], needless: int = 0) -> None:
        self.boards += 1
        self.needless += needless
        self.cells_right += comparison.cells_right
        self.occupancy_right += comparison.occupancy_right
        self.slots_right += comparison.slots_right
        self.gold_right += comparison.gold_right
        self.gold_total += comparison.gold_total
        self.exact += comparison.exact
        self.trusted += not silent
        self.silent += len(silent)

    def to_json(self) -> dict[str, Any]:
        # A board the scanner did not find counts against every share: it was not read, and not
        # trusted either (though it was not silent: the scanner said so).
        boards = max(self.boards + self.missed, 1)
        return {
            "board_photos": self.boards + self.missed,
            "cells": self.cells_right / (40 * boards),
            "occupancy": self.occupancy_right / (40 * boards),
            "slots": self.slots_right / (67 * boards),
            "gold_values": self.gold_right / max(self.gold_total, 1),
            "exact_boards": self.exact / boards,
            "trusted": self.trusted / boards,
            "silent_mistakes": self.silent,
            "needless_marks_per_photo": self.needless / max(self.boards, 1),
        }


def groups_of(truth: dict[str, Any]) -> list[str]:
    """The groups a photo's figures are also counted in, from what its truth says of its rendering:
    ``hard`` (and each of its :data:`HARD_TAGS`) or ``others`` where it carries ``render.hard``,
    ``world:NAME`` where it carries ``render.world``."""
    render = truth.get("render")
    if not isinstance(render, dict):
        return []
    groups = []
    if "hard" in render:
        tags = [tag for tag in HARD_TAGS if tag in (render["hard"] or ())]
        groups += ["hard", *tags] if tags else ["others"]
    if render.get("world"):
        groups.append(f"world:{render['world']}")
    return groups


@dataclass
class BenchResult:
    """Totals over a folder of photos."""

    photos: int = 0
    total: Tally = field(default_factory=Tally)
    groups: dict[str, Tally] = field(default_factory=dict)
    missed_boards: list[str] = field(default_factory=list)
    false_boards: list[str] = field(default_factory=list)
    no_boards_right: int = 0
    no_boards: int = 0
    crashes: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    #: The process's CPU time a photo (all its threads, OpenCV's too): what a reading costs,
    #: whatever else the machine is doing, where the wall time measures the machine's load too.
    cpu_seconds: list[float] = field(default_factory=list)
    stage_ms: dict[str, list[float]] = field(default_factory=dict)
    mistakes: list[dict[str, Any]] = field(default_factory=list)
    calibration_ms: list[float] = field(default_factory=list)
    calibration_failures: list[str] = field(default_factory=list)

    def _tallies(self, truth: dict[str, Any]) -> list[Tally]:
        return [self.total, *(self.groups.setdefault(name, Tally()) for name in groups_of(truth))]

    def add(self, name: str, comparison: Comparison, reading: dict[str, Any], truth: dict[str, Any]) -> None:
        """One board photo read: ``reading`` is the scan's JSON (its confidences and warnings)."""
        silent = silent_mistakes(comparison, reading)
        needless = needless_marks(comparison, reading)
        for tally in self._tallies(truth):
            tally.add(comparison, silent, needless)
        if not comparison.exact or comparison.gold_right < comparison.gold_total:
            self.mistakes.append(
                {
                    "photo": name,
                    "cells": list(comparison.wrong_cells),
                    "slots": list(comparison.wrong_slots),
                    "gold_wrong": comparison.gold_total - comparison.gold_right,
                    "silent": list(silent),
                }
            )

    def timed(self, started: tuple[float, float]) -> None:
        """One photo read (or found to hold no board) since ``started``: ``time.perf_counter()`` and
        ``time.process_time()`` when its reading began."""
        self.seconds.append(time.perf_counter() - started[0])
        self.cpu_seconds.append(time.process_time() - started[1])

    def miss(self, name: str, truth: dict[str, Any]) -> None:
        """A board photo in which no board was found."""
        self.missed_boards.append(name)
        for tally in self._tallies(truth):
            tally.missed += 1

    def to_json(self) -> dict[str, Any]:
        ordered, cpu = sorted(self.seconds), sorted(self.cpu_seconds)
        return {
            "photos": self.photos,
            **self.total.to_json(),
            "groups": {name: tally.to_json() for name, tally in sorted(self.groups.items())},
            "missed_boards": self.missed_boards,
            "no_board_photos": self.no_boards,
            "no_board_answered": self.no_boards_right,
            "false_boards": self.false_boards,
            "crashes": self.crashes,
            "median_s": statistics.median(ordered) if ordered else None,
            "p90_s": _quantile(ordered, 0.9),
            "p95_s": _quantile(ordered, 0.95),
            "max_s": ordered[-1] if ordered else None,
            "cpu_median_s": statistics.median(cpu) if cpu else None,
            "cpu_p95_s": _quantile(cpu, 0.95),
            "threads": threads(),
            "stage_median_ms": {stage: statistics.median(ms) for stage, ms in self.stage_ms.items()},
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "mistakes": self.mistakes,
            "calibrations": len(self.calibration_ms),
            "calibration_median_ms": statistics.median(self.calibration_ms) if self.calibration_ms else None,
            "calibration_max_ms": max(self.calibration_ms) if self.calibration_ms else None,
            "calibration_failures": self.calibration_failures,
        }


#: The sides :func:`cut_photo` cuts, in turn photo by photo.
CUT_SIDES = ("right", "left", "bottom", "top")


def cut_photo(
    image: npt.NDArray[np.uint8], corners_px: npt.ArrayLike, share: float, side: str
) -> npt.NDArray[np.uint8]:
    """An upright photo ``image`` cut at its ``side`` so that ``share`` of the board's extent there
    (between its ``corners_px``, the truth's ``render.corners_px``) is left out: how a photo taken
    too close or off centre loses part of the board.

    >>> image = np.zeros((100, 200, 3), np.uint8)
    >>> cut_photo(image, [[40, 10], [140, 10], [140, 90], [40, 90]], 0.25, "right").shape
    (100, 115, 3)
    >>> cut_photo(image, [[40, 10], [140, 10], [140, 90], [40, 90]], 0.5, "top").shape
    (50, 200, 3)
    """
    corners = np.asarray(corners_px, np.float64)
    (left, top), (right, bottom) = corners.min(axis=0), corners.max(axis=0)
    if side == "right":
        return image[:, : max(1, int(right - share * (right - left)))]
    if side == "left":
        return image[:, int(left + share * (right - left)) :]
    if side == "bottom":
        return image[: max(1, int(bottom - share * (bottom - top)))]
    return image[int(top + share * (bottom - top)) :]


def _cut_bytes(data: bytes, truth: dict[str, Any], share: float, index: int) -> bytes:
    """The photo's bytes cut off by ``share`` of the board at the ``index``-th of :data:`CUT_SIDES`
    (as PNG), or the bytes as they are for a photo without a board or without the board's corners."""
    render = truth.get("render", {})
    corners = render.get("corners_px")
    if not share or not truth.get("board", True) or corners is None:
        return data
    image = load_photo(data).image
    # The corners are the rendered photo's pixels, upright; loading may have scaled it down.
    width = render["size"][0] if "size" in render else render["width"]
    corners = np.asarray(corners, np.float64) * image.shape[1] / width
    ok, encoded = cv2.imencode(".png", cut_photo(image, corners, share, CUT_SIDES[index % len(CUT_SIDES)]))
    if not ok:
        raise RuntimeError("the cut photo could not be encoded as PNG")
    return bytes(encoded.tobytes())


def bench_scan(
    pairs: Iterable[tuple[Path, Path]],
    profile: Looks | None = None,
    learn: Learner | None = None,
    as_unknown: bool = False,
    cut: float = 0.0,
) -> BenchResult:
    """Read every photo and compare it with its truth.

    With ``learn``, a photo of another copy (its truth names ``"copy"``) is read with the looks
    ``learn`` takes from that copy's setup photo beside it, ``setup-COPY.jpg``, each learnt once and
    timed. With ``as_unknown``, every board is read as a copy without a profile is
    (:func:`vision.scan.scan`), whatever its kit. With ``cut``, every photo of a board is read cut
    off by that share of the board at one side, the sides in turn (:func:`cut_photo`; the time then
    counts decoding the cut photo, a PNG).
    """
    result = BenchResult()
    learnt: dict[str, Looks | None] = {}
    for index, (photo, truth_path) in enumerate(pairs):
        truth = json.loads(truth_path.read_text())
        try:
            data = photo.read_bytes()
        except OSError as error:
            # A link to a photo since moved or deleted: said, and the folder read on.
            result.crashes.append(f"{photo.name}: not read: {error.strerror or error}")
            continue
        try:
            data = _cut_bytes(data, truth, cut, index)
        except Exception as error:
            result.crashes.append(f"{photo.name}: not cut: {type(error).__name__}: {error}")
            continue
        result.photos += 1
        has_board = truth.get("board", True)
        result.no_boards += not has_board
        copy = truth.get("copy")
        if learn is not None and copy is not None and copy not in learnt:
            learnt[copy] = _learn(learn, photo.parent, copy, result)
        use = learnt.get(copy, profile) if learn is not None and copy is not None else profile
        started = (time.perf_counter(), time.process_time())
        try:
            reading = scan(data, profile=use, players=None, as_unknown=as_unknown)
        except NoBoardError:
            result.timed(started)
            if has_board:
                result.miss(photo.name, truth)
            else:
                result.no_boards_right += 1
            continue
        except PhotoError as error:
            result.crashes.append(f"{photo.name}: unreadable: {error}")
            continue
        except Exception as error:
            result.crashes.append(f"{photo.name}: {type(error).__name__}: {error}")
            continue
        result.timed(started)
        for stage, ms in reading.timing_ms.items():
            result.stage_ms.setdefault(stage, []).append(ms)
        if not has_board:
            result.false_boards.append(photo.name)
            continue
        said = {"confidence": reading.confidence_json(), "warnings": [w.to_json() for w in reading.warnings]}
        result.add(photo.name, compare(reading.position.to_json(), truth), said, truth)
    return result


def _learn(learn: Learner, folder: Path, copy: str, result: BenchResult) -> Looks | None:
    """The looks of ``copy`` from its setup photo in ``folder``; None (noted) if they cannot be learnt."""
    setups = [p for p in folder.glob(f"{SETUP_PREFIX}{copy}.*") if p.suffix.lower() in PHOTO_SUFFIXES]
    if not setups:
        result.calibration_failures.append(f"{copy}: no setup photo {SETUP_PREFIX}{copy}.jpg")
        return None
    data = setups[0].read_bytes()
    start = time.perf_counter()
    try:
        profile = learn(data, copy)
    except ValueError as error:  # a refused setup (SetupError) or an unreadable photo (PhotoError)
        result.calibration_failures.append(f"{copy}: {error}")
        return None
    result.calibration_ms.append(1000 * (time.perf_counter() - start))
    return profile


def report_text(summary: dict[str, Any]) -> str:
    """The bench summary as a few lines for people."""

    def pct(x: float) -> str:
        return f"{100 * x:.2f} %"

    lines = [
        f"photos            {summary['photos']} ({summary['board_photos']} with a board, "
        f"{summary['no_board_photos']} without)",
        f"cells             {pct(summary['cells'])}",
        f"occupancy         {pct(summary['occupancy'])} (empty, gold or a warrior, colour aside)",
        f"slots             {pct(summary['slots'])}",
        f"gold values       {pct(summary['gold_values'])}",
        f"exact boards      {pct(summary['exact_boards'])}",
        f"trusted           {pct(summary['trusted'])} (read exactly, or every mistake marked: under "
        f"{MARKED_BELOW} or named by a warning); {summary['silent_mistakes']} silent mistakes",
        f"needless marks    {summary['needless_marks_per_photo']:.2f} a photo "
        "(read right, marked all the same)",
        f"missed boards     {len(summary['missed_boards'])}",
        f"no board -> exit 3 {summary['no_board_answered']} of {summary['no_board_photos']}"
        + (f" (read a board in: {', '.join(summary['false_boards'])})" if summary["false_boards"] else ""),
        f"crashes           {len(summary['crashes'])}",
    ]
    if summary["median_s"] is not None:
        lines.append(
            f"time per photo    median {summary['median_s']:.3f} s, p90 {summary['p90_s']:.3f} s, "
            f"p95 {summary['p95_s']:.3f} s, slowest {summary['max_s']:.3f} s"
        )
        lines.append(
            f"CPU per photo     median {summary['cpu_median_s']:.3f} s, p95 {summary['cpu_p95_s']:.3f} s "
            f"(all the process's threads; read on {summary['threads']})"
        )
        stages = ", ".join(f"{k} {v:.0f}" for k, v in summary["stage_median_ms"].items())
        lines.append(f"stages (median ms) {stages}")
    lines.append(f"peak memory       {summary['peak_rss_mb']:.0f} MB (resident, whole process)")
    if summary["calibrations"] or summary["calibration_failures"]:
        lines.append(
            f"calibration       {summary['calibrations']} setup photos learnt, median "
            f"{summary['calibration_median_ms'] or 0:.0f} ms, "
            f"slowest {summary['calibration_max_ms'] or 0:.0f} ms"
        )
    for name, group in summary["groups"].items():
        lines.append(
            f"  {name:<15} {group['board_photos']} photos: cells {pct(group['cells'])}, slots "
            f"{pct(group['slots'])}, exact {pct(group['exact_boards'])}, trusted {pct(group['trusted'])}, "
            f"{group['silent_mistakes']} silent"
        )
    for failure in summary["calibration_failures"]:
        lines.append(f"  calibration failed: {failure}")
    for crash in summary["crashes"]:
        lines.append(f"  crash: {crash}")
    for name in summary["missed_boards"]:
        lines.append(f"  missed board: {name}")
    for mistake in summary["mistakes"][:30]:
        parts = []
        if mistake["cells"]:
            parts.append("cells " + " ".join(mistake["cells"]))
        if mistake["slots"]:
            parts.append("slots " + " ".join(mistake["slots"]))
        if mistake["gold_wrong"]:
            parts.append(f"{mistake['gold_wrong']} gold values")
        if mistake["silent"]:
            parts.append("unmarked " + " ".join(mistake["silent"]))
        lines.append(f"  {mistake['photo']}: {'; '.join(parts)}")
    return "\n".join(lines)


def main_scan(
    folder: Path,
    profile: Looks | None,
    as_json: bool,
    learn: Learner | None = None,
    as_unknown: bool = False,
    cut: float = 0.0,
) -> int:
    pairs = photos_with_truth(folder)
    if not pairs:
        print(f"armadora bench scan: no photos with a .json truth beside them in {folder}", file=sys.stderr)
        return 2
    summary = bench_scan(pairs, profile, learn, as_unknown, cut).to_json()
    print(json.dumps(summary) if as_json else report_text(summary))
    return 0


def _quantile(ordered: list[float], share: float) -> float | None:
    """The value ``share`` of the way up the sorted ``ordered`` (the nearest rank below), or None.

    >>> _quantile([1.0, 2.0, 3.0, 4.0], 0.9), _quantile([], 0.5)
    (4.0, None)
    """
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else None
