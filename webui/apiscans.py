"""``/api/scan``'s scan as a job (:mod:`webui.jobs`), in the scaled server: a worker reads the photo.

The API is synchronous, so the request waits for its job (``API_SCAN_WAIT_S``) and answers with the
document the job made, or with its refusal: the same answers as the embedded server, which scans in
the request without a job. The job has no game (``game_id`` NULL, as a calibration's); its photo (and
the profile sent with it, in a file beside it rather than in the row the request polls) is kept under
``uploads/api/`` while the job lasts and removed at its end by the worker, and its row is forgotten
once the request has read it. A request that gives up waiting removes the row and the files itself:
a worker that takes the message later finds no job and skips it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import current_app

from webui import jobs
from webui.db import transaction
from webui.photos import InputError, discard_upload, keep_upload, profile_name, read_photo, write_whole
from webui.taskqueue import QueueUnreachable

#: The folder of the API's photos under the uploads folder, for the jobs' while.
API_FOLDER = "api"
#: What the API answers when no worker read the photo in time.
BUSY = "the scanners are busy: no worker read the photo in time; try again in a minute"
#: What the API answers when the queue cannot be reached (nothing of the photo is kept).
UNREACHABLE = "the server's queue cannot be reached: send the photo again in a minute"


def scanned_document(
    data: bytes, profile: str | None, players: tuple[str, ...] | None, variant: str
) -> dict[str, Any]:
    """The scan's document as a worker made it; InputError with the scanner's refusal (the embedded
    one's), or a 503 when no worker read it within ``API_SCAN_WAIT_S``."""
    photo = keep_upload(API_FOLDER, data)
    try:
        if profile is not None:
            write_whole(Path(current_app.config["UPLOADS"]) / profile_name(photo), profile.encode("utf-8"))
        argument = {
            "profile": profile is not None,
            "players": None if players is None else list(players),
            "variant": variant,
        }
        job = jobs.submit("api_scan", None, photo, argument)
    except QueueUnreachable:
        forget_photo(photo)
        raise InputError(UNREACHABLE, 503) from None
    except BaseException:
        discard_upload(photo)
        raise
    job = jobs.wait(job, float(current_app.config["API_SCAN_WAIT_S"]))
    jobs.raise_failure(job)
    if job.state != "done" or job.result is None:
        forget_photo(photo)
        raise InputError(BUSY, 503)
    jobs.forget(job)
    document: dict[str, Any] = json.loads(job.result)
    return document


def forget_photo(photo: str) -> None:
    """Remove a job its request no longer waits for (or could not queue), and its files."""
    with transaction() as db:
        db.execute("DELETE FROM jobs WHERE photo = ? AND game_id IS NULL", (photo,))
    discard_upload(photo)


def scan_photo(job: jobs.Job) -> jobs.Outcome:
    """Run an API scan job: the scan's document as JSON text; the photo and profile go either way."""
    argument = job.argument
    players = None if argument["players"] is None else tuple(argument["players"])
    uploads = Path(current_app.config["UPLOADS"])
    try:
        try:
            data = (uploads / job.photo).read_bytes()
            profile = (
                (uploads / profile_name(job.photo)).read_text(encoding="utf-8")
                if argument["profile"]
                else None
            )
        except FileNotFoundError:
            raise InputError(BUSY, 503) from None  # its request gave up waiting and removed them
        result = read_photo(data, profile, players, argument["variant"])
        return jobs.Outcome(result=json.dumps(result.to_json()))
    finally:
        discard_upload(job.photo)
