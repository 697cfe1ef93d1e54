"""Sets of synthetic photos on disk: each photo beside its truth, from seeds no two sets share.

A set's photo ``i`` always has the seed ``SET_SEEDS[set] + i`` and the same
mixture slot (kind, format, players), so ``--start`` and ``--count`` can
extend a set without changing what is already there.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vision.worlds.raster.copies import REFERENCE_COPY, TEST_COPIES, TUNING_COPIES, Copy
from vision.worlds.raster.render import RenderedPhoto, render_photo
from vision.worlds.raster.setup import render_setup

SET_SEEDS: dict[str, int] = {
    "tuning": 1_000_000,
    "test": 2_000_000,
    "samples": 3_000_000,
    "copies-tuning": 4_000_000,
    "copies-test": 5_000_000,
}
SET_SIZE = 1_000_000  # photos a set may hold before its seeds would run into the next set's
# The copy sets: photo i shows copy i % 6 of its side, whose setup photo is written beside the set.
COPY_SETS: dict[str, tuple[Copy, ...]] = {"copies-tuning": TUNING_COPIES, "copies-test": TEST_COPIES}
# Setup photos have seeds of their own, after every set's: one block per copy set, one seed per copy.
SETUP_SEEDS: dict[str, int] = {"copies-tuning": 6_000_000, "copies-test": 6_001_000, "other": 6_002_000}
DEFAULT_SIZE = (4000, 3000)
SAMPLE_SIZE = (3264, 2448)  # 8 MP: the folder of samples lives in the repository
SAMPLE_QUALITY = 80

# The committed samples, each chosen to show something the scanner must cope with:
# tilts near 0 and 50 degrees, every side of the table, warm and cold light, glare,
# shadows, a hand, a cup, dice, EXIF orientations 3, 6 and 8, a HEIC file, 2 to 4
# players, early and finished games, and a photo without the board.
SAMPLE_SPECS: tuple[dict[str, Any], ...] = (
    dict(
        tilt_deg=3,
        azimuth_deg=0,
        players=2,
        stage="early",
        kelvin=2800,
        shadow=0.5,
        light_elevation_deg=40,
        background="wood",
        distractors=("hand",),
        exif_orientation=1,
        glare=0.0,
    ),
    dict(
        tilt_deg=48,
        azimuth_deg=90,
        players=3,
        stage="end",
        kelvin=6400,
        glare=0.6,
        background="cloth",
        distractors=("cup",),
        exif_orientation=6,
    ),
    dict(
        tilt_deg=30,
        azimuth_deg=180,
        players=4,
        stage="end",
        kelvin=4500,
        shadow=0.55,
        light_elevation_deg=35,
        background="tiles",
        distractors=("dice",),
        exif_orientation=3,
        glare=0.0,
    ),
    dict(
        tilt_deg=45,
        azimuth_deg=270,
        players=2,
        stage="mid",
        kelvin=3000,
        background="plain",
        distractors=("hand", "cup"),
        exif_orientation=8,
        glare=0.0,
    ),
    dict(
        tilt_deg=15,
        azimuth_deg=30,
        players=3,
        stage="late",
        kelvin=5200,
        background="wood",
        distractors=("dice",),
        exif_orientation=6,
        fmt="heic",
    ),
    dict(
        kind="no_board",
        tilt_deg=25,
        background="cloth",
        distractors=("hand", "cup", "dice"),
        loose_pieces=5,
        exif_orientation=1,
    ),
    dict(
        tilt_deg=50,
        azimuth_deg=0,
        players=4,
        stage="early",
        kelvin=2700,
        shadow=0.6,
        light_elevation_deg=30,
        background="tiles",
        distractors=(),
        exif_orientation=1,
        glare=0.0,
    ),
    dict(
        tilt_deg=5,
        azimuth_deg=225,
        players=2,
        stage="end",
        glare=0.7,
        blur="motion",
        blur_px=8.0,
        kelvin=6000,
        background="plain",
        distractors=(),
        exif_orientation=1,
    ),
    dict(
        tilt_deg=38,
        azimuth_deg=135,
        players=3,
        stage="mid",
        portrait=True,
        kelvin=4000,
        background="wood",
        distractors=("hand", "dice"),
        exif_orientation=1,
        glare=0.0,
    ),
    dict(
        tilt_deg=22,
        azimuth_deg=315,
        players=4,
        stage="late",
        kelvin=6500,
        shadow=0.0,
        background="cloth",
        distractors=("cup",),
        exif_orientation=8,
        glare=0.0,
    ),
    dict(
        tilt_deg=1,
        azimuth_deg=90,
        players=2,
        stage="end",
        kelvin=3500,
        blur="gaussian",
        blur_px=1.5,
        background="plain",
        distractors=(),
        exif_orientation=3,
        glare=0.0,
    ),
    dict(
        tilt_deg=42,
        azimuth_deg=200,
        players=3,
        stage="early",
        kelvin=2700,
        glare=0.5,
        shadow=0.5,
        light_elevation_deg=38,
        background="tiles",
        distractors=("cup", "hand"),
        exif_orientation=1,
    ),
)


def set_seed(set_name: str, index: int) -> int:
    """The seed of photo ``index`` of a set."""
    if set_name not in SET_SEEDS:
        raise ValueError(f"set must be one of {', '.join(SET_SEEDS)}, not {set_name!r}")
    if not 0 <= index < SET_SIZE:
        raise ValueError(f"index {index} is outside 0..{SET_SIZE - 1}")
    return SET_SEEDS[set_name] + index


def mixture(index: int) -> dict[str, Any]:
    """What slot ``index`` of a set holds: 1 in 20 photos has no board, 1 in 32 is HEIC, players cycle."""
    return {
        "kind": "no_board" if index % 20 == 13 else "board",
        "fmt": "heic" if index % 32 == 5 else "jpeg",
        "players": 2 + index % 3,
    }


def render_sample(
    index: int, *, size: tuple[int, int] = SAMPLE_SIZE, quality: int = SAMPLE_QUALITY
) -> RenderedPhoto:
    """Sample photo ``index`` (0..11), its conditions set explicitly by :data:`SAMPLE_SPECS`."""
    spec = dict(SAMPLE_SPECS[index])
    return render_photo(set_seed("samples", index), size=size, quality=quality, set_name="samples", **spec)


def copy_in_set(set_name: str, index: int) -> Copy:
    """The copy photo ``index`` of a set shows: the reference kit but in the copy sets."""
    copies = COPY_SETS.get(set_name)
    return REFERENCE_COPY if copies is None else copies[index % len(copies)]


def render_in_set(
    set_name: str, index: int, *, size: tuple[int, int] = DEFAULT_SIZE, quality: int | None = None
) -> RenderedPhoto:
    """Photo ``index`` of a set as :func:`write_set` renders it."""
    if set_name == "samples":
        return render_sample(index, size=size, quality=quality or SAMPLE_QUALITY)
    seed, copy = set_seed(set_name, index), copy_in_set(set_name, index)
    return render_photo(seed, size=size, quality=quality, set_name=set_name, copy=copy, **mixture(index))


def setup_seed(copy: Copy) -> int:
    """The seed of a copy's setup photo: from its copy set and its place there (else a seed of its own)."""
    for set_name, copies in COPY_SETS.items():
        if copy in copies:
            return SETUP_SEEDS[set_name] + copies.index(copy)
    return SETUP_SEEDS["other"]


