"""What the phone does to the scene: colour cast, exposure, vignetting, glare, blur and sensor noise.

Applied once to the whole painted scene, in the order light reaches the
sensor: illumination and glare, then the lens's blur, then noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.worlds.raster.textures import BGR, U8

_REFERENCE_K = 5000.0  # the white point the phone's auto white balance aims for
_ONE = 128.0  # fixed-point unit of the exposure field


def blackbody_rgb(kelvin: float) -> tuple[float, float, float]:
    """The colour of a black body at ``kelvin``, as sRGB-ish 0..1 (Tanner Helland's fit)."""
    t = kelvin / 100
    if t <= 66:
        r = 1.0
        g = (99.4708025861 * math.log(t) - 161.1195681661) / 255
        b = 0.0 if t <= 19 else (138.5177312231 * math.log(t - 10) - 305.0447927307) / 255
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592 / 255
        g = 288.1221695283 * (t - 60) ** -0.0755148492 / 255
        b = 1.0
    return tuple(min(1.0, max(0.01, v)) for v in (r, g, b))  # type: ignore[return-value]


def channel_gains(kelvin: float, cast: float) -> BGR:
    """BGR gains for a lamp at ``kelvin`` once the phone has corrected all but ``cast`` of it.

    Warm light (low kelvin) raises red and lowers blue, so blue tokens drift
    toward green and orange ones toward red; green is kept at 1.
    """
    lamp, white = blackbody_rgb(kelvin), blackbody_rgb(_REFERENCE_K)
    r, g, b = (lamp[i] / white[i] for i in range(3))
    return ((b / g) ** cast, 1.0, (r / g) ** cast)


def light_field(
    size: tuple[int, int], brightness: float, vignetting: float, gradient: tuple[float, float], gains: BGR
) -> U8:
    """Exposure over the frame times the colour gains, as BGR fixed point (128 = 1).

    Overall brightness, a gentle gradient across, darker corners: all smooth,
    so it is computed small and enlarged, and kept in 8 bits for OpenCV's
    fast saturating multiply. The noise added afterwards hides the 1/128 steps.
    """
    w, h = size
    sw, sh = max(8, w // 16), max(8, h // 16)
    x = np.linspace(-1, 1, sw, dtype=np.float32)[None, :]
    y = np.linspace(-1, 1, sh, dtype=np.float32)[:, None]
    aspect = w / h
    r2 = ((x * aspect) ** 2 + y**2) / (aspect**2 + 1)
    small = brightness * (1 + gradient[0] * x + gradient[1] * y) * (1 - vignetting * r2)
    coloured = small[..., None] * np.asarray(gains, np.float32)[None, None, :] * _ONE
    fixed = np.clip(coloured + 0.5, 0, 255).astype(np.uint8)
    return np.asarray(cv2.resize(fixed, (w, h), interpolation=cv2.INTER_LINEAR), dtype=np.uint8)


@dataclass(frozen=True)
class Glare:
    """A specular blob: centre and radii in pixels, turned by ``angle_deg``, peak ``strength`` 0..1."""

    centre: tuple[float, float]
    radii: tuple[float, float]
    angle_deg: float
    strength: float


def develop(canvas: U8, field: U8, glare: Glare | None) -> U8:
    """The scene under the exposure field (from :func:`light_field`), with a glare spot washed in."""
    out = np.asarray(cv2.multiply(canvas, field, scale=1 / _ONE), dtype=np.uint8)
    if glare is not None:
        _wash(out, glare)
    return out


def _wash(image: U8, glare: Glare) -> None:
    """Blend toward near-white, strongest at the centre: specular light hides colour, not shape.

    The blob is smooth, so its weight is computed on a coarse grid and enlarged;
    the blend runs in 8 bits (255 = all glare).
    """
    h, w = image.shape[:2]
    reach = 2.8 * max(glare.radii)
    cx, cy = glare.centre
    x0, x1 = max(0, int(cx - reach)), min(w, int(cx + reach) + 1)
    y0, y1 = max(0, int(cy - reach)), min(h, int(cy + reach) + 1)
    if x1 <= x0 or y1 <= y0:
        return
    step = max(1.0, min(glare.radii) / 8)
    xs = np.arange(x0, x1, step, dtype=np.float32)[None, :] - cx
    ys = np.arange(y0, y1, step, dtype=np.float32)[:, None] - cy
    c, s = math.cos(math.radians(glare.angle_deg)), math.sin(math.radians(glare.angle_deg))
    u, v = (xs * c + ys * s) / glare.radii[0], (-xs * s + ys * c) / glare.radii[1]
    coarse = (255 * glare.strength) * np.exp(-0.5 * (u * u + v * v)) + 0.5
    weight = cv2.resize(coarse.astype(np.uint8), (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    weight3 = cv2.cvtColor(weight, cv2.COLOR_GRAY2BGR)
    roi = image[y0:y1, x0:x1]
    kept = cv2.multiply(roi, cv2.bitwise_not(weight3), scale=1 / 255)
    roi[:] = cv2.add(kept, cv2.convertScaleAbs(weight3, alpha=248 / 255))


def blur(image: U8, kind: str, amount_px: float, angle_deg: float) -> U8:
    """Defocus (``"gaussian"``, sigma ``amount_px``) or hand shake (``"motion"``, a streak that long)."""
    if kind == "gaussian" and amount_px > 0.05:
        return np.asarray(cv2.GaussianBlur(image, (0, 0), amount_px), dtype=np.uint8)
    if kind == "motion" and amount_px >= 1.5:
        n = math.ceil(amount_px) | 1
        kernel = np.zeros((n, n), np.float32)
        c = (n - 1) / 2
        dx, dy = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
        half = amount_px / 2
        p0 = (round((c - dx * half) * 16), round((c - dy * half) * 16))
        p1 = (round((c + dx * half) * 16), round((c + dy * half) * 16))
        cv2.line(kernel, p0, p1, 1.0, 1, cv2.LINE_AA, 4)
        kernel /= kernel.sum()
        return np.asarray(cv2.filter2D(image, -1, kernel), dtype=np.uint8)
    if kind not in ("none", "gaussian", "motion"):
        raise ValueError(f"blur must be none, gaussian or motion, not {kind!r}")
    return image


def add_noise(image: U8, sigma: float, rng: np.random.Generator) -> U8:
    """Sensor noise as a phone leaves it after its own processing: fine grey grain, faint colour blotches.

    Drawn at half (grain) and an eighth (blotches) of the resolution and
    enlarged, which both looks like demosaiced, denoised noise and is quick;
    it is added in 8 bits around an offset of 128.
    """
    if sigma <= 0:
        return image
    h, w = image.shape[:2]
    hh, hw = (h + 1) // 2, (w + 1) // 2
    grain = rng.standard_normal((hh, hw), dtype=np.float32) * (sigma * 1.6)
    blotch = rng.standard_normal(((h + 7) // 8, (w + 7) // 8, 3), dtype=np.float32) * (sigma * 0.5)
    noise = cv2.resize(blotch, (hw, hh), interpolation=cv2.INTER_CUBIC) + grain[..., None]
    offset = cv2.convertScaleAbs(noise, beta=128)  # |noise + 128| never flips: the noise stays far above -128
    full = cv2.resize(offset, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.asarray(cv2.addWeighted(image, 1.0, full, 1.0, -128.0), dtype=np.uint8)
