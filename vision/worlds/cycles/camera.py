"""The phone's camera: where it stands, and where a point of the world lands in the photo.

Pure numpy, so the truth (board and grid corners in pixels) comes from the same numbers that
place Blender's camera. Pixel coordinates follow OpenCV: the centre of the top-left pixel is
(0, 0), x to the right, y down. The lens distortion is applied to the rendered picture after
the render (phone.py), with the radial model of :meth:`Camera.distort`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray


def look_rotation(forward: NDArray[Any], up_hint: NDArray[Any], roll_deg: float = 0.0) -> NDArray[Any]:
    """A 3x3 rotation whose columns are right, up and back (Blender's camera and lights look down -Z)."""
    f = forward / np.linalg.norm(forward)
    right = np.cross(f, up_hint)
    if np.linalg.norm(right) < 1e-9:  # looking along the hint: any right angle will do
        right = np.cross(f, np.array([1.0, 0.0, 0.0]))
    right /= np.linalg.norm(right)
    up = np.cross(right, f)
    a = math.radians(roll_deg)
    r2 = math.cos(a) * right + math.sin(a) * up
    u2 = -math.sin(a) * right + math.cos(a) * up
    return np.stack([r2, u2, -f], axis=1)


@dataclass(frozen=True)
class Camera:
    """A pinhole camera with Blender's conventions, then a radial distortion of the picture."""

    position: tuple[float, float, float]
    rotation: tuple[tuple[float, float, float], ...]  # 3x3, columns right, up, back
    lens_mm: float
    sensor_mm: float  # along the longer side of the picture
    width: int
    height: int
    shift_x: float = 0.0  # Blender's lens shift, in units of the longer side
    shift_y: float = 0.0
    k: float = 0.0  # radial distortion, see distort()

    @property
    def focal_px(self) -> float:
        return self.lens_mm / self.sensor_mm * max(self.width, self.height)

    def project_pinhole(self, points: NDArray[Any]) -> NDArray[Any]:
        """(N, 3) world points -> (N, 2) pixels of the undistorted render."""
        rot = np.array(self.rotation)
        q = (np.asarray(points, float) - np.array(self.position)) @ rot
        depth = -q[:, 2]
        big = max(self.width, self.height)
        u = self.width / 2 + self.focal_px * q[:, 0] / depth - self.shift_x * big - 0.5
        v = self.height / 2 - self.focal_px * q[:, 1] / depth + self.shift_y * big - 0.5
        return np.stack([u, v], axis=1)

    def project(self, points: NDArray[Any]) -> NDArray[Any]:
        """(N, 3) world points -> (N, 2) pixels of the final (distorted) photo."""
        return self.distort(self.project_pinhole(points))

    def _norm(self) -> tuple[float, float, float]:
        cx, cy = (self.width - 1) / 2, (self.height - 1) / 2
        return cx, cy, math.hypot(self.width / 2, self.height / 2)

    def undistort(self, pixels: NDArray[Any]) -> NDArray[Any]:
        """Photo pixels -> render pixels: x_u = x_d (1 + k r_d^2) / (1 + k), r_d over the half-diagonal.

        The division keeps the photo's corners on the render's corners, so no render pixel
        outside the frame is ever needed; k > 0 is barrel distortion, k < 0 pincushion.
        """
        cx, cy, rn = self._norm()
        d = (np.asarray(pixels, float) - [cx, cy]) / rn
        s = (1 + self.k * (d**2).sum(axis=-1, keepdims=True)) / (1 + self.k)
        out: NDArray[Any] = d * s * rn + np.array([cx, cy])
        return out

    def distort(self, pixels: NDArray[Any]) -> NDArray[Any]:
        """Render pixels -> photo pixels: the inverse of undistort, by fixed-point iteration."""
        cx, cy, rn = self._norm()
        u = (np.asarray(pixels, float) - [cx, cy]) / rn
        d = u.copy()
        for _ in range(30):
            s = (1 + self.k * (d**2).sum(axis=-1, keepdims=True)) / (1 + self.k)
            d = u / s
        return d * rn + [cx, cy]


def polygon_area(points: NDArray[Any]) -> float:
    x, y = points[:, 0], points[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def place_camera(
    corners: NDArray[Any],
    aim: NDArray[Any],
    *,
    tilt_deg: float,
    azimuth_deg: float,
    roll_deg: float,
    lens_mm: float,
    sensor_mm: float,
    width: int,
    height: int,
    fraction: float,
    offset: tuple[float, float],
    k: float,
    margin: float = 0.02,
) -> Camera:
    """A camera that sees the quad ``corners`` fill about ``fraction`` of the frame, all of it inside.

    ``azimuth_deg`` 0 puts the phone at the board's bottom edge (the board the right way up
    in the photo), 90 at its right edge; ``tilt_deg`` is the angle from straight above. The
    distance is solved for the fraction, then grown until the quad fits with a margin;
    ``offset`` (0..1 each) places the quad in the slack left by lens shift.
    """
    t, a = math.radians(tilt_deg), math.radians(azimuth_deg)
    toward = np.array([math.sin(t) * math.sin(a), -math.sin(t) * math.cos(a), math.cos(t)])
    up_hint = np.array([-math.sin(a), math.cos(a), 0.0])
    rot = look_rotation(-toward, up_hint, roll_deg)
    rows = tuple(tuple(float(v) for v in row) for row in rot)

    def cam(d: float, sx: float = 0.0, sy: float = 0.0) -> Camera:
        pos = tuple(float(v) for v in aim + d * toward)
        return Camera(pos, rows, lens_mm, sensor_mm, width, height, sx, sy, k)  # type: ignore[arg-type]

    d = 1.0
    for _ in range(8):
        area = polygon_area(cam(d).project_pinhole(corners)) / (width * height)
        d *= math.sqrt(area / fraction)
    big = max(width, height)
    m = margin * min(width, height)
    for _ in range(200):
        px = cam(d).project_pinhole(corners)
        lo, hi = px.min(axis=0), px.max(axis=0)
        slack_x = (width - 1 - m) - hi[0], m - lo[0]
        slack_y = (height - 1 - m) - hi[1], m - lo[1]
        if slack_x[0] >= slack_x[1] and slack_y[0] >= slack_y[1]:
            dx = slack_x[1] + offset[0] * (slack_x[0] - slack_x[1])
            dy = slack_y[1] + offset[1] * (slack_y[0] - slack_y[1])
            # Content moves by (dx, dy) pixels when the lens shifts by (-dx, +dy) / big.
            c = cam(d, -dx / big, dy / big)
            final = c.project(corners)
            if (final.min(axis=0) >= 0).all() and (final.max(axis=0) <= [width - 1, height - 1]).all():
                return c
        d *= 1.03
    raise RuntimeError("no camera distance fits the board in the frame")
