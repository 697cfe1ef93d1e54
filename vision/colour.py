"""Comparing colours the way light changes them: up to a shading factor.

A surface in a shadow, or further from the lamp, keeps its colour's direction
and loses brightness. Distances here allow a factor ``s`` on the reference
colour, within bounds, and charge a little for how far ``s`` is from 1.

>>> orange = np.array([0.14, 0.48, 0.88], np.float32)
>>> in_shadow, gold = orange * 0.6, np.array([0.16, 0.65, 0.83], np.float32)
>>> bool(shaded_distance(in_shadow, orange) < shaded_distance(gold, orange))
True
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatImage = npt.NDArray[np.float32]

MIN_SHADE = 0.45
MAX_SHADE = 1.35
SHADE_COST = 0.15
#: A pixel further than this from the face (:func:`shaded_distance`; the face blurred a little, as
#: photos are, :data:`vision.texture.FACE_BLUR_PX`) is covered by something: a cell's or a slot's
#: pixel alike, as the readers of both were fitted.
FACE_LIMIT = 0.22


def shaded_distance(
    pixels: FloatImage,
    reference: FloatImage,
    min_shade: float = MIN_SHADE,
    max_shade: float = MAX_SHADE,
    glare: FloatImage | None = None,
) -> FloatImage:
    """Relative distance of each pixel (..., 3) from ``reference`` (3,) or (..., 3), allowing shading.

    ``glare`` (shaped like the pixels without their channels) allows up to that
    much white added on top, where glare may still wash colours out.
    """
    norm2 = channel_dot(reference, reference)
    if glare is not None:
        # Least squares for the shade and the white added (0..glare), then the shade alone.
        ones = np.float32(3.0)
        dot_r1 = channel_sum(reference)
        dot = channel_dot(pixels, reference)
        dot_p1 = channel_sum(pixels)
        det = ones * norm2 - dot_r1 * dot_r1
        white = np.where(
            np.abs(det) > 1e-5, (norm2 * dot_p1 - dot_r1 * dot) / np.where(det == 0, 1, det), 0.0
        )
        white = np.clip(white, 0.0, glare)
        pixels = pixels - white[..., None]
    dot = channel_dot(pixels, reference)
    shade = np.clip(dot / np.maximum(norm2, 1e-4), min_shade, max_shade)
    residual = pixels - shade[..., None] * reference
    size = np.sqrt(np.maximum(norm2, 0.06))
    distance = np.sqrt(channel_dot(residual, residual)) / size
    result: FloatImage = (distance + SHADE_COST * np.abs(np.log(shade))).astype(np.float32)
    return result


def channel_dot(a: npt.NDArray[np.floating], b: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
    """The dot product over the last axis (three channels), far faster than summing a product."""
    product: npt.NDArray[np.floating] = a @ b if b.ndim == 1 else np.einsum("...c,...c->...", a, b)
    return product


def channel_sum(pixels: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
    """The sum of the three channels of each pixel (..., 3): ``pixels.sum(axis=-1)`` bit for bit,
    added plane by plane in the order numpy adds three values, an order of magnitude faster on an
    image (numpy's reduction over a last axis of three steps through it pixel by pixel). Float
    pixels only: numpy sums bytes in a wider integer, these planes would wrap round.

    >>> image = np.random.default_rng(0).random((53, 80, 3)).astype(np.float32)
    >>> bool(np.array_equal(channel_sum(image), image.sum(axis=-1)))
    True
    """
    total: npt.NDArray[np.floating] = pixels[..., 0] + pixels[..., 1] + pixels[..., 2]
    return total


def channel_mean(pixels: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
    """The mean of the three channels of each pixel: ``pixels.mean(axis=-1)`` bit for bit
    (:func:`channel_sum`).

    >>> image = np.random.default_rng(0).random((53, 80, 3)).astype(np.float32)
    >>> bool(np.array_equal(channel_mean(image), image.mean(axis=-1)))
    True
    """
    mean: npt.NDArray[np.floating] = channel_sum(pixels) / 3
    return mean


def channel_norm(pixels: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
    """The length of each pixel's colour (..., 3): ``np.linalg.norm(pixels, axis=-1)`` bit for bit
    (:func:`channel_sum`).

    >>> image = np.random.default_rng(0).random((53, 80, 3)).astype(np.float32)
    >>> bool(np.array_equal(channel_norm(image), np.linalg.norm(image, axis=-1)))
    True
    """
    length: npt.NDArray[np.floating] = np.sqrt(channel_sum(pixels * pixels))
    return length


def chroma(pixels: FloatImage, white: npt.ArrayLike = (1.0, 1.0, 1.0)) -> FloatImage:
    """What is left of each pixel's colour (..., 3) once as much ``white`` as it holds is taken off.

    Glare adds ``white`` to a colour and leaves its chroma alone; a shadow
    scales the chroma and keeps its direction. So the direction tells colours
    apart however washed out or shaded they are, and its length says how much
    colour there is to go by.

    >>> orange = np.array([0.14, 0.48, 0.88], np.float32)
    >>> np.allclose(chroma(orange + 0.3), chroma(orange))
    True
    """
    w = np.asarray(white, np.float32)
    scaled = pixels / w
    # The least of the three, plane by plane: exact, and far faster than a reduction over them.
    amount = np.minimum(np.minimum(scaled[..., 0], scaled[..., 1]), scaled[..., 2])[..., None]
    result: FloatImage = (pixels - amount * w).astype(np.float32)
    return result


def rgb_to_bgr_float(rgb: tuple[int, int, int]) -> FloatImage:
    """An sRGB triple as the float BGR in 0..1 the scanner works in.

    >>> rgb_to_bgr_float((255, 0, 51)).tolist()
    [0.20000000298023224, 0.0, 1.0]
    """
    return np.array(rgb[::-1], np.float32) / np.float32(255)
