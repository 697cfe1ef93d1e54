"""The review of a finished game on the page (webui/game_review.py): the button after the reveal, the
job in the background with its progress, the chart and the turns, the board at a turn, bad links."""

from __future__ import annotations

import importlib
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import stores
from flask import Flask
from flask.testing import FlaskClient

from engine.board import GOLD_VALUES, Cell, Slot
from engine.game import Build, GameState, Move, Pass, PlaceWarrior
from engine.record import Irregularity, resume
from webui import db, jobs, store
from webui.game_review import chart

MOVES: list[Move] = [
    PlaceWarrior(Cell.parse("c3"), 5),
    PlaceWarrior(Cell.parse("d3"), 1),
    Build((Slot.between(Cell.parse("a5"), Cell.parse("b5")),)),
    PlaceWarrior(Cell.parse("e3"), 2),
    PlaceWarrior(Cell.parse("b2"), 4),
    PlaceWarrior(Cell.parse("f3"), 1),
    Pass(),
    PlaceWarrior(Cell.parse("g2"), 3),
    Pass(),
]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    flask_app = stores.make_app(
        {"DATA_DIR": str(tmp_path / "data"), "REVIEW_PLAYOUTS": 200, "REVIEW_ITERATIONS": 100}
    )
    with flask_app.app_context():
        yield flask_app


def stored_game(*, ended: bool, revealed: bool = True) -> store.Viewer:
    """A game with a confirmed photo after every turn of ``MOVES``; ended and, with ``revealed``, every
    value entered."""
    states = [GameState.new(("orange", "blue"), GOLD_VALUES)]
    for move in MOVES:
        states.append(states[-1].play(move))
    return stores.game_of_photos(states[1:], ended=ended, revealed=revealed)


def csrf(client: FlaskClient) -> str:
    found = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/").get_data(as_text=True))
    assert found
    return found[1]


def start(client: FlaskClient, token: str) -> Any:
    return client.post(f"/g/{token}/review", data={"csrf_token": csrf(client)})


def wait_done(game: store.Game, seconds: float = 120.0) -> jobs.Job:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        row = db.get_db().execute("SELECT id FROM jobs WHERE kind = 'review' AND game_id = ?", (game.id,))
        found = row.fetchone()
        job = None if found is None else jobs.find(int(found["id"]))
        if job is not None and job.over:
            return job
        time.sleep(0.1)
    raise AssertionError("the review did not end")


def test_the_button_appears_only_after_the_reveal(app: Flask) -> None:
    client = app.test_client()
    playing = stored_game(ended=False)
    entering = stored_game(ended=True, revealed=False)
    done = stored_game(ended=True)
    assert 'id="review-game"' not in client.get(f"/g/{playing.token}").get_data(as_text=True)
    assert 'id="review-game"' not in client.get(f"/g/{entering.token}").get_data(as_text=True)
    blue = store.seat_tokens(done.game)["blue"]
    for token in (done.token, blue):  # any of the game's links
        page = client.get(f"/g/{token}").get_data(as_text=True)
        assert 'id="review-game"' in page and f'action="/g/{token}/review"' in page
    # Before the reveal the review is refused with a sentence, and no job is made.
    for viewer in (playing, entering):
        for answer in (client.get(f"/g/{viewer.token}/review"), start(client, viewer.token)):
            assert answer.status_code == 409
            assert "after the reveal" in answer.get_data(as_text=True)
    assert db.get_db().execute("SELECT COUNT(*) FROM jobs WHERE kind = 'review'").fetchone()[0] == 0


def test_the_review_runs_in_the_background_and_shows_the_chart_and_the_turns(app: Flask) -> None:
    client = app.test_client()
    host = stored_game(ended=True)
    answer = start(client, host.token)
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"/g/{host.token}/review")
    job = wait_done(host.game)
    assert job.state == "done", job.message
    assert job.progress == f"turn {len(MOVES)} of {len(MOVES)}"
    document = json.loads(job.result or "{}")
    assert len(document["review"]["turns"]) == len(MOVES)
    page = client.get(f"/g/{host.token}/review").get_data(as_text=True)
    assert 'class="chance-chart"' in page and "<polyline" in page
    rows = re.findall(r'<a href="\?turn=(\d+)#board" aria-label', page)
    assert rows == [str(n) for n in range(1, len(MOVES) + 1)]
    assert "orange: warrior c3 5" in page and "blue: warrior d3 1" in page  # the values, revealed
    # A second tap on the button starts no second review.
    start(client, host.token)
    assert db.get_db().execute("SELECT COUNT(*) FROM jobs WHERE kind = 'review'").fetchone()[0] == 1


