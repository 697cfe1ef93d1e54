"""Train the gold numeral reader (:mod:`vision.read.numerals`): synthetic gold tokens, fonts, the network.

Apart from the product's path: nothing here runs when a photo is read. ``python -m
vision.train.numerals --build`` renders the training set from the fonts found on the machine, trains
the network and writes ``vision/data/numerals.npz`` (10 minutes on 2 cores); the file's
``report`` holds what the build measured on the held-out faces.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.read.numerals import (
    DISC_RADIUS_MM,
    MODEL_PATH,
    VALUES,
    ByteImage,
    FloatImage,
    Network,
    extract_glyph,
    glyph_features,
)

# ---------------------------------------------------------------------------------------------
# Synthetic gold tokens (training, evaluation, tests)
# ---------------------------------------------------------------------------------------------

#: Reference gold, BGR (sRGB #D4A62A).
GOLD_BGR = (42.0, 166.0, 212.0)
#: Height in pixels at which glyph alphas are kept before they are scaled onto a token.
GLYPH_SOURCE_HEIGHT = 128


def glyph_alpha_from_font(font_path: str | Path, digit: int, size: int = 160) -> FloatImage | None:
    """The alpha (0..1) of one digit of a TrueType/OpenType font, cut to its ink, ``GLYPH_SOURCE_HEIGHT``
    pixels tall.

    ``None`` when the font cannot be read or the digit leaves no ink.
    """
    from PIL import Image, ImageDraw, ImageFont

    try:
        font = ImageFont.truetype(str(font_path), size)
        canvas = Image.new("L", (size * 3, size * 3), 0)
        ImageDraw.Draw(canvas).text((size, size // 2), str(digit), fill=255, font=font)
    except (OSError, ValueError):
        return None
    alpha = np.asarray(canvas, dtype=np.float32) / 255.0
    return _tight_alpha(alpha)


def _tight_alpha(alpha: FloatImage) -> FloatImage | None:
    """Cut an alpha image to its ink and scale it to ``GLYPH_SOURCE_HEIGHT`` rows (aspect kept)."""
    ys, xs = np.nonzero(alpha > 0.2)
    if len(xs) < 20:
        return None
    part = alpha[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    h, w = part.shape
    if h < 8:
        return None
    scale = GLYPH_SOURCE_HEIGHT / h
    nw = max(1, round(w * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    out = cv2.resize(part, (nw, GLYPH_SOURCE_HEIGHT), interpolation=interp)
    return np.asarray(np.clip(out, 0.0, 1.0), dtype=np.float32)


def _arc(
    cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 24
) -> list[tuple[float, float]]:
    """Points of an elliptic arc, angles in degrees with y pointing down (90 is the bottom)."""
    t = np.radians(np.linspace(a0, a1, n))
    return [(cx + rx * math.cos(a), cy + ry * math.sin(a)) for a in t]


def _stroke_designs() -> dict[int, list[list[list[tuple[float, float]]]]]:
    """Skeletons of the training stroke font: per digit, designs made of polylines in a unit-height box."""
    return {
        3: [
            [_arc(0.30, 0.26, 0.26, 0.24, 200, 450), _arc(0.31, 0.74, 0.29, 0.25, 270, 520)],
            [[(0.05, 0.0), (0.55, 0.0), (0.25, 0.42)], _arc(0.30, 0.70, 0.28, 0.29, 250, 520)],
        ],
        4: [
            [[(0.45, 1.0), (0.45, 0.0), (0.0, 0.7), (0.62, 0.7)]],
            [[(0.10, 0.0), (0.02, 0.65), (0.62, 0.65)], [(0.45, 0.3), (0.45, 1.0)]],
        ],
        5: [
            [[(0.55, 0.0), (0.12, 0.0), (0.08, 0.45)], _arc(0.30, 0.68, 0.29, 0.30, 220, 520)],
            [[(0.55, 0.0), (0.10, 0.0), (0.06, 0.50), (0.30, 0.40)], _arc(0.30, 0.70, 0.28, 0.28, 250, 530)],
        ],
        6: [
            [_arc(0.31, 0.70, 0.29, 0.29, 0, 360), _arc(0.58, 0.70, 0.56, 0.68, 255, 180)],
            [_arc(0.31, 0.70, 0.29, 0.29, 0, 360), [(0.50, 0.0), (0.06, 0.62)]],
        ],
        7: [
            [[(0.0, 0.0), (0.6, 0.0), (0.2, 1.0)]],
            [[(0.0, 0.0), (0.6, 0.0), (0.40, 0.45), (0.25, 1.0)]],
            [[(0.0, 0.0), (0.6, 0.0), (0.2, 1.0)], [(0.22, 0.5), (0.56, 0.5)]],
        ],
    }


def stroke_glyph_alpha(digit: int, rng: np.random.Generator) -> FloatImage:
    """A digit of a randomly varied stroke ("Hershey-like") font: jittered skeleton, pen width and slant."""
    designs = _stroke_designs()[digit]
    design = designs[int(rng.integers(len(designs)))]
    height = 200.0
    slant = rng.normal(0.0, 0.08)
    widen = rng.uniform(0.8, 1.25)
    pen = max(2, round(height * rng.uniform(0.05, 0.16)))
    pad = pen + 40
    canvas = np.zeros((int(height) + 2 * pad, int(height) + 2 * pad), np.uint8)
    for line in design:
        pts = np.array(line, dtype=np.float64)
        pts = pts + rng.normal(0.0, 0.012, size=pts.shape)
        x = (pts[:, 0] * widen + (1.0 - pts[:, 1]) * slant) * height + pad
        y = pts[:, 1] * height + pad
        poly = np.round(np.stack([x, y], axis=1) * 16).astype(np.int32)
        cv2.polylines(canvas, [poly], False, 255, pen, cv2.LINE_AA, shift=4)
    alpha = _tight_alpha(canvas.astype(np.float32) / 255.0)
    assert alpha is not None
    return alpha


@dataclass
class Backgrounds:
    """Board art to put under synthetic tokens: the reference board if found, else texture."""

    art: ByteImage | None = None
    art_px_per_mm: float = 5.0

    @staticmethod
    def find() -> Backgrounds:
        """Load the reference board art from the usual places, if any is there."""
        here = Path(__file__).resolve().parents[2]
        for candidate in (
            here / "vision" / "data" / "reference-board.jpg",
            here.parent / "shared" / "board" / "reference-board.png",
            Path("/work/shared/board/reference-board.png"),
        ):
            if candidate.exists():
                image = cv2.imread(str(candidate), cv2.IMREAD_COLOR)
                if image is not None:
                    return Backgrounds(np.asarray(image, dtype=np.uint8), image.shape[1] / 400.0)
        return Backgrounds()

    def patch(self, side_mm: float, px_per_mm: float, rng: np.random.Generator) -> FloatImage:
        """A square of board face ``side_mm`` wide at ``px_per_mm``, float BGR."""
        side = round(side_mm * px_per_mm)
        if self.art is not None and rng.random() < 0.75:
            s = self.art_px_per_mm
            h, w = self.art.shape[:2]
            size = round(side_mm * s)
            x0 = int(rng.integers(round(20 * s), max(round(20 * s) + 1, w - round(20 * s) - size)))
            y0 = int(rng.integers(round(20 * s), max(round(20 * s) + 1, h - round(20 * s) - size)))
            part = self.art[y0 : y0 + size, x0 : x0 + size]
            part = np.rot90(part, int(rng.integers(4)))
            interp = cv2.INTER_AREA if side < size else cv2.INTER_LINEAR
            return np.asarray(
                cv2.resize(np.ascontiguousarray(part), (side, side), interpolation=interp), np.float32
            )
        palette = np.array(
            [[60, 120, 70], [50, 100, 90], [70, 150, 190], [90, 140, 160], [60, 90, 120], [110, 120, 125]],
            np.float32,
        )
        coarse = palette[rng.integers(len(palette), size=(5, 5))] * rng.uniform(0.7, 1.2, size=(5, 5, 1))
        image = cv2.resize(coarse.astype(np.float32), (side, side), interpolation=cv2.INTER_CUBIC)
        fine = cv2.GaussianBlur(rng.normal(0, 18, (side, side)).astype(np.float32), (0, 0), 0.5 * px_per_mm)
        return np.asarray(image + fine[:, :, None], np.float32)


def _light_gains(rng: np.random.Generator) -> NDArray[np.float32]:
    """BGR gains of a light between warm (2700 K, not white balanced) and cold (6500 K)."""
    t = rng.uniform(-1.0, 1.0)
    warm = np.array([0.50, 0.80, 1.0])
    cold = np.array([1.08, 0.97, 0.86])
    base = np.array([1.0, 1.0, 1.0])
    gains = base + (warm - base) * max(-t, 0.0) + (cold - base) * max(t, 0.0)
    gains = gains * rng.uniform(0.93, 1.07, size=3)
    return np.asarray(gains / gains.max(), dtype=np.float32)


def render_token_crop(
    alpha: FloatImage | None,
    px_per_mm: float,
    rng: np.random.Generator,
    backgrounds: Backgrounds | None = None,
    truth: dict[str, float] | None = None,
) -> ByteImage:
    """A synthetic top-down crop of a gold cell, as the scanner would hand it over.

    ``alpha`` is the numeral's ink (as from :func:`glyph_alpha_from_font`), ``None`` for a blank
    disc. Everything else is drawn at random: board art, grid lines, disc offset, size, rim,
    shadow, the numeral's size, rotation, weight and colour, the light's colour, shading, glare,
    a small residual skew, blur, noise and JPEG compression. When ``truth`` is given, the disc
    centre's offset from the crop centre (mm) is written into it as ``dx`` and ``dy``.
    """
    bgs = backgrounds if backgrounds is not None else Backgrounds()
    s = px_per_mm
    side_mm = 45.0 + 2.0 * rng.uniform(2.0, 8.0)
    side = round(side_mm * s)
    image = bgs.patch(side_mm, s, rng)
    c = 0.5 * side - 0.5

    def px(x_mm: float, y_mm: float) -> tuple[int, int]:
        return (round((c + x_mm * s) * 16), round((c + y_mm * s) * 16))

    def rad(r_mm: float) -> int:
        return max(1, round(r_mm * s * 16))

    # Grid lines on the cell's edges.
    line_colour = tuple(float(v) for v in rng.uniform(15, 60, size=3))
    width = max(1, round(1.5 * s * rng.uniform(0.7, 1.3)))
    for sign in (-1.0, 1.0):
        e = 22.5 * sign + rng.normal(0, 0.8)
        cv2.line(image, px(e, -40), px(e, 40), line_colour, width, cv2.LINE_AA, 4)
        e = 22.5 * sign + rng.normal(0, 0.8)
        cv2.line(image, px(-40, e), px(40, e), line_colour, width, cv2.LINE_AA, 4)
    # A palisade on an edge, its top leaning in.
    if rng.random() < 0.1:
        inward = rng.uniform(2.5, 9.0)
        along = rng.uniform(-5, 5)
        wood = np.array([90, 131, 181], np.float32) * rng.uniform(0.7, 1.1)
        box = np.array(
            [
                [-20 + along, -22.5 - 2.5],
                [20 + along, -22.5 - 2.5],
                [20 + along, -22.5 + inward],
                [-20 + along, -22.5 + inward],
            ]
        )
        box = box @ np.array([[0, 1], [-1, 0]]) ** int(rng.integers(4)) if rng.random() < 0.5 else box
        pts = np.array([px(x, y) for x, y in box], np.int32)
        cv2.fillPoly(image, [pts], tuple(float(v) for v in wood), cv2.LINE_AA, 4)

    # The token: its shadow, its side (seen when the photo is tilted), its face and rim.
    radius = DISC_RADIUS_MM * rng.uniform(0.97, 1.03)
    offset_r = 4.5 * math.sqrt(rng.random())
    offset_a = rng.uniform(0, 2 * math.pi)
    dx, dy = offset_r * math.cos(offset_a), offset_r * math.sin(offset_a)
    if truth is not None:
        truth.update(dx=dx, dy=dy)
    shadow = np.zeros((side, side), np.float32)
    sa = rng.uniform(0, 2 * math.pi)
    sd = rng.uniform(0.3, 2.0)
    cv2.circle(
        shadow, px(dx + sd * math.cos(sa), dy + sd * math.sin(sa)), rad(radius), 1.0, -1, cv2.LINE_AA, 4
    )
    shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), max(0.5, s * rng.uniform(0.3, 1.2))), np.float32)
    image *= (1.0 - rng.uniform(0.2, 0.5) * shadow)[:, :, None]

    gold = np.array(GOLD_BGR, np.float32)
    hsv = cv2.cvtColor((gold / 255.0)[None, None, :], cv2.COLOR_BGR2HSV)[0, 0]
    hsv[0] = (hsv[0] + rng.normal(0, 5)) % 360
    hsv[1] = np.clip(hsv[1] * rng.uniform(0.7, 1.1), 0.2, 1.0)
    hsv[2] = np.clip(hsv[2] * rng.uniform(0.8, 1.1), 0.3, 1.0)
    gold = cv2.cvtColor(hsv[None, None, :], cv2.COLOR_HSV2BGR)[0, 0] * 255.0
    face = np.zeros((side, side), np.float32)
    cv2.circle(face, px(dx, dy), rad(radius), 1.0, -1, cv2.LINE_AA, 4)
    tilt = rng.uniform(0.0, 2.4)
    ta = rng.uniform(0, 2 * math.pi)
    wall = np.zeros((side, side), np.float32)
    cv2.circle(
        wall, px(dx + tilt * math.cos(ta), dy + tilt * math.sin(ta)), rad(radius), 1.0, -1, cv2.LINE_AA, 4
    )
    wall = np.clip(wall - face, 0.0, 1.0)
    image = image * (1 - wall[:, :, None]) + (gold * rng.uniform(0.35, 0.7)) * wall[:, :, None]

    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    rx, ry = (xx - c) / s - dx, (yy - c) / s - dy
    dist = np.sqrt(rx * rx + ry * ry)
    ga = rng.uniform(0, 2 * math.pi)
    shade = 1.0 + rng.uniform(-0.15, 0.15) * (rx * math.cos(ga) + ry * math.sin(ga)) / radius
    shade += rng.uniform(-0.1, 0.1) * (dist / radius) ** 2
    texture = cv2.GaussianBlur(rng.normal(0, 1, (side, side)).astype(np.float32), (0, 0), 0.4 * s)
    surface = gold[None, None, :] * (shade + 0.04 * texture)[:, :, None]
    rim_w = rng.uniform(0.6, 2.5)
    rim_dark = rng.uniform(0.35, 0.8) if rng.random() < 0.85 else rng.uniform(0.85, 1.0)
    rim = np.clip((dist - (radius - rim_w)) * s + 0.5, 0.0, 1.0)
    surface *= (1.0 - (1.0 - rim_dark) * rim)[:, :, None]
    if rng.random() < 0.3 and radius - rim_w - 0.3 > 12.8:
        ring_r = rng.uniform(12.7, radius - rim_w - 0.3)
        ring = np.clip(0.5 * rng.uniform(0.3, 0.7) * s - np.abs(dist - ring_r) * s + 0.5, 0.0, 1.0)
        surface *= (1.0 - rng.uniform(0.3, 0.6) * ring)[:, :, None]

    if alpha is not None:
        a = alpha
        k = int(rng.integers(-3, 5))
        if k != 0:
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(k) + 1, 2 * abs(k) + 1))
            thicker = cv2.dilate(a, kernel) if k > 0 else cv2.erode(a, kernel)
            if float(thicker.sum()) > 0.3 * float(a.sum()):
                a = np.asarray(thicker, np.float32)
        height_mm = rng.uniform(10.0, 13.5)
        scale = height_mm * s / a.shape[0]
        a = np.asarray(
            cv2.resize(a, None, fx=scale * 2, fy=scale * 2, interpolation=cv2.INTER_AREA), np.float32
        )
        angle = rng.uniform(-12.0, 12.0)
        gx0 = c + (dx + rng.normal(0, 0.5)) * s
        gy0 = c + (dy + rng.normal(0, 0.5)) * s
        m = cv2.getRotationMatrix2D((0.5 * a.shape[1] - 0.5, 0.5 * a.shape[0] - 0.5), angle, 0.5)
        m[0, 2] += gx0 - (0.5 * a.shape[1] - 0.5)
        m[1, 2] += gy0 - (0.5 * a.shape[0] - 0.5)
        numeral = cv2.warpAffine(a, m, (side, side), flags=cv2.INTER_LINEAR)
        ink = np.array([rng.uniform(5, 50), rng.uniform(5, 55), rng.uniform(5, 70)], np.float32)
        opacity = rng.uniform(0.8, 1.0)
        na = numeral[:, :, None] * opacity
        surface = surface * (1 - na) + ink[None, None, :] * na
    image = image * (1 - face[:, :, None]) + surface * face[:, :, None]

    # Light: colour, level, gradient, a cast shadow, glare.
    image *= _light_gains(rng)[None, None, :] * rng.uniform(0.55, 1.25)
    la = rng.uniform(0, 2 * math.pi)
    image *= (1.0 + rng.uniform(-0.25, 0.25) * ((xx - c) * math.cos(la) + (yy - c) * math.sin(la)) / side)[
        :, :, None
    ]
    if rng.random() < 0.35:
        sa = rng.uniform(0, 2 * math.pi)
        edge = ((xx - c) * math.cos(sa) + (yy - c) * math.sin(sa)) / s - rng.uniform(-15, 15)
        soft = rng.uniform(0.5, 6.0)
        cast = 1.0 / (1.0 + np.exp(np.clip(-edge / soft, -50.0, 50.0)))
        image *= (1.0 - rng.uniform(0.2, 0.55) * cast)[:, :, None]
    if rng.random() < 0.35:
        gx0 = c + rng.uniform(-14, 14) * s
        gy0 = c + rng.uniform(-14, 14) * s
        sx, sy = rng.uniform(1.5, 9.0, size=2) * s
        blob = np.exp(-0.5 * (((xx - gx0) / sx) ** 2 + ((yy - gy0) / sy) ** 2))
        image += (255.0 * rng.uniform(0.2, 1.1) * blob)[:, :, None]

    # Residual skew of the scanner's warp, optics, sensor, compression.
    m = np.eye(2, 3, dtype=np.float64)
    m[:, :2] = m[:, :2] + rng.normal(0, 0.02, size=(2, 2))
    m[:, 2] = (np.eye(2) - m[:, :2]) @ np.array([c, c]) + rng.normal(0, 0.4 * s, size=2)
    image = np.asarray(
        cv2.warpAffine(image, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT),
        np.float32,
    )
    blur = rng.uniform(0.3, 1.3)
    image = np.asarray(cv2.GaussianBlur(image, (0, 0), blur), np.float32)
    if rng.random() < 0.15:
        length = int(rng.integers(2, max(3, round(0.8 * s)) + 2))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        kernel = np.asarray(kernel / max(float(kernel.sum()), 1e-6), np.float32)
        image = np.asarray(cv2.filter2D(image, -1, kernel), np.float32)
    image += rng.normal(0, rng.uniform(1.0, 8.0), size=image.shape).astype(np.float32)
    out = np.clip(image, 0, 255).astype(np.uint8)
    if rng.random() < 0.8:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 96))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            out = np.asarray(decoded, np.uint8)
    return np.asarray(out, dtype=np.uint8)


# ---------------------------------------------------------------------------------------------
# Fonts for training
# ---------------------------------------------------------------------------------------------

FONT_DIRS = (
    Path("/usr/share/fonts"),
    Path("/usr/local/share/fonts"),
    Path("/usr/share/texmf/fonts/opentype"),
    Path.home() / ".fonts",
)
#: Families never trained on: the tests read numerals in them as fonts the model has not seen.
TEST_FAMILIES = ("dejavu serif", "dejavu sans mono", "dejavu math", "hack", "bitstream vera", "verana")
_STYLE_WORDS = {
    "bold", "book", "light", "extralight", "thin", "medium", "semibold", "black", "heavy", "regular",
    "italic", "oblique", "condensed", "narrow", "display", "ui", "demi", "extra", "ultra", "semi",
    "extrabold", "ultralight", "semicondensed", "extracondensed", "text", "caption", "mono",
}  # fmt: skip


@dataclass
class FontFace:
    """One font file whose digits 3..7 render, with the design group it belongs to."""

    path: str
    family: str
    group: str = ""
    signature: NDArray[np.float32] = field(default_factory=lambda: np.zeros(0, np.float32))


def _family_key(family: str) -> str:
    words = [w for w in family.lower().replace("-", " ").split() if w not in _STYLE_WORDS]
    return " ".join(words) or family.lower()


def _signature(alphas: Sequence[FloatImage]) -> NDArray[np.float32]:
    """The five digits, each fitted by height into a 20 x 20 square, as one vector."""
    parts = []
    for a in alphas:
        h, w = a.shape
        nw = min(20, max(1, round(w * 20 / h)))
        tile = np.zeros((20, 20), np.float32)
        x0 = (20 - nw) // 2
        tile[:, x0 : x0 + nw] = cv2.resize(a, (nw, 20), interpolation=cv2.INTER_AREA)
        parts.append(tile.ravel())
    return np.concatenate(parts)


def discover_fonts(dirs: Iterable[Path] = FONT_DIRS) -> list[FontFace]:
    """Fonts on this machine that draw 3..7 as five distinct glyphs, exact duplicates dropped.

    Faces whose digits are near copies of each other's (Arial clones, say) share a ``group`` so a
    split by group keeps them on one side.
    """
    from PIL import ImageFont

    paths = sorted(
        {str(p) for d in dirs if d.exists() for p in d.rglob("*") if p.suffix.lower() in (".ttf", ".otf")}
    )
    faces: list[FontFace] = []
    for path in paths:
        try:
            family = str(ImageFont.truetype(path, 20).getname()[0] or Path(path).stem)
        except OSError:
            continue
        alphas = [glyph_alpha_from_font(path, d) for d in VALUES]
        present = [a for a in alphas if a is not None]
        if len(present) != len(VALUES) or any(x in family.lower() for x in EXCLUDED_FAMILIES):
            continue
        sig = _signature(present)
        tiles = sig.reshape(len(VALUES), -1)
        gaps = [np.abs(tiles[i] - tiles[j]).mean() for i in range(5) for j in range(i + 1, 5)]
        if min(gaps) < 0.05:  # a missing-glyph box or a symbol font
            continue
        faces.append(FontFace(path, family, _family_key(family), sig))
    # Drop exact duplicates; merge the groups of near copies (union-find over groups).
    sigs = np.stack([f.signature for f in faces]) if faces else np.zeros((0, 1), np.float32)
    parent: dict[str, str] = {f.group: f.group for f in faces}

    def root(g: str) -> str:
        while parent[g] != g:
            parent[g] = parent[parent[g]]
            g = parent[g]
        return g

    keep: list[FontFace] = []
    kept_idx: list[int] = []
    for i, face in enumerate(faces):
        if kept_idx:
            d = np.abs(sigs[kept_idx] - sigs[i]).mean(axis=1)
            if float(d.min()) < 0.01:
                continue
            for k in np.flatnonzero(d < 0.03):
                a, b = root(keep[int(k)].group), root(face.group)
                if a != b:
                    # A test family absorbs its clones; otherwise the first group seen.
                    if _is_test(b) and not _is_test(a):
                        a, b = b, a
                    parent[b] = a
        keep.append(face)
        kept_idx.append(i)
    for face in keep:
        face.group = root(face.group)
    return keep


#: Fonts whose "digits" are not digits.
EXCLUDED_FAMILIES = ("d050000l", "dingbat", "music")


def _is_test(group: str) -> bool:
    return any(group.startswith(t) for t in TEST_FAMILIES)


def _split_of(group: str) -> str:
    """``test`` (never trained on), ``eval`` (held out and reported), ``val`` (tuning) or ``train``."""
    if _is_test(group):
        return "test"
    u = int(hashlib.sha256(group.encode()).hexdigest()[:8], 16) / 2**32
    return "eval" if u < 0.15 else "val" if u < 0.25 else "train"


# ---------------------------------------------------------------------------------------------
# Building the classifier: python -m vision.train.numerals --build
# ---------------------------------------------------------------------------------------------

_BLANK = 0  # the "digit" of a blank disc in a task; its class index is len(VALUES)
_STROKE_FONT = "<stroke>"
_worker_backgrounds: Backgrounds | None = None


@functools.lru_cache(maxsize=64)
def _font_alpha(path: str, digit: int) -> FloatImage | None:
    return glyph_alpha_from_font(path, digit)


def _sample(task: tuple[str, int, int, float]) -> NDArray[np.float32] | None:
    """Render one token and read its features. A task: font path (or stroke font), digit, seed, px_per_mm."""
    global _worker_backgrounds
    if _worker_backgrounds is None:
        _worker_backgrounds = Backgrounds.find()
    source, digit, seed, ppm = task
    rng = np.random.default_rng(seed)
    alpha: FloatImage | None = None
    if digit != _BLANK:
        alpha = stroke_glyph_alpha(digit, rng) if source == _STROKE_FONT else _font_alpha(source, digit)
        if alpha is None:
            return None
    crop = render_token_crop(alpha, ppm, rng, _worker_backgrounds)
    glyph, _ = extract_glyph(crop, ppm)
    if glyph is None:
        return None
    return glyph_features(glyph)


def _render_set(
    tasks: list[tuple[str, int, int, float]], workers: int
) -> tuple[NDArray[np.float32], NDArray[np.int64], NDArray[np.float64]]:
    """Features, labels (index into VALUES, 5 for blank) and px_per_mm of the tasks that gave a glyph."""
    import multiprocessing

    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(_sample, tasks, chunksize=64)
    else:
        results = [_sample(t) for t in tasks]
    keep = [i for i, r in enumerate(results) if r is not None]
    x = np.stack([results[i] for i in keep]).astype(np.float32)  # type: ignore[misc]
    y = np.array(
        [VALUES.index(tasks[i][1]) if tasks[i][1] != _BLANK else len(VALUES) for i in keep], np.int64
    )
    ppm = np.array([tasks[i][3] for i in keep], np.float64)
    return x, y, ppm


def _tasks(
    sources: Sequence[str], per_digit: int, rng: np.random.Generator, ppms: Sequence[float] | None = None
) -> list[tuple[str, int, int, float]]:
    out = []
    for source in sources:
        for digit in VALUES:
            for k in range(per_digit):
                ppm = (
                    ppms[k % len(ppms)] if ppms else float(np.exp(rng.uniform(math.log(1.5), math.log(8.0))))
                )
                out.append((source, digit, int(rng.integers(2**31)), ppm))
    return out


def _blank_tasks(n: int, rng: np.random.Generator) -> list[tuple[str, int, int, float]]:
    return [("", _BLANK, int(rng.integers(2**31)), float(np.exp(rng.uniform(0.4, 2.08)))) for _ in range(n)]


def _train_network(
    x: NDArray[np.float32],
    y: NDArray[np.int64],
    x_val: NDArray[np.float32],
    y_val: NDArray[np.int64],
    hidden: int = 128,
    epochs: int = 40,
    seed: int = 0,
    log: Callable[[str], None] = print,
) -> Network:
    """A one-hidden-layer ReLU network trained with Adam on cross-entropy (label smoothing, weight decay).

    Keeps the epoch with the best validation accuracy, then fits the softmax temperature on the
    validation set.
    """
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-3
    xs = (x - mean) / scale
    n_in, n_out = x.shape[1], len(VALUES) + 1
    params = {
        "w1": rng.normal(0, math.sqrt(2.0 / n_in), (n_in, hidden)).astype(np.float32),
        "b1": np.zeros(hidden, np.float32),
        "w2": rng.normal(0, math.sqrt(1.0 / hidden), (hidden, n_out)).astype(np.float32),
        "b2": np.zeros(n_out, np.float32),
    }
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}
    counts = np.bincount(y, minlength=n_out).astype(np.float32)
    class_w = (counts.sum() / (n_out * np.maximum(counts, 1))).astype(np.float32)
    smooth, decay, batch = 0.05, 1e-4, 256
    target_all = np.full((len(y), n_out), smooth / n_out, np.float32)
    target_all[np.arange(len(y)), y] += 1.0 - smooth
    steps_per_epoch = math.ceil(len(y) / batch)
    total, step = epochs * steps_per_epoch, 0
    best: tuple[float, dict[str, NDArray[np.float32]]] = (-1.0, params)
    for epoch in range(epochs):
        order = rng.permutation(len(y))
        for start in range(0, len(y), batch):
            idx = order[start : start + batch]
            xb = xs[idx] * (rng.random((len(idx), n_in)) > 0.1) / 0.9
            h = np.maximum(xb @ params["w1"] + params["b1"], 0.0)
            z = h @ params["w2"] + params["b2"]
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            dz = (p - target_all[idx]) * class_w[y[idx]][:, None] / len(idx)
            grads = {"w2": h.T @ dz, "b2": dz.sum(axis=0)}
            dh = (dz @ params["w2"].T) * (h > 0)
            grads["w1"] = xb.T @ dh
            grads["b1"] = dh.sum(axis=0)
            step += 1
            lr = 2e-3 * 0.5 * (1 + math.cos(math.pi * step / total))
            for k, g in grads.items():
                g = g + decay * params[k] if k.startswith("w") else g
                m, v = moments[k]
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                mh = m / (1 - 0.9**step)
                vh = v / (1 - 0.999**step)
                params[k] = (params[k] - lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        net = Network(mean, scale, params["w1"], params["b1"], params["w2"], params["b2"], 1.0)
        acc = float((net.predict(x_val).argmax(axis=1) == y_val).mean())
        if acc >= best[0]:
            best = (acc, {k: v.copy() for k, v in params.items()})
        if epoch % 5 == 4 or epoch == epochs - 1:
            log(f"  epoch {epoch + 1}: validation accuracy {acc:.3f}")
    w = best[1]
    net = Network(mean, scale, w["w1"], w["b1"], w["w2"], w["b2"], 1.0)
    logits = net.logits(x_val).astype(np.float64)
    best_t, best_nll = 1.0, math.inf
    for t in np.linspace(0.5, 4.0, 36):
        z = logits / t
        z -= z.max(axis=1, keepdims=True)
        nll = float(-(z[np.arange(len(y_val)), y_val] - np.log(np.exp(z).sum(axis=1))).mean())
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    log(f"  best validation accuracy {best[0]:.3f}; temperature {best_t:.2f} (NLL {best_nll:.3f})")
    return Network(mean, scale, w["w1"], w["b1"], w["w2"], w["b2"], best_t)


def _report(
    name: str, net: Network, x: NDArray[np.float32], y: NDArray[np.int64], ppm: NDArray[np.float64]
) -> str:
    probs = net.predict(x)
    p = probs[:, : len(VALUES)] + probs[:, len(VALUES) :] / len(VALUES)
    correct = p.argmax(axis=1) == y
    parts = [f"{name}: {correct.mean():.3f} of {len(y)}"]
    for value in sorted(set(ppm.tolist())):
        sel = ppm == value
        parts.append(f"{value:g} px/mm {correct[sel].mean():.3f}")
    return "; ".join(parts)


def build(
    out: Path = MODEL_PATH, workers: int = 2, seed: int = 20261129, log: Callable[[str], None] = print
) -> str:
    """Render the training set from the fonts on this machine, train, evaluate on held-out fonts, save.

    Returns the evaluation report (also stored in the file).
    """
    t0 = time.time()
    faces = discover_fonts()
    by_split: dict[str, list[str]] = {"train": [], "val": [], "eval": [], "test": []}
    for face in faces:
        by_split[_split_of(face.group)].append(face.path)
    log(f"{len(faces)} font faces: " + ", ".join(f"{k} {len(v)}" for k, v in by_split.items()))
    rng = np.random.default_rng(seed)
    train = _tasks(by_split["train"], 10, rng) + _tasks([_STROKE_FONT], 500, rng) + _blank_tasks(2500, rng)
    val = _tasks(by_split["val"], 6, rng) + _blank_tasks(300, rng)
    x, y, _ = _render_set(train, workers)
    log(f"rendered {len(y)} training samples ({time.time() - t0:.0f} s)")
    xv, yv, _ = _render_set(val, workers)
    net = _train_network(x, y, xv, yv, log=log)
    lines = []
    for split in ("eval", "test"):
        tasks = _tasks(by_split[split], 6, rng, ppms=(2.0, 4.0, 8.0))
        xe, ye, pe = _render_set(tasks, workers)
        lines.append(_report(f"held-out fonts ({split}, {len(by_split[split])} faces)", net, xe, ye, pe))
        log(lines[-1])
    report = "\n".join(lines)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        out,
        mean=net.mean.astype(np.float32),
        scale=net.scale.astype(np.float32),
        w1=net.w1.astype(np.float16),
        b1=net.b1.astype(np.float32),
        w2=net.w2.astype(np.float32),
        b2=net.b2.astype(np.float32),
        temperature=np.float64(net.temperature),
        report=np.array(report),
        train_fonts=np.array(sorted({Path(p).name for p in by_split["train"]})),
    )
    log(f"wrote {out} ({out.stat().st_size / 1024:.0f} KB) in {time.time() - t0:.0f} s")
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m vision.train.numerals --build``: retrain the classifier from the fonts on this machine."""
    parser = argparse.ArgumentParser(prog="python -m vision.train.numerals", description=main.__doc__)
    parser.add_argument("--build", action="store_true", help="render, train, evaluate and write the model")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if not args.build:
        parser.print_help()
        return 2
    build(args.out, args.workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
