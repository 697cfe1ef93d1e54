"""The numerals printed on gold tokens, in a font that changes from photo to photo.

TrueType fonts come from the system's font folder when present (rendered
with Pillow); OpenCV's Hershey stroke fonts are always there, so a machine
without fonts still renders, and the truth names the font actually used.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.worlds.raster.textures import F32, f32

FONT_ROOT = Path("/usr/share/fonts/truetype")
# Name -> file under FONT_ROOT: bold and regular, sans and serif, as a print shop might use.
TRUETYPE: dict[str, str] = {
    "dejavu-sans-bold": "dejavu/DejaVuSans-Bold.ttf",
    "dejavu-sans": "dejavu/DejaVuSans.ttf",
    "dejavu-sans-condensed-bold": "dejavu/DejaVuSansCondensed-Bold.ttf",
    "dejavu-serif-bold": "dejavu/DejaVuSerif-Bold.ttf",
    "dejavu-serif": "dejavu/DejaVuSerif.ttf",
    "dejavu-sans-mono-bold": "dejavu/DejaVuSansMono-Bold.ttf",
    "liberation-sans-bold": "liberation/LiberationSans-Bold.ttf",
    "liberation-serif-bold": "liberation/LiberationSerif-Bold.ttf",
    "freefont-sans-bold": "freefont/FreeSansBold.ttf",
}
# Name -> (OpenCV font face, stroke width relative to the glyph height).
HERSHEY: dict[str, tuple[int, float]] = {
    "hershey-simplex-bold": (cv2.FONT_HERSHEY_SIMPLEX, 0.16),
    "hershey-duplex": (cv2.FONT_HERSHEY_DUPLEX, 0.10),
    "hershey-complex": (cv2.FONT_HERSHEY_COMPLEX, 0.09),
    "hershey-triplex-bold": (cv2.FONT_HERSHEY_TRIPLEX, 0.15),
}
FALLBACK = "hershey-duplex"
_MASTER_PX = 240  # glyphs are drawn once this tall, then scaled to each token


def available_fonts() -> tuple[str, ...]:
    """Every font this machine can render: the TrueType ones found, then the Hershey ones."""
    found = tuple(name for name, rel in TRUETYPE.items() if (FONT_ROOT / rel).is_file())
    return found + tuple(HERSHEY)


def resolve_font(name: str) -> str:
    """The font that will really be used for ``name``: itself, or the fallback when missing."""
    if name in HERSHEY or (name in TRUETYPE and (FONT_ROOT / TRUETYPE[name]).is_file()):
        return name
    if name not in TRUETYPE:
        raise ValueError(f"unknown font {name!r}; fonts: {', '.join(list(TRUETYPE) + list(HERSHEY))}")
    return FALLBACK


@lru_cache(maxsize=64)
def _master(text: str, font: str) -> F32:
    """The glyphs' ink, cropped tight, about ``_MASTER_PX`` tall, as floats in 0..1."""
    size = _MASTER_PX * 2
    if font in HERSHEY:
        face, stroke = HERSHEY[font]
        canvas = np.zeros((size, size), np.uint8)
        scale = cv2.getFontScaleFromHeight(face, _MASTER_PX)
        thickness = max(1, round(stroke * _MASTER_PX))
        (tw, th), _ = cv2.getTextSize(text, face, scale, thickness)
        origin = ((size - tw) // 2, (size + th) // 2)
        cv2.putText(canvas, text, origin, face, scale, 255, thickness, cv2.LINE_AA)
        ink = canvas
    else:
        image = Image.new("L", (size, size), 0)
        typeface = ImageFont.truetype(str(FONT_ROOT / TRUETYPE[font]), round(_MASTER_PX * 1.4))
        ImageDraw.Draw(image).text((size // 2, size // 2), text, fill=255, font=typeface, anchor="mm")
        ink = np.asarray(image)
    rows = np.flatnonzero(ink.max(axis=1) > 24)
    cols = np.flatnonzero(ink.max(axis=0) > 24)
    cropped = f32(ink[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1] / 255)
    cropped.setflags(write=False)
    return cropped


def numeral_mask(text: str, font: str, height_px: float) -> F32:
    """The ink of ``text`` in ``font``, its glyphs ``height_px`` tall, as floats in 0..1."""
    master = _master(text, resolve_font(font))
    scale = max(height_px, 4.0) / master.shape[0]
    size = (max(1, round(master.shape[1] * scale)), max(1, round(master.shape[0] * scale)))
    return np.asarray(cv2.resize(master, size, interpolation=cv2.INTER_AREA), dtype=np.float32)
