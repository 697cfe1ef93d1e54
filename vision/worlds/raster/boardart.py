"""Procedural board faces for copies of the game other than the reference kit.

A face is painted at 5 px/mm on the reference geometry (:mod:`vision.geometry`):
terrain regions in a palette's colours, detail at several scales (trees,
hatched fields, pebbles, flowers, waves, stipple, fine noise) that changes
from cell to cell, paths across it, thin dark grid lines on every cell edge,
and a frame with a title. The scanner finds a calibrated copy by keypoints on
its art and registers it by the phase of its fine detail, so the detail is
dense, sharp and never repeats.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from vision.geometry import BOARD_H_MM, BOARD_W_MM, GRID_H_MM, GRID_LINE_MM, GRID_W_MM, MARGIN_MM, PITCH_MM
from vision.worlds.raster.textures import BGR, F32, U8, f32, fractal_noise, hex_bgr, to_u8

PX_PER_MM = 5.0
ART_SIZE = (round(BOARD_W_MM * PX_PER_MM), round(BOARD_H_MM * PX_PER_MM))  # (2000, 1325), as the reference
STYLES: tuple[str, ...] = ("trees", "hatch", "pebbles", "flowers", "waves", "tufts", "stipple")
# Print runs differ in the title's typeface and spelling; fonts missing here fall back to Hershey.
_TITLE_FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSerif-Bold.ttf",
    "/usr/share/fonts/truetype/vollkorn/Vollkorn-Bold.ttf",
    "/usr/share/fonts/truetype/fonts-oldstandard/OldStandard-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
)
_TITLES = ("ARMADORA", "ARMADÖRA", "Armadöra")
_SHIFT = 3  # fixed-point bits for cv2's sub-pixel drawing


@dataclass(frozen=True)
class Palette:
    """The colours and marks of one style of board art.

    ``terrain`` colours fill the regions, each with its own ``styles`` entry
    (one of :data:`STYLES`) for the marks drawn on it; ``ink`` are the marks'
    accent colours; ``grid`` must be darker than every terrain colour.
    """

    name: str
    terrain: tuple[str, ...]
    styles: tuple[str, ...]
    ink: tuple[str, ...]
    path: str
    grid: str
    frame: str
    ornament: str


PALETTES: dict[str, Palette] = {
    p.name: p
    for p in (
        Palette(
            "sea",
            ("#2F6F9E", "#3F8DB5", "#6DB3C9", "#D9C79A", "#C8B07A", "#8FB7A8"),
            ("waves", "waves", "stipple", "pebbles", "tufts", "flowers"),
            ("#1D4F78", "#E8E2CC", "#A6895A", "#2E6B5E"),
            "#E6D8B0",
            "#0F1E2E",
            "#1B3550",
            "#D8C89A",
        ),
        Palette(
            "snow",
            ("#EEF1F4", "#DDE3EA", "#C9D2DC", "#F7F7F5", "#B8C3CC", "#E4E8E2"),
            ("stipple", "tufts", "pebbles", "hatch", "trees", "flowers"),
            ("#8E9CAA", "#5F7F6A", "#A9B7C4", "#7A8792"),
            "#FFFFFF",
            "#2A3440",
            "#5B6B7C",
            "#EEF2F6",
        ),
        Palette(
            "desert",
            ("#B4563A", "#C97A45", "#D9A066", "#8E3B2B", "#E0B885", "#A8673F"),
            ("hatch", "pebbles", "tufts", "stipple", "waves", "trees"),
            ("#6B2A1C", "#F0D6A8", "#5E6B3A", "#8A4A2A"),
            "#E9CFA0",
            "#2A120C",
            "#4A1E14",
            "#E8C48A",
        ),
        Palette(
            "night",
            ("#1C2B24", "#22352B", "#17222A", "#2B3A2C", "#1E2433", "#2E3B33"),
            ("trees", "trees", "stipple", "hatch", "waves", "flowers"),
            ("#3E5A44", "#0E1712", "#5B6E8A", "#8FA07A"),
            "#3A4A3C",
            "#050707",
            "#0F1413",
            "#8A9A7A",
        ),
        Palette(
            "pastel",
            ("#F2C6C2", "#CDE4C9", "#C8D8EE", "#F3E5B5", "#DCCBEA", "#BFE3E0"),
            ("flowers", "tufts", "waves", "stipple", "pebbles", "hatch"),
            ("#C98A9A", "#7FA98A", "#8EA6CF", "#E0B860"),
            "#FFF6E8",
            "#3A3550",
            "#8C7FA8",
            "#FFF4E0",
        ),
        Palette(
            "autumn",
            ("#A8552A", "#C7843A", "#7A4B2A", "#D8A74E", "#8C6A3A", "#6E5A32"),
            ("trees", "hatch", "trees", "tufts", "pebbles", "stipple"),
            ("#5A2A12", "#E0B060", "#3E3A1E", "#B5451E"),
            "#D9BC8A",
            "#1E120A",
            "#3B2416",
            "#D8B478",
        ),
        Palette(
            "meadow",
            ("#6FA64A", "#8DBA58", "#4E8A3E", "#B7C86A", "#9BB27A", "#5C9A6A"),
            ("tufts", "flowers", "trees", "hatch", "stipple", "pebbles"),
            ("#2F5E2A", "#F4E27A", "#E7EEDB", "#C85A6A"),
            "#D6C08A",
            "#1A2414",
            "#34482A",
            "#E8DCA8",
        ),
        Palette(
            "volcanic",
            ("#2A2727", "#383230", "#4E2A22", "#201F22", "#423C38", "#5A3424"),
            ("flowers", "stipple", "hatch", "pebbles", "stipple", "waves"),
            ("#6A625C", "#C4552A", "#1A1817", "#E08A3A"),
            "#8A3A22",
            "#0A0808",
            "#5A1E14",
            "#D2A070",
        ),
        Palette(
            "lavender",
            ("#9E8CC4", "#B7A6D6", "#8AA07A", "#C9BEDF", "#7E6FA8", "#A8B88E"),
            ("hatch", "flowers", "tufts", "stipple", "hatch", "pebbles"),
            ("#5A4A86", "#E6DDF0", "#4E6A3E", "#D8C26A"),
            "#E2D6B8",
            "#201A30",
            "#3C3258",
            "#E6DCF2",
        ),
        Palette(
            "savanna",
            ("#C9A94E", "#B8903E", "#D9BF6E", "#8E8A44", "#A87A3A", "#C2B47A"),
            ("tufts", "hatch", "trees", "stipple", "pebbles", "flowers"),
            ("#5E5226", "#F0E0A0", "#3E4A22", "#8A4A22"),
            "#E2CDA0",
            "#2A1E0C",
            "#5A4420",
            "#F0DCA0",
        ),
        Palette(
            "tundra",
            ("#8A9688", "#A7AE9A", "#6F7C74", "#C3C4B2", "#7E8A6A", "#9AA4A8"),
            ("stipple", "pebbles", "tufts", "hatch", "trees", "waves"),
            ("#4A5448", "#D8DACA", "#5A6E7A", "#A86A4A"),
            "#BDB8A4",
            "#161C1A",
            "#2E3A36",
            "#C8D0C0",
        ),
        Palette(
            "salt",
            ("#F6F2EA", "#ECE6DA", "#FBFAF6", "#E2DCCE", "#F0EEE8", "#DAD6CC"),
            ("hatch", "pebbles", "stipple", "waves", "tufts", "pebbles"),
            ("#A8A090", "#C8BFAE", "#8A9A9A", "#B89A7A"),
            "#FFFFFF",
            "#3A3228",
            "#8A7A66",
            "#FBF6EC",
        ),
        Palette(
            "jungle",
            ("#2E6A3A", "#3E7E2E", "#5A8A3A", "#1E5A4A", "#6A9A4A", "#3A5A2A"),
            ("trees", "trees", "tufts", "waves", "flowers", "hatch"),
            ("#143A1E", "#9ACB5A", "#E05A3A", "#F0D060"),
            "#8A6A3A",
            "#08140C",
            "#1E2E18",
            "#C0D89A",
        ),
    )
}


@cache
def painted_art(palette_name: str, seed: int) -> U8:
    """The face of a copy in ``palette_name`` made from ``seed``: BGR, 2000x1325, read-only, cached."""
    palette = PALETTES[palette_name]
    rng = np.random.default_rng([seed, 7])
    w, h = ART_SIZE
    image = _terrain(rng, palette, (w, h))
    _paths(image, rng, palette)
    _marks(image, rng, palette)
    shade = 1 + 0.05 * fractal_noise(rng, (h, w), (6.0, 2.5, 1.2))  # print grain down to the pixel
    painted = to_u8(image * shade[..., None])
    _grid_lines(painted, hex_bgr(palette.grid))
    title, font = _TITLES[int(rng.integers(len(_TITLES)))], _TITLE_FONTS[int(rng.integers(len(_TITLE_FONTS)))]
    _frame(painted, rng, palette, title, font)
    painted.setflags(write=False)
    return painted


def _terrain(rng: np.random.Generator, palette: Palette, size: tuple[int, int]) -> F32:
    """Soft-edged regions of the terrain colours, each mottled, from a quarter-size label map."""
    w, h = size
    sw, sh = w // 4, h // 4
    fields = np.stack(
        [fractal_noise(rng, (sh, sw), (float(rng.uniform(35, 70)), 14.0, 5.0)) for _ in palette.terrain]
    )
    labels = np.argmax(fields, axis=0)
    colours = np.array([hex_bgr(c) for c in palette.terrain], np.float32)
    small = colours[labels]
    small *= (1 + 0.10 * fractal_noise(rng, (sh, sw), (20.0, 6.0)))[..., None]
    big = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    big = cv2.GaussianBlur(big, (0, 0), 2.5)
    # Blotches and brush marks within each region, a cell-sized scale down to a few millimetres.
    mottle = 1 + 0.08 * fractal_noise(rng, (h, w), (60.0, 22.0, 9.0))
    return f32(big * mottle[..., None])


def _region_map(image: F32, palette: Palette) -> npt.NDArray[np.intp]:
    """Which terrain colour each pixel is nearest to, at quarter size: where each style of mark goes."""
    small = cv2.resize(image, (image.shape[1] // 4, image.shape[0] // 4), interpolation=cv2.INTER_AREA)
    colours = np.array([hex_bgr(c) for c in palette.terrain], np.float32)
    distance = ((small[:, :, None, :] - colours[None, None, :, :]) ** 2).sum(axis=3)
    return np.asarray(np.argmin(distance, axis=2), dtype=np.intp)


def _paths(image: F32, rng: np.random.Generator, palette: Palette) -> None:
    """Two or three winding paths or streams across the board, with darker edges."""
    h, w = image.shape[:2]
    colour = hex_bgr(palette.path)
    edge = tuple(c * 0.7 for c in colour)
    for _ in range(int(rng.integers(2, 4))):
        x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        heading = float(rng.uniform(0, 2 * math.pi))
        points = []
        for _ in range(90):
            points.append((x, y))
            heading += float(rng.normal(0, 0.25))
            x += 30 * math.cos(heading)
            y += 30 * math.sin(heading)
        pts = np.round(np.array(points) * (1 << _SHIFT)).astype(np.int32)
        width = int(rng.integers(12, 30))
        cv2.polylines(image, [pts], False, edge, width + 6, cv2.LINE_AA, _SHIFT)
        cv2.polylines(image, [pts], False, colour, width, cv2.LINE_AA, _SHIFT)


def _marks(image: F32, rng: np.random.Generator, palette: Palette) -> None:
    """Marks all over the face, each in the style of the region under it, denser in some cells."""
    h, w = image.shape[:2]
    regions = _region_map(image, palette)
    density = fractal_noise(rng, (h // 4, w // 4), (45.0, 15.0))
    ink = [hex_bgr(c) for c in palette.ink]
    count = 9000
    xs = rng.uniform(0, w, count)
    ys = rng.uniform(0, h, count)
    keep = rng.uniform(-1.2, 1.2, count)
    for x, y, k in zip(xs, ys, keep, strict=True):
        qy, qx = min(int(y) // 4, regions.shape[0] - 1), min(int(x) // 4, regions.shape[1] - 1)
        if k > density[qy, qx] + 0.6:
            continue  # sparse here: open ground between the marks
        style = palette.styles[int(regions[qy, qx])]
        base = tuple(float(v) for v in image[int(y), int(x)])
        _DRAW[style](image, rng, (float(x), float(y)), (base[0], base[1], base[2]), ink)


def _p(x: float, y: float) -> tuple[int, int]:
    return round(x * (1 << _SHIFT)), round(y * (1 << _SHIFT))


def _r(radius: float) -> int:
    return max(1, round(radius * (1 << _SHIFT)))


def _scaled(colour: BGR, factor: float) -> BGR:
    return (colour[0] * factor, colour[1] * factor, colour[2] * factor)


def _mix(a: BGR, b: BGR, t: float) -> BGR:
    return (a[0] * (1 - t) + b[0] * t, a[1] * (1 - t) + b[1] * t, a[2] * (1 - t) + b[2] * t)


def _tree(image: F32, rng: np.random.Generator, at: tuple[float, float], base: BGR, ink: list[BGR]) -> None:
    """A round crown with its shadow and a lit side, 2 to 6 mm across."""
    x, y = at
    r = float(rng.uniform(5, 15))
    crown = _mix(ink[0], base, float(rng.uniform(0, 0.35)))
    cv2.circle(image, _p(x + r * 0.35, y + r * 0.35), _r(r), _scaled(base, 0.55), -1, cv2.LINE_AA, _SHIFT)
    cv2.circle(image, _p(x, y), _r(r), crown, -1, cv2.LINE_AA, _SHIFT)
    lit = _scaled(crown, 1.35)
    cv2.circle(image, _p(x - r * 0.3, y - r * 0.3), _r(r * 0.45), lit, -1, cv2.LINE_AA, _SHIFT)


def _hatch(image: F32, rng: np.random.Generator, at: tuple[float, float], base: BGR, ink: list[BGR]) -> None:
    """A patch of parallel furrows, as a ploughed field or a roof seen from above."""
    x, y = at
    angle = float(rng.uniform(0, math.pi))
    d = (math.cos(angle), math.sin(angle))
    n = (-d[1], d[0])
    length, gap = float(rng.uniform(15, 40)), float(rng.uniform(3.5, 6))
    colour = _scaled(base, float(rng.choice([0.7, 1.25])))
    for k in range(int(rng.integers(3, 7))):
        cx, cy = x + n[0] * gap * k, y + n[1] * gap * k
        a = _p(cx - d[0] * length / 2, cy - d[1] * length / 2)
        b = _p(cx + d[0] * length / 2, cy + d[1] * length / 2)
        cv2.line(image, a, b, colour, 2, cv2.LINE_AA, _SHIFT)


def _pebbles(
    image: F32, rng: np.random.Generator, at: tuple[float, float], base: BGR, ink: list[BGR]
) -> None:
    """A few small stones: ellipses lighter or darker than the ground."""
    x, y = at
    for _ in range(int(rng.integers(2, 6))):
        px, py = x + float(rng.normal(0, 8)), y + float(rng.normal(0, 8))
        axes = (_r(float(rng.uniform(2, 6))), _r(float(rng.uniform(1.5, 4))))
        colour = _scaled(base, float(rng.uniform(0.6, 1.4)))
        angle = float(rng.uniform(0, 180))
        cv2.ellipse(image, _p(px, py), axes, angle, 0, 360, colour, -1, cv2.LINE_AA, _SHIFT)


def _flowers(
    image: F32, rng: np.random.Generator, at: tuple[float, float], base: BGR, ink: list[BGR]
) -> None:
    """A scatter of bright dots, as flowers in grass."""
    x, y = at
    colour = ink[int(rng.integers(1, len(ink)))]
    for _ in range(int(rng.integers(3, 8))):
        px, py = x + float(rng.normal(0, 10)), y + float(rng.normal(0, 10))
        cv2.circle(image, _p(px, py), _r(float(rng.uniform(1.2, 2.8))), colour, -1, cv2.LINE_AA, _SHIFT)


def _waves(image: F32, rng: np.random.Generator, at: tuple[float, float], base: BGR, ink: list[BGR]) -> None:
    """Short arcs, as ripples on water or wind on sand."""
    x, y = at
    colour = _mix(base, ink[int(rng.integers(0, 2))], 0.6)
    for k in range(int(rng.integers(1, 4))):
        axes = (_r(float(rng.uniform(6, 14))), _r(float(rng.uniform(3, 6))))
        cv2.ellipse(image, _p(x, y + 6 * k), axes, 0, 200, 340, colour, 2, cv2.LINE_AA, _SHIFT)


def _tufts(image: F32, rng: np.random.Generator, at: tuple[float, float], base: BGR, ink: list[BGR]) -> None:
    """A tuft of grass: three blades fanning up from one point."""
    x, y = at
    colour = _scaled(base, float(rng.choice([0.6, 1.3])))
    tall = float(rng.uniform(6, 13))
    for lean in (-0.6, 0.0, 0.6):
        tip = _p(x + lean * tall * 0.6, y - tall * (1 - abs(lean) * 0.3))
        cv2.line(image, _p(x, y), tip, colour, 2, cv2.LINE_AA, _SHIFT)


def _stipple(
    image: F32, rng: np.random.Generator, at: tuple[float, float], base: BGR, ink: list[BGR]
) -> None:
    """A cluster of fine dots of ink, as rough ground in an engraving."""
    x, y = at
    colour = _mix(base, ink[0], 0.7)
    for _ in range(int(rng.integers(6, 14))):
        px, py = x + float(rng.normal(0, 9)), y + float(rng.normal(0, 9))
        cv2.circle(image, _p(px, py), _r(float(rng.uniform(0.8, 1.8))), colour, -1, cv2.LINE_AA, _SHIFT)


_Mark = Callable[[F32, np.random.Generator, tuple[float, float], BGR, list[BGR]], None]
_DRAW: dict[str, _Mark] = {
    "trees": _tree,
    "hatch": _hatch,
    "pebbles": _pebbles,
    "flowers": _flowers,
    "waves": _waves,
    "tufts": _tufts,
    "stipple": _stipple,
}


def _grid_lines(image: U8, colour: BGR) -> None:
    """The 1.5 mm lines on every cell edge, the grid's outer boundary included, anti-aliased."""
    s = PX_PER_MM
    half = GRID_LINE_MM / 2
    x0, y0 = MARGIN_MM, MARGIN_MM
    x1, y1 = MARGIN_MM + GRID_W_MM, MARGIN_MM + GRID_H_MM
    boxes = [(x0 + i * PITCH_MM - half, y0 - half, x0 + i * PITCH_MM + half, y1 + half) for i in range(9)]
    boxes += [(x0 - half, y0 + j * PITCH_MM - half, x1 + half, y0 + j * PITCH_MM + half) for j in range(6)]
    for a, b, c, d in boxes:
        # Pixel centres sit at half pixels: the line covers mm [a, c] = px [a*s - 0.5, c*s - 0.5].
        quad = np.array([[a, b], [c, b], [c, d], [a, d]]) * s - 0.5
        pts = np.round(quad * (1 << _SHIFT)).astype(np.int32)
        cv2.fillPoly(image, [pts], colour, cv2.LINE_AA, _SHIFT)


