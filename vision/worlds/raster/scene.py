"""The board and its pieces in 3-D: where each one stands, and how it is painted into the photo.

Tokens lie flat, 2 mm thick; palisades are boxes standing on grid lines. All
are placed in board millimetres (:mod:`vision.geometry`) with the small
misalignments of pieces put down by hand, then projected by the camera.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from engine import Cell, Position, Slot
from vision.geometry import (
    BOARD_H_MM,
    BOARD_THICKNESS_MM,
    BOARD_W_MM,
    GOLD_DIAMETER_MM,
    GRID_H_MM,
    GRID_W_MM,
    MARGIN_MM,
    PALISADE_HEIGHT_MM,
    PALISADE_LENGTH_MM,
    PALISADE_WIDTH_MM,
    PITCH_MM,
    TOKEN_THICKNESS_MM,
    WARRIOR_CORNER_MM,
    WARRIOR_SIDE_MM,
    FloatArray,
    cell_centre_mm,
    slot_segment_mm,
)
from vision.worlds.raster.camera import TABLE_Z, Camera
from vision.worlds.raster.copies import BOARD_EDGE_HEX as BOARD_EDGE_HEX  # where it was before copies
from vision.worlds.raster.copies import REFERENCE_COPY, Copy
from vision.worlds.raster.draw import (
    Sprite,
    box_corners,
    box_faces,
    fill,
    hull,
    paste,
    paste_quad,
    roi_of,
    translation,
    visible,
)
from vision.worlds.raster.lighting import Caster, Light
from vision.worlds.raster.pieces import (
    circle_outline,
    cut,
    darker,
    gold_sprite,
    palisade_wood,
    rounded_square_outline,
    warrior_sprite,
)
from vision.worlds.raster.textures import BGR, U8, hex_bgr

# A token may sit off its cell's centre only as far as the cell's edge less half a palisade.
_TOKEN_REACH_MM = PITCH_MM / 2 - PALISADE_WIDTH_MM / 2


def board_art(copy: Copy = REFERENCE_COPY) -> U8:
    """A copy's printed face (by default the reference board's), 5 px/mm, as BGR, read-only."""
    return copy.art


@dataclass(frozen=True)
class Token:
    """A flat piece: ``kind`` "gold" (``label`` its value) or "warrior" (``label`` its colour)."""

    kind: str
    label: str
    centre: tuple[float, float]
    angle_deg: float
    base_z: float = 0.0

    def outline(self) -> FloatArray:
        """The footprint, (N, 2) mm on the plane it lies on."""
        local = (
            circle_outline(GOLD_DIAMETER_MM / 2)
            if self.kind == "gold"
            else rounded_square_outline(WARRIOR_SIDE_MM, WARRIOR_CORNER_MM)
        )
        return np.asarray(local @ _rotation(self.angle_deg).T + np.asarray(self.centre), dtype=np.float64)

    def caster(self) -> Caster:
        return Caster(self.outline(), self.base_z, TOKEN_THICKNESS_MM, cut=True)


@dataclass(frozen=True)
class Block:
    """A box standing on the plane: a palisade, a die, or a stick lying loose on the table."""

    centre: tuple[float, float, float]
    size: tuple[float, float, float]
    yaw_deg: float

    def corners(self) -> FloatArray:
        return box_corners(self.centre, self.size, self.yaw_deg)

    def caster(self) -> Caster:
        return Caster(self.corners()[:4, :2], self.centre[2], self.size[2])


def _rotation(angle_deg: float) -> FloatArray:
    c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    return np.array([[c, -s], [s, c]])


def lay_out_tokens(position: Position, rng: np.random.Generator) -> list[Token]:
    """Gold and warriors on their cells, off-centre and turned as a hand puts them down."""
    tokens = [
        _jittered("gold", str(g.value), g.cell, rng, shift_mm=3.0, turn_deg=8.0, half_mm=GOLD_DIAMETER_MM / 2)
        for g in position.gold
    ]
    tokens += [
        _jittered("warrior", w.player, w.cell, rng, shift_mm=5.0, turn_deg=15.0, half_mm=WARRIOR_SIDE_MM / 2)
        for w in position.warriors
    ]
    return tokens


def _jittered(
    kind: str,
    label: str,
    cell: Cell,
    rng: np.random.Generator,
    *,
    shift_mm: float,
    turn_deg: float,
    half_mm: float,
) -> Token:
    angle = float(rng.uniform(-turn_deg, turn_deg))
    # A turned square reaches further; keep it clear of any palisade on its cell's edges.
    reach = (
        half_mm
        if kind == "gold"
        else half_mm * (abs(math.cos(math.radians(angle))) + abs(math.sin(math.radians(angle))))
    )
    room = max(0.0, min(shift_mm, _TOKEN_REACH_MM - reach))
    cx, cy = cell_centre_mm(cell)
    dx, dy = (float(v) for v in rng.uniform(-room, room, 2))
    return Token(kind, label, (cx + dx, cy + dy), angle)


def palisade_blocks(palisades: Sequence[Slot], rng: np.random.Generator) -> list[Block]:
    """A stick on each slot's grid line, centred on it within a millimetre and a degree or two."""
    blocks = []
    for slot in sorted(palisades, key=lambda s: s.number):
        (xa, ya), (xb, yb) = slot_segment_mm(slot)
        along, across = (float(v) for v in rng.uniform(-1.0, 1.0, 2))
        yaw = (90.0 if slot.vertical else 0.0) + float(rng.uniform(-1.5, 1.5))
        ux, uy = (0.0, 1.0) if slot.vertical else (1.0, 0.0)
        centre = (
            (xa + xb) / 2 + along * ux - across * 0.6 * uy,
            (ya + yb) / 2 + along * uy + across * 0.6 * ux,
        )
        blocks.append(
            Block(
                (centre[0], centre[1], 0.0), (PALISADE_LENGTH_MM, PALISADE_WIDTH_MM, PALISADE_HEIGHT_MM), yaw
            )
        )
    return blocks


