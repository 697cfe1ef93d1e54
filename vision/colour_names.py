"""Names for colours: the reference kit's four first, then the common colours of other copies.

>>> colour_name((0xE0, 0x7B, 0x24)), colour_name((250, 250, 245)), colour_name((20, 22, 25))
('orange', 'white', 'black')
>>> unique_names(["green", "blue", "green"])
['green', 'blue', 'green-2']
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vision.looks import REFERENCE_COLOURS, RGB

#: Named colours, sRGB: the reference kit's first, so that its tokens keep their names.
NAMED_COLOURS: dict[str, RGB] = {
    **REFERENCE_COLOURS,
    "red": (0xC8, 0x2A, 0x2A),
    "yellow": (0xE8, 0xC8, 0x2A),
    "teal": (0x1E, 0x9A, 0x96),
    "pink": (0xE0, 0x6C, 0xA8),
    "brown": (0x7A, 0x4E, 0x2C),
    "navy": (0x22, 0x2E, 0x6A),
    "white": (0xF2, 0xF0, 0xEA),
    "grey": (0x88, 0x88, 0x88),
    "black": (0x22, 0x22, 0x24),
}


def lab_of(rgb: RGB | npt.ArrayLike) -> npt.NDArray[np.float64]:
    """CIE L*a*b* (D65) of an sRGB triple in 0..255."""
    c = np.asarray(rgb, np.float64) / 255
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = (
        np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]], np.float64)
        @ linear
    ) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def colour_name(rgb: RGB | npt.ArrayLike, names: dict[str, RGB] = NAMED_COLOURS) -> str:
    """The name of the nearest of ``names`` (CIE76 distance)."""
    lab = lab_of(rgb)
    return min(names, key=lambda name: float(np.linalg.norm(lab_of(names[name]) - lab)))


def unique_names(names: list[str]) -> list[str]:
    """``names`` with repeats told apart by a number: a copy may have two greens."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}-{seen[name]}")
    return out
