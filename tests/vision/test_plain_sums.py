"""Sums and medians the scanner takes a faster way: each against its plain definition, written here."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.geometry import MARGIN_MM, PITCH_MM
from vision.learn.improvise import _middle
from vision.locate.grid import GRID_PARAMS, light_colour
from vision.locate.lattice import LATTICE_PARAMS, PX_PER_MM, SHIFT_COLS, SHIFT_ROWS, gold_presence


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5, 8, 13, 16])
def test_a_groups_picture_is_numpys_median_of_its_warriors(count: int) -> None:
    rng = np.random.default_rng(count)
    pictures = [rng.integers(0, 256, (160, 160, 3), dtype=np.uint8) for _ in range(count)]
    # The extremes side by side, where the two middle values' sum passes 8 bits.
    pictures[0][:4] = 255
    pictures[-1][:4] = 254 if count > 1 else 255
    kept = [picture.copy() for picture in pictures]
    middle = _middle(pictures)
    assert middle.dtype == np.uint8
    assert np.array_equal(middle, np.median(np.stack(kept), axis=0).astype(np.uint8))
    assert all(np.array_equal(picture, copy) for picture, copy in zip(pictures, kept, strict=True))
    middle[:] = 0
    assert all(np.array_equal(picture, copy) for picture, copy in zip(pictures, kept, strict=True))


@pytest.mark.parametrize("seed", range(6))
def test_the_lights_colour_is_the_power_mean_of_each_channel(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pixels = rng.random((int(rng.integers(1, 300_000)), 3)).astype(np.float32) * rng.uniform(0.1, 255)
    top = np.float32(pixels.max())
    power = GRID_PARAMS.white_power
    powered = np.power(pixels / top, np.float32(power))
    white = np.power(np.mean(powered, axis=0, dtype=np.float64), 1 / power)
    assert np.array_equal(light_colour(pixels, normalise=False), white * float(top))
    assert np.array_equal(light_colour(pixels), white / white.mean())


def test_the_gold_near_each_cells_centre_is_the_gold_view_filtered_by_a_disc_there() -> None:
    rng = np.random.default_rng(3)
    # Blobs of gold of every size, some cut by the view's edge.
    gold = np.zeros((1070, 1520), np.uint8)
    for x, y, r in rng.integers((-20, -20, 3), (1540, 1090, 40), size=(300, 3)):
        cv2.circle(gold, (int(x), int(y)), int(r), 1, -1)
    radius = round(LATTICE_PARAMS.gold_disc_mm * PX_PER_MM)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1)).astype(np.float64)
    filtered = cv2.filter2D(gold.astype(np.float64), -1, disc / disc.sum(), borderType=cv2.BORDER_CONSTANT)
    shares = gold_presence(gold)
    rows, cols = shares.shape
    origin = np.array([SHIFT_COLS, SHIFT_ROWS]) * PITCH_MM
    for j in range(rows):
        for k in range(cols):
            x = round((MARGIN_MM + (k - SHIFT_COLS + 0.5) * PITCH_MM + origin[0]) * PX_PER_MM)
            y = round((MARGIN_MM + (j - SHIFT_ROWS + 0.5) * PITCH_MM + origin[1]) * PX_PER_MM)
            assert shares[j, k] == pytest.approx(filtered[y, x], abs=1e-6)
    # Cells with no gold, full of it and between: the sums were put to the test.
    assert shares.min() == 0.0 and shares.max() > 0.9
    assert len(np.unique(np.round(shares, 3))) > 10
