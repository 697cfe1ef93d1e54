"""Printed art as sRGB pictures (numpy, OpenCV): board faces, gold faces, warrior backs.

Pictures are drawn the right way up (row 0 of the picture is the board's top edge) and are
mapped onto the 3-D objects by their object coordinates, so one pixel of a board face is
``1 / PX_PER_MM`` millimetre of card. The reference kit's face is the reference PNG; every
copy's face is drawn here from its style and a seed, so no copy shares the reference art.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.board import COLS, ROWS
from vision.worlds.cycles.kit import RGB, Kit

PX_PER_MM = 5.0
TOKEN_PX_PER_MM = 8.0
#: The kit's reference art as the spec ships it, in the shared folder beside the project's
#: checkout (``ARMADORA_REFERENCE_ART`` names another file).
REFERENCE_ART = Path(__file__).resolve().parents[3].parent / "shared" / "board" / "reference-board.png"
REFERENCE_ART_ENV = "ARMADORA_REFERENCE_ART"


@dataclass(frozen=True)
class Style:
    """A board face's look: ground colours, round shapes (per cell, radius in mm), frame and ink."""

    ground: tuple[str, ...]
    shapes: tuple[str, ...]
    count: int
    radius: tuple[float, float]
    frame: str
    line: str
    ink: str


