"""The room's light: a directional lamp casting soft shadows, and how it shades tilted faces.

Brightness is normalised so that an unshadowed horizontal surface (the board's
face, a token's top) is 1: the overall exposure and colour cast come later,
from :mod:`vision.worlds.raster.optics`, for the whole photo at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import FloatArray
from vision.worlds.raster.camera import Camera, pixel_grid_corners
from vision.worlds.raster.draw import apply_homography, hull, roi_of, translation
from vision.worlds.raster.textures import F32, U8


@dataclass(frozen=True)
class Light:
    """A lamp far away at ``elevation_deg`` above the table, on the side ``azimuth_deg``.

    The azimuth counts like the camera's (0 the board's bottom edge, 90 its
    left). ``strength`` is how much of the light on a horizontal surface the
    lamp gives (the rest is diffuse): a full shadow is ``1 - strength``
    bright. ``softness_mm`` blurs shadow edges.
    """

    elevation_deg: float
    azimuth_deg: float
    strength: float
    softness_mm: float

    @property
    def direction(self) -> FloatArray:
        """Unit vector from the scene toward the lamp."""
        e, a = math.radians(self.elevation_deg), math.radians(self.azimuth_deg)
        return np.array([-math.sin(a) * math.cos(e), math.cos(a) * math.cos(e), math.sin(e)])

    def shadow_offset(self, height: float) -> FloatArray:
        """How far, on the table plane, the shadow of a point ``height`` mm up falls from its foot."""
        d = self.direction
        return np.asarray(-d[:2] * height / d[2], dtype=np.float64)

    def shade(self, normal: Sequence[float]) -> float:
        """Brightness of a face with this outward normal, relative to a lit horizontal surface.

        Diffuse light reaches vertical faces about two thirds as well as horizontal
        ones, so even under a soft light the sides of a stick differ from its top.
        """
        n = np.asarray(normal, dtype=np.float64)
        d = self.direction
        ambient = (1 - self.strength) * (0.65 + 0.35 * n[2])
        direct = self.strength / d[2] * max(0.0, float(n @ d))
        return float(min(1.35, ambient + direct))


@dataclass(frozen=True)
class Caster:
    """Something standing ``height`` mm tall on an ``outline`` (N, 2) mm of the plane at ``base_z``.

    ``cut`` clears the caster's own footprint afterwards: a token's shadow
    shows around it but must not darken its own top.
    """

    outline: FloatArray
    base_z: float
    height: float
    cut: bool = False


def shadow_coverage(
    casters: Sequence[Caster], light: Light, region: tuple[float, float, float, float], px_per_mm: float
) -> F32:
    """How shadowed each point of a rectangle of the table is, 0..1, sampled ``px_per_mm``."""
    x0, y0, x1, y1 = region
    w, h = max(2, math.ceil((x1 - x0) * px_per_mm)), max(2, math.ceil((y1 - y0) * px_per_mm))
    canvas: U8 = np.zeros((h, w), np.uint8)
    to_px = np.array([x0, y0])
    shift = 4

    def fill(polygon: FloatArray, value: int) -> None:
        pts = np.round((polygon - to_px) * px_per_mm * (1 << shift)).astype(np.int32)
        cv2.fillPoly(canvas, [pts], value, lineType=cv2.LINE_AA, shift=shift)

    # Casters come in drawing order; footprints are cleared as soon as their own shadow is drawn,
    # so a palisade listed later still darkens a token's top.
    for caster in casters:
        top = caster.outline + light.shadow_offset(caster.height)
        fill(hull(np.vstack([caster.outline, top])), 255)
        if caster.cut:
            fill(caster.outline, 0)
    sigma = max(0.5, light.softness_mm * px_per_mm)
    blurred = cv2.GaussianBlur(canvas.astype(np.float32) / 255, (0, 0), sigma)
    return np.asarray(blurred, dtype=np.float32)


def cast_shadows(
    canvas: U8,
    camera: Camera,
    casters: Sequence[Caster],
    light: Light,
    region: tuple[float, float, float, float],
) -> None:
    """Darken the canvas where the casters' shadows fall on the plane ``z = 0`` within ``region``."""
    if light.strength <= 0 or not casters:
        return
    x0, y0, x1, y1 = region
    px = min(2.0, math.sqrt(4e6 / max(1.0, (x1 - x0) * (y1 - y0))))
    coverage = shadow_coverage(casters, light, region, px)
    # Map pixel centres to millimetres: pixel (0, 0) covers [x0, x0 + 1/px).
    to_mm = np.array([[1 / px, 0, x0 + 0.5 / px], [0, 1 / px, y0 + 0.5 / px], [0, 0, 1]])
    matrix = camera.plane_homography(0.0) @ to_mm
    h, w = coverage.shape
    box = roi_of(apply_homography(matrix, pixel_grid_corners(w, h)), canvas.shape)
    if box is None:
        return
    bx0, by0, bx1, by1 = box
    warped = cv2.warpPerspective(
        coverage, translation(-bx0, -by0) @ matrix, (bx1 - bx0, by1 - by0), flags=cv2.INTER_LINEAR
    )
    # In 8 bits (255 = unshadowed) for OpenCV's fast saturating multiply.
    factor = cv2.convertScaleAbs(warped, alpha=-255 * light.strength, beta=255.5)
    factor3 = cv2.cvtColor(factor, cv2.COLOR_GRAY2BGR)
    roi = canvas[by0:by1, bx0:bx1]
    roi[:] = cv2.multiply(roi, factor3, scale=1 / 255)
