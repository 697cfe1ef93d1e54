"""The scaled server's own behaviour: a photo waiting in the queue, shown with its place, and a worker
killed mid-scan whose job another worker finishes. Needs a Redis queue (``ARMADORA_TEST_QUEUE``);
on ``ARMADORA_TEST_DATABASE`` when set, else on a SQLite file that web and workers share.

Each test has a queue of its own (another Redis database number than the session's worker's), so
that only the workers it starts take its jobs.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from stores import DATABASE, QUEUE, make_app, needs_queue, start_worker, wait_ready
from test_web import (
    ADVANCED,
    BOARD_PHOTO,
    MAGE_AND_ELF,
    NO_BOARD_PHOTO,
    SMALL_GAME,
    enter,
    error_of,
    new_game,
    player_links,
    post,
    put_position,
    scan_api,
    send_photo,
    token,
)

from calibration.profile import default_profile
from webui import api, jobs, store
from webui.app import create_app
from webui.backends import BackendError, Backends
from webui.cli import main

pytestmark = needs_queue

PROFILE = default_profile().to_json()
#: The workers here give up on a job's dead worker after this many seconds.
VISIBILITY_S = 4


@dataclass
class Scaled:
    app: Flask
    client: FlaskClient
    queue: str
    photos: Path
    folder: Path
    workers: list[subprocess.Popen[bytes]]

    def worker(self, name: str) -> subprocess.Popen[bytes]:
        """A worker of one process on this test's queue, started and ready."""
        log = self.folder / f"{name}.log"
        os.environ["ARMADORA_VISIBILITY_TIMEOUT"] = str(VISIBILITY_S)
        try:
            worker = start_worker(self.queue, self.photos, self.folder / name, log, database=self.database)
        finally:
            del os.environ["ARMADORA_VISIBILITY_TIMEOUT"]
        self.workers.append(worker)
        wait_ready(log, worker)
        return worker

    @property
    def database(self) -> str:
        return str(self.app.config["DATABASE_URL"])

    def jobs_of(self, host: str) -> list[jobs.Job]:
        with self.app.test_request_context():
            viewer = store.find_viewer(token(host))
            assert viewer is not None
            return jobs.of_game(viewer.game)

    def job_rows(self) -> int:
        with self.app.test_request_context():
            from webui.db import get_db

            return int(get_db().execute("SELECT COUNT(*) FROM jobs").fetchone()[0])

    def job(self, job_id: int) -> jobs.Job:
        with self.app.test_request_context():
            found = jobs.find(job_id)
        assert found is not None
        return found


def own_queue(offset: int) -> str:
    """The session's queue address with another of Redis's 16 database numbers (``offset`` 1 to 15)."""
    assert QUEUE is not None
    found = re.search(r"/(\d+)$", QUEUE)
    base = int(found[1]) if found else 0
    return re.sub(r"/\d*$", "", QUEUE) + f"/{(base + offset) % 16}"


@pytest.fixture
def scaled(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Scaled]:
    import redis

    queue = own_queue(1 + sum(request.node.name.encode()) % 15)
    redis.Redis.from_url(queue).flushdb()  # nothing left from an earlier run
    photos = tmp_path / "photos"
    database = DATABASE or f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    app = make_app(
        {
            "DATA_DIR": str(tmp_path / "web"),
            "DATABASE_URL": database,
            "QUEUE_URL": queue,
            "UPLOADS": str(photos),
            "JOB_WAIT_S": 0.0,
        }
    )
    setup = Scaled(app, app.test_client(), queue, photos, tmp_path, [])
    yield setup
    for worker in setup.workers:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(timeout=60)


def until(condition: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"not within {timeout} s: {what}")


def reading(page: str) -> list[str]:
    """The lines of the page's list of photos being read."""
    return [
        re.sub(r"\s+", " ", line).strip()
        for line in re.findall(r'<li class="job \w+">(.*?)</li>', page, re.S)
    ]


