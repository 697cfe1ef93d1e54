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
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from calibration.profile import Profile
from engine.board import CELLS, GOLD_MASK, SLOTS, Cell, Slot
from vision.load import PhotoError
from vision.locate import NoBoardError
from vision.metrics import Comparison, compare
from vision.scan import scan

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif")


def photos_with_truth(folder: Path) -> list[tuple[Path, Path]]:
    """Each photo in ``folder`` that has a ``.json`` truth beside it, in name order."""
    pairs = []
    for photo in sorted(folder.iterdir()):
        truth = photo.with_suffix(".json")
        if photo.suffix.lower() in PHOTO_SUFFIXES and truth.exists():
            pairs.append((photo, truth))
    return pairs


@dataclass
class BenchResult:
    """Totals over a folder of photos."""

    photos: int = 0
    boards: int = 0
    cells_right: int = 0
    slots_right: int = 0
    gold_right: int = 0
    gold_total: int = 0
    exact: int = 0
    missed_boards: list[str] = field(default_factory=list)
    false_boards: list[str] = field(default_factory=list)
    no_boards_right: int = 0
    no_boards: int = 0
    crashes: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    stage_ms: dict[str, list[float]] = field(default_factory=dict)
    mistakes: list[dict[str, Any]] = field(default_factory=list)

    def add(self, name: str, comparison: Comparison) -> None:
        self.boards += 1
        self.cells_right += comparison.cells_right
        self.slots_right += comparison.slots_right
        self.gold_right += comparison.gold_right
        self.gold_total += comparison.gold_total
        self.exact += comparison.exact
        if not comparison.exact or comparison.gold_right < comparison.gold_total:
            self.mistakes.append(
                {
                    "photo": name,
                    "cells": list(comparison.wrong_cells),
                    "slots": list(comparison.wrong_slots),
                    "gold_wrong": comparison.gold_total - comparison.gold_right,
                }
            )

    def to_json(self) -> dict[str, Any]:
        boards = max(self.boards + len(self.missed_boards), 1)
        ordered = sorted(self.seconds)
        return {
            "photos": self.photos,
            "board_photos": self.boards + len(self.missed_boards),
            "cells": self.cells_right / (40 * boards),
            "slots": self.slots_right / (67 * boards),
            "gold_values": self.gold_right / max(self.gold_total, 1),
            "exact_boards": self.exact / boards,
            "missed_boards": self.missed_boards,
            "no_board_photos": self.no_boards,
            "no_board_answered": self.no_boards_right,
            "false_boards": self.false_boards,
            "crashes": self.crashes,
            "median_s": statistics.median(ordered) if ordered else None,
            "p90_s": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))] if ordered else None,
            "stage_median_ms": {stage: statistics.median(ms) for stage, ms in self.stage_ms.items()},
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "mistakes": self.mistakes,
        }


def bench_scan(pairs: Iterable[tuple[Path, Path]], profile: Profile | None = None) -> BenchResult:
    """Read every photo and compare it with its truth."""
    result = BenchResult()
    for photo, truth_path in pairs:
        truth = json.loads(truth_path.read_text())
        data = photo.read_bytes()
        result.photos += 1
        has_board = truth.get("board", True)
        result.no_boards += not has_board
        start = time.perf_counter()
        try:
            reading = scan(data, profile=profile, players=None)
        except NoBoardError:
            result.seconds.append(time.perf_counter() - start)
            if has_board:
                result.missed_boards.append(photo.name)
            else:
                result.no_boards_right += 1
            continue
        except PhotoError as error:
            result.crashes.append(f"{photo.name}: unreadable: {error}")
            continue
        except Exception as error:
            result.crashes.append(f"{photo.name}: {type(error).__name__}: {error}")
            continue
        result.seconds.append(time.perf_counter() - start)
        for stage, ms in reading.timing_ms.items():
            result.stage_ms.setdefault(stage, []).append(ms)
        if not has_board:
            result.false_boards.append(photo.name)
            continue
        result.add(photo.name, compare(reading.position.to_json(), truth))
    return result