def render_copy_setup(
    copy: Copy, *, seed: int | None = None, size: tuple[int, int] = DEFAULT_SIZE, quality: int | None = None
) -> RenderedPhoto:
    """A copy's setup photo with all 4 of its colours, as the copy sets write it (or from ``seed``)."""
    return render_setup(setup_seed(copy) if seed is None else seed, copy, size=size, quality=quality)


def write_setup(
    out_dir: str | Path,
    copy: Copy,
    *,
    seed: int | None = None,
    colours: tuple[str | None, ...] | None = None,
    size: tuple[int, int] | None = None,
    quality: int | None = None,
) -> Path:
    """Write ``setup-<copy>.jpg`` and its truth ``setup-<copy>.json`` into ``out_dir``; the photo's path."""
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    chosen = setup_seed(copy) if seed is None else seed
    photo = render_setup(chosen, copy, colours, size=size or DEFAULT_SIZE, quality=quality)
    return _write(folder, f"setup-{copy.name}", photo)


def _write(folder: Path, stem: str, photo: RenderedPhoto) -> Path:
    path = folder / f"{stem}{photo.suffix}"
    path.write_bytes(photo.data)
    (folder / f"{stem}.json").write_text(json.dumps(photo.truth, indent=1) + "\n", encoding="utf-8")
    return path


def write_set(
    out_dir: str | Path,
    *,
    set_name: str,
    count: int,
    start: int = 0,
    size: tuple[int, int] | None = None,
    quality: int | None = None,
    on_write: Callable[[Path], None] | None = None,
) -> list[Path]:
    """Render photos ``start .. start + count - 1`` of a set into ``out_dir``; the photo paths.

    Each photo ``NAME.jpg`` (or ``.heic``) gets its truth as ``NAME.json``.
    The "samples" set ignores ``start`` and ``count`` and writes its 12.
    A copy set also writes each copy's setup photo ``setup-<copy>.jpg``
    (and ``.json``) before its first photo of that copy.
    ``on_write`` hears of each photo as soon as it is written.
    """
    if set_name not in SET_SEEDS:
        raise ValueError(f"set must be one of {', '.join(SET_SEEDS)}, not {set_name!r}")
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    if set_name == "samples":
        indices = range(len(SAMPLE_SPECS))
        size = size or SAMPLE_SIZE
    else:
        indices = range(start, start + count)
        size = size or DEFAULT_SIZE
    written: list[Path] = []
    set_up: set[str] = set()
    for index in indices:
        copy = copy_in_set(set_name, index)
        if set_name in COPY_SETS and copy.name not in set_up:
            set_up.add(copy.name)
            written.append(
                _write(folder, f"setup-{copy.name}", render_copy_setup(copy, size=size, quality=quality))
            )
            if on_write is not None:
                on_write(written[-1])
        photo = render_in_set(set_name, index, size=size, quality=quality)
        written.append(_write(folder, f"{set_name}-{index:04d}", photo))
        if on_write is not None:
            on_write(written[-1])
    return written
