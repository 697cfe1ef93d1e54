"""A phone's pinhole camera over the table: where it stands, and how millimetres become pixels.

The world frame is the board's (:mod:`vision.geometry`): ``x`` right and ``y``
down on the printed face, in millimetres, plus ``z`` the height above the face.
That frame is left-handed, so the camera's axes are built from explicit
vectors (:func:`look_at`) rather than from a rotation formula that assumes a
handedness. The board's face lies at ``z = 0`` and the table at
``z = -BOARD_THICKNESS_MM``.

Pixel coordinates follow OpenCV: ``(0, 0)`` is the centre of the top-left pixel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.geometry import BOARD_H_MM, BOARD_THICKNESS_MM, BOARD_W_MM, FloatArray

TABLE_Z = -BOARD_THICKNESS_MM


@dataclass(frozen=True)
class Camera:
    """A pinhole camera with square pixels and its principal point at the frame's centre.

    ``axes`` holds, as rows, the world directions of the image's right, the
    image's down and the viewing direction.
    """

    width: int
    height: int
    focal_px: float
    position: FloatArray
    axes: FloatArray

    @property
    def intrinsics(self) -> FloatArray:
        f = self.focal_px
        return np.array(
            [[f, 0.0, (self.width - 1) / 2], [0.0, f, (self.height - 1) / 2], [0.0, 0.0, 1.0]],
            dtype=np.float64,
        )

    def frame_corners(self) -> FloatArray:
        """The photo's outer corners in pixels, clockwise from the top-left, shape (4, 2)."""
        return pixel_grid_corners(self.width, self.height)

    def to_camera(self, points: FloatArray) -> FloatArray:
        """World points, shape (N, 3), in the camera's frame (right, down, depth)."""
        return np.asarray((np.reshape(points, (-1, 3)) - self.position) @ self.axes.T, dtype=np.float64)

    def depth(self, points: FloatArray) -> FloatArray:
        return self.to_camera(points)[:, 2]

    def project(self, points: FloatArray) -> FloatArray:
        """World points, shape (N, 3), to pixels, shape (N, 2); the points must lie in front."""
        cam = self.to_camera(points)
        f, cx, cy = self.focal_px, (self.width - 1) / 2, (self.height - 1) / 2
        return np.stack([f * cam[:, 0] / cam[:, 2] + cx, f * cam[:, 1] / cam[:, 2] + cy], axis=1)

    def plane_homography(self, z: float = 0.0) -> FloatArray:
        """The 3x3 matrix taking ``(x, y, 1)`` on the horizontal plane at height ``z`` to pixels."""
        ax = self.axes
        third = ax[:, 2] * z - ax @ self.position
        return np.asarray(self.intrinsics @ np.column_stack([ax[:, 0], ax[:, 1], third]), dtype=np.float64)

    def unproject(self, pixels: FloatArray, z: float = 0.0) -> FloatArray:
        """Where the rays through ``pixels`` (N, 2) meet the plane at height ``z``, as (N, 2) mm."""
        pts = np.column_stack([np.reshape(pixels, (-1, 2)), np.ones(len(np.reshape(pixels, (-1, 2))))])
        mapped = pts @ np.linalg.inv(self.plane_homography(z)).T
        return np.asarray(mapped[:, :2] / mapped[:, 2:3], dtype=np.float64)

    def px_per_mm(self, x: float, y: float, z: float = 0.0) -> float:
        """The linear scale of the plane at height ``z`` around ``(x, y)``: pixels a millimetre."""
        pts = np.array([[x, y, z], [x + 1, y, z], [x, y + 1, z]], dtype=np.float64)
        px = self.project(pts)
        (ax, ay), (bx, by) = px[1] - px[0], px[2] - px[0]
        return math.sqrt(abs(ax * by - ay * bx))


def pixel_grid_corners(width: int, height: int) -> FloatArray:
    """The outer corners of a pixel grid whose pixel centres sit on integers, clockwise from top-left."""
    return np.array(
        [[-0.5, -0.5], [width - 0.5, -0.5], [width - 0.5, height - 0.5], [-0.5, height - 0.5]],
        dtype=np.float64,
    )


