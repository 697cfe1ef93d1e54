"""Jobs: the scans of photos, the calibrations from setup photos, the suggestions and the reviews of
finished games, kept in the store while they wait, run and end.

A photo sent is kept on disk and becomes a row of ``jobs`` before any scanning; whoever runs the
job (the request itself in the embedded server, a worker on any machine in the scaled one: see
:mod:`webui.taskqueue`) reads the row, scans the photo, stores the draft and marks the row done,
or failed with the sentence to show. So a page learns where its photo stands from the store
alone, the web process keeps nothing, and a worker that dies mid-scan loses neither the job (the
queue gives it to another: the row counts the attempts) nor the photo (removed only when the job
fails, or when a draft of the same photo keeps its own).

Running a job twice is harmless: the files are rewritten whole under the same names, a draft
of the same photo is stored once (:func:`webui.store.add_snapshot`), and a suggestion is kept
under its position and hand. What each kind does is in :data:`RUNNERS`: a scan here, a
calibration in :mod:`webui.calibrations`, a suggestion in :mod:`webui.suggestions`, the scaled
server's ``/api/scan`` in :mod:`webui.apiscans`, and a game's review in :mod:`webui.game_review`
(a long job, which says how far it has come in the row's ``progress``).
"""

from __future__ import annotations

import importlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from flask import current_app

from webui import store
from webui.db import Row, get_db, transaction
from webui.photos import InputError, discard_photos, discard_upload, keep_upload, scan_for_game

log = logging.getLogger(__name__)

#: How often a request waiting for a job looks at its row.
WAIT_STEP_S = 0.1
#: What a player reads when a job failed on the server's side (the log has the rest).
SERVER_FAULT = (
    "the server could not read this photo (a fault on its side, which has been logged): send it again"
)


@dataclass(frozen=True)
class Job:
    id: int
    game_id: int | None
    kind: str
    created: str
    state: str  # queued, running, done, failed
    photo: str
    argument: dict[str, Any]
    attempts: int
    worker: str
    number: int | None  # the draft it made
    result: str | None  # what else it made
    status: int | None  # a failure's HTTP status
    message: str | None  # a failure's sentence
    place: int = 0  # while queued: 1 for the next job a worker takes
    progress: str = ""  # how far a long job has come ("turn 3 of 60")

    @classmethod
    def from_row(cls, row: Row, place: int = 0) -> Job:
        return cls(
            row["id"],
            row["game_id"],
            row["kind"],
            row["created"],
            row["state"],
            row["photo"],
            json.loads(row["argument"]),
            row["attempts"],
            row["worker"],
            row["number"],
            row["result"],
            row["status"],
            row["message"],
            place,
            row["progress"],
        )

    @property
    def over(self) -> bool:
        return self.state in ("done", "failed")


def find(job_id: int) -> Job | None:
    row = get_db().execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
    return None if row is None else Job.from_row(row, place(row))


def latest(game: store.Game, kind: str) -> Job | None:
    """The game's latest job of this kind, whatever its state (a game's review: the one its page shows)."""
    row = (
        get_db()
        .execute("SELECT * FROM jobs WHERE game_id = ? AND kind = ? ORDER BY id DESC", (game.id, kind))
        .fetchone()
    )
    return None if row is None else Job.from_row(row, place(row))


def place(row: Row) -> int:
    """A queued job's place in the queue: 1 and up (0 once a worker has it)."""
    if row["state"] != "queued":
        return 0
    ahead = get_db().execute("SELECT COUNT(*) FROM jobs WHERE state = 'queued' AND id < ?", (row["id"],))
    return int(ahead.fetchone()[0]) + 1


#: The kinds of job that are for a game once it has ended (the others are refused then).
AFTER_THE_END = frozenset({"review"})


def submit(
    kind: str, game: store.Game | None, photo: str = "", argument: dict[str, Any] | None = None
) -> Job:
    """Record a job and hand it to the app's queue (which may run it at once); the job as it stands
    then. A photo it names is removed if it cannot be recorded."""
    from webui.taskqueue import queue_of  # the queue needs this module's run()

    try:
        with transaction() as db:
            if game is not None and kind not in AFTER_THE_END and store.reload(game).ended:
                raise store.GameError("the game has ended")
            job_id = int(
                db.execute(
                    "INSERT INTO jobs (game_id, kind, created, photo, argument) VALUES (?, ?, ?, ?, ?) "
                    "RETURNING id",
                    (None if game is None else game.id, kind, store.now(), photo, json.dumps(argument or {})),
                ).fetchone()[0]
            )
    except BaseException:
        if photo:
            discard_upload(photo)
        raise
    queue_of(current_app).send(job_id)
    found = find(job_id)
    assert found is not None
    return found


def submit_scan(game: store.Game, data: bytes) -> Job:
    """Keep the photo and queue its scan into a draft of ``game``."""
    if game.ended:
        raise store.GameError("the game has ended: no more photos")
    return submit("scan", game, keep_upload(game.id, data))


def claim(job_id: int, worker: str) -> Job | None:
    """Mark a job taken by ``worker`` (one more attempt); None when it is over already (a message the
    queue gave again after the job ended)."""
    with transaction() as db:
        row = db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None or row["state"] in ("done", "failed"):
            return None
        db.execute(
            "UPDATE jobs SET state = 'running', attempts = attempts + 1, worker = ?, started = ? "
            "WHERE id = ?",
            (worker, store.now(), job_id),
        )
    return find(job_id)