def draw_board(canvas: U8, camera: Camera, light: Light, copy: Copy) -> None:
    """``copy``'s board: the slab's visible edges, dark card, then the art on its face."""
    slab = box_corners(
        (BOARD_W_MM / 2, BOARD_H_MM / 2, TABLE_Z), (BOARD_W_MM, BOARD_H_MM, BOARD_THICKNESS_MM), 0.0
    )
    px = camera.project(slab)
    for name, face in box_faces(0.0).items():
        corners = slab[list(face.corners)]
        if name != "top" and visible(camera, corners, face.normal):
            fill(canvas, px[list(face.corners)], darker(hex_bgr(copy.edge_hex), light.shade(face.normal)))
    # An anti-aliased outline in the frame's colour first, then the art, which leaves edge pixels alone.
    fill(canvas, px[4:], hex_bgr(copy.frame_hex))
    art = copy.art
    s = art.shape[1] / BOARD_W_MM
    to_mm = np.array([[1 / s, 0, 0.5 / s], [0, 1 / s, 0.5 / s], [0, 0, 1]])
    matrix = camera.plane_homography(0.0) @ to_mm
    box = roi_of(px[4:], canvas.shape, pad=1)
    if box is None:
        return
    x0, y0, x1, y1 = box
    roi = np.ascontiguousarray(canvas[y0:y1, x0:x1])
    cv2.warpPerspective(
        art,
        translation(-x0, -y0) @ matrix,
        (x1 - x0, y1 - y0),
        dst=roi,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_TRANSPARENT,
    )
    canvas[y0:y1, x0:x1] = roi