# Each style: a palette of ground colours, the colours of its round shapes, their count per
# cell and radius range (mm), the frame colour and the grid line colour.
STYLES: dict[str, Style] = {
    "autumn": Style(
        ground=("#8A5A2B", "#A8642A", "#6E4A2A", "#B98A3E", "#7D6B3A"),
        shapes=("#D2691E", "#B8461B", "#E0902F", "#8B3A1A", "#C9A03A"),
        count=9,
        radius=(3.0, 9.0),
        frame="#3A2414",
        line="#22140A",
        ink="#E8C9A0",
    ),
    "snow": Style(
        ground=("#E9EEF2", "#D6DFE6", "#F4F6F8", "#C9D3DC", "#DDE3E0"),
        shapes=("#9AA6B0", "#FFFFFF", "#7F8C96", "#B8C4CC", "#5E6F78"),
        count=6,
        radius=(2.0, 7.0),
        frame="#44566A",
        line="#2A3440",
        ink="#F2F5F8",
    ),
    "dark": Style(
        ground=("#1E2433", "#262B3D", "#1A2A2A", "#2C2438", "#202020"),
        shapes=("#3B4A6B", "#5A3E6E", "#2F5A55", "#C8B45A", "#44475A"),
        count=7,
        radius=(1.5, 6.0),
        frame="#0E0E14",
        line="#050508",
        ink="#B8B2D0",
    ),
    "busy": Style(
        ground=("#C8A060", "#6FA050", "#D08050", "#5A8AB0", "#B06A9A", "#A0B040"),
        shapes=("#E04040", "#40A0E0", "#F0D040", "#40C080", "#9050C0", "#F08030"),
        count=22,
        radius=(1.0, 4.0),
        frame="#5A2A4A",
        line="#1A1010",
        ink="#F0E0C0",
    ),
    "lagoon": Style(
        ground=("#3FA7B5", "#2C8A9A", "#E2D2A0", "#58B87A", "#1F6F8B"),
        shapes=("#F2E6B8", "#2E9E5B", "#1B5E7A", "#9FD8D0", "#D8C07A"),
        count=8,
        radius=(2.5, 10.0),
        frame="#163E4E",
        line="#0C1E26",
        ink="#E8F4F0",
    ),
    "dunes": Style(
        ground=("#D9B77A", "#C99A5B", "#E6C994", "#B7834A", "#D4A86A"),
        shapes=("#A8763E", "#F0DCAA", "#8C6A3A", "#7A8A4A", "#C08850"),
        count=5,
        radius=(4.0, 12.0),
        frame="#5A3A1E",
        line="#2E1C0C",
        ink="#F4E2BC",
    ),
    # The tuning copies' styles (kit.TUNING_COPIES): as hard as the six above, in other palettes.
    # Wheat and olive fields under round bales the size and colour of a gold disc.
    "harvest": Style(
        ground=("#C9A94E", "#9C8A3C", "#B59A52", "#7E7A38", "#D6B86A"),
        shapes=("#D9AC30", "#C89A2C", "#E0B848", "#D97A1E", "#4E6A2A"),
        count=8,
        radius=(3.5, 11.0),
        frame="#4A3A18",
        line="#2A2008",
        ink="#F2E2B0",
    ),
    # Pale ice under paler floes: a white warrior hardly stands out from it.
    "ice": Style(
        ground=("#EEF4F8", "#DCE9F0", "#F8FAFB", "#CFE0EA", "#E4EEEA"),
        shapes=("#BFD6E4", "#FAFCFD", "#A6C2D4", "#D8E6EE", "#8FAFC2"),
        count=5,
        radius=(3.0, 9.0),
        frame="#6F8EA6",
        line="#3E5668",
        ink="#FBFDFE",
    ),
    # Ash and soot with glowing embers, some gold-coloured: a black warrior sinks into it.
    "ember": Style(
        ground=("#1A1614", "#241C18", "#2A2420", "#161A1C", "#30261E"),
        shapes=("#5A2A18", "#D09A2E", "#3A3230", "#8A3A1A", "#B8862A"),
        count=8,
        radius=(1.5, 7.0),
        frame="#0A0806",
        line="#040302",
        ink="#D8A860",
    ),
    # Confetti: many small bright dots, yellow and white among them, on a patchwork ground.
    "confetti": Style(
        ground=("#E8D0A0", "#70B8C8", "#E89078", "#98C868", "#C8A0D8", "#F0E070"),
        shapes=("#E8302A", "#2A70E0", "#F8D020", "#20B070", "#E040A0", "#FAFAF4"),
        count=26,
        radius=(0.8, 3.5),
        frame="#2A3A6A",
        line="#101018",
        ink="#F8E8C8",
    ),
    # Shallow sea over sand, with round corals: orange, pink, gold-coloured and pale.
    "reef": Style(
        ground=("#2E9AB0", "#48B8C0", "#1C7890", "#E8D8A8", "#3AA890"),
        shapes=("#F08060", "#E85A8A", "#E8B83A", "#F4F0E0", "#8A60B0"),
        count=10,
        radius=(2.0, 8.0),
        frame="#0E4A5E",
        line="#062630",
        ink="#E0F8F4",
    ),
    # Red rock with large ochre boulders: the rust warrior is the ground's colour.
    "mesa": Style(
        ground=("#B85A32", "#C8723E", "#9A4A2A", "#D89058", "#A86848"),
        shapes=("#D4A030", "#E8C070", "#7A3A20", "#C88A4A", "#5A6A3A"),
        count=6,
        radius=(4.5, 13.0),
        frame="#4A2214",
        line="#26100A",
        ink="#F8D8B0",
    ),
    # The more tuning copies' styles (kit.MORE_TUNING_COPIES): six palettes more, shared with none above.
    # An orchard's grass under round fruit, orange, red and yellow, some the gold's size.
    "orchard": Style(
        ground=("#5E8C3A", "#6F9A44", "#4E7A32", "#8AA858", "#7C8E3E"),
        shapes=("#EE9A32", "#C8322C", "#E6C23A", "#3E6A26", "#D6AE3C"),
        count=9,
        radius=(3.0, 10.5),
        frame="#2E3E1C",
        line="#141C0A",
        ink="#EEE6BE",
    ),
    # A night sky of deep blue and black, with small stars, white and gold-coloured.
    "starry": Style(
        ground=("#10162C", "#18203A", "#0C0E18", "#1C1A30", "#121C26"),
        shapes=("#F6F4EA", "#E2B63C", "#8E9CC8", "#2A3458", "#D8D2F0"),
        count=14,
        radius=(0.7, 3.0),
        frame="#06080E",
        line="#020306",
        ink="#C8C0E6",
    ),
    # Busy tiles: many mid-sized round tesserae in strong blues, purples, peach and white.
    "tiles": Style(
        ground=("#D8C8A8", "#7898C0", "#C89A80", "#A8B890", "#B890B8", "#E8D890"),
        shapes=("#3066D0", "#7440A4", "#F0B090", "#FCFCF6", "#D84848", "#38A868"),
        count=18,
        radius=(1.5, 5.0),
        frame="#3A2A5A",
        line="#14101C",
        ink="#F4ECD4",
    ),
    # Dry grass the tan warrior's colour, dark acacia crowns and round red-brown mounds.
    "savanna": Style(
        ground=("#C8A874", "#B89462", "#D6BA86", "#A8884E", "#C2A06A"),
        shapes=("#3A4A22", "#8E4A2A", "#D0A040", "#5A5A2A", "#E2C890"),
        count=5,
        radius=(4.0, 12.5),
        frame="#4E3418",
        line="#2A1A0A",
        ink="#F2DEB4",
    ),
    # Vineyard rows: purple-brown soil, green leaves and round dark grapes.
    "vines": Style(
        ground=("#6A4A5A", "#5A6E3A", "#7A5A4A", "#48603A", "#846A56"),
        shapes=("#4A1E4A", "#6E2E5E", "#3E7A3A", "#8AAA4A", "#2A1A2E"),
        count=10,
        radius=(2.0, 7.5),
        frame="#2A1420",
        line="#12080E",
        ink="#EAD8C8",
    ),
    # Moss and lichen on grey-green ground, pale round stones: cream and charcoal blend in.
    "moss": Style(
        ground=("#7A8A6E", "#8E9A80", "#6A7A62", "#A4AA92", "#5E6A5A"),
        shapes=("#E6DEC2", "#C8C6B8", "#3A3E3A", "#9AAA6A", "#B8A47A"),
        count=7,
        radius=(3.0, 9.5),
        frame="#2E3A30",
        line="#141A14",
        ink="#EEF0E2",
    ),
}

