"""The printed art's fine texture against the photo's: whether the face shows, whatever its colour.

Colour alone cannot tell a token or a palisade from art of much the same
colour under it, nor art washed out by glare from a pale token. Texture can:
where the face shows, the photo's fine detail correlates with the face's
there; where anything covers it, it does not.

>>> rng = np.random.default_rng(0)
>>> art = rng.random((40, 40)).astype(np.float32)
>>> ys, xs = np.mgrid[10:30, 10:30].reshape(2, 1, -1)
>>> seen = np.ones(ys.shape, bool)
>>> shown, _ = texture_match(art, art, ys, xs, seen)
>>> hidden, _ = texture_match(np.zeros_like(art), art, ys, xs, seen)
>>> round(float(shown[0]), 3), round(float(hidden[0]), 3)
(1.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from vision.colour import channel_mean

FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]
Indices = npt.NDArray[np.intp]


@dataclass(frozen=True)
class TextureParams:
    """The texture signs' hand-set numbers."""

    #: Texture is compared on detail finer than this Gaussian (view pixels): shading and glare are
    #: smoother. The photo is blurred by the first, the face by the second, as photos are a little blurred.
    detail_sigma_px: float = 4.0
    photo_blur_px: float = 1.0
    #: The texture is matched at shifts up to this (view pixels), for what registration leaves.
    match_shift_px: int = 1


TEXTURE_PARAMS = TextureParams()


#: The face is blurred this much (pixels) to compare with a photo, which is never as sharp.
FACE_BLUR_PX = 0.8


def detail(grey: FloatImage, sigma: float) -> FloatImage:
    """``grey`` less its blur by a Gaussian of ``sigma`` pixels: the fine detail without the smooth light.

    >>> flat = np.full((9, 9), 0.5, np.float32)
    >>> float(np.abs(detail(flat, 2.0)).max())
    0.0
    """
    smooth = cv2.GaussianBlur(grey, (0, 0), sigma)
    return cast(FloatImage, (grey - smooth).astype(np.float32))


def upper_percentile(values: npt.NDArray[np.floating], percent: float, sample_step: int = 16) -> float:
    """:func:`numpy.percentile` of ``values`` at a high ``percent`` (its linear interpolation, to
    the last place or so), from the values near the top alone: a bound taken from every
    ``sample_step``-th value leaves the rest out before any is sorted. Where the bound leaves out
    values of the ranks wanted, all of them are sorted.

    >>> rng = np.random.default_rng(1)
    >>> values = rng.random((300, 400)).astype(np.float32)
    >>> bool(np.isclose(upper_percentile(values, 99), np.percentile(values, 99), rtol=1e-6))
    True
    >>> lines = np.zeros((300, 400), np.float32); lines[::40] = 90.0; lines[::80] = 120.0
    >>> upper_percentile(lines, 99), float(np.percentile(lines, 99))
    (120.0, 120.0)
    """
    flat = values.ravel()
    position = percent / 100 * (flat.size - 1)
    low = int(position)
    high = min(low + 1, flat.size - 1)
    sample = flat[::sample_step]
    # Twice as far from the top in the sample as the rank wanted: below it, unless the sample is
    # unlucky, which the count of values left out tells.
    rank = int(max(0.0, 1 - 2 * (1 - percent / 100)) * (sample.size - 1))
    top = flat[flat >= np.partition(sample, rank)[rank]]
    below = flat.size - top.size
    if below > low:
        return float(np.percentile(flat, percent))
    lower, upper = np.partition(top, (low - below, high - below))[[low - below, high - below]]
    return float(lower + (upper - lower) * (position - low))


def dark_lines(grey: npt.NDArray[np.uint8], size: int) -> FloatImage:
    """How much darker each pixel of ``grey`` is than the light around it, within a disc ``size``
    pixels across (a black-hat): thin dark lines, such as a printed grid's, stand out.

    >>> grey = np.full((9, 9), 200, np.uint8); grey[4, :] = 50
    >>> lines = dark_lines(grey, 5)
    >>> float(lines[4, 4]), float(lines[1, 4])
    (150.0, 0.0)
    """
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    return cast(FloatImage, cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, disc).astype(np.float32))


