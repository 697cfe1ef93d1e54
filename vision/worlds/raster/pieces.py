"""How the game's pieces look from above: sprites for gold tokens and warrior backs, wood for palisades.

Sprites are drawn top-down in millimetres of the piece (``px_per_mm`` chosen
by the caller to match the photo's scale), upright: the board's "up" is the
sprite's up, so a numeral reads the right way when the board does.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.geometry import GOLD_DIAMETER_MM, WARRIOR_CORNER_MM, WARRIOR_SIDE_MM
from vision.worlds.raster.draw import Sprite
from vision.worlds.raster.numerals import numeral_mask
from vision.worlds.raster.textures import BGR, F32, U8, f32, fractal_noise, hex_bgr, wood

if TYPE_CHECKING:  # copies imports this module's colours
    from vision.worlds.raster.copies import Copy

PLAYER_HEX: dict[str, str] = {"orange": "#E07B24", "green": "#3E8E41", "blue": "#2F6DB5", "purple": "#7B4AA0"}
GOLD_HEX = "#D4A62A"
GOLD_RIM_HEX = "#9E7418"
GOLD_INK_HEX = "#37260F"
EMBLEM_HEX = "#F1E8D4"
PALISADE_HEX = "#B5835A"
PALISADE_GRAIN_HEX = "#7C5331"
# The reference kit's emblems, which each photo of it draws 4 of; changing this tuple changes those draws.
EMBLEMS: tuple[str, ...] = ("shield", "star", "ring", "runes", "diamond", "sun")
# Every emblem a copy may print: the reference ones and those only other copies use.
ALL_EMBLEMS: tuple[str, ...] = (*EMBLEMS, "crown", "moon", "tree", "wave")
NUMERAL_MM = 12.0


def darker(colour: BGR, factor: float) -> BGR:
    return (colour[0] * factor, colour[1] * factor, colour[2] * factor)


def _grid(size_mm: float, s: float) -> tuple[int, F32, F32]:
    """A square sprite's side in pixels and its pixel centres in mm from the sprite's centre."""
    n = math.ceil(size_mm * s) | 1
    axis = (np.arange(n, dtype=np.float32) - (n - 1) / 2) / s
    return n, axis[None, :] + np.zeros((n, 1), np.float32), axis[:, None] + np.zeros((1, n), np.float32)


def circle_outline(radius: float, points: int = 48) -> F32:
    """A circle's outline as (N, 2) mm around its centre."""
    t = np.linspace(0, 2 * np.pi, points, endpoint=False)
    return np.stack([radius * np.cos(t), radius * np.sin(t)], axis=1).astype(np.float32)


def rounded_square_outline(side: float, corner: float, per_corner: int = 6) -> F32:
    """A rounded square's outline as (N, 2) mm around its centre."""
    half = side / 2 - corner
    pts = []
    for cx, cy, start in ((half, half, 0), (-half, half, 90), (-half, -half, 180), (half, -half, 270)):
        for t in np.radians(np.linspace(start, start + 90, per_corner)):
            pts.append((cx + corner * math.cos(t), cy + corner * math.sin(t)))
    return np.array(pts, dtype=np.float32)


def gold_sprite(value: int, font: str, s: float, rng: np.random.Generator, copy: Copy) -> Sprite:
    """A gold token's face in ``copy``'s gold: a metallic disc, a darker rim and the value in dark ink."""
    radius = GOLD_DIAMETER_MM / 2
    n, x, y = _grid(GOLD_DIAMETER_MM + 2, s)
    r = np.hypot(x, y)
    alpha = np.clip((radius - r) * s + 0.5, 0, 1)
    # Brushed metal: brighter toward one side, a faint radial sheen, fine speckle.
    shade = 1.0 + 0.08 * (-(x + y) / (radius * 1.4)) + 0.03 * np.cos(r * 1.3)
    shade += 0.02 * fractal_noise(rng, (n, n), (3 * s, 0.8 * s + 1))
    colour = f32(shade[..., None] * np.asarray(hex_bgr(copy.gold_hex), np.float32))
    rim = np.clip((r - (radius - 1.8)) * s + 0.5, 0, 1)
    colour = f32(
        colour * (1 - rim[..., None]) + rim[..., None] * np.asarray(hex_bgr(copy.gold_rim_hex), np.float32)
    )
    bevel = np.clip(1 - np.abs(r - (radius - 2.1)) * s / 1.5, 0, 1) * 0.18
    colour = f32(colour * (1 + bevel[..., None]))
    ink = numeral_mask(str(value), font, NUMERAL_MM * s)
    _blend_centred(colour, ink * 0.95, hex_bgr(copy.gold_ink_hex))
    return Sprite.from_mask(colour, alpha.astype(np.float32), s)


