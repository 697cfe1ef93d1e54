"""Procedural surfaces: smooth noise, wood grain, and the tables the board lies on.

Every texture is made in millimetres of its own surface at a chosen number of
pixels a millimetre, so the caller can warp it into the photo with the
camera's homography and keep the perspective right.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
U8 = npt.NDArray[np.uint8]
BGR = tuple[float, float, float]

BACKGROUNDS: tuple[str, ...] = ("wood", "cloth", "plain", "tiles")


def hex_bgr(code: str) -> BGR:
    """``"#RRGGBB"`` as an OpenCV (blue, green, red) triple."""
    value = int(code.lstrip("#"), 16)
    return (float(value & 255), float(value >> 8 & 255), float(value >> 16))


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cell: tuple[float, float]) -> F32:
    """Zero-mean, unit-ish noise whose features are ``cell`` = (along x, along y) pixels wide.

    Random values on a coarse lattice, enlarged by cubic interpolation: cheap,
    and stretched lattices give the streaks of wood and woven cloth.
    """
    h, w = shape
    cx, cy = max(cell[0], 1.0), max(cell[1], 1.0)  # finer than a pixel is a pixel
    gw, gh = math.ceil(w / cx) + 3, math.ceil(h / cy) + 3
    coarse = rng.standard_normal((gh, gw)).astype(np.float32)
    big = cv2.resize(coarse, (max(w, round(gw * cx)), max(h, round(gh * cy))), interpolation=cv2.INTER_CUBIC)
    return np.asarray(big[:h, :w], dtype=np.float32)


def fractal_noise(rng: np.random.Generator, shape: tuple[int, int], scales: tuple[float, ...]) -> F32:
    """Noise over several feature sizes, each octave weaker as it gets finer."""
    total = np.zeros(shape, np.float32)
    for n, size in enumerate(scales):
        total += smooth_noise(rng, shape, (size, size)) * (0.55**n)
    return total


def tint(shape: tuple[int, int], colour: BGR, shade: F32) -> F32:
    """A colour times a per-pixel brightness, as an (h, w, 3) float image."""
    return shade[..., None] * np.asarray(colour, np.float32)[None, None, :]


def f32(image: npt.ArrayLike) -> F32:
    """As float32: numpy's stubs widen float32 arithmetic to float64, the arrays stay float32."""
    return np.asarray(image, dtype=np.float32)


def to_u8(image: F32 | npt.NDArray[np.float64]) -> U8:
    return np.asarray(np.clip(image + 0.5, 0, 255), dtype=np.uint8)


def wood(
    rng: np.random.Generator,
    size: tuple[int, int],
    px_per_mm: float,
    light: BGR,
    dark: BGR,
    *,
    ring_mm: float = 2.5,
    contrast: float = 0.6,
) -> F32:
    """Wood grain running along x: wavy growth rings and fine fibres, as (h, w, 3) floats."""
    w, h = size
    s = px_per_mm
    yy = np.arange(h, dtype=np.float32)[:, None] + np.zeros((1, w), np.float32)
    # Rings bend slowly along the board and a little across it.
    bend = smooth_noise(rng, (h, w), (60 * s, 18 * s)) * (3.0 * s) + smooth_noise(
        rng, (h, w), (14 * s, 6 * s)
    ) * (0.6 * s)
    phase = (yy + bend) / (ring_mm * s)
    rings = 0.5 + 0.5 * np.sin(2 * np.pi * phase)
    rings = rings**3  # late wood: thin dark lines on wide light bands
    fibres = smooth_noise(rng, (h, w), (9 * s, 0.35 * s + 0.5)) * 0.18
    mix = np.clip(contrast * rings + fibres + 0.15, 0, 1)
    lo, hi = np.asarray(light, np.float32), np.asarray(dark, np.float32)
    return np.asarray(lo * (1 - mix[..., None]) + hi * mix[..., None], dtype=np.float32)


@dataclass(frozen=True)
class TableTexture:
    """A table top, ``image`` covering ``origin`` + (w, h) / ``px_per_mm`` on the table plane."""

    image: U8
    origin: tuple[float, float]
    px_per_mm: float
    description: dict[str, Any]


_WOODS: dict[str, tuple[str, str]] = {
    "oak": ("#C49A6C", "#8A6240"),
    "walnut": ("#6B4A33", "#3A2619"),
    "ebony": ("#3A2E28", "#1C1512"),
    "whitewashed": ("#D8CDBB", "#A89882"),
    "cherry": ("#9A5A3C", "#5E301E"),
}
_CLOTHS: dict[str, str] = {
    "green felt": "#2E6B3E",
    "navy": "#1F2D4F",
    "charcoal": "#36383B",
    "burgundy": "#6A1F2B",
    "linen": "#D6CCB8",
    "grey": "#8C8F93",
}
_PLAINS: dict[str, str] = {
    "white": "#E9E7E2",
    "light grey": "#BFC1C2",
    "beige": "#CDB892",
    "black": "#1E1E20",
    "slate": "#4A5058",
    "sage": "#8FA38A",
}
_TILES: dict[str, tuple[str, str]] = {
    "gingham red": ("#B8333A", "#EDE6DC"),
    "gingham blue": ("#3C5E9C", "#EAE8E2"),
    "tiles white": ("#E5E2DA", "#8E8A82"),
    "tiles terracotta": ("#B0643F", "#6B4A38"),
    "checker": ("#2B2B2B", "#D9D4C8"),
}


