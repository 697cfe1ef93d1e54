"""Who runs the jobs (:mod:`webui.jobs`): the request itself, or workers on a Celery queue over Redis.

The embedded server (no ``QUEUE_URL``) runs a job in the request that made it, as it always
scanned a photo: :class:`InlineQueue`; a long job (a game's review, :data:`BACKGROUND`) runs
there in a thread of its own, so that the request answers at once and the page shows how far it
has come. A scaled one puts the job's number on a Redis list through Celery
(:class:`CeleryQueue`) and any ``armadora worker`` on any machine takes it.

The queue is set up so that a worker that dies mid-job loses nothing:

- ``task_acks_late``: a message is acknowledged when its job has ended, not when it is taken;
- ``task_reject_on_worker_lost``: a worker process killed under its parent sends its message back
  at once;
- a whole worker killed (the machine gone): Redis keeps the message taken but not acknowledged,
  and after ``visibility_timeout`` another worker restores it to the queue (every
  ``unacked_restore_interval`` seconds a worker looks);
- ``worker_prefetch_multiplier`` 1: a worker holds no more jobs than it runs, so the place a page
  shows is a place in one line for every worker.

The visibility timeout must be longer than any job takes (a scan takes 0.3 to 3 s, a game's review
up to a minute on a loaded machine): a job still running past it is given to a second worker as
well, which :mod:`webui.jobs` makes harmless (a review done twice keeps the same turns).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from typing import Any, Protocol

from flask import Flask, current_app

from webui import jobs
from webui.photos import InputError

log = logging.getLogger(__name__)

#: The task every message names: run the job of this number.
TASK = "armadora.run_job"
#: The queue's name on the broker.
QUEUE_NAME = "armadora"
#: Seconds a job taken by a worker that is never heard of again waits before it is given to another
#: (``ARMADORA_VISIBILITY_TIMEOUT`` overrides it: the tests use a short one).
VISIBILITY_TIMEOUT_S = 120
#: The kinds of job the embedded server runs in a thread of its own rather than in the request.
BACKGROUND = frozenset({"review"})


class Queue(Protocol):
    def send(self, job_id: int) -> None: ...


class InlineQueue:
    """The embedded server's: the job runs now, in the request, and its end is known on return; a
    long one (:data:`BACKGROUND`) in a thread of this process, which the request does not wait for."""

    def send(self, job_id: int) -> None:
        worker = f"{socket.gethostname()}:{os.getpid()} (in the web process)"
        job = jobs.find(job_id)
        if job is None or job.kind not in BACKGROUND:
            jobs.run(job_id, worker=worker)
            return
        app = current_app._get_current_object()  # type: ignore[attr-defined]
        thread = threading.Thread(
            target=_run_in_background, args=(app, job_id, worker), name=f"job-{job_id}", daemon=True
        )
        thread.start()


def _run_in_background(app: Flask, job_id: int, worker: str) -> None:
    with app.app_context():
        try:
            jobs.run(job_id, worker=worker)
        except Exception:  # the job is marked failed already, with the sentence the page shows
            log.exception("job %s failed", job_id)


class QueueUnreachable(InputError):
    def __init__(self) -> None:
        super().__init__(
            "the photo is kept but the server's queue cannot be reached: send it again in a minute", 503
        )


class CeleryQueue:
    """The scaled server's: the job's number goes on the queue, for a worker."""

    def __init__(self, url: str) -> None:
        self.celery = make_celery(url)

    def send(self, job_id: int) -> None:
        try:
            self.celery.send_task(TASK, args=[job_id], queue=QUEUE_NAME, retry=False)
        except Exception as error:  # kombu's connection errors are many kinds of OSError and its own
            log.error("job %s: the queue cannot be reached: %s", job_id, error)
            jobs.fail(job_id, str(QueueUnreachable()), 503)
            raise QueueUnreachable() from None


def visibility_timeout() -> float:
    return float(os.environ.get("ARMADORA_VISIBILITY_TIMEOUT", VISIBILITY_TIMEOUT_S))


def make_celery(url: str) -> Any:
    """The Celery app for a Redis queue at ``url`` (``redis://HOST:PORT/N``), as web and workers share it."""
    from celery import Celery  # the scaled mode's queue, installed with the ``scale`` extra

    celery = Celery("armadora", broker=url, set_as_current=False)
    timeout = visibility_timeout()
    celery.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_default_queue=QUEUE_NAME,
        task_serializer="json",
        accept_content=["json"],
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            "visibility_timeout": timeout,
            # Look for messages of dead workers often enough for the timeout to mean what it says.
            "unacked_restore_interval": max(1, min(10, int(timeout / 4))),
            "unacked_restore_throttle": 1,
        },
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        task_ignore_result=True,  # a job's end is in the store, not in a result backend
    )
    return celery


def check_url(url: str) -> str:
    """A queue address ``--queue`` takes, or ValueError saying what it takes."""
    if url.startswith(("redis://", "rediss://")):
        return url
    raise ValueError(f"{url[:60]!r} is not a queue address: give redis://HOST:PORT/N")


def queue_of(app: Flask) -> Queue:
    queue: Queue = app.extensions["armadora_queue"]
    return queue


def init_app(app: Flask) -> None:
    url = app.config.get("QUEUE_URL")
    app.extensions["armadora_queue"] = CeleryQueue(check_url(url)) if url else InlineQueue()
