"""The texture module's array helpers."""

from __future__ import annotations

import numpy as np
import pytest

from vision.texture import upper_percentile


@pytest.mark.parametrize("percent", [90.0, 99.0, 99.9, 100.0])
@pytest.mark.parametrize("kind", ["uniform", "mostly zero", "few levels", "one value"])
def test_the_upper_percentile_is_numpys(percent: float, kind: str) -> None:
    rng = np.random.default_rng(len(kind))
    values = {
        "uniform": rng.random((240, 333)),
        "mostly zero": np.where(rng.random((240, 333)) < 0.97, 0.0, rng.integers(1, 200, (240, 333))),
        "few levels": rng.integers(0, 4, (240, 333)).astype(float),
        "one value": np.full((240, 333), 7.0),
    }[kind].astype(np.float32)
    assert upper_percentile(values, percent) == pytest.approx(float(np.percentile(values, percent)), rel=1e-6)


def test_a_sample_that_misses_the_top_still_gives_numpys_percentile() -> None:
    """Every sampled value the largest: the bound leaves out values of the ranks wanted, and all
    of them are sorted."""
    values = np.arange(100_000, dtype=np.float32)
    values[::16] += 1e6
    assert upper_percentile(values, 95.0) == pytest.approx(float(np.percentile(values, 95.0)), rel=1e-6)
    assert upper_percentile(values, 95.0, sample_step=1) == pytest.approx(
        float(np.percentile(values, 95.0)), rel=1e-6
    )