EMBLEMS = ("crescent", "axe", "leaf", "star", "tower", "sun", "ring", "drop", "diamond", "cross")


def _rgb(code: str) -> NDArray[Any]:
    code = code.lstrip("#")
    return np.array([int(code[i : i + 2], 16) for i in (0, 2, 4)], np.float32)


def _smooth_noise(rng: np.random.Generator, h: int, w: int, cell_px: float) -> NDArray[Any]:
    """Value noise in 0..1 with features about ``cell_px`` wide."""
    gh, gw = max(2, int(h / cell_px) + 2), max(2, int(w / cell_px) + 2)
    small = rng.random((gh, gw)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def reference_face() -> NDArray[Any]:
    """The reference kit's face (RGB uint8) from the shared PNG."""
    import os

    path = Path(os.environ.get(REFERENCE_ART_ENV, str(REFERENCE_ART)))
    bgr = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if bgr is None:
        raise FileNotFoundError(
            f"reference board art not found: {path} (set {REFERENCE_ART_ENV} to the kit's reference art)"
        )
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def board_face(kit: Kit, seed: int) -> NDArray[Any]:
    """The printed face of ``kit``'s board as RGB uint8, ``PX_PER_MM`` pixels a millimetre."""
    if kit.style == "reference":
        return reference_face()
    style = STYLES[kit.style]
    rng = np.random.default_rng(seed)
    bw, bh = kit.board_mm
    w, h = round(bw * PX_PER_MM), round(bh * PX_PER_MM)
    s = PX_PER_MM
    ground = np.array([_rgb(c) for c in style.ground])
    # Terrain: a few large noise fields pick and blend ground colours, so neighbouring cells
    # differ the way illustrated terrain does.
    weights = np.stack([_smooth_noise(rng, h, w, 60 * s) ** 2 for _ in ground], axis=-1)
    weights /= weights.sum(axis=-1, keepdims=True)
    img = weights @ ground
    img *= (0.85 + 0.3 * _smooth_noise(rng, h, w, 6 * s))[..., None]
    img += (rng.normal(0, 6, (h, w, 1))).astype(np.float32)
    img = img.clip(0, 255).astype(np.uint8)
    # Round shapes (trees, rocks, drifts...) with a darker outline and a lit side.
    shapes = [tuple(int(v) for v in _rgb(c)) for c in style.shapes]
    r0, r1 = style.radius
    count = style.count * ROWS * COLS
    for _ in range(count):
        x, y = int(rng.uniform(0, w)), int(rng.uniform(0, h))
        r = int(rng.uniform(r0, r1) * s)
        colour = shapes[int(rng.integers(len(shapes)))]
        dark = tuple(int(v * 0.6) for v in colour)
        light = tuple(min(255, int(v * 1.2 + 20)) for v in colour)
        cv2.circle(img, (x, y), r + max(1, r // 8), dark, -1, cv2.LINE_AA)
        cv2.circle(img, (x, y), r, colour, -1, cv2.LINE_AA)
        cv2.circle(img, (x - r // 3, y - r // 3), max(1, r // 3), light, -1, cv2.LINE_AA)
    # A winding path, as illustrated boards have.
    pts = np.cumsum(rng.normal(0, 25 * s, (12, 2)), axis=0) + np.array([w * rng.uniform(0.2, 0.8), 0.0])
    pts[:, 1] = np.linspace(0, h, 12)
    path_colour = tuple(int(v) for v in ground.mean(axis=0) * 1.15)
    cv2.polylines(img, [pts.astype(np.int32)], False, path_colour, int(4 * s), cv2.LINE_AA)
    # Frame: darker band with a thin ornament line and the title on the bottom frame.
    f = round(kit.frame_mm * s)
    frame = _rgb(style.frame)
    band = np.ones((h, w), bool)
    band[f : h - f, f : w - f] = False
    tex = 0.85 + 0.3 * _smooth_noise(rng, h, w, 3 * s)
    img[band] = (frame * tex[band][:, None]).clip(0, 255).astype(np.uint8)
    ink = tuple(int(v) for v in _rgb(style.ink))
    inset = round(f * 0.3)
    cv2.rectangle(img, (inset, inset), (w - inset, h - inset), ink, max(1, round(0.6 * s)), cv2.LINE_AA)
    _title(img, kit.title, (w // 2, h - f // 2), f * 0.55, ink)
    # Grid lines, 1.5 mm, the outer boundary included.
    line = tuple(int(v) for v in _rgb(style.line))
    lw = max(1, round(1.5 * s))
    for c in range(COLS + 1):
        x = round(f + c * kit.pitch_mm * s)
        cv2.line(img, (x, f), (x, h - f), line, lw, cv2.LINE_AA)
    for r in range(ROWS + 1):
        y = round(f + r * kit.pitch_mm * s)
        cv2.line(img, (f, y), (w - f, y), line, lw, cv2.LINE_AA)
    return np.asarray(img, np.uint8)


def _title(
    img: NDArray[Any], text: str, centre: tuple[int, int], height: float, colour: tuple[int, ...]
) -> None:
    font = cv2.FONT_HERSHEY_TRIPLEX
    scale = height / 22.0
    thick = max(1, round(scale * 2))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    org = (centre[0] - tw // 2, centre[1] + th // 2)
    cv2.putText(img, text, org, font, scale, colour, thick, cv2.LINE_AA)


def gold_face(value: int, diameter_mm: float, rng: np.random.Generator) -> NDArray[Any]:
    """A gold disc's top: #D4A62A with a darker rim and a dark upright numeral ~12 mm tall."""
    n = round(diameter_mm * TOKEN_PX_PER_MM)
    c = n / 2
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    rr = np.hypot(xx - c + 0.5, yy - c + 0.5) / c
    gold = np.array([0xD4, 0xA6, 0x2A], np.float32) * rng.uniform(0.96, 1.04, 3)
    shade = 1.0 - 0.12 * rr**2 + rng.normal(0, 0.02, (n, n))
    img = gold * shade[..., None]
    rim = rr > 0.86
    img[rim] *= 0.62  # the darker rim, which the sides of the disc also take
    ring = (rr > 0.78) & (rr < 0.81)
    img[ring] *= 0.8
    img = img.clip(0, 255).astype(np.uint8)
    ink = (58, 38, 12)
    font = cv2.FONT_HERSHEY_DUPLEX
    target = 12.0 * TOKEN_PX_PER_MM
    (tw, th), _ = cv2.getTextSize(str(value), font, 1.0, 2)
    scale = target / th
    thick = max(2, round(scale * 2.2))
    (tw, th), _ = cv2.getTextSize(str(value), font, scale, thick)
    cv2.putText(img, str(value), (round(c - tw / 2), round(c + th / 2)), font, scale, ink, thick, cv2.LINE_AA)
    return np.asarray(img, np.uint8)


def warrior_back(colour: RGB, emblem: str, size_mm: float, rng: np.random.Generator) -> NDArray[Any]:
    """A warrior's back: the player's colour with a light emblem, a thin darker border."""
    n = round(size_mm * TOKEN_PX_PER_MM)
    base = np.array(colour, np.float32) * rng.uniform(0.95, 1.05, 3)
    noise = 1.0 + rng.normal(0, 0.025, (n, n, 1))
    img = (base * noise).clip(0, 255).astype(np.uint8)
    border = max(2, round(1.2 * TOKEN_PX_PER_MM))
    dark = tuple(int(v) for v in (base * 0.7))
    cv2.rectangle(img, (0, 0), (n - 1, n - 1), dark, border)
    lum = 0.2126 * colour[0] + 0.7152 * colour[1] + 0.0722 * colour[2]
    # The emblem is light; on an already light back it gets a darker outline to show at all.
    light = (236, 230, 214) if lum < 170 else (250, 248, 240)
    outline = None if lum < 170 else tuple(int(v * 0.55) for v in colour)
    _emblem(img, emblem, light, outline)
    return np.asarray(img, np.uint8)


def _emblem(img: NDArray[Any], shape: str, colour: tuple[int, ...], outline: tuple[int, ...] | None) -> None:
    n = img.shape[0]
    c = n / 2
    r = n * 0.27
    mask = np.zeros((n, n), np.uint8)

    def p(pts: list[tuple[float, float]]) -> NDArray[Any]:
        return np.array([[c + x * r, c - y * r] for x, y in pts], np.int32)

    if shape == "crescent":
        cv2.circle(mask, (round(c), round(c)), round(r), 255, -1, cv2.LINE_AA)
        cv2.circle(mask, (round(c + 0.45 * r), round(c - 0.25 * r)), round(0.85 * r), 0, -1, cv2.LINE_AA)
    elif shape == "axe":
        cv2.fillPoly(mask, [p([(-0.12, -1), (0.12, -1), (0.12, 0.9), (-0.12, 0.9)])], 255, cv2.LINE_AA)
        cv2.fillPoly(mask, [p([(0.1, 0.8), (0.95, 1.0), (0.8, 0.2), (0.1, 0.35)])], 255, cv2.LINE_AA)
    elif shape == "leaf":
        cv2.ellipse(mask, (round(c), round(c)), (round(0.45 * r), round(r)), 30, 0, 360, 255, -1, cv2.LINE_AA)
    elif shape == "star":
        pts = [
            (math.sin(a) * (1 if k % 2 == 0 else 0.42), math.cos(a) * (1 if k % 2 == 0 else 0.42))
            for k, a in enumerate(np.linspace(0, 2 * math.pi, 10, endpoint=False))
        ]
        cv2.fillPoly(mask, [p(pts)], 255, cv2.LINE_AA)
    elif shape == "tower":
        cv2.fillPoly(mask, [p([(-0.5, -1), (0.5, -1), (0.4, 0.6), (-0.4, 0.6)])], 255, cv2.LINE_AA)
        for x in (-0.4, -0.05, 0.3):
            cv2.fillPoly(mask, [p([(x, 0.6), (x + 0.2, 0.6), (x + 0.2, 0.95), (x, 0.95)])], 255, cv2.LINE_AA)
    elif shape == "sun":
        cv2.circle(mask, (round(c), round(c)), round(0.5 * r), 255, -1, cv2.LINE_AA)
        for a in np.linspace(0, 2 * math.pi, 8, endpoint=False):
            q0 = (round(c + 0.65 * r * math.cos(a)), round(c + 0.65 * r * math.sin(a)))
            q1 = (round(c + r * math.cos(a)), round(c + r * math.sin(a)))
            cv2.line(mask, q0, q1, 255, max(2, round(0.14 * r)), cv2.LINE_AA)
    elif shape == "ring":
        cv2.circle(mask, (round(c), round(c)), round(0.85 * r), 255, max(3, round(0.3 * r)), cv2.LINE_AA)
    elif shape == "drop":
        cv2.circle(mask, (round(c), round(c + 0.3 * r)), round(0.6 * r), 255, -1, cv2.LINE_AA)
        cv2.fillPoly(mask, [p([(-0.55, -0.1), (0.55, -0.1), (0, 1.0)])], 255, cv2.LINE_AA)
    elif shape == "diamond":
        cv2.fillPoly(mask, [p([(0, 1), (0.65, 0), (0, -1), (-0.65, 0)])], 255, cv2.LINE_AA)
    elif shape == "cross":
        cv2.fillPoly(mask, [p([(-0.22, -1), (0.22, -1), (0.22, 1), (-0.22, 1)])], 255, cv2.LINE_AA)
        cv2.fillPoly(mask, [p([(-0.8, 0.15), (0.8, 0.15), (0.8, 0.55), (-0.8, 0.55)])], 255, cv2.LINE_AA)
    else:
        raise ValueError(f"unknown emblem {shape!r}")
    if outline is not None:
        grown = cv2.dilate(mask, np.ones((5, 5), np.uint8))
        a = (grown.astype(np.float32) / 255)[..., None]
        img[:] = (img * (1 - a) + np.array(outline, np.float32) * a).astype(np.uint8)
    a = (mask.astype(np.float32) / 255)[..., None]
    img[:] = (img * (1 - a) + np.array(colour, np.float32) * a).astype(np.uint8)