def warrior_sprite(colour_name: str, emblem: str, s: float, rng: np.random.Generator, copy: Copy) -> Sprite:
    """A face-down warrior of ``copy``: a rounded square of its player's colour with an emblem."""
    n, x, y = _grid(WARRIOR_SIDE_MM + 2, s)
    half, corner = WARRIOR_SIDE_MM / 2, WARRIOR_CORNER_MM
    qx, qy = np.abs(x) - (half - corner), np.abs(y) - (half - corner)
    outside = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0) - corner
    alpha = np.clip(-outside * s + 0.5, 0, 1)
    shade = 1 + 0.035 * fractal_noise(rng, (n, n), (12 * s, 3 * s, 0.6 * s + 1))
    shade -= 0.12 * np.clip(1 + outside / 1.2, 0, 1)  # a slightly darker bevelled edge
    colour = shade[..., None] * np.asarray(hex_bgr(copy.colours[colour_name]), np.float32)
    mark = emblem_mask(emblem, n, s, rng)
    _blend_centred(colour, mark * 0.9, hex_bgr(copy.emblem_ink(colour_name)))
    colour += rng.normal(0, 3.0, colour.shape).astype(np.float32)  # print grain
    return Sprite.from_mask(colour, alpha.astype(np.float32), s)


def _blend_centred(image: F32, mask: F32, ink: BGR) -> None:
    """Lay ``ink`` through ``mask`` onto the centre of ``image``, in place."""
    h, w = image.shape[:2]
    mh, mw = mask.shape
    y0, x0 = (h - mh) // 2, (w - mw) // 2
    if y0 < 0 or x0 < 0:
        mask = mask[max(0, -y0) : max(0, -y0) + h, max(0, -x0) : max(0, -x0) + w]
        y0, x0 = max(y0, 0), max(x0, 0)
        mh, mw = mask.shape
    region = image[y0 : y0 + mh, x0 : x0 + mw]
    region[:] = region * (1 - mask[..., None]) + mask[..., None] * np.asarray(ink, np.float32)