class PieceArt:
    """The sprites of one photo of ``copy``: one per gold value and colour, cut to the photo's scale."""

    def __init__(
        self, rng: np.random.Generator, px_per_mm: float, font: str, emblems: dict[str, str], copy: Copy
    ) -> None:
        self.rng = rng
        self.s = px_per_mm
        self.font = font
        self.emblems = emblems
        self.copy = copy
        self.wood = palisade_wood(rng, px_per_mm, copy)
        self._cache: dict[tuple[str, str], Sprite] = {}

    def token(self, token: Token) -> Sprite:
        key = (token.kind, token.label)
        if key not in self._cache:
            if token.kind == "gold":
                self._cache[key] = gold_sprite(int(token.label), self.font, self.s, self.rng, self.copy)
            else:
                self._cache[key] = warrior_sprite(
                    token.label, self.emblems[token.label], self.s, self.rng, self.copy
                )
        return self._cache[key]

    def side_colour(self, token: Token) -> BGR:
        if token.kind == "gold":
            return darker(hex_bgr(self.copy.gold_rim_hex), 0.85)
        return darker(hex_bgr(self.copy.colours[token.label]), 0.62)


def draw_token(canvas: U8, camera: Camera, token: Token, art: PieceArt, light: Light) -> None:
    """A flat token: its edge band in a darker tone, then its face warped on top."""
    outline = token.outline()
    top_z = token.base_z + TOKEN_THICKNESS_MM
    rim = np.vstack([np.column_stack([outline, np.full(len(outline), z)]) for z in (token.base_z, top_z)])
    toward = camera.position[:2] - np.asarray(token.centre)
    toward = toward / max(1e-9, float(np.hypot(*toward)))
    side = darker(art.side_colour(token), light.shade((float(toward[0]), float(toward[1]), 0.0)))
    fill(canvas, hull(camera.project(rim)), side)
    sprite = art.token(token)
    h, w = sprite.image.shape[:2]
    s = sprite.px_per_mm
    c, sn = math.cos(math.radians(token.angle_deg)), math.sin(math.radians(token.angle_deg))
    place = np.array([[c / s, -sn / s, 0], [sn / s, c / s, 0], [0, 0, 1]])
    place = translation(*token.centre) @ place @ translation(-(w - 1) / 2, -(h - 1) / 2)
    paste(canvas, sprite, camera.plane_homography(top_z) @ place)


def draw_block(canvas: U8, camera: Camera, block: Block, faces: dict[str, Sprite], light: Light) -> None:
    """A box: its outline filled in an average tone (no seams), then each face turned to the camera."""
    corners = block.corners()
    px = camera.project(corners)
    mean = np.mean([f.image[..., :3].mean(axis=(0, 1)) for f in faces.values()], axis=0)
    fill(canvas, hull(px), darker((float(mean[0]), float(mean[1]), float(mean[2])), 0.7))
    for name, face in box_faces(block.yaw_deg).items():
        if visible(camera, corners[list(face.corners)], face.normal):
            paste_quad(canvas, faces[name], px[list(face.corners)], shade=light.shade(face.normal))


def palisade_faces(art: PieceArt, block: Block) -> dict[str, Sprite]:
    """Wood for each face of a stick: long grain on top and sides, darker end grain."""
    length, width, height = block.size
    s, rng = art.s, art.rng
    ends = cut(art.wood, rng, (width, height), s)
    ends = Sprite(ends.image * np.array([0.82, 0.82, 0.82, 1.0], np.float32), s)
    return {
        "top": cut(art.wood, rng, (length, width), s),
        "front": cut(art.wood, rng, (length, height), s),
        "back": cut(art.wood, rng, (length, height), s),
        "left": ends,
        "right": ends,
    }


def depth_order(camera: Camera, points: Sequence[tuple[float, float, float]]) -> list[int]:
    """Indices of the points from the farthest to the nearest: the painter's order."""
    if not points:
        return []
    depths = camera.depth(np.asarray(points, dtype=np.float64))
    return [int(i) for i in np.argsort(-depths, kind="stable")]


def grid_outline_px(camera: Camera) -> FloatArray:
    """The 8x5 grid's corners in the photo, clockwise from its top-left, shape (4, 2)."""
    x0, y0, x1, y1 = MARGIN_MM, MARGIN_MM, MARGIN_MM + GRID_W_MM, MARGIN_MM + GRID_H_MM
    return camera.project(np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], dtype=np.float64))