def test_while_it_runs_the_page_says_how_far_it_has_come(app: Flask) -> None:
    client = app.test_client()
    host = stored_game(ended=True)
    with db.transaction() as d:
        job_id = d.execute(
            "INSERT INTO jobs (game_id, kind, created, state, progress) "
            "VALUES (?, 'review', ?, 'running', ?) RETURNING id",
            (host.game.id, store.now(), "turn 4 of 9"),
        ).fetchone()[0]
    page = client.get(f"/g/{host.token}/review").get_data(as_text=True)
    assert "Reviewing the game: turn 4 of 9" in page and 'role="status"' in page
    assert "turn 4 of 9" in client.get(f"/g/{host.token}").get_data(as_text=True)
    before = client.get(f"/g/{host.token}/live").get_json()["version"]
    jobs.set_progress(int(job_id), "turn 5 of 9")
    assert client.get(f"/g/{host.token}/live").get_json()["version"] != before  # the page refreshes


def test_a_turn_shows_the_board_then(app: Flask) -> None:
    client = app.test_client()
    host = stored_game(ended=True)
    start(client, host.token)
    wait_done(host.game)
    page = client.get(f"/g/{host.token}/review?turn=3").get_data(as_text=True)
    assert "After turn 3: orange palisade a5|b5" in page
    board = page[page.index('id="board"') :]
    assert 'aria-label="the board after turn 3"' in board
    assert 'data-slot="a5|b5"' in board  # the palisade of turn 3 stands
    assert 'data-target="e3" data-player' not in board  # turn 4's warrior not yet
    assert 'href="/g/' + host.token + '/positions/3"' in board  # the photo that shows it
    for bad in ("0", "99", "x"):
        answer = client.get(f"/g/{host.token}/review?turn={bad}")
        assert answer.status_code == 404 and "There is no turn" in answer.get_data(as_text=True)


def test_an_unknown_game_is_a_clear_404(app: Flask) -> None:
    client = app.test_client()
    for answer in (client.get("/g/no-such-game/review"), start(client, "no-such-game")):
        assert answer.status_code == 404
        assert "check the link" in answer.get_data(as_text=True)
        assert "Traceback" not in answer.get_data(as_text=True)


def test_the_chart_has_a_line_per_side_and_a_dot_per_marked_turn() -> None:
    turns = [
        {"index": 1, "mover": "orange", "move": "warrior c3 5", "chance_before": 0.5, "chance_after": 0.6,
         "preferred": "warrior c3 5", "preferred_chance": 0.6, "loss": 0.0, "mark": ""},
        {"index": 2, "mover": "blue", "move": "pass", "chance_before": 0.4, "chance_after": 0.1,
         "preferred": "warrior d3 1", "preferred_chance": 0.45, "loss": 0.35, "mark": "blunder"},
    ]  # fmt: skip
    drawn = chart({"players": ["orange", "blue"], "turns": turns}, {"orange": "#ff8800", "blue": "#0000ff"})
    assert [line.side for line in drawn.lines] == ["orange", "blue"]
    orange = [tuple(map(float, p.split(","))) for p in drawn.lines[0].points.split()]
    assert len(orange) == 3 and orange[0][1] > orange[1][1]  # from 50 % up to 60 %: higher on the chart
    assert [(d.index, d.mark) for d in drawn.dots] == [(2, "blunder")]


C3, C4 = Cell.parse("c3"), Cell.parse("c4")


def irregular_game(*, misread: bool = False) -> store.Viewer:
    """The game of ``MOVES`` in which orange's warrior on c3 stands on c4 from photo 5 on (moved at the
    table), or, ``misread``, in photo 5 alone (a reading to fix); ended, every value entered."""
    states = [GameState.new(("orange", "blue"), GOLD_VALUES)]
    moved = Irregularity("warrior_moved", (C3, C4))
    for n, move in enumerate(MOVES):
        before = resume(states[-1], moved, None) if n == 4 and not misread else states[-1]
        states.append(before.play(move))
    if misread:
        position = moved.edit(states[5].to_position())
        photos = [*states[1:5], GameState.from_position(position, "orange"), *states[6:]]
        return stores.game_of_photos(photos, ended=True)
    return stores.game_of_photos(states[1:], ended=True)


