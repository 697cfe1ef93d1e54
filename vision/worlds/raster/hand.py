"""A hand reaching in over the table from outside the frame: a distractor drawn flat in photo pixels.

Seen from above, a hand is a palm, four tapering fingers and a thumb; fingers
bent toward the table look shorter. Its shadow is soft and offset, as from a
hand hovering a few centimetres up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.geometry import FloatArray
from vision.worlds.raster.camera import TABLE_Z, Camera
from vision.worlds.raster.distractors import Keepout, edge_point, on_table
from vision.worlds.raster.draw import roi_of
from vision.worlds.raster.lighting import Caster, Light
from vision.worlds.raster.textures import U8, hex_bgr

SKIN_HEX: tuple[str, ...] = ("#F2C9AC", "#E3B08F", "#C99169", "#A86E47", "#7D4D2E", "#5B3722")
HOVER_MM = 60.0  # how high above the table the hand is, for its size and its shadow


Capsule = tuple[FloatArray, FloatArray, float]


@dataclass(frozen=True)
class Hand:
    """A hand reaching in over the table from outside the frame, seen from above, in photo pixels.

    ``tip`` is where the middle finger's base points to at full stretch,
    ``angle_deg`` the direction the hand points, ``length`` its length from
    wrist to fingertip in pixels. ``curls`` (0..1 each, index to little
    finger) foreshorten fingers bent down toward the table.
    """

    tip: tuple[float, float]
    angle_deg: float
    length: float
    skin: str
    left: bool
    curls: tuple[float, float, float, float]

    def _frame(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """The wrist's position, the pointing direction and the thumb's side, in pixels."""
        a = math.radians(self.angle_deg)
        d = np.array([math.cos(a), math.sin(a)])
        n = np.array([-d[1], d[0]]) * (-1 if self.left else 1)
        return np.asarray(self.tip) - d * self.length, d, n

    def _fingers(self) -> list[list[Capsule]]:
        """Forearm and palm, then each finger as tapering joints, then the thumb; back to front."""
        wrist, d, n = self._frame()
        size = self.length

        def at(along: float, across: float) -> FloatArray:
            return wrist + (d * along + n * across) * size

        def joints(
            start: FloatArray,
            heading: float,
            lengths: tuple[float, ...],
            widths: tuple[float, ...],
            bend: float,
        ) -> list[Capsule]:
            parts: list[Capsule] = []
            for seg, width in zip(lengths, widths, strict=True):
                c, s = math.cos(heading), math.sin(heading)
                step = (d * c + n * s) * seg * size
                parts.append((start, start + step, width * size))
                start = start + step
                heading += bend
            return parts

        arm: list[Capsule] = [
            (at(-1.6, 0), at(0.02, 0), 0.33 * size),
            (at(0.12, 0.0), at(0.44, -0.01), 0.42 * size),
        ]
        fingers = [arm]
        bases = (0.135, 0.045, -0.045, -0.13)
        reach = (0.37, 0.42, 0.39, 0.30)
        for base, far, curl in zip(bases, reach, self.curls, strict=True):
            # A bent finger reaches down toward the table: seen from above, its joints shorten.
            lengths = tuple(
                far * f * (1 - 0.55 * curl * k) for f, k in ((0.46, 0.2), (0.30, 0.7), (0.24, 1.0))
            )
            fingers.append(
                joints(
                    at(0.5 + 0.02 * (1 - abs(base) * 6), base),
                    base * 0.9,
                    lengths,
                    (0.088, 0.08, 0.072),
                    -base * 0.3,
                )
            )
        fingers.append(joints(at(0.2, 0.17), 0.95, (0.16, 0.13), (0.115, 0.095), -0.35))
        return fingers

    def _nails(self) -> list[tuple[FloatArray, FloatArray, float]]:
        """Each fingertip's nail: a point on the last joint, its direction, and its width."""
        nails = []
        for finger in self._fingers()[1:]:
            start, end, width = finger[-1]
            nails.append((start + (end - start) * 0.62, end - start, width * 0.62))
        return nails

    def outline_px(self) -> list[FloatArray]:
        """Polygons covering the hand, for the keep-out test."""
        polygons = []
        for start, end, width in (c for finger in self._fingers() for c in finger):
            d = (end - start) / max(1e-9, float(np.hypot(*(end - start))))
            side = np.array([-d[1], d[0]]) * width / 2
            back, front = start - d * width / 2, end + d * width / 2
            polygons.append(np.array([back + side, front + side, front - side, back - side]))
        return polygons

    def casters(self) -> list[Caster]:
        return []  # a hand hovers: its shadow is drawn with it, soft and offset

    def depth_point(self) -> tuple[float, float, float]:
        return (0.0, 0.0, 0.0)

    def describe(self) -> dict[str, Any]:
        return {"kind": "hand", "tip_px": [round(v, 1) for v in self.tip], "skin": self.skin}

    def draw(self, canvas: U8, camera: Camera, light: Light) -> None:
        box = roi_of(np.vstack(self.outline_px()), canvas.shape, pad=round(0.25 * self.length))
        if box is None:
            return
        x0, y0, x1, y1 = box
        offset = np.array([x0, y0], dtype=np.float64)
        shape = (y1 - y0, x1 - x0)
        mask = np.zeros(shape, np.uint8)
        colour = np.zeros((*shape, 3), np.float32)
        skin = np.asarray(hex_bgr(self.skin), np.float32)
        crease = tuple(float(v) for v in skin * 0.8)

        def px(p: FloatArray) -> tuple[int, int]:
            return round((p[0] - offset[0]) * 16), round((p[1] - offset[1]) * 16)

        for finger in self._fingers():
            # The finger's darker outline first, then the finger: where two fingers touch, a crease stays.
            for start, end, width in finger:
                edge = round(width) + max(2, round(width) // 28)
                cv2.line(colour, px(start), px(end), crease, edge, cv2.LINE_AA, 4)
                cv2.line(mask, px(start), px(end), 255, edge, cv2.LINE_AA, 4)
            for start, end, width in finger:
                cv2.line(
                    colour, px(start), px(end), tuple(float(v) for v in skin), round(width), cv2.LINE_AA, 4
                )
        dist = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 5)
        colour *= (0.68 + 0.32 * np.clip(dist / (0.05 * self.length), 0, 1) ** 0.6)[..., None]
        nail = tuple(float(v) for v in np.minimum(skin * 1.04 + np.array([10.0, 8.0, 16.0]), 255))
        for centre, direction, width in self._nails():
            angle = math.degrees(math.atan2(direction[1], direction[0]))
            axes = (round(width * 0.6 * 16), round(width * 0.42 * 16))
            cv2.ellipse(colour, px(centre), axes, angle, 0, 360, nail, -1, cv2.LINE_AA, 4)
        alpha = np.asarray(cv2.GaussianBlur(mask, (0, 0), max(0.8, self.length / 900)), dtype=np.uint8)
        self._shadow(canvas, camera, box, alpha, light)
        alpha3 = cv2.cvtColor(alpha, cv2.COLOR_GRAY2BGR)
        skin_lit = cv2.convertScaleAbs(colour, alpha=light.shade((0.0, 0.0, 1.0)))
        roi = canvas[y0:y1, x0:x1]
        behind = cv2.multiply(roi, cv2.bitwise_not(alpha3), scale=1 / 255)
        roi[:] = cv2.add(behind, cv2.multiply(skin_lit, alpha3, scale=1 / 255))

    def _shadow(
        self, canvas: U8, camera: Camera, box: tuple[int, int, int, int], alpha: U8, light: Light
    ) -> None:
        """A soft shadow on the table, cast from the hand hovering ``HOVER_MM`` above it.

        Soft enough to be worked out at an eighth of the resolution and enlarged.
        """
        x0, y0, x1, y1 = box
        palm = np.array(self.tip) - 0.6 * self.length * np.array(
            [math.cos(math.radians(self.angle_deg)), math.sin(math.radians(self.angle_deg))]
        )
        below = on_table(camera, palm)
        if below is None:
            return
        fall = below + light.shadow_offset(HOVER_MM)
        ends = camera.project(np.array([[*below, TABLE_Z], [*fall, TABLE_Z]]))
        shift = ends[1] - ends[0]
        sigma = 0.04 * self.length
        # The shadow reaches beyond the hand's own box: shifted, then blurred.
        reach = np.array([[x0, y0], [x1, y1], [x0 + shift[0], y0 + shift[1]], [x1 + shift[0], y1 + shift[1]]])
        area = roi_of(reach, canvas.shape, pad=round(3 * sigma))
        if area is None:
            return
        sx0, sy0, sx1, sy1 = area
        k = 8
        small = cv2.resize(
            alpha, (max(1, (x1 - x0) // k), max(1, (y1 - y0) // k)), interpolation=cv2.INTER_AREA
        )
        place = np.array(
            [[1, 0, (x0 + shift[0] - sx0) / k], [0, 1, (y0 + shift[1] - sy0) / k]], dtype=np.float64
        )
        moved = cv2.warpAffine(small, place, (max(1, (sx1 - sx0) // k), max(1, (sy1 - sy0) // k)))
        soft = cv2.GaussianBlur(moved, (0, 0), max(0.5, sigma / k))
        darkness = 0.5 * (0.3 + light.strength)
        factor = cv2.convertScaleAbs(cv2.resize(soft, (sx1 - sx0, sy1 - sy0)), alpha=-darkness, beta=255.5)
        roi = canvas[sy0:sy1, sx0:sx1]
        roi[:] = cv2.multiply(roi, cv2.cvtColor(factor, cv2.COLOR_GRAY2BGR), scale=1 / 255)


def place_hand(rng: np.random.Generator, camera: Camera, keep: Keepout) -> Hand | None:
    """A hand coming in from an edge, pulled back until it clears the keep-out; None where it cannot."""
    size = (camera.width, camera.height)
    skin = str(rng.choice(SKIN_HEX))
    left = bool(rng.random() < 0.5)
    curls = rng.uniform(0.0, 1.0, 4)
    for _ in range(16):
        point, inward = edge_point(rng, size, 0.0)
        angle = math.degrees(math.atan2(inward[1], inward[0])) + float(rng.uniform(-35, 35))
        d = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
        spot = on_table(camera, point + inward * 0.05 * min(size))
        if spot is None:
            continue
        # A hand hovers a little above the table, so a little nearer the lens than the table there.
        scale = camera.px_per_mm(float(spot[0]), float(spot[1]), TABLE_Z + HOVER_MM)
        length = 185 * scale * float(rng.uniform(0.95, 1.15))
        for reach in (0.95, 0.8, 0.65, 0.5, 0.4, 0.3, 0.22, 0.15):
            tip = point + d * reach * length
            hand = Hand(
                (float(tip[0]), float(tip[1])),
                angle,
                length,
                skin,
                left,
                (float(curls[0]), float(curls[1]), float(curls[2]), float(curls[3])),
            )
            if not keep.hit(hand.outline_px()):
                return hand
    return None