def _frame(image: U8, rng: np.random.Generator, palette: Palette, title: str, font: str) -> None:
    """The printed frame around the grid: textured, two ornament lines, corner diamonds and the title."""
    h, w = image.shape[:2]
    s = PX_PER_MM
    inner = np.zeros((h, w), bool)
    gx0, gy0 = round((MARGIN_MM - GRID_LINE_MM) * s), round((MARGIN_MM - GRID_LINE_MM) * s)
    gx1, gy1 = (
        round((MARGIN_MM + GRID_W_MM + GRID_LINE_MM) * s),
        round((MARGIN_MM + GRID_H_MM + GRID_LINE_MM) * s),
    )
    inner[gy0:gy1, gx0:gx1] = True
    shade = 1 + 0.07 * fractal_noise(rng, (h, w), (40.0, 10.0, 2.0))
    frame = to_u8(f32(shade[..., None] * np.asarray(hex_bgr(palette.frame), np.float32)))
    image[~inner] = frame[~inner]
    ornament = hex_bgr(palette.ornament)
    for inset_mm in (4.0, MARGIN_MM - 3.5):
        a = _p(inset_mm * s, inset_mm * s)
        b = _p((BOARD_W_MM - inset_mm) * s, (BOARD_H_MM - inset_mm) * s)
        cv2.rectangle(image, a, b, ornament, 3, cv2.LINE_AA, _SHIFT)
    for cx, cy in (
        (10, 10),
        (BOARD_W_MM - 10, 10),
        (BOARD_W_MM - 10, BOARD_H_MM - 10),
        (10, BOARD_H_MM - 10),
    ):
        diamond = np.array([[cx, cy - 5], [cx + 5, cy], [cx, cy + 5], [cx - 5, cy]]) * s
        cv2.fillPoly(
            image, [np.round(diamond * (1 << _SHIFT)).astype(np.int32)], ornament, cv2.LINE_AA, _SHIFT
        )
    for k in range(1, 8):  # studs along the top, one above each inner grid line
        cx = (MARGIN_MM + k * PITCH_MM) * s
        cv2.circle(image, _p(cx, 10 * s), _r(1.3 * s), ornament, -1, cv2.LINE_AA, _SHIFT)
    _title(image, title, font, ornament)


