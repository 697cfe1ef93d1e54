"""The channel helpers give numpy's own reductions over three channels bit for bit: the readers'
figures were measured with those, so a faster way must not move a single reading."""

from __future__ import annotations

import numpy as np
import pytest

from vision.colour import channel_mean, channel_norm, channel_sum, chroma

SHAPES = [(3,), (7, 3), (53, 80, 3), (4, 5, 6, 3), (530, 800, 3)]


def _pixels(shape: tuple[int, ...], dtype: type, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    # Values of very different sizes, so that the order of the additions shows in the last bits.
    values = rng.random(shape) * 10.0 ** rng.integers(-3, 4, size=shape)
    return values.astype(dtype)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_channel_reductions_are_numpys_bit_for_bit(shape: tuple[int, ...], dtype: type) -> None:
    pixels = _pixels(shape, dtype, seed=len(shape))
    for ours, numpys in (
        (channel_sum(pixels), pixels.sum(axis=-1)),
        (channel_mean(pixels), pixels.mean(axis=-1)),
        (channel_norm(pixels), np.linalg.norm(pixels, axis=-1)),
    ):
        assert ours.dtype == numpys.dtype
        assert ours.shape == numpys.shape
        assert np.array_equal(ours, numpys)


def test_channel_mean_of_a_grey_image_is_its_grey() -> None:
    grey = np.full((4, 4, 3), 0.25, np.float32)
    assert np.array_equal(channel_mean(grey), np.full((4, 4), 0.25, np.float32))


def test_channel_helpers_keep_nan_and_infinity_as_numpy_does() -> None:
    pixels = np.array([[np.nan, 1.0, 2.0], [np.inf, 1.0, 2.0], [1.0, 2.0, 3.0]], np.float32)
    assert np.array_equal(channel_sum(pixels), pixels.sum(axis=-1), equal_nan=True)
    assert np.array_equal(channel_norm(pixels), np.linalg.norm(pixels, axis=-1), equal_nan=True)


def test_chroma_takes_off_the_least_channel_as_a_reduction_does() -> None:
    pixels = _pixels((40, 500, 3), np.float32, seed=7)
    white = np.array([0.9, 1.0, 1.1], np.float32)
    expected = (pixels - (pixels / white).min(axis=-1, keepdims=True) * white).astype(np.float32)
    assert np.array_equal(chroma(pixels, white), expected)
    # A colour with white added keeps its chroma.
    orange = np.array([0.14, 0.48, 0.88], np.float32)
    assert np.allclose(chroma(orange + 0.3), chroma(orange), atol=1e-6)
