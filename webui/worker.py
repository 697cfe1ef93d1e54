"""``armadora worker``: a Celery worker that runs the scaled server's jobs (:mod:`webui.jobs`).

Start any number, on any machines that reach the store, the queue and the photos' folder; each
takes one job at a time per process. What happens when one dies is in :mod:`webui.taskqueue`.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from typing import Any

from vision.parallel import THREADS_ENV
from webui import jobs
from webui.backends import BackendError, Backends, make_app
from webui.taskqueue import QUEUE_NAME, TASK, make_celery

log = logging.getLogger(__name__)


def build(backends: Backends) -> Any:
    """The Celery app with the job task bound to a Flask app on ``backends`` (the task runs in its
    context: the store, the photos' folder)."""
    assert backends.queue is not None
    app = make_app(backends)
    celery = make_celery(backends.queue)

    @celery.task(name=TASK, bind=True)  # type: ignore[untyped-decorator]
    def run_job(task: Any, job_id: int) -> None:
        with app.app_context():
            jobs.run(int(job_id), worker=str(task.request.hostname or socket.gethostname()))

    return celery


def main(backends: Backends, processes: int) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not backends.queue:
        print(
            "armadora worker: give the queue to take jobs from: --queue redis://HOST:PORT/N", file=sys.stderr
        )
        return 2
    if processes < 1:
        print("armadora worker: --processes is 1 or more", file=sys.stderr)
        return 2
    try:
        backends.check_queue()
        celery = build(backends)
    except BackendError as error:
        print(f"armadora worker: {error}", file=sys.stderr)
        return 1
    from engine.search import prepare

    prepare()  # compile the search's kernel before the first job, once for the processes forked after
    share_cores(processes)
    # A name of its own for each worker, so several on one machine are told apart on the pages.
    name = f"armadora-{os.getpid()}@{socket.gethostname()}"
    celery.worker_main(
        ["worker", "--loglevel=INFO", f"--concurrency={processes}", "-Q", QUEUE_NAME, "-n", name]
    )
    return 0


def share_cores(processes: int) -> int:
    """The threads each of ``processes`` job processes reads a photo on: the cores shared out
    among them, unless ``ARMADORA_SCAN_THREADS`` says otherwise (set here for the processes the
    worker forks). A worker with a process per core, each reading its photo on every core,
    would only make the cores take turns."""
    from engine.workers import cores

    if not os.environ.get(THREADS_ENV, "").strip():
        os.environ[THREADS_ENV] = str(max(1, cores() // processes))
    return int(os.environ[THREADS_ENV])
