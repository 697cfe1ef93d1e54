"""What else lies on a games table: cups and dice (and a hand, :mod:`vision.worlds.raster.hand`), at the
frame's edge.

They may hide the board's printed frame but never any of the 8x5 grid, so the
truth stays readable: each is placed, then pulled back toward the edge (or
tried elsewhere) until it clears the :class:`Keepout`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np

from vision.geometry import (
    BOARD_H_MM,
    BOARD_W_MM,
    GRID_H_MM,
    GRID_W_MM,
    MARGIN_MM,
    PALISADE_HEIGHT_MM,
    FloatArray,
)
from vision.worlds.raster.camera import TABLE_Z, Camera
from vision.worlds.raster.draw import fill, fill_mask, hull, roi_of, visible
from vision.worlds.raster.lighting import Caster, Light
from vision.worlds.raster.pieces import darker, die_face
from vision.worlds.raster.scene import Block, draw_block
from vision.worlds.raster.textures import BGR, U8, hex_bgr

DISTRACTORS: tuple[str, ...] = ("hand", "cup", "dice")
CUP_HEX: dict[str, str] = {
    "white": "#EDEBE6",
    "cream": "#E6D9BC",
    "red": "#A8282B",
    "navy": "#22345E",
    "black": "#232325",
    "mint": "#9CC9B4",
}
DICE_HEX: dict[str, tuple[str, str]] = {
    "white": ("#F2F0EA", "#1C1C1C"),
    "red": ("#B3202A", "#F4F1EA"),
    "black": ("#1F1F22", "#F0EEE8"),
    "ivory": ("#E8DDC4", "#7A1E1E"),
}
COFFEE_HEX = "#2A1A10"
_LOW_RES = 0.25  # the keep-out test runs on a quarter-size mask


class Distractor(Protocol):
    """Something painted over the scene; its shadows go into the scene's shadow map first."""

    def casters(self) -> list[Caster]: ...

    def depth_point(self) -> tuple[float, float, float]: ...

    def draw(self, canvas: U8, camera: Camera, light: Light) -> None: ...

    def describe(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Keepout:
    """The part of the photo no distractor may cover, as a low-resolution 0/255 mask."""

    mask: U8

    @classmethod
    def of_grid(cls, camera: Camera, board: bool, *, whole_board: bool = False) -> Keepout:
        """The grid and the space its palisades stand in, widened a little for blur and rounding;
        with ``whole_board`` the frame too (a setup photo must show all of the board's face)."""
        shape = (math.ceil(camera.height * _LOW_RES), math.ceil(camera.width * _LOW_RES))
        if not board:
            return cls(np.zeros(shape, np.uint8))
        x0, y0, x1, y1 = MARGIN_MM, MARGIN_MM, MARGIN_MM + GRID_W_MM, MARGIN_MM + GRID_H_MM
        if whole_board:
            x0, y0, x1, y1 = 0.0, 0.0, BOARD_W_MM, BOARD_H_MM
        box = np.array(
            [
                (x, y, z)
                for z in (0.0, PALISADE_HEIGHT_MM)
                for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
            ],
            dtype=np.float64,
        )
        mask = fill_mask(shape, [hull(camera.project(box))], _LOW_RES)
        grow = max(1, round(0.012 * min(camera.width, camera.height) * _LOW_RES))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
        return cls(np.asarray(cv2.dilate(mask, kernel), dtype=np.uint8))

    def hit(self, polygons: list[FloatArray]) -> bool:
        """Whether any of these photo-pixel polygons touches the kept-out area."""
        return bool(np.any(fill_mask(self.mask.shape, polygons, _LOW_RES) & self.mask))


def edge_point(
    rng: np.random.Generator, size: tuple[int, int], inset: float
) -> tuple[FloatArray, FloatArray]:
    """A point ``inset`` px inside a random edge of the frame, and the inward direction there."""
    w, h = size
    edge = int(rng.integers(4))
    t = float(rng.uniform(0.12, 0.88))
    points = [(t * w, inset), (w - 1 - inset, t * h), (t * w, h - 1 - inset), (inset, t * h)]
    inward = [(0.0, 1.0), (-1.0, 0.0), (0.0, -1.0), (1.0, 0.0)]
    return np.array(points[edge]), np.array(inward[edge])


def on_table(camera: Camera, point_px: FloatArray) -> FloatArray | None:
    """Where the ray through a pixel meets the table, if it does so in front of the camera."""
    spot = camera.unproject(point_px[None, :], TABLE_Z)[0]
    depth = float(camera.depth(np.array([spot[0], spot[1], TABLE_Z]))[0])
    return spot if 0 < depth < 5000 else None


def _fits(camera: Camera, outline: FloatArray, keep: Keepout, *, max_area: float = 0.3) -> bool:
    """Clear of the keep-out, at least a quarter inside the frame, and not filling it."""
    if keep.hit([outline]):
        return False
    frame = camera.frame_corners().astype(np.float32)
    area = abs(cv2.contourArea(outline.astype(np.float32)))
    inside, _ = cv2.intersectConvexConvex(outline.astype(np.float32), frame)
    return area > 0 and inside >= 0.25 * area and inside <= max_area * camera.width * camera.height


def _clear_of_board(spot: FloatArray, radius: float, board: bool) -> bool:
    """A table object must stand beside the board, not on it."""
    if not board:
        return True
    dx = max(0.0, -spot[0], spot[0] - BOARD_W_MM)
    dy = max(0.0, -spot[1], spot[1] - BOARD_H_MM)
    return math.hypot(dx, dy) > radius + 6


# Cups


@dataclass(frozen=True)
class Cup:
    """A mug on the table: a cylinder with a rim, maybe coffee, and a handle."""

    centre: tuple[float, float]
    radius: float
    height: float
    colour: str
    coffee: bool
    handle_deg: float

    def _ring(self, z: float, radius: float, n: int = 48) -> FloatArray:
        t = np.linspace(0, 2 * np.pi, n, endpoint=False)
        return np.column_stack(
            [self.centre[0] + radius * np.cos(t), self.centre[1] + radius * np.sin(t), np.full(n, z)]
        )

    def _handle(self) -> FloatArray:
        t = np.linspace(-np.pi / 2, np.pi / 2, 15)
        a = math.radians(self.handle_deg)
        out = self.radius * 1.02 + 19 * np.cos(t)
        z = TABLE_Z + 0.55 * self.height + 0.24 * self.height * np.sin(t)
        return np.column_stack([self.centre[0] + out * math.cos(a), self.centre[1] + out * math.sin(a), z])

    @property
    def top_radius(self) -> float:
        return self.radius * 1.06

    def points(self) -> FloatArray:
        """Points whose convex hull holds the whole cup, handle included."""
        top = self._ring(TABLE_Z + self.height, self.top_radius)
        return np.vstack([self._ring(TABLE_Z, self.radius), top, self._handle()])

    def outline_px(self, camera: Camera) -> FloatArray:
        return hull(camera.project(self.points()))

    def casters(self) -> list[Caster]:
        return [Caster(self._ring(TABLE_Z, self.radius)[:, :2], TABLE_Z, self.height)]

    def depth_point(self) -> tuple[float, float, float]:
        return (self.centre[0], self.centre[1], TABLE_Z + self.height / 2)

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "cup",
            "centre_mm": [round(v, 1) for v in self.centre],
            "colour": self.colour,
            "coffee": self.coffee,
        }

    def draw(self, canvas: U8, camera: Camera, light: Light) -> None:
        body = hex_bgr(CUP_HEX[self.colour])
        a = math.radians(self.handle_deg)
        toward = camera.position[:2] - np.asarray(self.centre)
        handle_in_front = math.cos(a) * toward[0] + math.sin(a) * toward[1] > 0
        if not handle_in_front:
            self._draw_handle(canvas, camera, light, body)
        bottom, top = self._ring(TABLE_Z, self.radius), self._ring(TABLE_Z + self.height, self.top_radius)
        pb, pt = camera.project(bottom), camera.project(top)
        fill(canvas, hull(np.vstack([pb, pt])), darker(body, 0.6))
        n = len(bottom)
        for i in range(n):
            j = (i + 1) % n
            mid = math.pi * 2 * (i + 0.5) / n
            normal = (math.cos(mid), math.sin(mid), 0.0)
            if visible(camera, np.vstack([bottom[[i, j]], top[[i, j]]]), normal):
                fill(canvas, np.array([pb[i], pb[j], pt[j], pt[i]]), darker(body, light.shade(normal)))
        fill(canvas, pt, darker(body, 0.55 * light.shade((0.0, 0.0, 1.0))))
        if self.coffee:
            self._draw_coffee(canvas, camera, pt)
        scale = camera.px_per_mm(self.centre[0], self.centre[1], TABLE_Z + self.height)
        rim = np.round(pt * 16).astype(np.int32)
        cv2.polylines(
            canvas,
            [rim],
            True,
            darker(body, 1.08 * light.shade((0.0, 0.0, 1.0))),
            max(1, round(2.5 * scale)),
            cv2.LINE_AA,
            4,
        )
        if handle_in_front:
            self._draw_handle(canvas, camera, light, body)

    def _draw_coffee(self, canvas: U8, camera: Camera, opening: FloatArray) -> None:
        """The drink's surface, seen only through the opening."""
        surface = camera.project(self._ring(TABLE_Z + self.height - 14, self.top_radius * 0.94))
        box = roi_of(opening, canvas.shape)
        if box is None:
            return
        x0, y0, x1, y1 = box
        offset = np.array([x0, y0])
        shape = (y1 - y0, x1 - x0)
        inside = fill_mask(shape, [opening - offset]) & fill_mask(shape, [surface - offset])
        roi = canvas[y0:y1, x0:x1]
        roi[inside > 0] = np.asarray(hex_bgr(COFFEE_HEX), np.uint8)

    def _draw_handle(self, canvas: U8, camera: Camera, light: Light, body: BGR) -> None:
        pts = np.round(camera.project(self._handle()) * 16).astype(np.int32)
        a = math.radians(self.handle_deg)
        scale = camera.px_per_mm(self.centre[0], self.centre[1], TABLE_Z + self.height / 2)
        width = max(2, round(7 * scale))
        cv2.polylines(canvas, [pts], False, darker(body, 0.45), width + 2, cv2.LINE_AA, 4)
        shade = light.shade((math.cos(a), math.sin(a), 0.0))
        cv2.polylines(canvas, [pts], False, darker(body, shade), width, cv2.LINE_AA, 4)