def look_at(
    target: tuple[float, float, float],
    *,
    tilt_deg: float,
    azimuth_deg: float,
    roll_deg: float,
    distance: float,
) -> tuple[FloatArray, FloatArray]:
    """The camera's position and axes, looking at ``target`` from ``distance`` mm.

    ``tilt_deg`` is the angle between the optical axis and the vertical.
    ``azimuth_deg`` says from which side: 0 the board's bottom edge (rank 1),
    90 its left edge, 180 its top edge, 270 its right edge. Whatever is nearer
    the camera ends up lower in the photo, so at azimuth 0 the board shows the
    right way up.
    """
    tilt, az, roll = (math.radians(a) for a in (tilt_deg, azimuth_deg, roll_deg))
    toward = np.array([-math.sin(az), math.cos(az), 0.0])
    up = np.array([0.0, 0.0, 1.0])
    back = math.sin(tilt) * toward + math.cos(tilt) * up
    forward = -back
    down = math.cos(tilt) * toward - math.sin(tilt) * up
    # In this left-handed frame forward = down x right, hence right = forward x down.
    right = np.cross(forward, down)
    right, down = (
        math.cos(roll) * right + math.sin(roll) * down,
        -math.sin(roll) * right + math.cos(roll) * down,
    )
    position = np.asarray(target, dtype=np.float64) + distance * back
    return position, np.stack([right, down, forward])


@dataclass(frozen=True)
class Framing:
    """How a photo frames the board (or, with no board, the patch of table it aims at)."""

    tilt_deg: float
    azimuth_deg: float
    roll_deg: float
    focal_factor: float
    area_fraction: float
    shift: tuple[float, float]


def board_box_mm(z_low: float = TABLE_Z, z_high: float = 0.0) -> FloatArray:
    """The 8 corners of the board's slab (or of any slab over its rectangle), shape (8, 3)."""
    rect = [(0.0, 0.0), (BOARD_W_MM, 0.0), (BOARD_W_MM, BOARD_H_MM), (0.0, BOARD_H_MM)]
    return np.array([(x, y, z) for z in (z_high, z_low) for x, y in rect], dtype=np.float64)


def place_camera(size: tuple[int, int], framing: Framing) -> Camera:
    """A camera that sees the whole board slab inside ``size`` with a margin, framed as asked.

    The board's face covers about ``framing.area_fraction`` of the frame,
    less where the board would not fit (a board seen sideways in a landscape
    frame cannot fill 90 % of it). ``framing.shift`` in [-1, 1]^2 places it
    within the room left over, -1 left/top and +1 right/bottom.
    """
    width, height = size
    focal = framing.focal_factor * max(width, height)
    margin = 0.02 * min(width, height)
    target = (BOARD_W_MM / 2, BOARD_H_MM / 2, 0.0)
    slab = board_box_mm()

    def camera_at(distance: float, offset: FloatArray | None = None) -> Camera:
        position, axes = look_at(
            target,
            tilt_deg=framing.tilt_deg,
            azimuth_deg=framing.azimuth_deg,
            roll_deg=framing.roll_deg,
            distance=distance,
        )
        if offset is not None:
            position = position + offset
        return Camera(width, height, focal, position, axes)

    distance = focal * math.sqrt(BOARD_W_MM * BOARD_H_MM / (framing.area_fraction * width * height))
    for _ in range(8):
        ratio = face_area_fraction(camera_at(distance)) / framing.area_fraction
        distance *= math.sqrt(ratio)
    for _ in range(12):
        x0, y0, x1, y1 = _bbox(camera_at(distance).project(slab))
        over = max((x1 - x0) / (width - 2 * margin), (y1 - y0) / (height - 2 * margin))
        if over <= 1:
            break
        distance *= over * 1.01

    for _ in range(20):
        base = camera_at(distance)
        x0, y0, x1, y1 = _bbox(base.project(slab))
        lo = np.array([margin - x0, margin - y0])
        hi = np.array([width - margin - x1, height - margin - y1])
        wanted = lo + (hi - lo) * (np.asarray(framing.shift) + 1) / 2
        centred = (lo + hi) / 2
        depth = float(base.depth(np.array(target))[0])
        for factor in (1.0, 0.7, 0.4, 0.2, 0.0):
            move = centred + factor * (wanted - centred)
            # A sideways step of the camera shifts the image by about focal * step / depth.
            offset = -(move[0] * base.axes[0] + move[1] * base.axes[1]) * depth / focal
            camera = camera_at(distance, offset)
            if _inside(camera.project(slab), width, height, margin):
                return camera
        distance *= 1.03
    raise RuntimeError("could not frame the board")  # pragma: no cover - the loop always converges


def face_area_fraction(camera: Camera) -> float:
    """How much of the frame the board's face covers."""
    quad = camera.project(board_box_mm()[:4]).astype(np.float32)
    return float(abs(_polygon_area(quad)) / (camera.width * camera.height))


def _polygon_area(points: FloatArray | np.ndarray) -> float:
    x, y = points[:, 0], points[:, 1]
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _bbox(px: FloatArray) -> tuple[float, float, float, float]:
    return float(px[:, 0].min()), float(px[:, 1].min()), float(px[:, 0].max()), float(px[:, 1].max())


def _inside(px: FloatArray, width: int, height: int, margin: float) -> bool:
    x0, y0, x1, y1 = _bbox(px)
    return x0 >= margin - 0.5 and y0 >= margin - 0.5 and x1 <= width - margin and y1 <= height - margin