def post(client: FlaskClient, url: str, **form: str) -> Any:
    return client.post(url, data={"csrf_token": csrf(client), **form})


def record_of(client: FlaskClient, token: str) -> str:
    return str(client.get(f"/g/{token}/record.txt").get_data(as_text=True))


def test_an_irregularity_kept_is_stored_noted_in_the_record_and_reviewed_past(app: Flask) -> None:
    client = app.test_client()
    host = irregular_game()
    line = "! warrior_moved c3 c4 {the orange warrior on c3 stands on c4 now; to settle}"
    assert line in record_of(client, host.token)  # the record exports with it unsettled
    page = client.get(f"/g/{host.token}/review").get_data(as_text=True)
    listed = page[page.index('id="irregularities"') :]
    assert "warrior moved</strong> on c3, c4" in listed and "to settle" in listed
    assert f'action="/g/{host.token}/positions/5/fix"' in listed and "Keep it" in listed
    # Unsettled, it stops the review: turns 1 to 4 only.
    start(client, host.token)
    job = wait_done(host.game)
    assert job.state == "done", job.message
    assert len(json.loads(job.result or "{}")["review"]["turns"]) == 4
    assert "after turn 4 of 9: it is still to settle" in client.get(f"/g/{host.token}/review").get_data(
        as_text=True
    )
    # Kept: stored, in the record, and the review done is out of date.
    answer = post(
        client, f"/g/{host.token}/irregularities/keep", photo="5", irregularity="warrior_moved c3 c4"
    )
    assert answer.status_code == 303
    assert store.kept_irregularities(host.game) == {(5, "warrior_moved", "c3 c4")}
    fresh = app.test_client()  # another phone, a reload: the store keeps it
    text = record_of(fresh, host.token)
    assert line.replace("to settle", "kept") in text and "reveal orange c4=5" in text
    page = fresh.get(f"/g/{host.token}/review").get_data(as_text=True)
    assert 'id="review-again"' in page and "out of date" in page
    assert 'class="unsettled"' not in page and "still to settle" not in page
    # Run again, it goes on past the irregularity kept, and marks it between turns 4 and 5.
    start(fresh, host.token)
    deadline = time.monotonic() + 120
    while (
        (job := jobs.latest(host.game, "review")) is not None and not job.over and time.monotonic() < deadline
    ):
        time.sleep(0.1)
    assert job is not None and job.state == "done", job
    document = json.loads(job.result or "{}")
    assert len(document["review"]["turns"]) == 9 and document["review"]["irregularity"] is None
    assert [k["after"] for k in document["review"]["kept"]] == [4]
    page = fresh.get(f"/g/{host.token}/review").get_data(as_text=True)
    assert 'id="review-again"' not in page
    turns = page[page.index('id="turns"') :]
    assert turns.index('class="kept-irregularity"') < turns.index('aria-label="Turn 5: see the board"')
    assert '<line class="kept"' in page
    # The board after turn 5 has the warrior where the photo showed it.
    board = fresh.get(f"/g/{host.token}/review?turn=5").get_data(as_text=True)
    board = board[board.index('id="board"') :]
    assert 'data-target="c4" data-player' in board and 'data-target="c3" data-player' not in board


def test_keeping_asks_for_an_irregularity_the_record_notes(app: Flask) -> None:
    client = app.test_client()
    host = irregular_game()
    for photo, what in (("4", "warrior_moved c3 c4"), ("5", "warrior_gone c3"), ("x", ""), ("5", "")):
        answer = post(client, f"/g/{host.token}/irregularities/keep", photo=photo, irregularity=what)
        assert answer.status_code == 409 and "notes no irregularity" in answer.get_data(as_text=True)
    answer = client.post(f"/g/{host.token}/irregularities/keep", data={"photo": "5", "irregularity": "x"})
    assert answer.status_code == 400 and "This form has expired" in answer.get_data(as_text=True)
    assert store.kept_irregularities(host.game) == frozenset()


