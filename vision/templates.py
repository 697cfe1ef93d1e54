"""Many pictures of one size matched in one window at once, by their spectra.

OpenCV's ``matchTemplate`` works out the window's spectrum again for every picture. A copy's
warriors are matched on every cell that may hold one, each colour at every turn a hand puts a
warrior down with: dozens of pictures a cell. Here the window's spectrum is worked out once and
the pictures' once a shape, and every picture's correlation comes from one inverse transform, in
single precision as OpenCV's own; the sums it is weighed by are taken in double.

>>> import cv2
>>> rng = np.random.default_rng(0)
>>> window = rng.random((30, 30, 3)).astype(np.float32)
>>> pictures = [window[4:16, 9:21].copy(), rng.random((12, 12, 3)).astype(np.float32)]
>>> found = best_matches(window, template_bank(pictures))
>>> opencv = [cv2.minMaxLoc(cv2.matchTemplate(window, p, cv2.TM_CCOEFF_NORMED))[1] for p in pictures]
>>> bool(np.allclose(found, opencv, atol=1e-5)), round(float(found[0]), 4)
(True, 1.0)

Plain correlation (``cv2.TM_CCORR``) is found the same way, by the pictures' spectra in single
precision: :func:`plain_peaks` tells every picture's best match roughly, and :func:`near_best` which
pictures it cannot tell from the best, the only ones worth matching exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import cast

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class TemplateBank:
    """Pictures of one size, each less its channels' means (pictures, rows, columns, channels),
    and the norm of each: what :func:`best_matches` matches."""

    centred: FloatArray
    norms: FloatArray

    @property
    def side(self) -> tuple[int, int]:
        return self.centred.shape[1], self.centred.shape[2]


def template_bank(pictures: Sequence[npt.NDArray[np.floating]]) -> TemplateBank:
    """The pictures (float, all of one shape, one or more channels) made ready to be matched."""
    stack = np.stack([np.atleast_3d(np.asarray(picture, np.float64)) for picture in pictures])
    centred = stack - stack.mean(axis=(1, 2), keepdims=True)
    centred.setflags(write=False)
    norms = np.sqrt(np.einsum("krcm,krcm->k", centred, centred))
    norms.setflags(write=False)
    return TemplateBank(centred, norms)


def best_matches(window: npt.NDArray[np.floating], bank: TemplateBank) -> FloatArray:
    """Per picture of ``bank``, its best normalised correlation coefficient anywhere within
    ``window``: what ``cv2.minMaxLoc(cv2.matchTemplate(window, picture, cv2.TM_CCOEFF_NORMED))[1]``
    gives each, to a few millionths, OpenCV's handling of flat windows included."""
    pixels = np.atleast_3d(np.asarray(window, np.float64))
    rows, cols = pixels.shape[:2]
    side_r, side_c = bank.side
    shape = _transform_shape((rows, cols), bank.side)
    seen = np.fft.rfft2(pixels.astype(np.float32), s=shape, axes=(0, 1))
    spectra = _spectra(bank, shape)
    product = spectra[0] * seen[..., 0]
    for channel in range(1, pixels.shape[2]):
        product += spectra[channel] * seen[..., channel]
    # Circular correlation of the padded window: its first rows and columns are the valid places.
    places = (rows - side_r + 1, cols - side_c + 1)
    numerator = np.fft.irfft2(product, s=shape, axes=(1, 2))[:, : places[0], : places[1]].astype(np.float64)
    sums = _box_sums(pixels, bank.side)
    squares = _box_sums((pixels * pixels).sum(axis=2, keepdims=True), bank.side)[..., 0]
    spread = np.sqrt(np.maximum(squares - (sums * sums).sum(axis=2) / (side_r * side_c), 0.0))
    scale = spread[None] * bank.norms[:, None, None]
    # As OpenCV: a correlation a little beyond its bound (rounding on a nearly flat window) is
    # taken as the bound, one far beyond it as none.
    inside = np.abs(numerator) < scale
    near = np.abs(numerator) < 1.125 * scale
    coefficient = np.where(
        inside, numerator / np.where(inside, scale, 1.0), np.where(near, np.sign(numerator), 0.0)
    )
    coefficient[bank.norms < np.finfo(np.float64).eps] = 1.0
    return cast(FloatArray, coefficient.reshape(len(bank.norms), -1).max(axis=1))


@lru_cache(maxsize=4)
def _spectra(bank: TemplateBank, shape: tuple[int, int]) -> npt.NDArray[np.complex64]:
    """The bank's pictures' conjugate spectra padded to ``shape``, channel first (channels,
    pictures, rows, columns // 2 + 1): made once a bank and window shape, read only. A few are
    kept: a photo's cells are matched against one bank in windows of one or two shapes, and each
    holds about 2.5 MB (36 pictures of three channels)."""
    # The pictures laid channel first before they are transformed, and the spectra conjugated where
    # they lie: the same values, without moving or copying the spectra.
    spectra = cast(
        npt.NDArray[np.complex64],
        np.fft.rfft2(np.ascontiguousarray(np.moveaxis(bank.centred, 3, 0), np.float32), s=shape, axes=(2, 3)),
    )
    np.conjugate(spectra, out=spectra)
    spectra.setflags(write=False)
    return spectra


