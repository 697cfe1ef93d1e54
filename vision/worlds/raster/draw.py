"""Painting primitives on a BGR ``uint8`` canvas: sprites warped by homographies, polygons, boxes.

Everything is painted far to near (the painter's algorithm), so each call
simply covers what is already there. Sprites are premultiplied BGRA floats:
their edges come out anti-aliased from the warp's interpolation without
bleeding the colour of their transparent surroundings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.geometry import FloatArray
from vision.worlds.raster.camera import Camera, pixel_grid_corners
from vision.worlds.raster.textures import BGR, F32, U8

_SHIFT = 4  # fixed-point bits for sub-pixel polygon vertices


@dataclass(frozen=True)
class Sprite:
    """A premultiplied BGRA image of a flat thing, ``px_per_mm`` pixels a millimetre, centred on it."""

    image: F32
    px_per_mm: float

    @classmethod
    def opaque(cls, bgr: F32 | U8, px_per_mm: float = 1.0) -> Sprite:
        h, w = bgr.shape[:2]
        image = np.empty((h, w, 4), np.float32)
        image[..., :3] = bgr
        image[..., 3] = 255
        return cls(image, px_per_mm)

    @classmethod
    def from_mask(cls, colour: F32, alpha: F32, px_per_mm: float) -> Sprite:
        """From an (h, w, 3) colour image and an (h, w) alpha in 0..1."""
        image = np.empty((*alpha.shape, 4), np.float32)
        image[..., :3] = colour * alpha[..., None]
        image[..., 3] = alpha * 255
        return cls(image, px_per_mm)

    @property
    def corners(self) -> FloatArray:
        h, w = self.image.shape[:2]
        return pixel_grid_corners(w, h)


def roi_of(points: FloatArray, shape: Sequence[int], pad: int = 2) -> tuple[int, int, int, int] | None:
    """The pixel box ``(x0, y0, x1, y1)`` around ``points``, clipped to an image; None if empty."""
    h, w = shape[:2]
    x0 = max(0, int(np.floor(points[:, 0].min())) - pad)
    y0 = max(0, int(np.floor(points[:, 1].min())) - pad)
    x1 = min(w, int(np.ceil(points[:, 0].max())) + pad + 1)
    y1 = min(h, int(np.ceil(points[:, 1].max())) + pad + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def apply_homography(matrix: FloatArray, points: FloatArray) -> FloatArray:
    pts = np.column_stack([points, np.ones(len(points))]) @ matrix.T
    return np.asarray(pts[:, :2] / pts[:, 2:3], dtype=np.float64)


def translation(dx: float, dy: float) -> FloatArray:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


def paste(canvas: U8, sprite: Sprite, matrix: FloatArray, *, shade: float = 1.0) -> None:
    """Cover the canvas with ``sprite`` warped by ``matrix`` (sprite pixels to canvas pixels)."""
    box = roi_of(apply_homography(matrix, sprite.corners), canvas.shape)
    if box is None:
        return
    x0, y0, x1, y1 = box
    warped = cv2.warpPerspective(
        sprite.image,
        translation(-x0, -y0) @ matrix,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0.0, 0.0, 0.0, 0.0),
    )
    roi = canvas[y0:y1, x0:x1]
    alpha = warped[..., 3:4] * (1 / 255)
    mixed = roi * (1 - alpha) + warped[..., :3] * shade
    roi[:] = np.clip(mixed + 0.5, 0, 255).astype(np.uint8)


def fill(canvas: U8, polygon: FloatArray, colour: BGR) -> None:
    """Fill a polygon given in sub-pixel canvas coordinates, anti-aliased."""
    pts = np.round(np.asarray(polygon) * (1 << _SHIFT)).astype(np.int32)
    cv2.fillPoly(canvas, [pts], colour, lineType=cv2.LINE_AA, shift=_SHIFT)


def hull(points: FloatArray) -> FloatArray:
    """The convex hull of 2-D points: the outline of a convex solid from its projected corners."""
    found = cv2.convexHull(np.asarray(points, np.float32))
    return np.asarray(found, dtype=np.float64).reshape(-1, 2)


def fill_mask(
    shape: tuple[int, int], polygons: Sequence[FloatArray], scale: float = 1.0
) -> npt.NDArray[np.uint8]:
    """A 0/255 mask of the polygons' union, drawn at ``scale`` times their coordinates."""
    mask = np.zeros(shape, np.uint8)
    for polygon in polygons:
        pts = np.round(np.asarray(polygon) * scale * (1 << _SHIFT)).astype(np.int32)
        cv2.fillPoly(mask, [pts], 255, lineType=cv2.LINE_8, shift=_SHIFT)
    return mask


@dataclass(frozen=True)
class Face:
    """One face of a box: corners in texture order (top-left, top-right, bottom-right, bottom-left)."""

    corners: tuple[int, int, int, int]
    normal: tuple[float, float, float]


def box_corners(
    centre: tuple[float, float, float], size: tuple[float, float, float], yaw_deg: float
) -> FloatArray:
    """The 8 corners of a box standing on ``centre`` (its base's centre): base first, then top.

    Each ring runs (-x, -y), (+x, -y), (+x, +y), (-x, +y) in the box's own axes.
    """
    a, b, h = size[0] / 2, size[1] / 2, size[2]
    c, s = np.cos(np.radians(yaw_deg)), np.sin(np.radians(yaw_deg))
    local = np.array([[-a, -b], [a, -b], [a, b], [-a, b]])
    xy = local @ np.array([[c, s], [-s, c]]) + np.asarray(centre[:2])
    z0 = centre[2]
    return np.vstack([np.column_stack([xy, np.full(4, z0)]), np.column_stack([xy, np.full(4, z0 + h)])])


def box_faces(yaw_deg: float) -> dict[str, Face]:
    """The five faces a box on a surface can show, with their outward normals."""
    c, s = float(np.cos(np.radians(yaw_deg))), float(np.sin(np.radians(yaw_deg)))
    return {
        "top": Face((4, 5, 6, 7), (0.0, 0.0, 1.0)),
        "front": Face((4, 5, 1, 0), (s, -c, 0.0)),
        "right": Face((5, 6, 2, 1), (c, s, 0.0)),
        "back": Face((6, 7, 3, 2), (-s, c, 0.0)),
        "left": Face((7, 4, 0, 3), (-c, -s, 0.0)),
    }


def visible(camera: Camera, points: FloatArray, normal: tuple[float, float, float]) -> bool:
    """Whether a flat face with this outward normal turns toward the camera."""
    return float(np.dot(camera.position - points.mean(axis=0), normal)) > 1e-6


def paste_quad(canvas: U8, sprite: Sprite, quad: FloatArray, *, shade: float = 1.0) -> None:
    """Warp a whole sprite onto a projected quadrilateral (corners in texture order)."""
    matrix = cv2.getPerspectiveTransform(sprite.corners.astype(np.float32), quad.astype(np.float32))
    paste(canvas, sprite, np.asarray(matrix, dtype=np.float64), shade=shade)