def place_cup(rng: np.random.Generator, camera: Camera, keep: Keepout, board: bool) -> Cup | None:
    """A cup standing on the table at the frame's edge, or None where none fits."""
    size = (camera.width, camera.height)
    colours = sorted(CUP_HEX)
    for _ in range(60):
        point, _ = edge_point(rng, size, float(rng.uniform(-0.03, 0.1)) * min(size))
        spot = on_table(camera, point)
        radius, height = float(rng.uniform(38, 45)), float(rng.uniform(85, 105))
        if spot is None or not _clear_of_board(spot, radius * 1.5, board):
            continue
        cup = Cup(
            (float(spot[0]), float(spot[1])),
            radius,
            height,
            str(rng.choice(colours)),
            bool(rng.random() < 0.6),
            float(rng.uniform(0, 360)),
        )
        # A cup right under the lens could reach behind it, where projecting means nothing.
        if float(camera.depth(cup.points()).min()) > 30 and _fits(camera, cup.outline_px(camera), keep):
            return cup
    return None


# Dice


@dataclass(frozen=True)
class Dice:
    """One to three dice lying near each other on the table."""

    blocks: tuple[Block, ...]
    tops: tuple[int, ...]
    colour: str

    def casters(self) -> list[Caster]:
        return [b.caster() for b in self.blocks]

    def depth_point(self) -> tuple[float, float, float]:
        return self.blocks[0].centre

    def outlines_px(self, camera: Camera) -> list[FloatArray]:
        return [hull(camera.project(b.corners())) for b in self.blocks]

    def describe(self) -> dict[str, Any]:
        centres = [[round(b.centre[0], 1), round(b.centre[1], 1)] for b in self.blocks]
        return {"kind": "dice", "centres_mm": centres, "tops": list(self.tops), "colour": self.colour}

    def draw(self, canvas: U8, camera: Camera, light: Light) -> None:
        body, pip = (hex_bgr(c) for c in DICE_HEX[self.colour])
        order = np.argsort(-camera.depth(np.array([b.centre for b in self.blocks])), kind="stable")
        for i in order:
            block, top = self.blocks[int(i)], self.tops[int(i)]
            # Opposite faces add up to 7; any two faces beside the top will do for the sides.
            front, right = [v for v in range(1, 7) if v not in (top, 7 - top)][::2][:2]
            values = {"top": top, "front": front, "back": 7 - front, "right": right, "left": 7 - right}
            s = max(2.0, camera.px_per_mm(*block.centre) * 1.3)
            faces = {name: die_face(v, block.size[0], s, body, pip) for name, v in values.items()}
            draw_block(canvas, camera, block, faces, light)


