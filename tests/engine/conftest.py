"""Fixtures of the engine's tests."""

import pytest

from engine.kernel import BACKENDS, Kernel, load


@pytest.fixture(params=BACKENDS)
def kernel(request: pytest.FixtureRequest) -> Kernel:
    """Each backend of the search kernel in turn (numba skipped where it is not installed)."""
    if request.param == "numba":
        pytest.importorskip("numba")
    return load(request.param)