def table(
    rng: np.random.Generator, kind: str, origin: tuple[float, float], size_mm: tuple[float, float], px: float
) -> TableTexture:
    """A table top of ``kind`` (one of :data:`BACKGROUNDS`) over the given patch of the table plane."""
    w, h = max(8, round(size_mm[0] * px)), max(8, round(size_mm[1] * px))
    if kind == "wood":
        name = str(rng.choice(sorted(_WOODS)))
        light, dark = (hex_bgr(c) for c in _WOODS[name])
        image = _planks(rng, (w, h), px, light, dark)
    elif kind == "cloth":
        name = str(rng.choice(sorted(_CLOTHS)))
        image = _cloth(rng, (w, h), px, hex_bgr(_CLOTHS[name]))
    elif kind == "plain":
        name = str(rng.choice(sorted(_PLAINS)))
        image = _plain(rng, (w, h), px, hex_bgr(_PLAINS[name]))
    elif kind == "tiles":
        name = str(rng.choice(sorted(_TILES)))
        first, second = (hex_bgr(c) for c in _TILES[name])
        image = _tiles(rng, (w, h), px, first, second, gingham=name.startswith("gingham"))
    else:
        raise ValueError(f"background must be one of {', '.join(BACKGROUNDS)}, not {kind!r}")
    return TableTexture(to_u8(image), origin, px, {"kind": kind, "name": name})


def _planks(rng: np.random.Generator, size: tuple[int, int], px: float, light: BGR, dark: BGR) -> F32:
    """Parallel planks of one wood, each its own grain and shade, with dark seams."""
    w, h = size
    # Long wood textures are built sideways when the planks run along y.
    along_x = bool(rng.random() < 0.5)
    tw, th = (w, h) if along_x else (h, w)
    plank = rng.uniform(90, 180) * px
    grain = wood(rng, (tw, th), px, light, dark, ring_mm=rng.uniform(2.0, 6.0), contrast=0.45)
    rows = np.arange(th, dtype=np.float32)
    index = np.floor(rows / plank).astype(np.int32)
    shades = rng.uniform(0.85, 1.12, size=int(index.max()) + 1).astype(np.float32)
    grain *= shades[index][:, None, None]
    seam = np.minimum(rows % plank, plank - rows % plank) < max(0.8 * px, 1.0)
    grain[seam] *= 0.45
    image = grain if along_x else np.ascontiguousarray(grain.transpose(1, 0, 2))
    return np.asarray(image, dtype=np.float32)


def _cloth(rng: np.random.Generator, size: tuple[int, int], px: float, colour: BGR) -> F32:
    """Felt or cloth: soft mottling, a fine weave and a little fuzz."""
    w, h = size
    shade = 1 + 0.03 * fractal_noise(rng, (h, w), (80 * px, 25 * px, 6 * px))
    weave = smooth_noise(rng, (h, w), (1.2 * px + 1, 0.4 * px + 1)) + smooth_noise(
        rng, (h, w), (0.4 * px + 1, 1.2 * px + 1)
    )
    shade += 0.05 * weave
    return tint((h, w), colour, shade)


def _plain(rng: np.random.Generator, size: tuple[int, int], px: float, colour: BGR) -> F32:
    """A painted or laminated surface: a gentle gradient and faint blotches."""
    w, h = size
    ramp = np.linspace(-1, 1, w, dtype=np.float32)[None, :] * rng.uniform(-0.06, 0.06)
    shade = 1 + ramp + 0.025 * fractal_noise(rng, (h, w), (120 * px, 30 * px))
    return tint((h, w), colour, shade)


def _tiles(
    rng: np.random.Generator, size: tuple[int, int], px: float, first: BGR, second: BGR, *, gingham: bool
) -> F32:
    """A gingham cloth (stripes crossing, their overlap darker) or square tiles with grout lines."""
    w, h = size
    period = rng.uniform(18, 35) * px if gingham else rng.uniform(80, 160) * px
    xx = (np.arange(w, dtype=np.float32) + rng.uniform(0, period)) % period
    yy = (np.arange(h, dtype=np.float32) + rng.uniform(0, period)) % period
    if gingham:
        bx = (xx < period / 2).astype(np.float32)[None, :]
        by = (yy < period / 2).astype(np.float32)[:, None]
        strength = np.clip(0.5 * bx + 0.5 * by, 0, 1)
        base = np.asarray(second, np.float32)
        ink = np.asarray(first, np.float32)
        image = base * (1 - strength[..., None]) + ink * strength[..., None]
        image *= (1 + 0.05 * smooth_noise(rng, (h, w), (0.8 * px + 1, 0.8 * px + 1)))[..., None]
        return np.asarray(image, dtype=np.float32)
    grout = max(2.0 * px, 1.5)
    lines = (np.minimum(xx, period - xx)[None, :] < grout / 2) | (
        np.minimum(yy, period - yy)[:, None] < grout / 2
    )
    shade = 1 + 0.04 * fractal_noise(rng, (h, w), (60 * px, 8 * px))
    image = tint((h, w), first, shade)
    image[lines] = np.asarray(second, np.float32)
    return image
