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

import numpy as np
import numpy.typing as npt

from calibration.profile import Profile
from engine.board import CELLS, GOLD_MASK, SLOTS, Cell, Slot
from vision.load import PhotoError
from vision.locate import NoBoardError
from vision.metrics import Comparison, compare
from vision.scan import BoardView, scan

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif")
SETUP_PREFIX = "setup-"


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


@dataclass
class BenchResult:
    """Totals over a folder of photos."""

    photos: int = 0
    boards: int = 0
    cells_right: int = 0
    occupancy_right: int = 0
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
    calibration_ms: list[float] = field(default_factory=list)
    calibration_failures: list[str] = field(default_factory=list)

    def add(self, name: str, comparison: Comparison) -> None:
        self.boards += 1
        self.cells_right += comparison.cells_right
        self.occupancy_right += comparison.occupancy_right
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
            "occupancy": self.occupancy_right / (40 * boards),
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
            "calibrations": len(self.calibration_ms),
            "calibration_median_ms": statistics.median(self.calibration_ms) if self.calibration_ms else None,
            "calibration_max_ms": max(self.calibration_ms) if self.calibration_ms else None,
            "calibration_failures": self.calibration_failures,
        }


def bench_scan(
    pairs: Iterable[tuple[Path, Path]], profile: Profile | None = None, calibrate: bool = False
) -> BenchResult:
    """Read every photo and compare it with its truth.

    With ``calibrate``, a photo of another copy (its truth names ``"copy"``) is read with the profile
    learnt from that copy's setup photo beside it, ``setup-COPY.jpg``, each learnt once and timed.
    """
    result = BenchResult()
    learnt: dict[str, Profile | None] = {}
    for photo, truth_path in pairs:
        truth = json.loads(truth_path.read_text())
        data = photo.read_bytes()
        result.photos += 1
        has_board = truth.get("board", True)
        result.no_boards += not has_board
        copy = truth.get("copy")
        if calibrate and copy is not None and copy not in learnt:
            learnt[copy] = _learn(photo.parent, copy, result)
        use = learnt.get(copy, profile) if calibrate and copy is not None else profile
        start = time.perf_counter()
        try:
            reading = scan(data, profile=use, players=None)
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