def test_a_queued_photo_shows_its_place_and_the_page_follows_it_to_the_draft(scaled: Scaled) -> None:
    first, second = new_game(scaled.client, ("purple", "green")), new_game(scaled.client, ("purple", "green"))
    for host in (first, second, second):
        answer = send_photo(scaled.client, host, BOARD_PHOTO.read_bytes())
        assert answer.status_code == 303 and answer.location == host  # no worker yet: queued
    assert [line.split(": ", 1)[1] for line in reading(scaled.client.get(second).get_data(as_text=True))] == [
        "waiting, number 2 in the queue",
        "waiting, number 3 in the queue",
    ]
    fetched = scaled.client.post(
        first + "/photos",
        data={"csrf_token": csrf_of(scaled.client), "photo": (BOARD_PHOTO.open("rb"), "p.jpg")},
        headers={"X-Requested-With": "fetch"},
    )
    assert fetched.get_json() == {"url": first}  # the page's script goes to the game's page
    before = scaled.client.get(second + "/live").get_json()["version"]
    scaled.worker("only")
    until(lambda: not scaled.jobs_of(second), 120, "the second game's photos read")
    assert scaled.client.get(second + "/live").get_json()["version"] != before  # the poll sees it
    page = scaled.client.get(second).get_data(as_text=True)
    assert reading(page) == [] and "To review" in page and "/positions/1" in page
    assert "/positions/2" not in page  # the same photo twice made one draft


def csrf_of(client: FlaskClient) -> str:
    from test_web import csrf

    return csrf(client)


def test_a_worker_killed_mid_scan_loses_no_job_and_no_photo(scaled: Scaled) -> None:
    from webui.loadrun import twelve_megapixels

    host = new_game(scaled.client, ("purple", "green"))
    photo = twelve_megapixels(BOARD_PHOTO)  # seconds to scan: time enough to be killed in
    doomed = scaled.worker("doomed")
    assert send_photo(scaled.client, host, photo).status_code == 303
    [job] = scaled.jobs_of(host)
    until(lambda: scaled.job(job.id).state == "running", 60, "the first worker taking the job")
    os.killpg(doomed.pid, signal.SIGKILL)  # the worker and its process, at once: no goodbye
    doomed.wait(timeout=10)
    taken = scaled.job(job.id)
    assert taken.state == "running" and taken.attempts == 1 and taken.worker.startswith("armadora-")
    kept = list(scaled.photos.rglob("*.upload"))
    assert [p.read_bytes() for p in kept] == [photo]  # the photo waits on disk for the next worker

    rescuer = scaled.worker("rescuer")
    until(lambda: scaled.job(job.id).attempts == 2, VISIBILITY_S + 60, "another worker taking the job")
    page = scaled.client.get(host).get_data(as_text=True)
    # The player's page says so while the rescuer scans (a 12 MP scan outlasts the 20 ms looks).
    assert reading(page)[0].endswith(
        "being read now (the worker reading it stopped: another took it up, attempt 2)"
    )
    until(lambda: scaled.job(job.id).over, 120, "the job finished")
    done = scaled.job(job.id)
    assert done.state == "done" and done.number == 1 and done.worker != taken.worker
    assert rescuer.poll() is None
    page = scaled.client.get(host).get_data(as_text=True)
    assert reading(page) == [] and "/positions/1" in page
    review = scaled.client.get(host + "/positions/1")
    assert review.status_code == 200 and 'data-player="purple"' in review.get_data(as_text=True)
    assert scaled.client.get(host + "/photos/1.jpg").data[:2] == b"\xff\xd8"


def test_a_suggestion_waits_in_the_queue_on_its_players_page_only(scaled: Scaled) -> None:
    host = new_game(scaled.client)
    put_position(scaled.app, host, SMALL_GAME)
    orange = player_links(scaled.client, host)["orange"]
    enter(scaled.client, orange, "a5", "1")
    enter(scaled.client, orange, "a4", "1")
    answer = post(scaled.client, orange + "/suggest")
    assert answer.status_code == 303 and answer.location.endswith("#suggestion")
    page = scaled.client.get(orange).get_data(as_text=True)
    assert "Your suggestion waits for the search: number 1 in the queue." in page
    assert 'id="suggest"' not in page  # asked once: no second button while it waits
    assert "Your suggestion" not in scaled.client.get(player_links(scaled.client, host)["blue"]).get_data(
        as_text=True
    )
    before = scaled.client.get(orange + "/live").get_json()["version"]
    scaled.worker("only")
    until(
        lambda: "Suggested for orange" in scaled.client.get(orange).get_data(as_text=True), 120, "the answer"
    )
    assert scaled.client.get(orange + "/live").get_json()["version"] != before


