"""Writing the photo as a phone does: pixels stored sideways or upside down, an EXIF tag saying so.

A phone held in portrait often stores its sensor's landscape pixels and tags
them "rotate 90 degrees to display". The renderer paints the photo as it is
displayed; :func:`stored_pixels` turns it into what the file holds, so that
applying the tag (``PIL.ImageOps.exif_transpose``) gives the painted photo back.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from vision.worlds.raster.textures import U8

ORIENTATION_TAG = 0x0112
FORMATS: dict[str, str] = {"jpeg": ".jpg", "heic": ".heic"}
ORIENTATIONS: tuple[int, ...] = (1, 3, 6, 8)
# EXIF orientation -> quarter turns counter-clockwise that take the displayed image to the stored one.
_TURNS: dict[int, int] = {1: 0, 3: 2, 6: 1, 8: 3}


def heic_quality(quality: int) -> int:
    """The HEIC quality matching a JPEG quality: HEVC needs about half the bytes for the same look."""
    return max(30, quality - 20)


def stored_pixels(display: U8, orientation: int) -> U8:
    """The pixels to store so that a viewer honouring ``orientation`` shows ``display``."""
    if orientation not in _TURNS:
        raise ValueError(f"EXIF orientation must be one of {ORIENTATIONS}, not {orientation}")
    return np.ascontiguousarray(np.rot90(display, _TURNS[orientation]))


def stored_size(display_size: tuple[int, int], orientation: int) -> tuple[int, int]:
    w, h = display_size
    return (h, w) if _TURNS[orientation] % 2 else (w, h)


def encode(display_bgr: U8, *, fmt: str, quality: int, orientation: int) -> tuple[bytes, str]:
    """The file's bytes and suffix for a displayed BGR image; same input, same bytes."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    rgb = np.ascontiguousarray(stored_pixels(display_bgr, orientation)[..., ::-1])
    image = Image.fromarray(rgb)
    exif = Image.Exif()
    exif[ORIENTATION_TAG] = orientation
    exif[0x010F] = "Armadora"  # Make
    # The renderer's old name, kept: the photos' bytes (and the sets measured on them) stay as they were.
    exif[0x0110] = "vision.synth phone"  # Model
    exif[0x0131] = "vision.synth"  # Software
    buffer = io.BytesIO()
    if fmt == "jpeg":
        image.save(buffer, format="JPEG", quality=quality, exif=exif.tobytes(), subsampling=2)
    else:
        from pillow_heif import register_heif_opener  # only HEIC needs it, and it is slow to load

        register_heif_opener()
        # libheif turns the EXIF orientation into the file's own rotation property; viewers apply it.
        image.save(
            buffer,
            format="HEIF",
            quality=heic_quality(quality),
            exif=exif.tobytes(),
            enc_params={"preset": "ultrafast"},  # 4x faster than x265's default, files 1.5x larger
        )
    return buffer.getvalue(), FORMATS[fmt]