def correlation(a: npt.NDArray[np.floating], b: npt.NDArray[np.floating], axis: int = -1) -> FloatArray:
    """The normalised correlation of ``a`` and ``b``, each already less its mean, along ``axis``.

    >>> ramp = np.array([-1.0, 0.0, 1.0])
    >>> round(correlation(ramp, 2 * ramp).item(), 6), round(correlation(ramp, -ramp).item(), 6)
    (1.0, -1.0)
    """
    energy = (a * a).sum(axis=axis) * (b * b).sum(axis=axis)
    result: FloatArray = ((a * b).sum(axis=axis) / np.sqrt(energy + 1e-9)).astype(np.float64)
    return result


def box_correlations(a: FloatImage, b: FloatImage, boxes: Sequence[tuple[int, int, int, int]]) -> FloatArray:
    """Per box ``(x0, y0, x1, y1)``, the normalised correlation of ``a`` and ``b`` inside it, each
    less its mean there: how alike two images' details are, box by box, whatever their contrast.

    >>> rng = np.random.default_rng(0)
    >>> art = rng.random((20, 40)).astype(np.float32)
    >>> other = rng.random((20, 40)).astype(np.float32)
    >>> mixed = np.where(np.arange(40) < 20, art, other).astype(np.float32)
    >>> halves = [(0, 0, 20, 20), (20, 0, 40, 20)]
    >>> round(float(box_correlations(mixed, 3 * art + 1, halves)[0]), 3)
    1.0
    >>> abs(float(box_correlations(mixed, art, [(20, 0, 40, 20)])[0])) < 0.2
    True
    """
    if not boxes:
        return np.zeros(0)
    sizes = {(x1 - x0, y1 - y0) for x0, y0, x1, y1 in boxes}
    if len(sizes) > 1:
        return np.concatenate([box_correlations(a, b, [box]) for box in boxes])
    # Boxes of one size are stacked, so that the sums run once over all of them.
    seen = np.stack([a[y0:y1, x0:x1].reshape(-1) for x0, y0, x1, y1 in boxes])
    printed = np.stack([b[y0:y1, x0:x1].reshape(-1) for x0, y0, x1, y1 in boxes])
    return correlation(seen - seen.mean(axis=1, keepdims=True), printed - printed.mean(axis=1, keepdims=True))


def centred(values: npt.NDArray[np.floating], mask: npt.NDArray[np.bool_]) -> FloatArray:
    """Each row's values under ``mask`` less their mean, and zero elsewhere."""
    kept = np.where(mask, values, 0.0)
    mean = kept.sum(axis=1, keepdims=True) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
    result: FloatArray = np.where(mask, values - mean, 0.0).astype(np.float64)
    return result


def fine_detail(
    balanced: FloatImage, face: FloatImage, params: TextureParams = TEXTURE_PARAMS
) -> tuple[FloatImage, FloatImage]:
    """The fine detail of the balanced photo and of the face (both float BGR), blurred alike."""
    photo_grey = cast(FloatImage, cv2.GaussianBlur(channel_mean(balanced), (0, 0), params.photo_blur_px))
    face_grey = cast(FloatImage, cv2.GaussianBlur(channel_mean(face), (0, 0), FACE_BLUR_PX))
    return detail(photo_grey, params.detail_sigma_px), detail(face_grey, params.detail_sigma_px)


def texture_match(
    photo_detail: FloatImage,
    face_detail: FloatImage,
    ys: Indices,
    xs: Indices,
    mask: npt.NDArray[np.bool_],
    params: TextureParams = TEXTURE_PARAMS,
) -> tuple[FloatArray, FloatArray]:
    """Per row of pixel places, how well the photo's detail matches the face's, and how much the face has.

    ``ys`` and ``xs`` (rows, pixels) say where each row's pixels are;
    ``mask`` which of them to count. The match is the normalised correlation,
    best over shifts of the face up to :attr:`TextureParams.match_shift_px`: near 1 where
    the printed art shows, near 0 where something hides it. The amount is the
    face's detail (root mean square) over the row.
    """
    height, width = face_detail.shape
    photo = centred(photo_detail[ys, xs], mask)
    best = np.full(len(ys), -1.0)
    reach = range(-params.match_shift_px, params.match_shift_px + 1)
    for dy in reach:
        for dx in reach:
            shifted = face_detail[np.clip(ys + dy, 0, height - 1), np.clip(xs + dx, 0, width - 1)]
            best = np.maximum(best, correlation(photo, centred(shifted, mask), axis=1))
    printed = centred(face_detail[ys, xs], mask)
    amount = np.sqrt((printed * printed).sum(axis=1) / np.maximum(mask.sum(axis=1), 1))
    return best, amount.astype(np.float64)