def test_a_suggestion_for_the_action_after_a_power_waits_on_the_action_s_page(scaled: Scaled) -> None:
    host = new_game(scaled.client, ("purple", "blue"), variant=ADVANCED)
    put_position(scaled.app, host, MAGE_AND_ELF)
    purple = player_links(scaled.client, host)["purple"]
    enter(scaled.client, purple, "a5", "2")
    answer = post(scaled.client, purple + "/suggest", {"after_power": "1"})
    assert answer.status_code == 303 and answer.location.endswith("?after_power=1#suggestion")
    action = answer.location.removesuffix("#suggestion")
    page = scaled.client.get(action).get_data(as_text=True)
    assert "Your suggestion waits for the search: number 1 in the queue." in page
    assert 'id="suggest"' not in page and 'id="suggest-action"' not in page
    [job] = [j for j in scaled.jobs_of(host) if j.kind == "suggest"]
    assert job.argument["after_power"] is True  # the worker cannot read the form: the job says it
    # The turn's suggestion, on the page without the power, is another one: not under way.
    plain = scaled.client.get(purple).get_data(as_text=True)
    assert "Your suggestion waits" not in plain and 'id="suggest"' in plain
    scaled.worker("only")

    def answered() -> bool:
        return "Suggested for purple" in scaled.client.get(action).get_data(as_text=True)

    until(answered, 120, "the answer")
    assert "Suggested for purple" not in scaled.client.get(purple).get_data(as_text=True)


def test_a_bad_photo_read_by_a_worker_is_shown_with_its_sentence(scaled: Scaled) -> None:
    host = new_game(scaled.client)
    assert send_photo(scaled.client, host, b"this is a shopping list, not a photo").status_code == 303
    scaled.worker("only")
    until(lambda: scaled.jobs_of(host)[0].over, 60, "the job failed")
    [line] = reading(scaled.client.get(host).get_data(as_text=True))
    assert "Could not be read: that file cannot be read as a photo: it is not an image" in line
    assert list(scaled.photos.rglob("*.upload")) == []  # nothing kept of a photo no draft has