def _box_sums(pixels: FloatArray, side: tuple[int, int]) -> FloatArray:
    """Per place a ``side`` box fits in ``pixels`` (rows, columns, channels), each channel's sum there."""
    integral = np.zeros((pixels.shape[0] + 1, pixels.shape[1] + 1, pixels.shape[2]))
    integral[1:, 1:] = pixels.cumsum(axis=0).cumsum(axis=1)
    r, c = side
    return cast(FloatArray, integral[r:, c:] - integral[:-r, c:] - integral[r:, :-c] + integral[:-r, :-c])


@lru_cache(maxsize=64)
def _transform_shape(window: tuple[int, int], side: tuple[int, int]) -> tuple[int, int]:
    """The shape a window is padded to before it is transformed (:func:`_fast_size` each way); a
    ValueError where it is smaller than the pictures matched in it."""
    (rows, cols), (side_r, side_c) = window, side
    if rows < side_r or cols < side_c:
        raise ValueError(f"a {rows}x{cols} window is smaller than the {side_r}x{side_c} pictures")
    return _fast_size(rows), _fast_size(cols)


def _fast_size(size: int) -> int:
    """The smallest length at least ``size`` with no prime factor above 5, which transforms fast.

    >>> _fast_size(69), _fast_size(64), _fast_size(7)
    (72, 64, 8)
    """
    best = size
    while True:
        rest = best
        for prime in (2, 3, 5):
            while rest % prime == 0:
                rest //= prime
        if rest == 1:
            return best
        best += 1


#: How far single-precision transforms may take a plain correlation from ``cv2.matchTemplate``'s own,
#: as a share of the largest it could be (the window's norm times the picture's): a hundred times
#: what the transforms of a photo's cells were seen to err by.
PLAIN_ERROR = 1e-4


@dataclass(frozen=True, eq=False)
class PlainBank:
    """2-D pictures of one size (pictures, rows, columns, single precision) and each one's norm:
    what :func:`plain_peaks` matches."""

    pictures: npt.NDArray[np.float32]
    norms: FloatArray

    @property
    def side(self) -> tuple[int, int]:
        return self.pictures.shape[1], self.pictures.shape[2]


def plain_bank(pictures: Sequence[npt.NDArray[np.floating]]) -> PlainBank:
    """The 2-D pictures (all of one shape) made ready to be matched plainly."""
    stack = np.stack([np.asarray(picture, np.float32) for picture in pictures])
    stack.setflags(write=False)
    norms = np.sqrt(np.einsum("krc,krc->k", stack, stack, dtype=np.float64))
    norms.setflags(write=False)
    return PlainBank(stack, norms)


def plain_peaks(window: npt.NDArray[np.floating], bank: PlainBank) -> tuple[FloatArray, FloatArray]:
    """Per picture of ``bank``, its best plain correlation anywhere within the 2-D ``window``: what
    ``cv2.minMaxLoc(cv2.matchTemplate(window, picture, cv2.TM_CCORR))[1]`` gives, within the error
    beside it (:data:`PLAIN_ERROR` of the window's norm times the picture's).

    >>> import cv2
    >>> rng = np.random.default_rng(0)
    >>> window = rng.random((40, 40)).astype(np.float32)
    >>> pictures = [window[5:25, 9:29].copy(), rng.random((20, 20)).astype(np.float32)]
    >>> peaks, error = plain_peaks(window, plain_bank(pictures))
    >>> opencv = [cv2.minMaxLoc(cv2.matchTemplate(window, p, cv2.TM_CCORR))[1] for p in pictures]
    >>> bool((np.abs(peaks - opencv) <= error).all())
    True
    """
    pixels = np.asarray(window, np.float32)
    rows, cols = pixels.shape
    side_r, side_c = bank.side
    shape = _transform_shape((rows, cols), bank.side)
    seen = np.fft.rfft2(pixels, s=shape)
    correlations = np.fft.irfft2(_plain_spectra(bank, shape) * seen, s=shape, axes=(1, 2))
    peaks = correlations[:, : rows - side_r + 1, : cols - side_c + 1].reshape(len(bank.norms), -1).max(axis=1)
    window_norm = float(np.sqrt(np.einsum("rc,rc->", pixels, pixels, dtype=np.float64)))
    return peaks.astype(np.float64), PLAIN_ERROR * window_norm * bank.norms


def near_best(peaks: FloatArray, error: FloatArray) -> npt.NDArray[np.intp]:
    """The pictures whose true peak may be the best, given rough ``peaks`` each within ``error``
    (:func:`plain_peaks`), in their order: every picture whose peak could reach the best one's.

    >>> near_best(np.array([10.0, 12.0, 11.5, 3.0]), np.full(4, 0.3)).tolist()
    [1, 2]
    """
    best = int(np.argmax(peaks))
    return np.flatnonzero(peaks + error >= peaks[best] - error[best])


@lru_cache(maxsize=8)
def _plain_spectra(bank: PlainBank, shape: tuple[int, int]) -> npt.NDArray[np.complex64]:
    """The bank's pictures' conjugate spectra padded to ``shape``: made once a bank and window shape,
    read only."""
    spectra = np.conjugate(np.fft.rfft2(bank.pictures, s=shape, axes=(1, 2)))
    spectra.setflags(write=False)
    return spectra