def report_text(summary: dict[str, Any]) -> str:
    """The bench summary as a few lines for people."""

    def pct(x: float) -> str:
        return f"{100 * x:.2f} %"

    lines = [
        f"photos            {summary['photos']} ({summary['board_photos']} with a board, "
        f"{summary['no_board_photos']} without)",
        f"cells             {pct(summary['cells'])}",
        f"slots             {pct(summary['slots'])}",
        f"gold values       {pct(summary['gold_values'])}",
        f"exact boards      {pct(summary['exact_boards'])}",
        f"missed boards     {len(summary['missed_boards'])}",
        f"no board -> exit 3 {summary['no_board_answered']} of {summary['no_board_photos']}"
        + (f" (read a board in: {', '.join(summary['false_boards'])})" if summary["false_boards"] else ""),
        f"crashes           {len(summary['crashes'])}",
    ]
    if summary["median_s"] is not None:
        lines.append(f"time per photo    median {summary['median_s']:.3f} s, p90 {summary['p90_s']:.3f} s")
        stages = ", ".join(f"{k} {v:.0f}" for k, v in summary["stage_median_ms"].items())
        lines.append(f"stages (median ms) {stages}")
    lines.append(f"peak memory       {summary['peak_rss_mb']:.0f} MB (resident, whole process)")
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
        lines.append(f"  {mistake['photo']}: {'; '.join(parts)}")
    return "\n".join(lines)


def main_scan(folder: Path, profile: Profile | None, as_json: bool) -> int:
    pairs = photos_with_truth(folder)
    if not pairs:
        print(f"armadora bench scan: no photos with a .json truth beside them in {folder}", file=sys.stderr)
        return 2
    summary = bench_scan(pairs, profile).to_json()
    print(json.dumps(summary) if as_json else report_text(summary))
    return 0


def training_data(
    pairs: Iterable[tuple[Path, Path]], profile: Profile
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Slot features and truths, and cell signs and truths (cells off gold), of every board photo."""
    from vision.load import read_photo
    from vision.scan import board_view, view_cell_signs, view_slot_features

    slot_rows, slot_labels, cell_rows, cell_labels = [], [], [], []
    off_gold = np.array([not cell.bit & GOLD_MASK for cell in CELLS])
    for photo, truth_path in pairs:
        truth = json.loads(truth_path.read_text())
        if not truth.get("board", True):
            continue
        try:
            view = board_view(read_photo(photo).image, profile)
        except (NoBoardError, PhotoError):
            continue
        palisades = {Slot.between(Cell(*a), Cell(*b)) for a, b in truth.get("palisades", [])}
        slot_rows.append(view_slot_features(view, profile))
        slot_labels.append([slot in palisades for slot in SLOTS])
        signs = view_cell_signs(view, profile, palisades)
        occupied = {tuple(w["cell"]) for w in truth.get("warriors", [])}
        cell_rows.append(signs.features[off_gold])
        cell_labels.append([tuple(cell) in occupied for cell in CELLS if not cell.bit & GOLD_MASK])
    return (
        np.vstack(slot_rows),
        np.concatenate(slot_labels).astype(bool),
        np.vstack(cell_rows),
        np.concatenate(cell_labels).astype(bool),
    )


def main_fit(folder: Path) -> int:
    """Fit the slot and cell models on a tuning folder; print the weights to paste into the readers."""
    from calibration.profile import default_profile
    from vision import cells, slots

    slot_x, slot_y, cell_x, cell_y = training_data(photos_with_truth(folder), default_profile())
    for name, module, x, y in (
        ("vision/slots.py", slots, slot_x, slot_y),
        ("vision/cells.py", cells, cell_x, cell_y),
    ):
        weights = module.fit_weights(x, y)
        model = slots.palisade_probability if module is slots else cells.occupied_probability
        wrong = int(((model(x, weights) > 0.5) != y).sum())
        print(f"# {name}: fitted on {len(y)} examples of {folder}; {wrong} wrong on that same set")
        print("WEIGHTS = (" + ", ".join(f"{w:.3f}" for w in weights) + ")")
    return 0
