"""Sets of photos on disk: ``NAME.jpg`` with its truth ``NAME.json`` beside it.

A photo's scene comes from its seed alone (plan.py), so a set can be rendered in pieces, by
several processes over disjoint seed ranges, and resumed: a photo whose JPEG and JSON are
both there is skipped. Files are written to a hidden temporary name and renamed, the JSON
last, so a killed render never leaves a photo that looks finished. A folder of a set of copies
("copies", the test copies, or "tuning-copies" and "more-tuning-copies") also holds each copy's setup photo,
``setup-<copy>.jpg``, rendered before the copy's photos.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.check import check
from engine.position import Position
from vision.worlds.cycles import phone
from vision.worlds.cycles.kit import Kit
from vision.worlds.cycles.plan import (
    COPY_FAMILIES,
    MM,
    TILT_HARD_DEG,
    WARM_K,
    Plan,
    kit_for,
    make_plan,
)

SETUP_SEED = 900_000
GLARE_FRACTION = 0.003  # white-out share of the board's area, on the bare card, for "glare"
# The sets and their photos' name prefixes: a tuning photo's name says so, should it stray into a
# test folder.
PREFIXES = {"reference": "ref", "copies": "copy", "tuning-copies": "tcopy", "more-tuning-copies": "mcopy"}
SETS = tuple(PREFIXES)


def photo_name(set_name: str, seed: int) -> str:
    """The file name (no suffix) of photo ``seed`` of the set: ``ref-000004``, ``tcopy-150000``."""
    return f"{PREFIXES[set_name]}-{seed:06d}"


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _done(out_dir: Path, name: str) -> bool:
    return (out_dir / f"{name}.jpg").exists() and (out_dir / f"{name}.json").exists()


def truth_of(plan: Plan, clipped_fraction: float | None = None) -> dict[str, Any]:
    """The truth JSON of a plan; ``clipped_fraction`` (measured on the render) decides "glare"."""
    doc: dict[str, Any] = {}
    if plan.position is not None:
        doc.update(plan.position.to_json())
        doc["board"] = True
        if plan.kit.name is not None:
            doc["copy"] = plan.kit.name
    else:
        doc["board"] = False
    conditions = dict(plan.conditions)
    hard: list[str] = []
    if plan.kind != "empty":
        if clipped_fraction is not None:
            conditions["glare_clipped_fraction"] = round(clipped_fraction, 5)
            if clipped_fraction >= GLARE_FRACTION:
                hard.append("glare")
        if conditions["kelvin"] <= WARM_K:
            hard.append("warm")
        if conditions["tilt_deg"] > TILT_HARD_DEG:
            hard.append("tilt")
    render: dict[str, Any] = {
        "world": "cycles",
        "seed": plan.seed,
        "set": plan.set_name,
        "width": plan.width,
        "height": plan.height,
        "conditions": conditions,
        "forced_hard": plan.forced_hard,
        "hard": hard,
    }
    if plan.kind != "empty":
        render["corners_px"] = np.round(plan.camera.project(plan.board_corners()), 2).tolist()
        render["grid_corners_px"] = np.round(plan.camera.project(plan.grid_corners()), 2).tolist()
    doc["render"] = render
    return doc


def _board_pixels(plan: Plan, shape: tuple[int, ...]) -> int:
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(plan.camera.project(plan.board_corners())).astype(np.int32)], 1)
    return max(1, int(mask.sum()))


def card_mask(plan: Plan, shape: tuple[int, ...]) -> NDArray[np.uint8]:
    """1 where the photo shows the bare card: the board less its tokens and sticks.

    "glare" is a highlight on the card; a white warrior or a lit stick that clips is not.
    Each piece's footprint is projected at its top and its bottom, so a stick's side seen
    at a tilt is left out too.
    """
    cam = plan.camera
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(cam.project(plan.board_corners())).astype(np.int32)], 1)
    kit = plan.kit
    for piece in plan.pieces:
        if piece.what == "gold":
            a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
            outline = np.stack([np.cos(a), np.sin(a)], axis=1) * (kit.gold_mm * MM / 2 + 0.0005)
            height = kit.token_mm * MM
        elif piece.what == "warrior":
            half = kit.warrior_mm * MM / 2 + 0.0005
            outline = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
            height = kit.token_mm * MM
        else:
            hl, hw = piece.dims[0] / 2 + 0.0005, piece.dims[1] / 2 + 0.0005
            outline = np.array([[-hl, -hw], [hl, -hw], [hl, hw], [-hl, hw]])
            height = piece.dims[2]
        t = np.radians(piece.angle)
        rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        xy = outline @ rot.T + [piece.x, piece.y]
        ring = np.concatenate(
            [np.c_[xy, np.full(len(xy), piece.z)], np.c_[xy, np.full(len(xy), piece.z + height)]]
        )
        hull = cv2.convexHull(np.round(cam.project(ring)).astype(np.int32))
        cv2.fillPoly(mask, [hull], 0)
    return mask


def render_photo(plan: Plan, out_dir: Path, name: str, *, samples: int, threads: int) -> dict[str, Any]:
    """Render one plan to ``out_dir/name.jpg`` and its truth to ``name.json``; the truth."""
    from vision.worlds.cycles import scene  # bpy only when a photo is really rendered

    start, cpu = time.monotonic(), time.process_time()
    with tempfile.TemporaryDirectory(prefix="cycles-") as tmp:
        linear = scene.render(plan, Path(tmp), samples=samples, threads=threads)
    photo, clipped = phone.develop(linear, plan.camera, plan.phone)
    fraction: float | None = None
    if plan.kind != "empty":
        fraction = float((clipped & card_mask(plan, clipped.shape)).sum()) / _board_pixels(
            plan, clipped.shape
        )
    doc = truth_of(plan, fraction)
    if plan.position is not None and not check(Position.from_json(doc)).legal:
        raise AssertionError(f"{name}: the truth is not a legal position")
    doc["render"]["samples"] = samples
    doc["render"]["seconds"] = round(time.monotonic() - start, 2)
    doc["render"]["cpu_seconds"] = round(time.process_time() - cpu, 2)  # Cycles' threads included
    import bpy

    doc["render"]["bpy"] = bpy.app.version_string
    out_dir.mkdir(parents=True, exist_ok=True)
    _write_atomic(out_dir / f"{name}.jpg", phone.jpeg(photo, int(plan.phone["jpeg_quality"])))
    _write_atomic(out_dir / f"{name}.json", (json.dumps(doc, indent=1) + "\n").encode())
    return doc


def copies_in(set_name: str, start: int, count: int) -> list[Kit]:
    """The copies that the photos ``start .. start+count-1`` of a set of copies show, in box order."""
    names = {kit_for(set_name, s).name for s in range(start, start + count)}
    return [kit for kit in COPY_FAMILIES[set_name] if kit.name in names]


def setup_jobs(set_name: str, start: int, count: int, setup_seed: int) -> list[tuple[str, int, Kit]]:
    """The setup photos a folder of a set of copies needs: name, seed and copy, in box order.

    Seeds run from ``setup_seed``, one a copy of the set's family, so every folder of the set
    with the same ``setup_seed`` has the same setup photos. The reference set has none.
    """
    if set_name not in COPY_FAMILIES:
        return []
    family = COPY_FAMILIES[set_name]
    return [
        (f"setup-{kit.name}", setup_seed + family.index(kit), kit)
        for kit in copies_in(set_name, start, count)
    ]


def render_set(
    out_dir: Path,
    set_name: str,
    start: int,
    count: int,
    *,
    width: int,
    height: int,
    samples: int,
    threads: int,
    hard_share: float = 0.0,
    setup_seed: int = SETUP_SEED,
    log: Callable[[str], None] = print,
) -> int:
    """Render the photos of seeds ``start .. start+count-1`` not yet on disk; how many were rendered.

    A set of copies' setup photos come first (:func:`setup_jobs`).
    """
    if set_name not in SETS:
        raise ValueError(f"unknown set {set_name!r} ({', '.join(SETS)})")
    jobs: list[tuple[str, int, Kit | None]] = [*setup_jobs(set_name, start, count, setup_seed)]
    for seed in range(start, start + count):
        jobs.append((photo_name(set_name, seed), seed, None))
    rendered = 0
    for name, seed, setup_of in jobs:
        if _done(out_dir, name):
            continue
        plan = make_plan(set_name, seed, width, height, hard_share=hard_share, setup_of=setup_of)
        doc = render_photo(plan, out_dir, name, samples=samples, threads=threads)
        rendered += 1
        log(f"{name}: {doc['render']['seconds']:.1f} s, hard={doc['render']['hard']}")
    return rendered