@dataclass(frozen=True)
class Outcome:
    """What a job made: a draft's number, or a text (a profile), or nothing but its effect."""

    number: int | None = None
    result: str | None = None


def finish(job: Job, outcome: Outcome) -> None:
    with transaction() as db:
        db.execute(
            "UPDATE jobs SET state = 'done', number = ?, result = ?, finished = ? "
            "WHERE id = ? AND state != 'done'",
            (outcome.number, outcome.result, store.now(), job.id),
        )


def set_progress(job_id: int, text: str) -> None:
    """Say how far a running job has come, for the pages to show ("turn 3 of 60")."""
    with transaction() as db:
        db.execute("UPDATE jobs SET progress = ? WHERE id = ? AND state = 'running'", (text, job_id))


def fail(job_id: int, message: str, status: int) -> None:
    with transaction() as db:
        db.execute(
            "UPDATE jobs SET state = 'failed', status = ?, message = ?, finished = ? "
            "WHERE id = ? AND state != 'done'",
            (status, message, store.now(), job_id),
        )


def run(job_id: int, worker: str) -> None:
    """Run a job to its end, in an app context: done with its draft's number, or failed with a sentence.

    A refusal (a photo that is no photo of the board, a game ended meanwhile) is the job's answer; any
    other error is too (:data:`SERVER_FAULT`), and is raised again for the caller to log."""
    job = claim(job_id, worker)
    if job is None:
        return
    try:
        outcome = runner(job.kind)(job)
    except InputError as error:
        fail(job.id, str(error), error.status)
        discard_upload(job.photo)
        return
    except store.GameError as error:
        fail(job.id, str(error), 409)
        discard_upload(job.photo)
        return
    except Exception:
        fail(job.id, SERVER_FAULT, 500)
        raise
    finish(job, outcome)


#: What each kind of job does: ``module:function``, imported when a job of the kind first runs
#: (they use what uses this module).
RUNNERS = {
    "scan": "webui.jobs:scan_into_draft",
    "calibrate": "webui.calibrations:learn_profile",
    "suggest": "webui.suggestions:search",
    "api_scan": "webui.apiscans:scan_photo",
    "review": "webui.game_review:review_game",
}


def runner(kind: str) -> Callable[[Job], Outcome]:
    module, name = RUNNERS[kind].split(":")
    function: Callable[[Job], Outcome] = getattr(importlib.import_module(module), name)
    return function


def scan_into_draft(job: Job) -> Outcome:
    """Scan the job's photo into a draft of its game (the draft kept of the same photo, if any): its
    number."""
    game = game_of(job)
    data = (Path(current_app.config["UPLOADS"]) / job.photo).read_bytes()
    scanned = scan_for_game(data, game.id, game.profile, game.players, game.variant, upload=job.photo)
    number = store.add_snapshot(game, scanned)
    kept = store.snapshot(game, number)
    if kept is None or kept.upload != scanned.upload:
        discard_photos(scanned)  # the same photo made a draft before: that draft keeps its files
    return Outcome(number=number)


def game_of(job: Job) -> store.Game:
    game = None if job.game_id is None else store.find_game(job.game_id)
    if game is None:
        raise store.GameError("this game is gone (it was removed as abandoned)")
    return game


def wait(job: Job, seconds: float) -> Job:
    """The job once it is over, or as it stands after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not job.over and time.monotonic() < deadline:
        time.sleep(WAIT_STEP_S)  # each read in autocommit sees what the worker committed
        found = find(job.id)
        assert found is not None
        job = found
    return job


def forget(job: Job) -> None:
    """Remove a failed job whose sentence its sender was given in answer (the page need not show it),
    or a done calibration whose profile its game took."""
    with transaction() as db:
        db.execute("DELETE FROM jobs WHERE id = ? AND (state = 'failed' OR game_id IS NULL)", (job.id,))


def raise_failure(job: Job) -> None:
    """A failed job's sentence as the refusal its sender gets (the job then forgotten)."""
    if job.state == "failed":
        forget(job)
        raise InputError(job.message or SERVER_FAULT, job.status or 500)


def requeue(older_than_s: float) -> list[int]:
    """Hand to the queue again every job waiting or running for longer than ``older_than_s`` seconds:
    the ones whose message was lost (a Redis restarted without its file, a web process stopped
    between the row and the message). A job given twice runs once; the numbers of those sent."""
    from webui.taskqueue import queue_of

    cutoff = (datetime.now(UTC) - timedelta(seconds=older_than_s)).isoformat(timespec="seconds")
    rows = (
        get_db()
        .execute(
            "SELECT id FROM jobs WHERE state IN ('queued', 'running') AND COALESCE(started, created) < ? "
            "ORDER BY id",
            (cutoff,),
        )
        .fetchall()
    )
    for row in rows:
        queue_of(current_app).send(int(row["id"]))
    return [int(row["id"]) for row in rows]


def of_game(game: store.Game) -> list[Job]:
    """What a game's pages show of its jobs: those waiting or running, with their place, and those that
    failed since the last of their kind was done."""
    rows = (
        get_db()
        .execute(
            "SELECT * FROM jobs j WHERE j.game_id = ? AND (j.state IN ('queued', 'running') OR "
            "(j.state = 'failed' AND j.id > COALESCE((SELECT MAX(d.id) FROM jobs d "
            "WHERE d.game_id = j.game_id AND d.kind = j.kind AND d.state = 'done'), 0))) ORDER BY j.id",
            (game.id,),
        )
        .fetchall()
    )
    return [Job.from_row(row, place(row)) for row in rows]
