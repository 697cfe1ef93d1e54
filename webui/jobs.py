"""Jobs: the scans of photos sent to a game, kept in the store while they wait, run and end.

A photo sent is kept on disk and becomes a row of ``jobs`` before any scanning; whoever runs the
job (the request itself in the embedded server, a worker on any machine in the scaled one: see
:mod:`webui.taskqueue`) reads the row, scans the photo, stores the draft and marks the row done,
or failed with the sentence to show. So a page learns where its photo stands from the store
alone, the web process keeps nothing, and a worker that dies mid-scan loses neither the job (the
queue gives it to another: the row counts the attempts) nor the photo (removed only when the job
fails, or when a draft of the same photo keeps its own).

Running a job twice is harmless: the files are rewritten whole under the same names, and a
draft of the same photo is stored once (:func:`webui.store.add_snapshot`).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

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
    game_id: int
    kind: str
    created: str
    state: str  # queued, running, done, failed
    photo: str
    attempts: int
    worker: str
    number: int | None  # the draft it made
    status: int | None  # a failure's HTTP status
    message: str | None  # a failure's sentence
    place: int = 0  # while queued: 1 for the next job a worker takes

    @classmethod
    def from_row(cls, row: Row, place: int = 0) -> Job:
        return cls(
            row["id"],
            row["game_id"],
            row["kind"],
            row["created"],
            row["state"],
            row["photo"],
            row["attempts"],
            row["worker"],
            row["number"],
            row["status"],
            row["message"],
            place,
        )

    @property
    def over(self) -> bool:
        return self.state in ("done", "failed")


def find(job_id: int) -> Job | None:
    row = get_db().execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
    return None if row is None else Job.from_row(row, place(row))


def place(row: Row) -> int:
    """A queued job's place in the queue: 1 and up (0 once a worker has it)."""
    if row["state"] != "queued":
        return 0
    ahead = get_db().execute("SELECT COUNT(*) FROM jobs WHERE state = 'queued' AND id < ?", (row["id"],))
    return int(ahead.fetchone()[0]) + 1


def submit_scan(game: store.Game, data: bytes) -> Job:
    """Keep the photo, record its scan as a job and hand it to the app's queue (which may run it at
    once); the job as it stands then."""
    from webui.taskqueue import queue_of  # the queue needs this module's run()

    photo = keep_upload(game.id, data)
    try:
        with transaction() as db:
            if store.reload(game).ended:
                raise store.GameError("the game has ended: no more photos")
            job_id = int(
                db.execute(
                    "INSERT INTO jobs (game_id, kind, created, photo) VALUES (?, 'scan', ?, ?) RETURNING id",
                    (game.id, store.now(), photo),
                ).fetchone()[0]
            )
    except BaseException:
        discard_upload(photo)
        raise
    queue_of(current_app).send(job_id)
    found = find(job_id)
    assert found is not None
    return found


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


def finish(job: Job, number: int) -> None:
    with transaction() as db:
        db.execute(
            "UPDATE jobs SET state = 'done', number = ?, finished = ? WHERE id = ? AND state != 'done'",
            (number, store.now(), job.id),
        )


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
        number = scan_into_draft(job)
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
    finish(job, number)


def scan_into_draft(job: Job) -> int:
    """Scan the job's photo into a draft of its game (the draft kept of the same photo, if any): its
    number."""
    game = store.find_game(job.game_id)
    if game is None:
        raise store.GameError("this game is gone (it was removed as abandoned)")
    data = (Path(current_app.config["UPLOADS"]) / job.photo).read_bytes()
    scanned = scan_for_game(data, game.id, game.profile, game.players, game.variant, upload=job.photo)
    number = store.add_snapshot(game, scanned)
    kept = store.snapshot(game, number)
    if kept is None or kept.upload != scanned.upload:
        discard_photos(scanned)  # the same photo made a draft before: that draft keeps its files
    return number


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
    """Remove a failed job whose sentence its sender was given in answer: the page need not show it."""
    with transaction() as db:
        db.execute("DELETE FROM jobs WHERE id = ? AND state = 'failed'", (job.id,))


def of_game(game: store.Game) -> list[Job]:
    """What a game's page shows of its jobs: those waiting or running, with their place, and those that
    failed since the game's last photo was read."""
    rows = (
        get_db()
        .execute(
            "SELECT * FROM jobs WHERE game_id = ? AND (state IN ('queued', 'running') OR (state = 'failed' "
            "AND id > COALESCE((SELECT MAX(id) FROM jobs WHERE game_id = ? AND state = 'done'), 0))) "
            "ORDER BY id",
            (game.id, game.id),
        )
        .fetchall()
    )
    return [Job.from_row(row, place(row)) for row in rows]
