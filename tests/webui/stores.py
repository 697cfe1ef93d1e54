"""The store and queue the server's tests run on: the embedded SQLite file, or PostgreSQL with a
real Redis queue and worker when ``ARMADORA_TEST_DATABASE`` and ``ARMADORA_TEST_QUEUE`` are set
(``.ci/run`` sets them for a second run of test_web.py and test_scale.py).

Tests make their apps with :func:`make_app`, which adds the scaled store's configuration; the
fixtures in conftest.py start the worker once a session and empty the store and the photos' folder
before each test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from engine.game import GameState
from webui import store
from webui.app import create_app

DATABASE = os.environ.get("ARMADORA_TEST_DATABASE") or None
QUEUE = os.environ.get("ARMADORA_TEST_QUEUE") or None
SCALED = DATABASE is not None
#: How long a test's request waits for its photo's job: as long as it takes, so the answers are the
#: embedded server's (tests of the queued page set JOB_WAIT_S 0 themselves).
JOB_WAIT_S = 120.0
#: The tables a test starts without rows (the session key in ``settings`` stays). Their ids go on
#: counting, so a message a test left on the queue never names a job of the next.
TABLES = "jobs, suggestions, power_uses, warrior_values, kept_irregularities, positions, seats, games"

needs_queue = pytest.mark.skipif(
    QUEUE is None, reason="needs a Redis queue: set ARMADORA_TEST_QUEUE (and ARMADORA_TEST_DATABASE)"
)
embedded_only = pytest.mark.skipif(SCALED, reason="of the embedded SQLite store only")


class Shared:
    """The session's photos' folder, shared by the tests' apps and the worker."""

    photos: Path | None = None


def scaled_config() -> dict[str, Any]:
    if not SCALED:
        return {}
    config: dict[str, Any] = {"DATABASE_URL": DATABASE, "JOB_WAIT_S": JOB_WAIT_S}
    if QUEUE:
        config["QUEUE_URL"] = QUEUE
    if Shared.photos is not None:
        config["UPLOADS"] = str(Shared.photos)
    return config


def make_app(config: dict[str, Any]) -> Flask:
    """``create_app`` on the store under test: the test's configuration wins."""
    return create_app({**scaled_config(), **config})


def store_args() -> list[str]:
    """The options that point ``armadora admin`` at the store under test."""
    if not SCALED:
        return []
    assert DATABASE is not None
    return ["--database", DATABASE, *(["--photos", str(Shared.photos)] if Shared.photos else [])]


def empty_store() -> None:
    """No game, no job, no photo, no request counted: each test starts on an empty store."""
    import psycopg
    import redis

    assert DATABASE is not None
    with psycopg.connect(DATABASE, autocommit=True) as db:
        exists = db.execute("SELECT to_regclass('games')").fetchone()
        if exists and exists[0]:
            db.execute(f"TRUNCATE {TABLES} CASCADE")
    if QUEUE:
        counts = redis.Redis.from_url(QUEUE)
        for key in counts.scan_iter("armadora:rate:*"):
            counts.delete(key)
    if Shared.photos is not None:
        for path in sorted(Shared.photos.rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()


def start_worker(
    queue: str, photos: Path, data: Path, log: Path, database: str | None = DATABASE, processes: int = 1
) -> subprocess.Popen[bytes]:
    """``armadora worker`` in a process of its own (and its own process group, to kill it whole)."""
    command = [sys.executable, "-m", "webui.cli", "worker", "--queue", queue, "--photos", str(photos)]
    command += ["--data", str(data), "--processes", str(processes)]
    if database:
        command += ["--database", database]
    with log.open("ab") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def wait_ready(log: Path, worker: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    """Until the worker's log says it is ready (Celery's own line)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise RuntimeError(f"the worker stopped:\n{log.read_text(errors='replace')}")
        if log.exists() and " ready." in log.read_text(errors="replace"):
            return
        time.sleep(0.2)
    raise RuntimeError(f"the worker did not start:\n{log.read_text(errors='replace')}")


def game_of_photos(states: Sequence[GameState], *, ended: bool, revealed: bool = True) -> store.Viewer:
    """The host of a game on the page with a confirmed photo of each of ``states``, its warriors
    face down; with ``ended``, ended, and with ``revealed`` every value of the last entered (else
    one)."""
    host = store.create_game("armadora", states[-1].players, None)
    for state in states:
        position = state.to_position()
        position = replace(position, warriors=tuple(w._replace(value=None) for w in position.warriors))
        number = store.add_snapshot(host.game, store.Scanned("upload.jpg", "grid.jpg", {}, position))
        store.confirm(host.game, number)
    if ended:
        store.end_game(host.game)
        tokens = store.seat_tokens(host.game)
        warriors = states[-1].to_position().warriors
        for w in warriors if revealed else warriors[:1]:
            viewer = store.Viewer(store.reload(host.game), tokens[w.player], w.player)
            store.set_value(viewer, w.cell, w.value)
    return host
