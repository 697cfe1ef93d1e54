"""Shared test set-up. Its folder goes on sys.path, so tests in subfolders import the helpers here
(positions.py, reference.py) as plain modules."""

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a long run, skipped unless ARMADORA_SLOW=1 (run with -m slow)")