def test_after_the_end_only_a_photo_with_an_irregularity_opens_to_fix(app: Flask) -> None:
    client = app.test_client()
    host = irregular_game(misread=True)
    record = record_of(client, host.token)
    assert "! warrior_moved c3 c4" in record and "! warrior_moved c4 c3" in record
    start(client, host.token)
    assert wait_done(host.game).state == "done"
    # Photo 3 shows no irregularity: it stays locked, and a tap on it is refused with a sentence.
    for answer in (
        post(client, f"/g/{host.token}/positions/3/fix"),
        post(client, f"/g/{host.token}/positions/3/tap", target="h1", tool="orange"),
    ):
        assert answer.status_code == 409 and "Traceback" not in answer.get_data(as_text=True)
    assert "shows no irregularity" in post(client, f"/g/{host.token}/positions/3/fix").get_data(as_text=True)
    answer = post(client, f"/g/{host.token}/positions/99/fix")
    assert answer.status_code == 404 and "no photo 99" in answer.get_data(as_text=True)
    answer = client.post(f"/g/{host.token}/positions/5/fix")  # no CSRF token
    assert answer.status_code == 400 and store.snapshot(host.game, 5).fixing is None  # type: ignore[union-attr]
    # Photo 5 does: it opens for correction, though the game has ended.
    answer = post(client, f"/g/{host.token}/positions/5/fix")
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"/g/{host.token}/positions/5")
    page = client.get(f"/g/{host.token}/positions/5").get_data(as_text=True)
    assert 'id="palette"' in page and 'id="fixing"' in page and "Done" in page and 'id="delete"' not in page
    for target, tool in (("c4", "empty"), ("c3", "orange")):
        assert post(client, f"/g/{host.token}/positions/5/tap", target=target, tool=tool).status_code == 303
    answer = post(client, f"/g/{host.token}/positions/5/confirm")
    assert answer.headers["Location"].endswith(f"/g/{host.token}/review#irregularities")
    assert store.snapshot(host.game, 5).fixing is None  # type: ignore[union-attr]
    # The record is made again from the photos: no irregularity; the review is out of date.
    assert "!" not in record_of(client, host.token).split("players", 1)[1]
    page = client.get(f"/g/{host.token}/review").get_data(as_text=True)
    assert "out of date" in page and 'id="review-again"' in page and 'id="irregularities"' not in page
    # Locked again: photo 5 shows no irregularity now.
    assert post(client, f"/g/{host.token}/positions/5/tap", target="h1", tool="blue").status_code == 409
    start(client, host.token)
    assert db.get_db().execute("SELECT COUNT(*) FROM jobs WHERE kind = 'review'").fetchone()[0] == 2


def running_review(game: store.Game) -> int:
    """A review job that a worker has taken and reports on, without running it."""
    with db.transaction() as database:
        row = database.execute(
            "INSERT INTO jobs (game_id, kind, created, state, progress) "
            "VALUES (?, 'review', ?, 'running', 'turn 1 of 9') RETURNING id",
            (game.id, store.now()),
        ).fetchone()
    return int(row[0])


@pytest.mark.parametrize(("module", "read", "path"), [
    ("webui.game_review", "latest", "/review"),
    ("webui.pages", "shown_jobs", ""),
])  # fmt: skip
def test_a_page_drawn_while_the_review_moves_on_polls_again(
    app: Flask, monkeypatch: pytest.MonkeyPatch, module: str, read: str, path: str
) -> None:
    """A job's progress that changes while a page is drawn: the page's fingerprint is then not the
    game's, so its poll fetches it again (else it would show "turn 1 of 9" for ever)."""
    host = stored_game(ended=True)
    job_id = running_review(host.game)
    drawn = importlib.import_module(module)
    original = getattr(drawn, read)

    def read_then_move_on(*args: Any) -> Any:
        found = original(*args)
        jobs.set_progress(job_id, "turn 2 of 9")  # the review thread, meanwhile
        return found

    monkeypatch.setattr(drawn, read, read_then_move_on)
    client = app.test_client()
    page = client.get(f"/g/{host.token}{path}").get_data(as_text=True)
    shown = re.search(r'data-version="([^"]+)"', page)
    assert shown is not None and ("turn 1 of 9" in page or "turn 2 of 9" in page)
    live = client.get(f"/g/{host.token}/live").get_json()["version"]
    assert "turn 2 of 9" in page or live != shown[1]  # up to date, or the poll sees it is not