def _learn(folder: Path, copy: str, result: BenchResult) -> Profile | None:
    """The profile of ``copy`` from its setup photo in ``folder``; None (noted) if it cannot be learnt."""
    from calibration.setup import SetupError, calibrate

    setups = [p for p in folder.glob(f"{SETUP_PREFIX}{copy}.*") if p.suffix.lower() in PHOTO_SUFFIXES]
    if not setups:
        result.calibration_failures.append(f"{copy}: no setup photo {SETUP_PREFIX}{copy}.jpg")
        return None
    data = setups[0].read_bytes()
    start = time.perf_counter()
    try:
        profile = calibrate(data, name=copy).profile
    except (SetupError, PhotoError) as error:
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
    if summary["calibrations"] or summary["calibration_failures"]:
        lines.append(
            f"calibration       {summary['calibrations']} setup photos learnt, median "
            f"{summary['calibration_median_ms'] or 0:.0f} ms, "
            f"slowest {summary['calibration_max_ms'] or 0:.0f} ms"
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
        lines.append(f"  {mistake['photo']}: {'; '.join(parts)}")
    return "\n".join(lines)


def main_scan(folder: Path, profile: Profile | None, as_json: bool, calibrate: bool = False) -> int:
    pairs = photos_with_truth(folder)
    if not pairs:
        print(f"armadora bench scan: no photos with a .json truth beside them in {folder}", file=sys.stderr)
        return 2
    summary = bench_scan(pairs, profile, calibrate).to_json()
    print(json.dumps(summary) if as_json else report_text(summary))
    return 0


@dataclass
class TrainingData:
    """Every board photo's signs with their truths: slots, cells off gold against the face, and the
    cells off gold whose art the profile never saw, by warrior pictures
    (:func:`vision.tokens.hidden_signs`, where the profile has them)."""

    slot_x: list[npt.NDArray[np.float64]] = field(default_factory=list)
    slot_y: list[list[bool]] = field(default_factory=list)
    cell_x: list[npt.NDArray[np.float64]] = field(default_factory=list)
    cell_y: list[list[bool]] = field(default_factory=list)
    hidden_x: list[npt.NDArray[np.float64]] = field(default_factory=list)
    hidden_y: list[list[bool]] = field(default_factory=list)

    def stacked(self, name: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        """The examples of ``"slots"``, ``"cells"`` or ``"hidden"``, and their truths."""
        x, y = {
            "slots": (self.slot_x, self.slot_y),
            "cells": (self.cell_x, self.cell_y),
            "hidden": (self.hidden_x, self.hidden_y),
        }[name]
        return np.vstack(x), np.concatenate(y).astype(bool)


Seer = Callable[[npt.NDArray[np.uint8], dict[str, Any]], "tuple[BoardView, Profile] | None"]


def training_data(pairs: Iterable[tuple[Path, Path]], see: Seer) -> TrainingData:
    """The signs of every board photo that ``see`` (photo, truth) finds the board in."""
    from vision.cells import occupied_probability
    from vision.load import read_photo
    from vision.scan import hidden_cells, picture_signs, view_cell_signs, view_slot_features

    data = TrainingData()
    off_gold = [cell for cell in CELLS if not cell.bit & GOLD_MASK]
    numbers = [cell.number for cell in off_gold]
    for photo, truth_path in pairs:
        truth = json.loads(truth_path.read_text())
        if not truth.get("board", True):
            continue
        try:
            seen = see(read_photo(photo).image, truth)
        except (NoBoardError, PhotoError):
            continue
        if seen is None:
            continue
        view, profile = seen
        palisades = {Slot.between(Cell(*a), Cell(*b)) for a, b in truth.get("palisades", [])}
        data.slot_x.append(view_slot_features(view, profile))
        data.slot_y.append([slot in palisades for slot in SLOTS])
        signs = view_cell_signs(view, profile, palisades)
        occupied = {tuple(w["cell"]) for w in truth.get("warriors", [])}
        truths = [tuple(cell) in occupied for cell in off_gold]
        data.cell_x.append(signs.features[numbers])
        data.cell_y.append(truths)
        hidden = [cell for cell in hidden_cells(profile) if cell in off_gold]
        if profile.tokens and hidden:
            face_reading = occupied_probability(signs.features)
            asked = [cell.number for cell in hidden]
            data.hidden_x.append(picture_signs(view, profile, signs, asked, face_reading)[1])
            data.hidden_y.append([tuple(cell) in occupied for cell in hidden])
    return data


def warrior_data(pairs: Iterable[tuple[Path, Path]]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Every off-gold cell's :func:`vision.learn.warrior_signs` and whether a warrior is there, on
    each board photo whose board :func:`vision.improvise.board_face` finds."""
    from vision.improvise import board_face
    from vision.learn import FACE_VIEW, WARRIOR_SIGNS, face_looks
    from vision.load import read_photo

    off_gold = [cell for cell in CELLS if not cell.bit & GOLD_MASK]
    signs: list[npt.NDArray[np.float64]] = []
    labels: list[bool] = []
    for photo, truth_path in pairs:
        truth = json.loads(truth_path.read_text())
        if not truth.get("board", True):
            continue
        try:
            seen = board_face(read_photo(photo).image)
        except PhotoError:
            continue
        if seen is None:
            continue
        occupied = {tuple(w["cell"]) for w in truth.get("warriors", [])}
        signs.append(face_looks(seen.face, off_gold, FACE_VIEW))
        labels += [tuple(cell) in occupied for cell in off_gold]
    return np.vstack(signs) if signs else np.zeros((0, len(WARRIOR_SIGNS))), np.array(labels, bool)


Model = Callable[..., npt.NDArray[np.float64]]


def _fit(data: TrainingData, examples: str, where: str, name: str, **options: Any) -> None:
    """Fit one model on ``data``'s ``examples`` and print its weights as ``where`` holds them."""
    from vision import cells, slots, tokens

    models: dict[str, tuple[Model, Model]] = {
        "slots": (slots.fit_weights, slots.palisade_probability),
        "cells": (cells.fit_weights, cells.occupied_probability),
        "hidden": (tokens.fit_hidden_weights, tokens.hidden_occupied),
    }
    _print_fit(*data.stacked(examples), *models[examples], where, name, **options)


def _print_fit(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.bool_],
    fit: Model,
    model: Model,
    where: str,
    name: str,
    **options: Any,
) -> None:
    """Fit ``model``'s weights to ``x`` and ``y`` by ``fit``; print them as ``where`` holds them."""
    weights = fit(x, y, **options)
    wrong = int(((model(x, weights) > 0.5) != y).sum())
    print(f"# {where}: fitted on {len(y)} examples; {wrong} wrong on that same set")
    print(f"{name} = (" + ", ".join(f"{w:.3f}" for w in weights) + ")")


def main_fit(folder: Path) -> int:
    """Fit the readers' models on a tuning folder; print the weights to paste into the readers.

    A folder of the reference kit refits the slot and cell models. A folder of other copies
    (truths naming a ``"copy"``, with the copies' setup photos) refits what reads them: how a
    warrior looks on any copy (:func:`vision.learn.warrior_odds`), and the readers with the
    profile learnt from each setup photo and with the profile improvised from each photo. The
    improvised readers' signs depend on how a warrior looks: paste its weights first, then fit again.
    """
    from calibration.profile import default_profile
    from calibration.setup import calibrate
    from vision.scan import board_view, improvised_view
    from vision.tokens import WEIGHED

    pairs = photos_with_truth(folder)
    copies = any("copy" in json.loads(truth.read_text()) for _, truth in pairs)
    if not copies:
        reference = default_profile()
        data = training_data(pairs, lambda image, truth: (board_view(image, reference), reference))
        _fit(data, "slots", "vision/slots.py", "WEIGHTS")
        _fit(data, "cells", "vision/cells.py", "WEIGHTS")
        return 0
    from vision.learn import fit_warrior_weights, warrior_probability

    _print_fit(
        *warrior_data(pairs), fit_warrior_weights, warrior_probability, "vision/learn.py", "WARRIOR_WEIGHTS"
    )
    learnt: dict[str, Profile] = {}

    def with_setup(image: npt.NDArray[np.uint8], truth: dict[str, Any]) -> tuple[BoardView, Profile]:
        copy = truth["copy"]
        if copy not in learnt:
            learnt[copy] = calibrate((folder / f"{SETUP_PREFIX}{copy}.jpg").read_bytes(), name=copy).profile
        return board_view(image, learnt[copy]), learnt[copy]

    for label, see in (("LEARNT", with_setup), ("IMPROVISED", lambda image, truth: improvised_view(image))):
        data = training_data(pairs, see)
        _fit(data, "slots", "vision/slots.py", f"{label}_WEIGHTS")
        _fit(data, "hidden", "vision/tokens.py", f"{label}_WEIGHTS", weighed=WEIGHED[label.lower()])
    return 0
