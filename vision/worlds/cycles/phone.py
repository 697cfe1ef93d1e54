"""The phone's image pipeline after the lens: from the linear render to a JPEG.

In the order a phone does it: lens shading (vignette), sensor noise, white balance (which
misjudges the light), auto exposure, tone curve and saturation, then the lens distortion
(applied here so the truth can follow it exactly), sometimes a shake or a missed focus,
sharpening and the JPEG. Highlights brighter than the exposure allows clip to white.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.worlds.cycles.camera import Camera
from vision.worlds.cycles.colour import kelvin_rgb, linear_to_srgb

CLIP = 0.995


def develop(linear: NDArray[Any], cam: Camera, phone: dict[str, Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """The 8-bit RGB photo, and a mask of its white-out pixels (before noise, blur and JPEG).

    A pixel is clipped when all three channels are: a saturated orange that reaches the top
    in red alone is colour, not glare.
    """
    rng = np.random.default_rng(int(phone["noise_seed"]))
    h, w = linear.shape[:2]
    img = linear.astype(np.float32).clip(0, None)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    img *= (1 - float(phone["vignette"]) * r2)[..., None]
    # White balance: gains that would make a light of wb_kelvin white; the real light differs.
    est = np.array(kelvin_rgb(float(phone["wb_kelvin"])))
    gains = est[1] / est
    gains[1] *= 1 + float(phone["wb_tint"])
    img *= gains.astype(np.float32)
    # Auto exposure: centre-weighted mean of log luminance to a mid grey, then the bias.
    lum = img @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    weight = np.exp(-r2 * 2.0)
    mean_log = float((np.log(lum + 1e-4) * weight).sum() / weight.sum())
    scale = 0.18 / math.exp(mean_log) * 2.0 ** float(phone["exposure_ev"])
    img *= scale
    # Sensor noise, shot plus read, growing with ISO, on the exposed signal: what is left after
    # the phone's own denoiser (some 7 % of mid grey at ISO 1600, 1.5 % at ISO 100).
    gain = float(phone["iso"]) / 100.0
    sigma = np.sqrt(0.00004 * gain * img.clip(0, 1) + (0.0005 * gain) ** 2)
    img = img + rng.normal(0.0, 1.0, img.shape).astype(np.float32) * sigma
    clipped = (img.min(axis=-1) >= CLIP).astype(np.uint8)
    # Tone: sRGB curve, a gentle S, saturation.
    out: NDArray[Any] = linear_to_srgb(img).astype(np.float32)
    c = float(phone["contrast"])
    out = out + c * out * (1 - out) * (out - 0.5) * 2
    grey = out.mean(axis=-1, keepdims=True)
    out = (grey + (out - grey) * float(phone["saturation"])).clip(0, 1)
    # Lens distortion: each photo pixel reads the render where the undistorted ray lands.
    pix = np.stack([xx.ravel(), yy.ravel()], axis=1)
    src = cam.undistort(pix).astype(np.float32)
    mx, my = src[:, 0].reshape(h, w), src[:, 1].reshape(h, w)
    out = cv2.remap(out, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    clipped = cv2.remap(clipped, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_REFLECT)
    # Sometimes a shake (motion) or a missed focus (defocus).
    size = float(phone["blur_px"])
    if phone["blur"] == "motion":
        n = max(3, math.ceil(size * 2) | 1)
        kernel = np.zeros((n, n), np.float32)
        a = math.radians(float(phone["blur_angle_deg"]))
        for t in np.linspace(-size, size, 4 * n):
            kernel[round(n // 2 + t * math.sin(a)), round(n // 2 + t * math.cos(a))] = 1
        out = cv2.filter2D(out, -1, kernel / kernel.sum())
    elif phone["blur"] == "defocus":
        out = cv2.GaussianBlur(out, (0, 0), size / 2)
    # The phone's sharpening: an unsharp mask.
    soft = cv2.GaussianBlur(out, (0, 0), 1.2)
    out = (out + float(phone["sharpen"]) * (out - soft)).clip(0, 1)
    return (out * 255 + 0.5).astype(np.uint8), clipped


def jpeg(photo: NDArray[Any], quality: int) -> bytes:
    ok, data = cv2.imencode(
        ".jpg", cv2.cvtColor(photo, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality]
    )
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return bytes(data.tobytes())
