"""Colour of light: a black body's linear Rec.709 colour, and sRGB <-> linear.

The black body goes through an analytic fit of the CIE 1931 observer (Wyman, Sloan and
Shirley 2013), so the lights and the phone's white balance share one definition of a
colour temperature. 6500 K is white: colours are relative to it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

_XYZ_TO_RGB = np.array([[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]])


def _lobe(lam: NDArray[Any], mu: float, s1: float, s2: float) -> NDArray[Any]:
    s = np.where(lam < mu, s1, s2)
    lobe: NDArray[Any] = np.exp(-0.5 * ((lam - mu) / s) ** 2)
    return lobe


def _blackbody_rgb(kelvin: float) -> NDArray[Any]:
    lam = np.arange(380.0, 781.0, 5.0)
    x = 1.056 * _lobe(lam, 599.8, 37.9, 31.0) + 0.362 * _lobe(lam, 442.0, 16.0, 26.7)
    x -= 0.065 * _lobe(lam, 501.1, 20.4, 26.2)
    y = 0.821 * _lobe(lam, 568.8, 46.9, 40.5) + 0.286 * _lobe(lam, 530.9, 16.3, 31.1)
    z = 1.217 * _lobe(lam, 437.0, 11.8, 36.0) + 0.681 * _lobe(lam, 459.0, 26.0, 13.8)
    planck = lam**-5.0 / np.expm1(1.4388e7 / (lam * kelvin))
    xyz = np.array([(x * planck).sum(), (y * planck).sum(), (z * planck).sum()])
    return np.asarray(_XYZ_TO_RGB @ (xyz / xyz[1]))


def kelvin_rgb(kelvin: float) -> tuple[float, float, float]:
    """Linear RGB of a black body at ``kelvin``, relative to 6500 K, luminance 1."""
    rgb = np.clip(_blackbody_rgb(kelvin) / _blackbody_rgb(6500.0), 1e-4, None)
    rgb /= 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
    return float(rgb[0]), float(rgb[1]), float(rgb[2])


def srgb_to_linear(c: NDArray[Any] | float) -> NDArray[Any]:
    c = np.asarray(c, float)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(c: NDArray[Any]) -> NDArray[Any]:
    c = np.clip(c, 0.0, 1.0)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * np.power(c, 1 / 2.4) - 0.055)


def rgb255_linear(rgb: tuple[int, int, int] | tuple[float, ...]) -> tuple[float, float, float]:
    """An sRGB 0..255 triple as linear floats, for a shader's colour input."""
    lin = srgb_to_linear(np.array(rgb, float) / 255.0)
    return float(lin[0]), float(lin[1]), float(lin[2])
