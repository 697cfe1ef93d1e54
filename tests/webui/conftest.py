"""Fixtures of the real-browser tests (:mod:`phones`): the server, Chromium, the steps looked at."""

from __future__ import annotations

import os
import re
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import stores
from phones import CHROMIUM, CHROMIUM_ARGS, Server, Steps, playwright_or_skip
from waitress import wasyncore  # type: ignore[import-untyped]

from webui.serve import make_server


@pytest.fixture(scope="session")
def scaled_services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """On the scaled store: the session's photos' folder, and one worker on the queue."""
    if not stores.SCALED:
        yield
        return
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # Each test empties the one store: tests running side by side would empty each other's.
        raise pytest.UsageError("the tests on ARMADORA_TEST_DATABASE run one at a time: leave out -n")
    folder = tmp_path_factory.mktemp("scaled")
    stores.Shared.photos = folder / "photos"
    stores.Shared.photos.mkdir()
    worker = None
    if stores.QUEUE:
        log = folder / "worker.log"
        worker = stores.start_worker(stores.QUEUE, stores.Shared.photos, folder / "data", log)
        stores.wait_ready(log, worker)
    yield
    if worker is not None:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=60)


@pytest.fixture(autouse=True)
def scaled_store(scaled_services: None) -> None:
    """On the scaled store, each test starts on an empty one (the embedded store: a folder of its own)."""
    if stores.SCALED:
        stores.empty_store()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """The app under waitress on a free port, in a thread."""
    data = tmp_path / "data"
    served = make_server("127.0.0.1", 0, data)
    thread = threading.Thread(target=served.run, daemon=True)
    thread.start()
    yield Server(f"http://127.0.0.1:{served.effective_port}", data)
    served.task_dispatcher.shutdown()
    # Closed from the server's own thread, between two of its waits: a socket closed from here
    # while that thread waits on it fails its wait ("Bad file descriptor"), and pytest warns.
    served.trigger.pull_trigger(lambda: wasyncore.close_all(served._map))
    thread.join(timeout=10)


@pytest.fixture
def browser() -> Iterator[Any]:
    sync_playwright = playwright_or_skip()
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def steps(tmp_path: Path, request: pytest.FixtureRequest) -> Steps:
    folder = Path(os.environ.get("ARMADORA_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"screenshots in {folder}")
    return Steps(folder, re.sub(r"[^\w-]+", "-", request.node.name.removeprefix("test_")).strip("-"))