def place_dice(rng: np.random.Generator, camera: Camera, keep: Keepout, board: bool) -> Dice | None:
    """A few dice on the table near the frame's edge, or None where none fit."""
    size = (camera.width, camera.height)
    for _ in range(60):
        point, _ = edge_point(rng, size, float(rng.uniform(0.02, 0.12)) * min(size))
        spot = on_table(camera, point)
        if spot is None:
            continue
        side = float(rng.uniform(14, 17))
        count = int(rng.integers(1, 4))
        heading = float(rng.uniform(0, 2 * np.pi))
        blocks = []
        for k in range(count):
            x = spot[0] + k * 24 * math.cos(heading) + float(rng.uniform(-3, 3))
            y = spot[1] + k * 24 * math.sin(heading) + float(rng.uniform(-3, 3))
            blocks.append(Block((x, y, TABLE_Z), (side, side, side), float(rng.uniform(0, 90))))
        if not all(_clear_of_board(np.array(b.centre[:2]), side, board) for b in blocks):
            continue
        dice = Dice(
            tuple(blocks), tuple(int(v) for v in rng.integers(1, 7, count)), str(rng.choice(sorted(DICE_HEX)))
        )
        outlines = dice.outlines_px(camera)
        if _fits(camera, hull(np.vstack(outlines)), keep, max_area=0.1):
            return dice
    return None


# Hands
