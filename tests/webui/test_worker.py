"""``armadora worker``'s share of the machine: the cores shared out among its job processes."""

from __future__ import annotations

import os

import pytest

from vision.parallel import THREADS_ENV, threads
from webui.worker import share_cores


def test_a_worker_shares_the_cores_among_its_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("engine.workers.cores", lambda: 8)
    monkeypatch.setenv(THREADS_ENV, "")
    assert share_cores(2) == 4 and os.environ[THREADS_ENV] == "4" and threads() == 4
    # A process a core: each reads its photo on one thread.
    monkeypatch.setenv(THREADS_ENV, "")
    assert share_cores(8) == 1 and share_cores(16) == 1


def test_a_worker_keeps_the_threads_the_environment_asks_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("engine.workers.cores", lambda: 8)
    monkeypatch.setenv(THREADS_ENV, "3")
    assert share_cores(8) == 3 and threads() == 3