def emblem_mask(kind: str, n: int, s: float, rng: np.random.Generator) -> F32:
    """A faction emblem about 20 mm across on an n x n canvas, as floats in 0..1."""
    canvas: U8 = np.zeros((n, n), np.uint8)
    c = (n - 1) / 2
    k = 1 << 4  # cv2 draws with 4 fractional bits here

    def px(x: float, y: float) -> tuple[int, int]:
        return round((c + x * s) * k), round((c + y * s) * k)

    def stroke(mm: list[tuple[float, float]], width_mm: float, closed: bool = False) -> None:
        pts = np.array([px(x, y) for x, y in mm], dtype=np.int32)
        cv2.polylines(canvas, [pts], closed, 255, max(1, round(width_mm * s)), cv2.LINE_AA, 4)

    def solid(mm: list[tuple[float, float]]) -> None:
        cv2.fillPoly(canvas, [np.array([px(x, y) for x, y in mm], dtype=np.int32)], 255, cv2.LINE_AA, 4)

    def circle(radius_mm: float, width_mm: float | None = None) -> None:
        width = -1 if width_mm is None else max(1, round(width_mm * s))
        cv2.circle(canvas, px(0, 0), round(radius_mm * s * k), 255, width, cv2.LINE_AA, 4)

    if kind == "shield":
        stroke([(-8, -9), (8, -9), (8, 0), (0, 10), (-8, 0)], 1.7, closed=True)
        stroke([(0, -6), (0, 6)], 1.5)
        stroke([(-5, -2), (5, -2)], 1.5)
    elif kind == "star":
        angles = np.linspace(0, 2 * np.pi, 10, endpoint=False)
        solid(
            [
                ((10 if i % 2 == 0 else 4) * math.sin(t), -(10 if i % 2 == 0 else 4) * math.cos(t))
                for i, t in enumerate(angles)
            ]
        )
    elif kind == "ring":
        circle(8, 2.2)
        circle(2.2)
    elif kind == "runes":
        # A stave and two or three twigs, as cut on a rune stone.
        stroke([(0, -9), (0, 9)], 1.8)
        for _ in range(int(rng.integers(2, 4))):
            y0 = float(rng.uniform(-9, 3))
            side = float(rng.choice([-1.0, 1.0]))
            stroke([(0, y0), (side * 6.5, y0 + float(rng.uniform(3, 6)))], 1.8)
    elif kind == "diamond":
        stroke([(0, -10), (8, 0), (0, 10), (-8, 0)], 1.6, closed=True)
        solid([(0, -4), (3.2, 0), (0, 4), (-3.2, 0)])
    elif kind == "sun":
        circle(4.5)
        for t in np.linspace(0, 2 * np.pi, 8, endpoint=False):
            stroke([(6.5 * math.cos(t), 6.5 * math.sin(t)), (10 * math.cos(t), 10 * math.sin(t))], 1.5)
    elif kind == "crown":
        solid([(-9, 6), (-9, -5), (-4.5, 0), (0, -8), (4.5, 0), (9, -5), (9, 6)])
        stroke([(-9, 9), (9, 9)], 1.6)
    elif kind == "moon":
        circle(9)
        cv2.circle(canvas, px(4.5, -2.5), round(8 * s * k), 0, -1, cv2.LINE_AA, 4)  # bite out a crescent
    elif kind == "tree":
        solid([(0, -10), (7, -1), (3, -1), (8, 5), (-8, 5), (-3, -1), (-7, -1)])
        stroke([(0, 5), (0, 10)], 2.2)
    elif kind == "wave":
        for dy in (-5.0, 0.0, 5.0):
            t = np.linspace(-9, 9, 19)
            stroke([(float(x), dy + 2.2 * math.sin(float(x) * 0.7)) for x in t], 1.6)
    else:
        raise ValueError(f"emblem must be one of {', '.join(ALL_EMBLEMS)}, not {kind!r}")
    return f32(canvas / 255)


def palisade_wood(rng: np.random.Generator, s: float, copy: Copy) -> F32:
    """A strip of ``copy``'s palisade wood, 240 x 40 mm, to cut each stick's faces from."""
    return wood(
        rng,
        (round(240 * s), round(40 * s)),
        s,
        hex_bgr(copy.wood_hex),
        hex_bgr(copy.grain_hex),
        ring_mm=1.6,
        contrast=0.5,
    )


def cut(strip: F32, rng: np.random.Generator, size_mm: tuple[float, float], s: float) -> Sprite:
    """An opaque ``size_mm`` (along, across) piece cut from a random place of a wood strip."""
    w, h = max(2, round(size_mm[0] * s)), max(2, round(size_mm[1] * s))
    y = int(rng.integers(0, strip.shape[0] - h + 1))
    x = int(rng.integers(0, strip.shape[1] - w + 1))
    return Sprite.opaque(strip[y : y + h, x : x + w], s)


def die_face(value: int, side_mm: float, s: float, body: BGR, pip: BGR) -> Sprite:
    """One face of a die: its pips, and edges darkened where the cube is rounded."""
    _, x, y = _grid(side_mm, s)
    edge = np.maximum(np.abs(x), np.abs(y)) / (side_mm / 2)
    shade = 1 - 0.25 * np.clip((edge - 0.8) / 0.2, 0, 1) ** 2
    colour = shade[..., None] * np.asarray(body, np.float32)
    spots = {
        1: [(0, 0)],
        2: [(-1, -1), (1, 1)],
        3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
    }[value]
    step, radius = side_mm * 0.27, side_mm * 0.09
    for px, py in spots:
        inside = np.clip((radius - np.hypot(x - px * step, y - py * step)) * s + 0.5, 0, 1)
        colour = colour * (1 - inside[..., None]) + inside[..., None] * np.asarray(pip, np.float32)
    return Sprite.opaque(f32(colour), s)