def _title(image: U8, text: str, font_file: str, colour: BGR) -> None:
    """The game's name centred on the bottom frame, about 11 mm tall."""
    s = PX_PER_MM
    height = round(11 * s)
    font_path = font_file if Path(font_file).is_file() else None
    box_w, box_h = round(200 * s), round(16 * s)
    mask = Image.new("L", (box_w, box_h), 0)
    if font_path is not None:
        font = ImageFont.truetype(font_path, round(height * 1.3))
        ImageDraw.Draw(mask).text((box_w // 2, box_h // 2), text, fill=255, font=font, anchor="mm")
        ink = np.asarray(mask, np.float32) / 255
    else:
        canvas = np.zeros((box_h, box_w), np.uint8)
        face = cv2.FONT_HERSHEY_TRIPLEX
        scale = cv2.getFontScaleFromHeight(face, height)
        text = text.upper().replace("Ö", "O")  # Hershey fonts are ASCII
        (tw, th), _ = cv2.getTextSize(text, face, scale, 4)
        cv2.putText(canvas, text, ((box_w - tw) // 2, (box_h + th) // 2), face, scale, 255, 4, cv2.LINE_AA)
        ink = canvas.astype(np.float32) / 255
    x0 = round((BOARD_W_MM / 2) * s) - box_w // 2
    y0 = round((BOARD_H_MM - MARGIN_MM / 2) * s) - box_h // 2
    region = image[y0 : y0 + box_h, x0 : x0 + box_w].astype(np.float32)
    mixed = region * (1 - ink[..., None]) + ink[..., None] * np.asarray(colour, np.float32)
    image[y0 : y0 + box_h, x0 : x0 + box_w] = to_u8(mixed)