def test_the_api_s_scan_is_read_by_a_worker_and_answers_the_embedded_document(
    scaled: Scaled, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedded = create_app({"DATA_DIR": str(tmp_path / "embedded")}).test_client()
    expected = scan_api(embedded, BOARD_PHOTO.read_bytes(), players="purple,green")
    assert expected.status_code == 200

    def not_here(*args: object, **kwargs: object) -> None:
        raise AssertionError("the web process scanned the photo itself")

    monkeypatch.setattr(api, "read_photo", not_here)
    forgotten: list[jobs.Job] = []
    forget = jobs.forget
    monkeypatch.setattr(jobs, "forget", lambda job: (forgotten.append(job), forget(job))[1])
    scaled.app.config["API_SCAN_WAIT_S"] = 120.0
    scaled.worker("only")
    answer = scan_api(scaled.client, BOARD_PHOTO.read_bytes(), players="purple,green")
    assert answer.status_code == 200
    doc, document = answer.get_json(), expected.get_json()
    doc.pop("timing_ms"), document.pop("timing_ms")
    assert doc == document
    [job] = forgotten
    assert job.kind == "api_scan" and job.game_id is None and job.state == "done"
    assert job.worker.startswith("armadora-")  # a worker's name, not the web process's
    assert scaled.job_rows() == 0 and list(scaled.photos.rglob("*.upload")) == []  # nothing kept


@pytest.mark.parametrize(
    ("photo", "status"),
    [
        (b"this is a shopping list, not a photo", 400),
        pytest.param(NO_BOARD_PHOTO.read_bytes(), 422, marks=pytest.mark.slow),
    ],
)
def test_the_api_s_bad_photo_read_by_a_worker_is_the_embedded_refusal(
    scaled: Scaled, tmp_path: Path, photo: bytes, status: int
) -> None:
    embedded = create_app({"DATA_DIR": str(tmp_path / "embedded")}).test_client()
    expected = scan_api(embedded, photo)
    assert expected.status_code == status
    scaled.app.config["API_SCAN_WAIT_S"] = 120.0
    scaled.worker("only")
    answer = scan_api(scaled.client, photo)
    assert (answer.status_code, answer.get_json()) == (status, expected.get_json())
    assert scaled.job_rows() == 0 and list(scaled.photos.rglob("*.upload")) == []


def test_the_api_s_scan_with_no_worker_free_is_a_503_and_leaves_nothing(scaled: Scaled) -> None:
    scaled.app.config["API_SCAN_WAIT_S"] = 0.5
    answer = scan_api(scaled.client, BOARD_PHOTO.read_bytes(), profile=json.dumps(PROFILE))
    assert answer.status_code == 503 and "the scanners are busy" in error_of(answer)
    assert scaled.job_rows() == 0 and [p for p in scaled.photos.rglob("*") if p.is_file()] == []
    scaled.worker("late")  # takes the message of the job given up: nothing to do
    scaled.app.config["API_SCAN_WAIT_S"] = 120.0
    assert scan_api(scaled.client, b"still not a photo").status_code == 400
    assert scaled.job_rows() == 0 and list(scaled.photos.rglob("*.upload")) == []


class Unreachable:
    """A queue whose Redis cannot be reached, as :class:`webui.taskqueue.CeleryQueue` says so."""

    def send(self, job_id: int) -> None:
        from webui.taskqueue import QueueUnreachable

        jobs.fail(job_id, str(QueueUnreachable()), 503)
        raise QueueUnreachable()


def test_the_api_s_scan_with_its_queue_unreachable_is_a_503_and_leaves_nothing(scaled: Scaled) -> None:
    scaled.app.extensions["armadora_queue"] = Unreachable()
    answer = scan_api(scaled.client, BOARD_PHOTO.read_bytes(), profile=json.dumps(PROFILE))
    assert answer.status_code == 503 and "queue cannot be reached" in error_of(answer)
    assert scaled.job_rows() == 0 and [p for p in scaled.photos.rglob("*") if p.is_file()] == []


class Silent:
    """A queue that loses every message: a web process stopped between the job's row and its message."""

    def send(self, job_id: int) -> None:
        pass


def test_a_job_whose_message_was_lost_is_given_again_by_admin_requeue(
    scaled: Scaled, capsys: pytest.CaptureFixture[str]
) -> None:
    host = new_game(scaled.client, ("purple", "green"))
    scaled.app.extensions["armadora_queue"] = Silent()
    assert send_photo(scaled.client, host, BOARD_PHOTO.read_bytes()).status_code == 303
    [job] = scaled.jobs_of(host)
    scaled.worker("only")
    time.sleep(1)
    assert scaled.job(job.id).state == "queued"  # no message: no worker knows of it
    argv = ["admin", "requeue", "--older-than", "0", "--database", scaled.database, "--queue", scaled.queue]
    assert main([*argv, "--photos", str(scaled.photos), "--data", str(scaled.folder / "admin")]) == 0
    assert json.loads(capsys.readouterr().out) == {"requeued": [job.id]}
    until(lambda: scaled.job(job.id).state == "done", 60, "the job done once given again")


def test_the_web_processes_count_requests_together(scaled: Scaled) -> None:
    from webui.limits import Limit

    limits = {"games_per_address": Limit(2, 600, "new games from this address")}
    config = {**scaled.app.config, "RATE_LIMITS": limits}
    first, second = make_app(config).test_client(), make_app(config).test_client()
    new_game(first)
    new_game(second)  # another web process: the same address's second game
    answer = post(first, "/games", {"count": "2", "colour1": "orange", "colour2": "blue"})
    assert answer.status_code == 429 and "too many new games from this address" in error_of(answer)


def test_a_wrong_store_or_queue_address_is_a_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(BackendError, match="not a database address"):
        Backends(database="mysql://somewhere/db")
    assert main(["worker", "--queue", "amqp://somewhere"]) == 2
    assert "not a queue address: give redis://HOST:PORT/N" in capsys.readouterr().err
    assert (
        main(["worker", "--database", "postgresql://nobody@127.0.0.1:1/none", "--queue", own_queue(15)]) == 1
    )
    assert "the database at postgresql://nobody@127.0.0.1:1/none cannot be used" in capsys.readouterr().err
