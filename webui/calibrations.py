"""A game's calibration profile learnt from its setup photo, as a job (:mod:`webui.jobs`).

The new game's form waits for it: the game is made with the profile, so the job has no game
yet. Its photo is kept under ``uploads/setup/`` while the job lasts, and removed at its end.
"""

from __future__ import annotations

import json
from pathlib import Path

from flask import current_app

import calibration.setup
from calibration.setup import SetupError
from vision.load import PhotoError
from webui import jobs
from webui.photos import InputError, checked_profile, discard_upload, keep_upload

#: The folder of setup photos under the uploads folder, for the jobs' while.
SETUP_FOLDER = "setup"
#: How long the form waits for its profile: a calibration takes seconds, more while workers are busy.
CALIBRATION_WAIT_S = 600.0


def learnt_profile(data: bytes, players: tuple[str, ...]) -> str:
    """The profile learnt from a setup photo, checked usable for ``players``, as JSON text; InputError
    saying why not (or that the workers are too busy)."""
    photo = keep_upload(SETUP_FOLDER, data)
    job = jobs.submit("calibrate", None, photo, {"players": list(players)})
    job = jobs.wait(job, max(CALIBRATION_WAIT_S, current_app.config["JOB_WAIT_S"]))
    jobs.raise_failure(job)
    if job.state != "done" or job.result is None:
        raise InputError("the setup photo is still waiting for a worker: try again in a few minutes", 503)
    jobs.forget(job)
    return job.result


def learn_profile(job: jobs.Job) -> jobs.Outcome:
    """Run a calibration job: the profile's JSON text; the setup photo goes either way."""
    players = tuple(job.argument["players"])
    try:
        data = (Path(current_app.config["UPLOADS"]) / job.photo).read_bytes()
        try:
            learnt = calibration.setup.calibrate(data, players=players)
        except (SetupError, PhotoError) as error:
            raise InputError(f"the setup photo could not be used: {error}") from None
        return jobs.Outcome(result=checked_profile(json.dumps(learnt.profile.to_json()), players))
    finally:
        discard_upload(job.photo)
