"""The phone page through Flask's test client: every route, every refusal, nothing hidden leaks.

Most games here get their positions straight from the store (no photo to scan);
the photo routes scan the sample photos for real.
"""

from __future__ import annotations

import base64
import html
import json
import re
import struct
import threading
import zlib
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from positions import document
from stores import embedded_only, make_app, store_args
from werkzeug.test import TestResponse

from calibration.profile import default_profile
from engine.board import Cell
from engine.position import Position, Warrior
from webui import store
from webui.cli import main
from webui.photos import MAX_UPLOAD_MB

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_images"
BOARD_PHOTO = SAMPLES / "samples-0000.jpg"  # purple and green
NO_BOARD_PHOTO = SAMPLES / "samples-0005.jpg"

# orange on a5 and a4, blue on h1 and f1, nothing walled: one territory.
SMALL_GAME = document(
    ("orange", "blue"),
    warriors=[
        ("orange", None, (0, 0)),
        ("orange", None, (1, 0)),
        ("blue", None, (4, 7)),
        ("blue", None, (4, 5)),
    ],
)


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app({"DATA_DIR": str(tmp_path / "data"), "SUGGEST_SECONDS": 0.2})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def csrf(client: FlaskClient) -> str:
    """This client's CSRF token, read from a page as a browser would."""
    page = client.get("/").get_data(as_text=True)
    found = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert found
    return found[1]


def post(client: FlaskClient, path: str, data: dict[str, Any] | None = None, **kwargs: Any) -> TestResponse:
    """A form post with the CSRF token, as the page sends it."""
    return client.post(path, data={"csrf_token": csrf(client), **(data or {})}, **kwargs)


def new_game(client: FlaskClient, players: tuple[str, ...] = ("orange", "blue"), **fields: Any) -> str:
    """Create a game through the form; the host's path."""
    data = {"count": str(len(players)), "variant": "armadora", **fields}
    data.update({f"colour{n}": colour for n, colour in enumerate(players, 1)})
    answer = post(client, "/games", data, content_type="multipart/form-data")
    assert answer.status_code == 303, answer.get_data(as_text=True)
    return str(answer.location)


def player_links(client: FlaskClient, host: str) -> dict[str, str]:
    """Each colour's private path, from the host's page."""
    page = client.get(host).get_data(as_text=True)
    found = re.findall(r'data-colour="(\w+)">.*?href="http://localhost(/g/[^"]+)"', page, re.S)
    return dict(found)


def token(path: str) -> str:
    return path.rsplit("/", 1)[1]


def put_position(app: Flask, host: str, doc: dict[str, Any], *, confirm: bool = True) -> int:
    """A position straight into a game, as if photographed (and confirmed); its number."""
    with app.test_request_context():
        viewer = store.find_viewer(token(host))
        assert viewer is not None
        number = store.add_snapshot(
            viewer.game, store.Scanned("none.upload", "none.jpg", {}, Position.from_json(doc))
        )
        if confirm:
            store.confirm(viewer.game, number)
    return number


def send_photo(client: FlaskClient, game: str, data: bytes, name: str = "photo.jpg") -> TestResponse:
    return post(
        client, game + "/photos", {"photo": (BytesFile(data), name)}, content_type="multipart/form-data"
    )


class BytesFile:
    """A file-like upload whose bytes are given (werkzeug reads ``.read()``)."""

    def __init__(self, data: bytes) -> None:
        import io

        self._io = io.BytesIO(data)

    def read(self, *args: Any) -> bytes:
        return self._io.read(*args)


def shown_values(page: str, colour: str) -> list[str]:
    """The values the page's diagrams show on warriors of ``colour``."""
    groups = re.findall(
        rf'<g class="cell[^"]*" data-target="\w+" data-player="{colour}">(.*?)</g>', page, re.S
    )
    return [v for group in groups for v in re.findall(r'<text class="value"[^>]*>(\d)</text>', group)]


def offered_values(page: str) -> list[str]:
    """The values a player's page offers for their warriors: what is left of their supply."""
    found = re.search(r'data-offered="([\d,]*)"', page)
    assert found, "no values offered"
    return [v for v in found[1].split(",") if v]


def own_cells(page: str) -> list[str]:
    """The cells of the page's player's warriors, which take a value when tapped."""
    return re.findall(r'<g class="cell[^"]* own" data-target="(\w+)"', page)


def enter(client: FlaskClient, game: str, cell: str, value: str) -> TestResponse:
    return post(client, game + "/values", {"cell": cell, "value": value})


def error_of(answer: TestResponse) -> str:
    """The sentence of a refused request: the JSON error, or the page's alert, which is a sentence
    (a capital, a full stop), given back with its first letter small to compare with the message."""
    if answer.is_json:
        return str(answer.get_json()["error"])
    found = re.search(r'class="error" role="alert">([^<]*)<', answer.get_data(as_text=True))
    assert found, answer.get_data(as_text=True)[:500]
    text = html.unescape(found[1])
    assert text[0].isupper() and text.endswith("."), text
    return text[0].lower() + text[1:]


def no_traceback(answer: TestResponse) -> None:
    assert "Traceback" not in answer.get_data(as_text=True)


# --------------------------------------------------------------------------- a new game


def test_the_new_game_form_offers_players_colours_variants_and_a_profile(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    for needle in (
        'name="count"',
        'name="colour4"',
        'value="nuggets"',
        'name="profile"',
        'name="csrf_token"',
    ):
        assert needle in page


def test_a_new_game_gives_each_player_an_unguessable_link_with_a_qr_code(client: FlaskClient) -> None:
    host = new_game(client, ("orange", "green", "blue"))
    links = player_links(client, host)
    assert list(links) == ["orange", "green", "blue"]
    tokens = [token(host), *map(token, links.values())]
    assert len(set(tokens)) == 4
    assert all(len(t) >= 32 for t in tokens)  # 24 random bytes, base64: 192 bits
    page = client.get(host).get_data(as_text=True)
    assert page.count('class="segno"') == 3
    for colour, path in links.items():
        seat = client.get(path).get_data(as_text=True)
        assert f"{colour}&#39;s page" in seat or f"{colour}'s page" in seat
        assert "private-link" not in seat  # a player's page lists no link


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"count": "5"}, "2, 3 or 4 players"),
        ({"count": "x"}, "how many play"),
        ({"colour2": "red"}, "player 2: choose a colour"),
        ({"colour2": "orange"}, "orange is taken already"),
        ({"variant": "chess"}, "choose a variant"),
        ({"profile": (BytesFile(b"{not json"), "p.json")}, "calibration profile cannot be used"),
        ({"profile": (BytesFile(b'{"version": 7}'), "p.json")}, "unsupported profile version"),
        ({"profile": (BytesFile(b"\xff\xfe\x00"), "p.json")}, "not a text file"),
    ],
)
def test_a_bad_new_game_form_says_what_is_wrong(
    client: FlaskClient, fields: dict[str, Any], message: str
) -> None:
    data = {"count": "2", "colour1": "orange", "colour2": "blue", "variant": "armadora", **fields}
    answer = post(client, "/games", data, content_type="multipart/form-data")
    assert answer.status_code == 400
    assert message in error_of(answer)
    no_traceback(answer)


def test_a_game_keeps_its_calibration_profile_and_shows_its_colours(client: FlaskClient) -> None:
    profile = default_profile().to_json()
    profile["colours"] = {"orange": "#ff0000", "blue": "#0000ff"}
    upload = (BytesFile(json.dumps(profile).encode()), "copy.json")
    host = new_game(client, ("orange", "blue"), profile=upload)
    page = client.get(host).get_data(as_text=True)
    assert "colours learnt" in page and "#ff0000" in page
    assert "From the setup photo" not in page


def test_a_game_shows_what_calibrating_its_copy_warned_of(client: FlaskClient) -> None:
    profile = default_profile().to_json()
    profile["colours"] = {"orange": "#ff0000", "blue": "#fefefe"}
    profile["learnt"] = {"warnings": ["the warriors on a5 and h5 look alike: retake with less light"]}
    upload = (BytesFile(json.dumps(profile).encode()), "copy.json")
    page = client.get(new_game(client, ("orange", "blue"), profile=upload)).get_data(as_text=True)
    assert "From the setup photo: the warriors on a5 and h5 look alike: retake with less light" in page


def test_a_profile_without_a_chosen_colour_is_refused(client: FlaskClient) -> None:
    profile = default_profile().to_json()
    profile["colours"] = {"orange": "#ff0000", "blue": "#0000ff"}
    data = {
        "count": "2",
        "colour1": "orange",
        "colour2": "purple",
        "variant": "armadora",
        "profile": json.dumps(profile),
    }
    answer = post(client, "/games", data, content_type="multipart/form-data")
    assert answer.status_code == 400
    assert "knows no purple" in error_of(answer)


@pytest.mark.slow
def test_a_setup_photo_teaches_the_game_its_copy(client: FlaskClient) -> None:
    from vision.worlds.raster.copies import TUNING_COPIES
    from vision.worlds.raster.setup import render_setup

    copy = TUNING_COPIES[0]
    setup = render_setup(3, copy, copy.keys[:2], size=(2400, 1800), quality=92, tilt_deg=10.0).data
    assert 'name="setup_photo"' in client.get("/").get_data(as_text=True)
    host = new_game(client, ("orange", "blue"), setup_photo=(BytesFile(setup), "setup.jpg"))
    page = client.get(host).get_data(as_text=True)
    assert "colours learnt" in page
    no_board = (ROOT / "sample_images" / "samples-0005.jpg").read_bytes()
    data = {
        "count": "2",
        "colour1": "orange",
        "colour2": "blue",
        "setup_photo": (BytesFile(no_board), "s.jpg"),
    }
    answer = post(client, "/games", data, content_type="multipart/form-data")
    assert answer.status_code == 400
    assert "the setup photo could not be used: no board found" in error_of(answer)


# --------------------------------------------------------------------------- links, CSRF, errors


@pytest.mark.parametrize(
    "path",
    ["/g/not-a-game", "/g/not-a-game/positions/1", "/g/not-a-game/photos/1.jpg", "/nowhere"],
)
def test_a_wrong_link_is_a_404_with_a_sentence(client: FlaskClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 404
    assert "check the link" in error_of(answer)


def test_a_wrong_link_on_the_api_is_a_json_404(client: FlaskClient) -> None:
    answer = client.get("/api/games/" + "A" * 32)
    assert answer.status_code == 404 and "check the link" in answer.get_json()["error"]


def test_posts_to_wrong_links_are_404s(client: FlaskClient) -> None:
    for action in ("photos", "end", "values", "suggest", "positions/1/tap", "positions/1/confirm"):
        assert post(client, f"/g/nope/{action}").status_code == 404


def test_a_form_post_without_the_csrf_token_is_refused(client: FlaskClient, app: Flask) -> None:
    host = new_game(client)
    put_position(app, host, SMALL_GAME)
    for path, data in [
        ("/games", {"count": "2", "colour1": "orange", "colour2": "blue"}),
        (host + "/end", {}),
        (host + "/values", {"cell": "a5", "value": "1"}),
    ]:
        answer = client.post(path, data=data)
        assert answer.status_code == 400
        assert "form has expired" in error_of(answer)
        answer = client.post(path, data={**data, "csrf_token": "forged"})
        assert answer.status_code == 400
    assert client.get(host).get_data(as_text=True).count("Waiting for the values") == 0  # nothing changed


def test_the_json_api_needs_no_csrf_token(client: FlaskClient) -> None:
    assert client.post("/api/check", data=json.dumps(SMALL_GAME)).status_code == 200


def test_a_wrong_method_is_a_405_with_a_sentence(client: FlaskClient) -> None:
    answer = client.get("/games")
    assert answer.status_code == 405
    assert "does not take that kind of request" in error_of(answer)
    assert client.get("/api/check").status_code == 405 and client.get("/api/check").is_json


def test_an_unexpected_error_is_logged_and_answered_without_a_traceback(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    host = new_game(client)

    def broken(*args: Any) -> None:
        raise RuntimeError("the disk caught fire")

    monkeypatch.setattr(store, "snapshots", broken)
    answer = client.get(host)
    assert answer.status_code == 500
    assert "has been logged" in error_of(answer)
    assert "fire" not in answer.get_data(as_text=True)
    no_traceback(answer)
    assert "the disk caught fire" in caplog.text and "Traceback" in caplog.text


# --------------------------------------------------------------------------- photos


def test_a_photo_is_scanned_kept_and_reviewed(client: FlaskClient, app: Flask) -> None:
    host = new_game(client, ("purple", "green"))
    answer = send_photo(client, host, BOARD_PHOTO.read_bytes())
    assert answer.status_code == 303 and answer.location.endswith("/positions/1")
    review = client.get(answer.location).get_data(as_text=True)
    assert 'class="board editable"' in review and review.count('class="gold"') == 8
    assert 'data-player="purple"' in review and 'data-player="green"' in review
    assert "No rule is broken" in review or 'class="problems"' in review
    photo = client.get(host + "/photos/1.jpg")
    assert photo.status_code == 200 and photo.mimetype == "image/jpeg" and photo.data[:2] == b"\xff\xd8"
    uploads = Path(app.config["UPLOADS"])
    kept = list(uploads.rglob("*.upload"))
    assert [p.read_bytes() for p in kept] == [BOARD_PHOTO.read_bytes()]
    assert client.get(host + "/photos/2.jpg").status_code == 404
    assert client.get(host + "/positions/2").status_code == 404
    assert "To review" in client.get(host).get_data(as_text=True)


def png_of_size(width: int, height: int) -> bytes:
    """A well-formed PNG whose header says ``width`` x ``height``, with almost no pixel data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    ("data", "status", "message"),
    [
        (b"", 400, "empty"),
        (b"GIF89a" + b"\0" * 40, 400, "that file cannot be read as a photo"),
        (b"this is a shopping list, not a photo", 400, "not an image"),
        (BOARD_PHOTO.read_bytes()[:50_000], 400, "truncated"),
        (png_of_size(10_000, 7_000), 400, "too large"),
        pytest.param(NO_BOARD_PHOTO.read_bytes(), 422, "no board found", marks=pytest.mark.slow),
    ],
    ids=["empty", "gif", "text", "truncated", "70-megapixels", "no-board"],
)
def test_a_bad_photo_gets_a_friendly_sentence_and_nothing_is_lost(
    client: FlaskClient, app: Flask, data: bytes, status: int, message: str
) -> None:
    host = new_game(client)
    put_position(app, host, SMALL_GAME)
    answer = send_photo(client, host, data, name="board.jpg")  # the name plays no part
    assert answer.status_code == status
    assert message in error_of(answer)
    no_traceback(answer)
    page = answer.get_data(as_text=True)
    assert "Timeline" in page and "Photo 1" in page  # the game's page, with what was saved


def test_no_photo_at_all_is_a_sentence(client: FlaskClient) -> None:
    host = new_game(client)
    answer = post(client, host + "/photos", {}, content_type="multipart/form-data")
    assert answer.status_code == 400 and "no photo was sent" in error_of(answer)


def test_an_upload_over_25_mb_is_refused_with_a_sentence(client: FlaskClient) -> None:
    host = new_game(client)
    answer = send_photo(client, host, b"\xff\xd8\xff" + bytes(MAX_UPLOAD_MB * 1024 * 1024))
    assert answer.status_code == 413
    assert "at most 25 MB" in error_of(answer)
    no_traceback(answer)


# --------------------------------------------------------------------------- review and corrections


def taps(client: FlaskClient, host: str, number: int, target: str, *, fetch: bool = True) -> TestResponse:
    headers = {"X-Requested-With": "fetch"} if fetch else {}
    return post(client, f"{host}/positions/{number}/tap", {"target": target}, headers=headers)


def stored(app: Flask, host: str, number: int) -> Position:
    with app.test_request_context():
        viewer = store.find_viewer(token(host))
        assert viewer is not None
        snap = store.snapshot(viewer.game, number)
        assert snap is not None
        return snap.position


def test_taps_cycle_a_cell_step_gold_and_toggle_a_palisade(client: FlaskClient, app: Flask) -> None:
    host = new_game(client)
    number = put_position(app, host, SMALL_GAME, confirm=False)
    fragment = taps(client, host, number, "c3")
    assert fragment.status_code == 200 and "<svg" in fragment.get_data(as_text=True)
    assert 'data-target="c3" data-player="orange"' in fragment.get_data(as_text=True)
    assert taps(client, host, number, "c3", fetch=False).status_code == 303
    assert stored(app, host, number).warrior_at(stored(app, host, number).warriors[2].cell).player == "blue"
    taps(client, host, number, "c3")
    assert len(stored(app, host, number).warriors) == 4  # back to empty
    taps(client, host, number, "d5")  # the gold on d5 is a 3: the next value
    assert [g.value for g in stored(app, host, number).gold if g.cell.name == "d5"] == [4]
    taps(client, host, number, "a5|b5")
    assert [s.name for s in stored(app, host, number).palisades] == ["a5|b5"]
    taps(client, host, number, "a5|b5")
    assert not stored(app, host, number).palisades


def test_every_correction_runs_the_check_again(client: FlaskClient, app: Flask) -> None:
    host = new_game(client)
    number = put_position(app, host, SMALL_GAME, confirm=False)
    taps(client, host, number, "a5-a4")
    taps(client, host, number, "b5-b4")
    fragment = taps(client, host, number, "b5|c5").get_data(as_text=True)  # a5, b5 walled off: 2 cells
    assert 'class="problems"' in fragment and "Territory of 2 cells (a5, b5): at least 4 needed." in fragment
    assert 'class="cell bad"' in fragment
    fragment = taps(client, host, number, "b5|c5").get_data(as_text=True)
    assert "No rule is broken" in fragment


def test_doubtful_readings_are_marked_until_corrected(client: FlaskClient, app: Flask) -> None:
    host = new_game(client)
    with app.test_request_context():
        viewer = store.find_viewer(token(host))
        assert viewer is not None
        scan = {"confidence": {"cells": {"c3": 0.4}, "slots": {"a5|b5": 0.5}, "gold": {}}}
        number = store.add_snapshot(
            viewer.game, store.Scanned("x", "y", scan, Position.from_json(SMALL_GAME))
        )
    page = client.get(f"{host}/positions/{number}").get_data(as_text=True)
    assert page.count('class="doubt"') == 1 and "wall doubtful" in page
    taps(client, host, number, "c3")
    page = client.get(f"{host}/positions/{number}").get_data(as_text=True)
    assert page.count('class="doubt"') == 0


def test_a_bad_tap_is_refused(client: FlaskClient, app: Flask) -> None:
    host = new_game(client)
    number = put_position(app, host, SMALL_GAME, confirm=False)
    for target in ("z9", "a5|c5", "", "a5|b5|c5"):
        answer = taps(client, host, number, target)
        assert answer.status_code == 400, target
        no_traceback(answer)
    assert taps(client, host, 99, "c3").status_code == 404


def test_a_confirmed_position_joins_the_timeline_and_no_longer_changes(
    client: FlaskClient, app: Flask
) -> None:
    host = new_game(client)
    number = put_position(app, host, SMALL_GAME, confirm=False)
    assert post(client, f"{host}/positions/{number}/confirm").status_code == 303
    page = client.get(host).get_data(as_text=True)
    assert "Timeline" in page and "To review" not in page
    review = client.get(f"{host}/positions/{number}").get_data(as_text=True)
    assert "board editable" not in review and "In the timeline since" in review
    answer = taps(client, host, number, "c3")
    assert answer.status_code == 409 and "can no longer change" in error_of(answer)
    assert post(client, f"{host}/positions/99/confirm").status_code == 404


def test_the_timeline_keeps_every_confirmed_position_and_opens_earlier_ones(
    client: FlaskClient, app: Flask
) -> None:
    host = new_game(client)
    first = put_position(app, host, document(("orange", "blue")))
    second = put_position(app, host, SMALL_GAME)
    page = client.get(host).get_data(as_text=True)
    assert f"Photo {first}," in page and f"Photo {second}," in page
    earlier = client.get(f"{host}/positions/{first}").get_data(as_text=True)
    assert "data-player" not in earlier  # the first position had no warrior
    assert "photo 2" in page  # the board now is the latest


# --------------------------------------------------------------------------- the end: values and the reveal


def ended_game(
    client: FlaskClient, app: Flask, doc: dict[str, Any] = SMALL_GAME
) -> tuple[str, dict[str, str]]:
    host = new_game(client, tuple(doc["players"]), variant=doc.get("variant", "armadora"))
    put_position(app, host, doc)
    assert post(client, host + "/end").status_code == 303
    return host, player_links(client, host)


def test_ending_needs_a_confirmed_position(client: FlaskClient, app: Flask) -> None:
    host = new_game(client)
    put_position(app, host, SMALL_GAME, confirm=False)
    answer = post(client, host + "/end")
    assert answer.status_code == 409 and "confirm a photographed position first" in error_of(answer)


def test_each_player_enters_values_from_their_unused_supply_and_nobody_else_sees_them(
    client: FlaskClient, app: Flask
) -> None:
    host, links = ended_game(client, app)
    orange, blue = links["orange"], links["blue"]
    page = client.get(orange).get_data(as_text=True)
    assert offered_values(page) == ["1", "2", "3", "4", "5"]  # the whole 2-player supply
    assert own_cells(page) == ["a5", "a4"]  # both warriors, to tap on the board
    assert enter(client, orange, "a5", "5").status_code == 303
    page = client.get(orange).get_data(as_text=True)
    assert offered_values(page) == ["1", "2", "3", "4"]  # the 5 is used
    answer = enter(client, orange, "a4", "5")
    assert answer.status_code == 409 and "no warrior of value 5 left" in error_of(answer)
    enter(client, orange, "a4", "4")
    enter(client, blue, "h1", "3")
    # Before the reveal: each sees only their own values, the host none, in page and API alike.
    assert shown_values(client.get(orange).get_data(as_text=True), "orange") == ["5", "4"]
    for viewer in (blue, host):
        assert shown_values(client.get(viewer).get_data(as_text=True), "orange") == []
        state = client.get("/api/games/" + token(viewer)).get_json()
        assert [w["value"] for w in state["position"]["warriors"] if w["player"] == "orange"] == [None, None]
        assert state["score"] is None and state["phase"] == "entering values"
    host_page = client.get(host).get_data(as_text=True)
    assert 'class="value"' not in host_page and "table" not in host_page
    assert "orange: all entered" in host_page and "blue: still entering" in host_page
    # The last value: the reveal.
    enter(client, blue, "f1", "1")
    for viewer in (orange, blue, host):
        page = client.get(viewer).get_data(as_text=True)
        assert 'class="score"' in page and "orange wins with 40 gold." in page
        assert sorted(shown_values(page, "blue")) == ["1", "3"]
    answer = enter(client, blue, "f1", "2")
    assert answer.status_code == 409 and "values can no longer change" in error_of(answer)


def test_a_value_can_be_taken_back_before_the_reveal(client: FlaskClient, app: Flask) -> None:
    _, links = ended_game(client, app)
    enter(client, links["orange"], "a5", "5")
    enter(client, links["orange"], "a5", "")
    page = client.get(links["orange"]).get_data(as_text=True)
    assert shown_values(page, "orange") == []


@pytest.mark.parametrize(
    ("who", "cell", "value", "status", "message"),
    [
        ("orange", "h1", "1", 409, "h1 holds no orange warrior"),
        ("orange", "q7", "1", 400, "not a cell name"),
        ("orange", "a5", "9", 400, "1 to 5"),
        ("orange", "a5", "one", 400, "1 to 5"),
        ("host", "a5", "1", 409, "only a player"),
    ],
)
def test_bad_values_are_refused(
    client: FlaskClient, app: Flask, who: str, cell: str, value: str, status: int, message: str
) -> None:
    host, links = ended_game(client, app)
    answer = enter(client, host if who == "host" else links[who], cell, value)
    assert answer.status_code == status
    assert message in error_of(answer)


def test_values_need_a_confirmed_position(client: FlaskClient) -> None:
    host = new_game(client)
    answer = enter(client, player_links(client, host)["orange"], "a5", "1")
    assert answer.status_code == 409 and "no confirmed position" in error_of(answer)


def test_the_reveal_shows_each_territory_and_the_winner(client: FlaskClient, app: Flask) -> None:
    doc = document(
        ("orange", "blue"),
        warriors=[("orange", None, (0, 0)), ("blue", None, (4, 7))],
        palisades=[((r, 3), (r, 4)) for r in range(5)],  # two territories: a-d and e-h
    )
    host, links = ended_game(client, app, doc)
    enter(client, links["orange"], "a5", "2")
    enter(client, links["blue"], "h1", "2")
    page = client.get(host).get_data(as_text=True)
    rows = re.findall(r'<tr><th scope="row">([A-Z]) <small>(\d+) cells</small></th><td>(\d+)</td>', page)
    assert rows == [("A", "20", "18"), ("B", "20", "22")]
    assert "blue wins with 22 gold." in page
    assert 'fill="#' in page and 'class="label"' in page


def test_the_reveal_explains_a_tie_break(client: FlaskClient, app: Flask) -> None:
    doc = document(("orange", "blue"), warriors=[("orange", None, (0, 0)), ("blue", None, (4, 7))])
    host, links = ended_game(client, app, doc)
    enter(client, links["orange"], "a5", "2")
    enter(client, links["blue"], "h1", "2")
    page = client.get(host).get_data(as_text=True)
    assert "orange and blue share the win with 20 gold." in page
    assert "Tie-break: orange and blue tie on 20 gold" in page


def test_nuggets_scores_a_tied_territory_in_half_points(client: FlaskClient, app: Flask) -> None:
    doc = document(
        ("orange", "blue"),
        variant="nuggets",
        warriors=[
            ("orange", None, (0, 0)),
            ("blue", None, (1, 0)),
            ("orange", None, (2, 2)),
            ("blue", None, (2, 3)),
        ],
        palisades=[((r, 0), (r, 1)) for r in range(5)],  # column a alone: its gold is 5
    )
    host, links = ended_game(client, app, doc)
    enter(client, links["orange"], "a5", "1")
    enter(client, links["orange"], "c3", "5")
    enter(client, links["blue"], "a4", "1")
    enter(client, links["blue"], "d3", "1")
    page = client.get(host).get_data(as_text=True)
    assert "<td>2.5</td>" in page and "orange wins with 37.5 gold." in page


def test_two_players_entering_values_at_the_same_moment_both_land(client: FlaskClient, app: Flask) -> None:
    _, links = ended_game(client, app)
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def player(path: str, cell: str, value: str) -> None:
        own = app.test_client()
        token_value = csrf(own)
        barrier.wait()
        answer = own.post(path + "/values", data={"csrf_token": token_value, "cell": cell, "value": value})
        statuses.append(answer.status_code)

    for cells in (("a5", "h1"), ("a4", "f1")):
        threads = [
            threading.Thread(target=player, args=(links["orange"], cells[0], "2")),
            threading.Thread(target=player, args=(links["blue"], cells[1], "2")),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert statuses == [303] * 4
    with app.test_request_context():
        viewer = store.find_viewer(token(links["orange"]))
        assert viewer is not None
        values = store.warrior_values(viewer.game)
    assert {c: {cell.name: v for cell, v in vs.items()} for c, vs in values.items()} == {
        "orange": {"a5": 2, "a4": 2},
        "blue": {"h1": 2, "f1": 2},
    }


def test_a_restart_keeps_games_photos_positions_and_values(tmp_path: Path) -> None:
    config = {"DATA_DIR": str(tmp_path / "data")}
    first = make_app(config)
    client = first.test_client()
    host = new_game(client, ("purple", "green"))
    send_photo(client, host, BOARD_PHOTO.read_bytes())
    post(client, host + "/positions/1/confirm")
    post(client, host + "/end")
    links = player_links(client, host)
    purple_cell = own_cells(client.get(links["purple"]).get_data(as_text=True))[0]
    enter(client, links["purple"], purple_cell, "3")
    before = client.get(host).get_data(as_text=True)

    again = make_app(config).test_client()  # a new process would see the same
    after = again.get(host).get_data(as_text=True)
    assert re.sub(r'content="[^"]+"|value="[^"]{20,}"', "", after) == re.sub(
        r'content="[^"]+"|value="[^"]{20,}"', "", before
    )
    assert again.get(host + "/photos/1.jpg").status_code == 200
    assert shown_values(again.get(links["purple"]).get_data(as_text=True), "purple") == ["3"]


# --------------------------------------------------------------------------- suggestions


def test_a_player_asks_for_a_suggestion_on_their_own_page(client: FlaskClient, app: Flask) -> None:
    host = new_game(client)
    put_position(app, host, SMALL_GAME)
    orange = player_links(client, host)["orange"]
    answer = post(client, orange + "/suggest")
    assert answer.status_code == 400 and "own warrior values must be given" in error_of(answer)
    enter(client, orange, "a5", "1")
    enter(client, orange, "a4", "1")
    answer = post(client, orange + "/suggest")
    assert answer.status_code == 303
    page = client.get(orange).get_data(as_text=True)
    assert page.count("<li") >= 1 and "Suggested for orange" in page
    assert client.get(orange).get_data(as_text=True) == page  # the same moves on a reload
    assert 'class="suggested' in page or "wall suggested" in page or "pass" in page
    assert 'id="suggest"' not in client.get(host).get_data(as_text=True)  # the host has no button
    assert post(client, host + "/suggest").status_code == 400


def test_no_suggestion_before_a_position_or_after_the_end(client: FlaskClient, app: Flask) -> None:
    host = new_game(client)
    orange = player_links(client, host)["orange"]
    assert "confirm a photographed position first" in error_of(post(client, orange + "/suggest"))
    put_position(app, host, SMALL_GAME)
    post(client, host + "/end")
    assert "the game has ended" in error_of(post(client, orange + "/suggest"))


def test_no_photo_after_the_end(client: FlaskClient, app: Flask) -> None:
    host, _ = ended_game(client, app)
    answer = send_photo(client, host, BOARD_PHOTO.read_bytes())
    assert answer.status_code == 409 and "no more photos" in error_of(answer)


# --------------------------------------------------------------------------- the JSON API


def cli_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """What a command prints with --json, without its ``file``."""
    main(argv)
    doc = json.loads(capsys.readouterr().out)
    doc.pop("file")
    return dict(doc)


def test_api_check_and_score_answer_what_the_commands_print(
    client: FlaskClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from engine.samples import sample_text

    for name in ("endgame-2p", "endgame-3p-nuggets", "endgame-4p"):
        text = sample_text(name)
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        for command in ("check", "score"):
            answer = client.post(f"/api/{command}", data=text, content_type="application/json")
            assert answer.status_code == 200
            assert answer.get_json() == cli_json([command, "--json", str(path)], capsys)
            assert list(answer.get_json()) == list(cli_json([command, "--json", str(path)], capsys))


def test_api_check_reports_problems(client: FlaskClient) -> None:
    doc = document(
        ("orange", "blue"), palisades=[((0, 0), (0, 1)), ((1, 0), (1, 1)), ((2, 0), (2, 1)), ((2, 0), (3, 0))]
    )
    answer = client.post("/api/check", json=doc).get_json()
    assert answer["legal"] is False and answer["problems"][0]["code"] == "territory_too_small"


@pytest.mark.parametrize(
    ("path", "body", "status", "message"),
    [
        ("/api/check", b"", 400, "send a position JSON"),
        ("/api/check", b"{nope", 400, "not valid JSON"),
        ("/api/check", b'{"players": ["orange"]}', 400, "players: 2 to 4 colours"),
        ("/api/score", b'{"players": ["orange"]}', 400, "players: 2 to 4 colours"),
        ("/api/score", json.dumps(SMALL_GAME).encode(), 422, "still hidden"),
    ],
)
def test_api_errors_are_json_with_a_4xx(
    client: FlaskClient, path: str, body: bytes, status: int, message: str
) -> None:
    answer = client.post(path, data=body, content_type="application/json")
    assert answer.status_code == status and answer.is_json
    assert message in answer.get_json()["error"]


def test_api_scan_answers_what_scan_json_prints(
    client: FlaskClient, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = client.post(
        "/api/scan",
        data={"photo": (BytesFile(BOARD_PHOTO.read_bytes()), "p.jpg"), "players": "purple,green"},
        content_type="multipart/form-data",
    )
    assert answer.status_code == 200
    doc = answer.get_json()
    expected = cli_json(["scan", "--json", "--players", "purple,green", str(BOARD_PHOTO)], capsys)
    doc.pop("timing_ms"), expected.pop("timing_ms")
    assert doc == expected


def test_api_scan_takes_a_profile(client: FlaskClient) -> None:
    profile = json.dumps(default_profile().to_json())
    answer = client.post(
        "/api/scan",
        data={
            "photo": (BytesFile(BOARD_PHOTO.read_bytes()), "p.jpg"),
            "profile": (BytesFile(profile.encode()), "x.json"),
        },
        content_type="multipart/form-data",
    )
    assert answer.status_code == 200 and answer.get_json()["position"]["gold"]


@pytest.mark.parametrize(
    ("fields", "status", "message"),
    [
        ({}, 400, "no photo was sent"),
        ({"photo": (BytesFile(b"hello"), "p.jpg")}, 400, "not an image"),
        pytest.param(
            {"photo": (BytesFile(NO_BOARD_PHOTO.read_bytes()), "p.jpg")},
            422,
            "no board found",
            marks=pytest.mark.slow,
        ),
        ({"photo": (BytesFile(b"x"), "p.jpg"), "profile": "{}"}, 400, "calibration profile cannot be used"),
        ({"photo": (BytesFile(b"x"), "p.jpg"), "variant": "go"}, 400, "variant"),
        ({"photo": (BytesFile(bytes(MAX_UPLOAD_MB * 1024 * 1024 + 1)), "p.jpg")}, 413, "at most 25 MB"),
    ],
)
def test_api_scan_errors_are_json(
    client: FlaskClient, fields: dict[str, Any], status: int, message: str
) -> None:
    answer = client.post("/api/scan", data=fields, content_type="multipart/form-data")
    assert answer.status_code == status and answer.is_json
    assert message in answer.get_json()["error"]


# --------------------------------------------------------------------------- serving


def test_serve_and_bench_serve_are_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "--data" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["bench", "serve", "--help"])
    assert "--clients" in capsys.readouterr().out


def test_the_start_up_line_gives_an_address_a_phone_can_open(monkeypatch: pytest.MonkeyPatch) -> None:
    from webui import serve

    assert serve.address_to_open("127.0.0.1", 8000) == "http://127.0.0.1:8000/"
    monkeypatch.setattr(serve, "lan_address", lambda: "192.168.1.20")
    assert serve.address_to_open("0.0.0.0", 8000) == "http://192.168.1.20:8000/"


@embedded_only
def test_the_database_is_in_wal_mode(app: Flask) -> None:
    import sqlite3

    with sqlite3.connect(app.config["DATABASE"]) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# --------------------------------------------------------------------------- the palette, history, drafts


def test_a_tool_places_on_a_cell_and_undo_and_redo_step_through(client: FlaskClient, app: Flask) -> None:
    host = new_game(client)
    number = put_position(app, host, SMALL_GAME, confirm=False)
    fetch = {"X-Requested-With": "fetch"}
    path = f"{host}/positions/{number}"
    assert post(client, path + "/tap", {"target": "c3", "tool": "blue"}, headers=fetch).status_code == 200
    assert stored(app, host, number).warrior_at(Cell.parse("c3")) == Warrior(Cell.parse("c3"), "blue", None)
    post(client, path + "/tap", {"target": "a5", "tool": "orange"}, headers=fetch)  # the same colour: away
    assert stored(app, host, number).warrior_at(Cell.parse("a5")) is None
    post(client, path + "/undo", headers=fetch)
    assert stored(app, host, number).warrior_at(Cell.parse("a5")) is not None
    post(client, path + "/undo", headers=fetch)
    assert stored(app, host, number) == Position.from_json(SMALL_GAME)
    answer = post(client, path + "/undo", headers=fetch)
    assert (
        answer.status_code == 409 and answer.get_json()["error"] == "There is nothing to undo on this photo."
    )
    post(client, path + "/redo", headers=fetch)
    assert stored(app, host, number).warrior_at(Cell.parse("c3")) is not None
    answer = post(client, path + "/tap", {"target": "c3", "tool": "gold"}, headers=fetch)
    assert (
        answer.status_code == 400 and "Gold only lies on the eight gold cells" in answer.get_json()["error"]
    )


def test_a_confirmed_photo_refuses_a_tap_with_a_sentence_for_the_script(
    client: FlaskClient, app: Flask
) -> None:
    host = new_game(client)
    number = put_position(app, host, SMALL_GAME)
    answer = taps(client, host, number, "c3")
    assert answer.status_code == 409 and answer.is_json
    assert answer.get_json()["error"].startswith("This position is in the timeline already")


def test_a_deleted_draft_leaves_the_game_and_its_number_is_not_given_again(
    client: FlaskClient, app: Flask
) -> None:
    host = new_game(client)
    number = put_position(app, host, SMALL_GAME, confirm=False)
    assert f"Photo {number}," in client.get(host).get_data(as_text=True)
    assert post(client, f"{host}/positions/{number}/delete").status_code == 303
    assert f"Photo {number}," not in client.get(host).get_data(as_text=True)
    assert client.get(f"{host}/positions/{number}").status_code == 404
    assert put_position(app, host, SMALL_GAME) == number + 1
    assert post(client, f"{host}/positions/{number + 1}/delete").status_code == 409  # confirmed: kept


def test_the_turn_and_the_fingerprint_change_together(client: FlaskClient, app: Flask) -> None:
    host = new_game(client)
    number = put_position(app, host, SMALL_GAME, confirm=False)
    before = client.get(host + "/live").get_json()["version"]
    assert 'data-turn="0"' in client.get(f"{host}/positions/{number}").get_data(as_text=True)
    post(client, f"{host}/positions/{number}/turn")
    assert 'data-turn="1"' in client.get(f"{host}/positions/{number}").get_data(as_text=True)
    assert client.get(host + "/live").get_json()["version"] != before
    assert client.get(host).headers["Cache-Control"] == "no-store"


def test_a_game_takes_the_colours_its_photo_shows(client: FlaskClient, app: Flask) -> None:
    host = new_game(client, ("orange", "green"))
    send_photo(client, host, (SAMPLES / "samples-0003.jpg").read_bytes())  # green and blue warriors
    page = client.get(host + "/positions/1").get_data(as_text=True)
    assert "colours are not the game" in page and "Play with blue and green instead" in page
    assert post(client, host + "/positions/1/colours").status_code == 303
    assert client.get("/api/games/" + token(host)).get_json()["players"] == ["blue", "green"]
    assert set(player_links(client, host)) == {"blue", "green"}
    assert {w.player for w in stored(app, host, 1).warriors} == {"blue", "green"}
    assert "colours are not the game" not in client.get(host + "/positions/1").get_data(as_text=True)


def test_the_same_photo_sent_twice_makes_one_draft(client: FlaskClient, app: Flask) -> None:
    host = new_game(client, ("purple", "green"))
    first = send_photo(client, host, BOARD_PHOTO.read_bytes())
    again = send_photo(client, host, BOARD_PHOTO.read_bytes())
    assert first.status_code == again.status_code == 303 and first.location == again.location
    assert client.get(host).get_data(as_text=True).count('class="draft"') == 1


# --------------------------------------------------------------------------- hardening (issue 22, part A)


def profile_with(**images: bytes) -> str:
    """The reference profile as JSON text, with some of its pictures (``face_jpeg``, ...) replaced."""
    document = default_profile().to_json()
    for key, data in images.items():
        document[key] = base64.b64encode(data).decode("ascii")
    return json.dumps(document)


def scan_api(client: FlaskClient, photo: bytes, **fields: Any) -> TestResponse:
    return client.post(
        "/api/scan",
        data={"photo": (BytesFile(photo), "photo.jpg"), **fields},
        content_type="multipart/form-data",
    )


def test_a_huge_picture_inside_a_profile_is_refused_before_it_is_decoded(client: FlaskClient) -> None:
    huge = profile_with(face_jpeg=png_of_size(20_000, 20_000))  # 400 megapixels in a few hundred bytes
    answer = scan_api(client, BOARD_PHOTO.read_bytes(), profile=huge)
    assert answer.status_code == 400 and "face_jpeg: too large" in error_of(answer)
    answer = post(
        client,
        "/games",
        {"count": "2", "colour1": "orange", "colour2": "blue", "profile": huge},
        content_type="multipart/form-data",
    )
    assert answer.status_code == 400 and "face_jpeg: too large" in error_of(answer)


@pytest.mark.parametrize("size", [(1, 1), (1, 4000), (3, 3000)])
def test_a_tiny_photo_is_refused_with_a_sentence(client: FlaskClient, size: tuple[int, int]) -> None:
    tiny = png_of_size(*size)
    answer = send_photo(client, new_game(client), tiny)
    assert answer.status_code == 400 and "too small" in error_of(answer)
    answer = scan_api(client, tiny)
    assert answer.status_code == 400 and "too small" in error_of(answer)


def grey_jpeg(width: int = 2000, height: int = 1325) -> bytes:
    import cv2
    import numpy as np

    ok, jpeg = cv2.imencode(".jpg", np.full((height, width, 3), 128, np.uint8))
    assert ok
    return bytes(jpeg.tobytes())


def new_game_answer(client: FlaskClient, players: tuple[str, ...], **fields: Any) -> TestResponse:
    data = {"count": str(len(players)), **{f"colour{n}": c for n, c in enumerate(players, 1)}, **fields}
    return post(client, "/games", data, content_type="multipart/form-data")


def test_a_profile_whose_face_has_no_detail_is_refused_when_it_arrives(client: FlaskClient) -> None:
    flat = profile_with(face_jpeg=grey_jpeg())
    answer = new_game_answer(client, ("orange", "blue"), profile=flat)
    assert answer.status_code == 400 and "its board face shows no detail" in error_of(answer)
    answer = scan_api(client, BOARD_PHOTO.read_bytes(), profile=flat)
    assert answer.status_code == 400 and "its board face shows no detail" in error_of(answer)


def test_a_profile_without_the_players_colours_is_refused_on_the_api_too(client: FlaskClient) -> None:
    document = json.loads(profile_with())
    del document["colours"]["blue"]
    answer = scan_api(client, BOARD_PHOTO.read_bytes(), profile=json.dumps(document), players="orange,blue")
    assert answer.status_code == 400 and "knows no blue warriors" in error_of(answer)


@pytest.mark.parametrize(
    ("players", "message"),
    [
        ("orange", "2 to 4 colours expected, got 1"),
        ("orange,blue,green,purple,red,pink", "2 to 4 colours expected, got 6"),
        ("orange,orange", "'orange' is listed twice"),
        ("orange,", "a colour key expected"),
        (",blue", "a colour key expected"),
        ("Orange,BLUE", "a colour key expected"),
    ],
)
def test_the_scan_api_refuses_players_the_position_check_refuses(
    client: FlaskClient, players: str, message: str
) -> None:
    answer = scan_api(client, BOARD_PHOTO.read_bytes(), players=players)
    assert answer.status_code == 400
    assert error_of(answer).startswith("players") and message in error_of(answer)


def test_a_profile_nested_deep_is_refused_not_a_500(client: FlaskClient) -> None:
    deep = "[" * 200_000 + "]" * 200_000
    answer = scan_api(client, BOARD_PHOTO.read_bytes(), profile=deep)
    assert answer.status_code == 400 and "that calibration profile cannot be used" in error_of(answer)
    answer = new_game_answer(client, ("orange", "blue"), profile=deep)
    assert answer.status_code == 400 and "that calibration profile cannot be used" in error_of(answer)


def test_a_value_that_only_looks_like_a_digit_is_refused(client: FlaskClient, app: Flask) -> None:
    _host, links = ended_game(client, app)
    answer = enter(client, links["orange"], "a5", "²")
    assert answer.status_code == 400 and "a warrior's value is 1 to 5" in error_of(answer)


def test_numbers_past_what_the_database_holds_are_404s(client: FlaskClient, app: Flask) -> None:
    host = new_game(client)
    put_position(app, host, SMALL_GAME, confirm=False)
    huge = str(2**64)
    for path in (f"/positions/{huge}", f"/photos/{huge}.jpg"):
        answer = client.get(host + path)
        assert answer.status_code == 404, path
        no_traceback(answer)
    answer = post(client, host + f"/positions/{huge}/tap", {"target": "a5"})
    assert answer.status_code == 404


def test_links_come_from_the_configured_address_never_the_host_header(tmp_path: Path) -> None:
    app = make_app({"DATA_DIR": str(tmp_path / "data"), "PUBLIC_URL": "https://table.example:8443/"})
    client = app.test_client()
    host = new_game(client)
    page = client.get(host, headers={"Host": "evil.example"}).get_data(as_text=True)
    assert "evil.example" not in page
    assert re.findall(r'href="(https://table\.example:8443/g/[\w-]+)"', page)
    unset = make_app({"DATA_DIR": str(tmp_path / "other")}).test_client()
    page = unset.get(new_game(unset), headers={"Host": "evil.example"}).get_data(as_text=True)
    assert "evil.example" not in page and "http://localhost/g/" in page


@embedded_only
def test_the_database_and_the_data_folder_are_private(app: Flask) -> None:
    assert Path(app.config["DATA_DIR"]).stat().st_mode & 0o777 == 0o700
    assert Path(app.config["DATABASE"]).stat().st_mode & 0o777 == 0o600
    assert Path(app.config["UPLOADS"]).stat().st_mode & 0o777 == 0o700


def test_link_tokens_are_redacted_in_error_logs(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    host = new_game(client)

    def broken(*args: Any) -> None:
        raise RuntimeError("the disk caught fire")

    monkeypatch.setattr(store, "snapshots", broken)
    assert client.get(host).status_code == 500
    assert "the disk caught fire" in caplog.text
    assert token(host) not in caplog.text and token(host)[:4] in caplog.text


def test_every_answer_carries_the_security_headers(client: FlaskClient) -> None:
    host = new_game(client)
    for path in ("/", host, "/api/games/nothing", "/static/app.js"):
        headers = client.get(path).headers
        policy = headers["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy, path
        assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "no-referrer"
    assert client.get(host).headers["Cache-Control"] == "no-store"


def test_a_game_photo_is_never_cached(client: FlaskClient, app: Flask) -> None:
    host = new_game(client, ("purple", "green"))
    assert send_photo(client, host, BOARD_PHOTO.read_bytes()).status_code == 303
    assert "no-store" in client.get(host + "/photos/1.jpg").headers["Cache-Control"]


def test_the_templates_hold_no_inline_script_or_style() -> None:
    for template in (ROOT / "webui" / "templates").glob("*.html"):
        text = template.read_text(encoding="utf-8")
        assert not re.search(r"<script(?![^>]*\bsrc=)|\bstyle=|\bon[a-z]+=", text), template.name


def test_a_form_of_too_many_parts_is_told_what_is_wrong(client: FlaskClient) -> None:
    boundary = "b"
    part = f'--{boundary}\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n'
    body = (part * 200_000 + f"--{boundary}--\r\n").encode()
    answer = client.post(
        new_game(client) + "/photos",
        data=body,
        content_type=f"multipart/form-data; boundary={boundary}",
    )
    assert answer.status_code == 413
    assert "too many parts" in error_of(answer) and "25 MB" not in error_of(answer)


def kept_uploads(app: Flask) -> list[Path]:
    return sorted(Path(app.config["UPLOADS"]).rglob("*.*"))


@embedded_only  # the race is staged by a monkeypatch, which a worker's process does not see
def test_a_photo_racing_the_end_of_the_game_leaves_no_file_behind(
    client: FlaskClient, app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webui import jobs

    host = new_game(client, ("purple", "green"))
    put_position(app, host, document(("purple", "green")))
    real = jobs.scan_for_game

    def scan_then_end(*args: Any, **kwargs: Any) -> store.Scanned:
        scanned = real(*args, **kwargs)  # the photo's files are written: now the host ends the game
        viewer = store.find_viewer(token(host))
        assert viewer is not None
        store.end_game(viewer.game)
        return scanned

    monkeypatch.setattr(jobs, "scan_for_game", scan_then_end)
    answer = send_photo(client, host, BOARD_PHOTO.read_bytes())
    assert answer.status_code == 409 and "the game has ended" in error_of(answer)
    assert kept_uploads(app) == []


def test_every_page_shows_the_photos_being_read_with_their_place_and_a_retry(
    client: FlaskClient, app: Flask
) -> None:
    from webui import jobs

    host, other = new_game(client), new_game(client)
    with app.test_request_context():
        games = [store.find_viewer(token(path)) for path in (host, other)]
        assert games[0] is not None and games[1] is not None
        mine, theirs = games[0].game, games[1].game
        with store.transaction() as db:
            for game in (theirs, mine, mine, mine):  # as the page records them, no worker come yet
                db.execute(
                    "INSERT INTO jobs (game_id, kind, created, photo) VALUES (?, 'scan', ?, '')",
                    (game.id, store.now()),
                )
            first = db.execute("SELECT MIN(id) FROM jobs WHERE game_id = ?", (mine.id,)).fetchone()[0]
            db.execute("UPDATE jobs SET state = 'running', attempts = 2 WHERE id = ?", (first,))
        assert [j.place for j in jobs.of_game(mine)] == [0, 2, 3]  # one line for every game's jobs
    before = client.get(host + "/live").get_json()["version"]
    page = client.get(host).get_data(as_text=True)
    lines = [re.sub(r"\s+", " ", t) for t in re.findall(r'<li class="job \w+">(.*?)</li>', page, re.S)]
    assert [line.split(": ", 1)[1] for line in lines] == [
        "being read now (the worker reading it stopped: another took it up, attempt 2)",
        "waiting, number 2 in the queue",
        "waiting, number 3 in the queue",
    ]
    with app.test_request_context(), store.transaction() as db:
        db.execute("UPDATE jobs SET state = 'failed', status = 400, message = 'it is empty' WHERE photo = ''")
    assert client.get(host + "/live").get_json()["version"] != before  # the poll sees the change
    page = client.get(host).get_data(as_text=True)
    assert page.count("Could not be read: it is empty.") == 3


def test_the_same_photo_twice_keeps_its_files_once(client: FlaskClient, app: Flask) -> None:
    host = new_game(client, ("purple", "green"))
    for _ in range(2):
        assert send_photo(client, host, BOARD_PHOTO.read_bytes()).location.endswith("/positions/1")
    assert len(kept_uploads(app)) == 2  # the photo as sent and the photo with its grid


def test_only_the_host_ends_the_game(client: FlaskClient, app: Flask) -> None:
    host = new_game(client)
    put_position(app, host, SMALL_GAME)
    links = player_links(client, host)
    assert "End the game" not in client.get(links["orange"]).get_data(as_text=True)
    answer = post(client, links["orange"] + "/end")
    assert answer.status_code == 403 and "only the host" in error_of(answer)
    assert "The game ends on photo 1" in client.get(host).get_data(as_text=True)  # not ended
    assert post(client, host + "/end").status_code == 303


def test_a_draft_takes_no_tap_after_the_end(client: FlaskClient, app: Flask) -> None:
    host = new_game(client)
    put_position(app, host, SMALL_GAME)
    draft = put_position(app, host, SMALL_GAME, confirm=False)
    assert post(client, host + "/end").status_code == 303
    for action in ("tap", "turn", "undo", "delete"):
        answer = post(client, host + f"/positions/{draft}/{action}", {"target": "a5"})
        assert answer.status_code == 409, action
        assert "the game has ended" in error_of(answer), action
    assert stored(app, host, draft) == Position.from_json(SMALL_GAME)
    with app.test_request_context():
        viewer = store.find_viewer(token(host))
        assert viewer is not None
        kept = store.snapshot(viewer.game, draft)
        assert kept is not None and kept.turn == 0


def test_a_burst_of_new_games_from_one_address_is_stopped_not_another_address(client: FlaskClient) -> None:
    data = {"csrf_token": csrf(client), "count": "2", "colour1": "orange", "colour2": "blue"}
    statuses = [client.post("/games", data=data).status_code for _ in range(200)]
    assert statuses.count(303) == 30 and statuses[30:] == [429] * 170
    answer = client.post("/games", data=data)
    assert "too many new games from this address" in error_of(answer) and "try again in" in error_of(answer)
    elsewhere = client.post("/games", data=data, environ_base={"REMOTE_ADDR": "192.0.2.7"})
    assert elsewhere.status_code == 303


def test_photos_to_one_game_are_limited(tmp_path: Path) -> None:
    from webui.limits import Limit

    limits = {"photos_per_game": Limit(2, 600, "photos sent to this game")}
    client = make_app({"DATA_DIR": str(tmp_path / "data"), "RATE_LIMITS": limits}).test_client()
    host = new_game(client)
    assert [send_photo(client, host, b"not a photo").status_code for _ in range(3)] == [400, 400, 429]
    assert "too many photos sent to this game" in error_of(send_photo(client, host, b"not a photo"))


def test_a_full_disk_budget_refuses_a_photo_with_a_sentence(tmp_path: Path) -> None:
    app = make_app({"DATA_DIR": str(tmp_path / "data"), "DISK_BUDGET_MB": 0.01})
    client = app.test_client()
    host = new_game(client, ("purple", "green"))
    answer = send_photo(client, host, BOARD_PHOTO.read_bytes())
    assert answer.status_code == 507 and "storage is full" in error_of(answer)
    assert kept_uploads(app) == []


def admin_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(argv) == 0
    return dict(json.loads(capsys.readouterr().out))


def test_admin_prune_removes_old_drafts_and_idle_games_and_usage_counts_them(
    client: FlaskClient, app: Flask, capsys: pytest.CaptureFixture[str]
) -> None:
    assert app.config["EXPIRE_DRAFTS_DAYS"] is None and app.config["EXPIRE_GAMES_DAYS"] is None
    old, recent = new_game(client), new_game(client)
    put_position(app, old, SMALL_GAME)
    put_position(app, recent, SMALL_GAME, confirm=False)
    with app.app_context():
        db = store.get_db()
        db.execute("UPDATE games SET created = '2020-01-01T00:00:00+00:00'")
        db.execute("UPDATE positions SET created = '2020-01-01T00:00:00+00:00'")
        db.execute(
            "UPDATE games SET created = '2099-01-01T00:00:00+00:00' WHERE host_token = ?", (token(recent),)
        )
    data = app.config["DATA_DIR"]
    usage = admin_json(["admin", "usage", "--data", data, *store_args()], capsys)
    assert (usage["games"], usage["drafts"], usage["positions_confirmed"]) == (2, 1, 1)
    pruned = admin_json(
        ["admin", "prune", "--data", data, "--drafts-days", "7", "--games-days", "30", *store_args()], capsys
    )
    assert pruned == {"drafts": 1, "games": 1}
    assert client.get(old).status_code == 404 and client.get(recent).status_code == 200
    usage = admin_json(["admin", "usage", "--data", data, *store_args()], capsys)
    assert (usage["games"], usage["drafts"]) == (1, 0)


def test_pruning_removes_old_jobs_of_no_game_and_their_photos(app: Flask) -> None:
    """A calibration's or the scaled ``/api/scan``'s job whose request stopped waiting and never forgot it."""
    from webui import upkeep

    uploads = Path(app.config["UPLOADS"])
    (uploads / "api").mkdir(parents=True, exist_ok=True)
    for name in ("api/old.upload", "api/new.upload"):
        (uploads / name).write_bytes(b"a photo")
    with app.app_context():
        db = store.get_db()
        old = "2020-01-01T00:00:00+00:00"
        for created, photo in ((old, "api/old.upload"), (store.now(), "api/new.upload")):
            db.execute(
                "INSERT INTO jobs (game_id, kind, created, photo) VALUES (NULL, 'api_scan', ?, ?)",
                (created, photo),
            )
        assert upkeep.prune(None, 30) == {"drafts": 0, "games": 0}
        assert [row["photo"] for row in db.execute("SELECT photo FROM jobs")] == ["api/new.upload"]
    assert sorted(p.name for p in (uploads / "api").iterdir()) == ["new.upload"]


def test_a_photo_padded_with_zeros_is_kept_without_its_padding(client: FlaskClient, app: Flask) -> None:
    host = new_game(client, ("purple", "green"))
    padded = BOARD_PHOTO.read_bytes() + bytes(5 * 1024 * 1024)
    assert send_photo(client, host, padded).status_code == 303
    [kept] = Path(app.config["UPLOADS"]).rglob("*.upload")
    assert kept.read_bytes() == BOARD_PHOTO.read_bytes()


def test_configured_expiry_prunes_abandoned_drafts_on_its_own(tmp_path: Path) -> None:
    app = make_app({"DATA_DIR": str(tmp_path / "data"), "EXPIRE_DRAFTS_DAYS": 7})
    client = app.test_client()
    host = new_game(client)
    draft = put_position(app, host, SMALL_GAME, confirm=False)
    with app.app_context():
        store.get_db().execute("UPDATE positions SET created = '2020-01-01T00:00:00+00:00'")
    app.extensions.pop("armadora_pruned", None)  # as after a restart: the next request prunes
    assert client.get(host + f"/positions/{draft}").status_code == 404


# --------------------------------------------------------------------------- the advanced game

ADVANCED = "armadora-advanced"
# purple (the Mage in the reference kit) on a5, blue (the Elf) on h1 and f1.
MAGE_AND_ELF = document(
    ("purple", "blue"),
    warriors=[("purple", None, (0, 0)), ("blue", None, (4, 7)), ("blue", None, (4, 5))],
    variant=ADVANCED,
)


def advanced_game(
    client: FlaskClient, app: Flask, doc: dict[str, Any] = MAGE_AND_ELF, **fields: Any
) -> tuple[str, dict[str, str]]:
    """An advanced game on ``doc``, confirmed: the host's path and each player's."""
    host = new_game(client, tuple(doc["players"]), variant=ADVANCED, **fields)
    put_position(app, host, doc)
    return host, player_links(client, host)


def tell(client: FlaskClient, game: str, power: str, **fields: str) -> TestResponse:
    return post(client, game + "/powers", {"power": power, **fields})


def tokens_left(page: str) -> tuple[int, int]:
    """The power tokens and the reinforcement a player's page says they have left."""
    powers = re.search(r'id="powers-left">(\d)<', page)
    reinforcements = re.search(r'id="reinforcements-left">(\d)<', page)
    assert powers and reinforcements, "no tokens shown"
    return int(powers[1]), int(reinforcements[1])


def test_the_new_game_offers_the_advanced_game_and_its_characters(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    assert 'value="armadora-advanced"' in page and 'name="character4"' in page
    host = new_game(client, ("orange", "green", "blue", "purple"), variant=ADVANCED)
    page = client.get(host).get_data(as_text=True)
    # The reference kit: the colour says the character.
    assert "orange (goblin), " in page and "green (orc)" in page and "blue (elf)" in page
    assert "purple (mage)" in page


def test_with_another_copy_the_host_chooses_the_characters(client: FlaskClient) -> None:
    profile = json.dumps(default_profile().to_json())
    fields = {"profile": (BytesFile(profile.encode()), "p.json"), "character1": "mage", "character2": "orc"}
    host = new_game(client, ("orange", "blue"), variant=ADVANCED, **fields)
    assert "orange (mage), " in client.get(host).get_data(as_text=True)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"character1": "elf"}, "in the reference kit orange plays the goblins"),
        ({"character1": "dragon"}, "player 1: choose a character: goblin, orc, elf, mage"),
        ({"profile": "copy", "character1": "elf"}, "player 2: choose a character"),
        ({"profile": "copy", "character1": "elf", "character2": "elf"}, "the elf is taken already"),
    ],
)
def test_bad_characters_are_refused_with_a_sentence(
    client: FlaskClient, fields: dict[str, Any], message: str
) -> None:
    if fields.get("profile") == "copy":
        fields["profile"] = (BytesFile(json.dumps(default_profile().to_json()).encode()), "p.json")
    data = {"count": "2", "colour1": "orange", "colour2": "blue", "variant": ADVANCED, **fields}
    answer = post(client, "/games", data, content_type="multipart/form-data")
    assert answer.status_code == 400 and message in error_of(answer)
    no_traceback(answer)
    assert "characters" in answer.get_data(as_text=True)  # the form again, with what was chosen


LOOK = "What your Mage has seen"


def test_a_mage_s_look_is_kept_for_that_player_alone(client: FlaskClient, app: Flask) -> None:
    host, links = advanced_game(client, app)
    purple, blue = links["purple"], links["blue"]
    enter(client, blue, "h1", "4")  # what blue's warrior really is
    assert tokens_left(client.get(purple).get_data(as_text=True)) == (2, 1)
    assert tell(client, purple, "mage", cell="h1", value="4").status_code == 303
    page = client.get(purple).get_data(as_text=True)
    assert tokens_left(page) == (1, 1)
    assert LOOK in page and "h1, blue's: <strong>4</strong>" in page
    # Nobody else sees it: not the other player, not the host, not in the API.
    for viewer in (blue, host):
        other = client.get(viewer).get_data(as_text=True)
        assert LOOK not in other and "blue's: <strong>" not in other
    for viewer in (host, purple):
        assert shown_values(client.get(viewer).get_data(as_text=True), "blue") == []
    for viewer in (blue, host, purple):
        state = client.get("/api/games/" + token(viewer)).get_json()
        h1 = next(w for w in state["position"]["warriors"] if w["cell"] == [4, 7])
        assert h1["value"] == (4 if viewer == blue else None)
        assert "4, blue" not in json.dumps(state)


@embedded_only  # the search is spied on by a monkeypatch, which a worker's process does not see
def test_a_look_tells_that_player_s_suggestion_and_only_theirs(
    client: FlaskClient, app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.search import suggest as real_suggest
    from webui import suggestions

    searched: list[Any] = []

    def spy(view: Any, seconds: float) -> Any:
        searched.append(view)
        return real_suggest(view, iterations=30)

    monkeypatch.setattr(suggestions, "suggest", spy)
    _host, links = advanced_game(client, app)
    purple, blue = links["purple"], links["blue"]
    enter(client, purple, "a5", "2")
    for cell in ("h1", "f1"):
        enter(client, blue, cell, "1")
    tell(client, purple, "mage", cell="f1", value="3")
    assert post(client, purple + "/suggest").status_code == 303
    assert post(client, blue + "/suggest").status_code == 303
    mine, theirs = searched
    assert mine.value_at(Cell.parse("f1")) == 3 and mine.value_at(Cell.parse("h1")) is None
    assert mine.state.power_used  # the look was this turn's power: the action is what is left
    assert theirs.value_at(Cell.parse("a5")) is None  # blue knows nothing of purple's warrior
    assert "Suggested for purple" in client.get(purple).get_data(as_text=True)


def kept_hands(app: Flask) -> list[Any]:
    """The keys the suggestions are kept under, as JSON."""
    with app.test_request_context():
        return [json.loads(row[0]) for row in store.get_db().execute("SELECT hand FROM suggestions")]


def test_a_suggestion_after_a_power_is_the_action_s_on_either_store(client: FlaskClient, app: Flask) -> None:
    # Whoever searches (the request, or a worker on the scaled server) is told the power: one told on
    # the position (the store knows it) or one the player says they used (the form alone knows it).
    _host, links = advanced_game(client, app)
    purple, blue = links["purple"], links["blue"]
    enter(client, purple, "a5", "2")
    for cell in ("h1", "f1"):
        enter(client, blue, cell, "1")
    answer = post(client, blue + "/suggest", {"after_power": "1"})
    assert answer.status_code == 303 and answer.location.endswith("?after_power=1#suggestion")
    assert "Suggested for blue" in client.get(answer.location).get_data(as_text=True)
    plain = client.get(blue).get_data(as_text=True)
    assert "Suggested for blue" not in plain and 'id="after-power"' in plain  # the turn's is not asked yet
    tell(client, purple, "mage", cell="f1", value="3")
    answer = post(client, purple + "/suggest")
    assert answer.status_code == 303 and answer.location.endswith("#suggestion")
    assert "?after_power" not in answer.location  # told: every page of purple's knows it
    page = client.get(purple).get_data(as_text=True)
    assert "Suggested for purple" in page and 'id="power-told"' in page
    hands = kept_hands(app)
    assert {"hand": [["f1", 1], ["h1", 1]], "seen": [], "power_used": True} in hands
    assert {"hand": [["a5", 2]], "seen": [["f1", 3]], "power_used": True} in hands


@pytest.mark.parametrize(
    ("who", "fields", "status", "message"),
    [
        ("purple", {"cell": "a5", "value": "3"}, 409, "the warrior on a5 is purple's: look at an opponent's"),
        ("purple", {"cell": "c3", "value": "3"}, 409, "there is no warrior on c3 to look at"),
        ("purple", {"cell": "h1", "value": "9"}, 400, "a warrior's value is 1 to 5"),
        ("purple", {"cell": "h1", "value": ""}, 400, "type the value you were shown"),
        ("purple", {"cell": "zz", "value": "3"}, 400, "not a cell name"),
        ("purple", {"power": "orc"}, 400, "you play the mage"),
        ("blue", {"power": "elf"}, 400, "the elf's power shows on the board"),
        ("blue", {"power": "mage", "cell": "a5", "value": "1"}, 400, "you play the elf"),
        ("host", {"cell": "h1", "value": "3"}, 400, "powers are told on a player's own link"),
    ],
)
def test_bad_powers_are_refused_with_a_sentence_and_nothing_is_spent(
    client: FlaskClient, app: Flask, who: str, fields: dict[str, str], status: int, message: str
) -> None:
    host, links = advanced_game(client, app)
    answer = tell(client, host if who == "host" else links[who], **{"power": "mage", **fields})
    assert answer.status_code == status and message in error_of(answer)
    no_traceback(answer)
    assert tokens_left(client.get(links["purple"]).get_data(as_text=True)) == (2, 1)


def test_a_mage_looks_twice_at_most_and_never_twice_at_one_warrior(client: FlaskClient, app: Flask) -> None:
    _host, links = advanced_game(client, app)
    purple = links["purple"]
    tell(client, purple, "mage", cell="h1", value="2")
    answer = tell(client, purple, "mage", cell="h1", value="2")
    assert answer.status_code == 409 and "you have looked at h1 already" in error_of(answer)
    assert tell(client, purple, "mage", cell="f1", value="1").status_code == 303
    answer = tell(client, purple, "mage", cell="f1", value="1")
    assert answer.status_code == 409 and "your mage has no power token left" in error_of(answer)
    page = client.get(purple).get_data(as_text=True)
    assert tokens_left(page) == (0, 1) and 'id="peek"' not in page


def test_powers_are_for_the_advanced_game_and_before_the_end(client: FlaskClient, app: Flask) -> None:
    host = new_game(client, ("purple", "blue"))
    put_position(app, host, {**MAGE_AND_ELF, "variant": "armadora"})
    answer = tell(client, player_links(client, host)["purple"], "mage", cell="h1", value="2")
    assert answer.status_code == 400 and "this game has none" in error_of(answer)
    host, links = advanced_game(client, app)
    post(client, host + "/end")
    answer = tell(client, links["purple"], "mage", cell="h1", value="2")
    assert answer.status_code == 409 and "the game has ended" in error_of(answer)


def test_an_orc_tells_its_extra_palisade_once(client: FlaskClient, app: Flask) -> None:
    doc = {**MAGE_AND_ELF, "players": ["green", "blue"]}
    doc["warriors"] = [{**w, "player": "green"} if w["player"] == "purple" else w for w in doc["warriors"]]
    _, links = advanced_game(client, app, doc)
    green = links["green"]
    assert tokens_left(client.get(green).get_data(as_text=True)) == (1, 1)
    assert tell(client, green, "orc").status_code == 303
    page = client.get(green).get_data(as_text=True)
    assert tokens_left(page) == (0, 1) and 'id="power-told"' in page
    answer = tell(client, green, "orc")
    assert answer.status_code == 409 and "your orc has no power token left" in error_of(answer)


def test_the_board_shows_tokens_spent_and_a_face_up_value_to_every_link(
    client: FlaskClient, app: Flask
) -> None:
    doc = document(
        ("orange", "blue"),
        warriors=[("orange", 5, (0, 0)), ("orange", None, (1, 0)), ("blue", None, (4, 7))],
        variant=ADVANCED,
    )
    doc["warriors"][0]["face_up"] = True
    doc["warriors"][1]["arrows"] = 1
    host, links = advanced_game(client, app, doc)
    for viewer in (host, links["blue"]):
        page = client.get(viewer).get_data(as_text=True)
        assert re.search(r'data-target="a5" data-player="orange">.*?class="face-value"[^>]*>5<', page, re.S)
        assert page.count('class="arrow-token"') == 1
    orange = client.get(links["orange"]).get_data(as_text=True)
    assert tokens_left(orange) == (0, 1)  # the Goblin's one power is the face-up warrior
    assert tokens_left(client.get(links["blue"]).get_data(as_text=True)) == (1, 1)  # one arrow spent
    assert own_cells(orange) == ["a4"]  # a face-up warrior takes no value from its owner
    assert offered_values(orange) == ["1", "2", "3", "4"]  # ... but uses it up
    answer = enter(client, links["orange"], "a5", "3")
    assert answer.status_code == 409 and "a5 lies face up: its value, 5, shows on the board" in error_of(
        answer
    )


def tool_tap(client: FlaskClient, host: str, number: int, target: str, tool: str) -> TestResponse:
    return post(
        client, f"{host}/positions/{number}/tap", {"target": target, "tool": tool},
        headers={"X-Requested-With": "fetch"},
    )  # fmt: skip


def test_review_taps_add_and_remove_arrows_reinforcements_and_faces(client: FlaskClient, app: Flask) -> None:
    host = new_game(client, ("purple", "blue"), variant=ADVANCED)
    number = put_position(app, host, MAGE_AND_ELF, confirm=False)
    review = client.get(f"{host}/positions/{number}").get_data(as_text=True)
    assert 'data-tool="arrow"' in review and 'data-tool="face-up"' in review
    fragment = tool_tap(client, host, number, "a5", "arrow").get_data(as_text=True)
    assert 'class="arrow-token"' in fragment
    tool_tap(client, host, number, "a5", "arrow")
    assert stored(app, host, number).warrior_at(Cell.parse("a5")).arrows == 2  # type: ignore[union-attr]
    tool_tap(client, host, number, "a5", "arrow")
    assert stored(app, host, number).warrior_at(Cell.parse("a5")).arrows == 0  # type: ignore[union-attr]
    tool_tap(client, host, number, "h1", "reinforcement")
    assert stored(app, host, number).warrior_at(Cell.parse("h1")).reinforced  # type: ignore[union-attr]
    fragment = tool_tap(client, host, number, "h1", "reinforcement").get_data(as_text=True)
    assert not stored(app, host, number).warrior_at(Cell.parse("h1")).reinforced  # type: ignore[union-attr]
    assert "reinforcement_not_full" not in fragment
    for _ in range(2):
        tool_tap(client, host, number, "f1", "face-up")
    f1 = stored(app, host, number).warrior_at(Cell.parse("f1"))
    assert f1 is not None and (f1.face_up, f1.value) == (True, 2)
    answer = tool_tap(client, host, number, "c3", "arrow")
    assert answer.status_code == 400 and "c3 holds none: put one there first" in error_of(answer)
    assert stored(app, host, number).warrior_at(Cell.parse("c3")) is None
    # An undo takes a token back like any correction; the base game's palette has no such tool.
    post(client, f"{host}/positions/{number}/undo")
    assert stored(app, host, number).warrior_at(Cell.parse("f1")).value == 1  # type: ignore[union-attr]
    base = new_game(client)
    draft = put_position(app, base, SMALL_GAME, confirm=False)
    assert 'data-tool="arrow"' not in client.get(f"{base}/positions/{draft}").get_data(as_text=True)


# A walled corner a5 b5 a4 b4, full (b4 is gold 4): orange a5 2, a4 2 with an arrow; blue b5 3,
# reinforced. Without the tokens orange would take it, 4 to 3; with them blue does, 4 to 3.
CORNER = document(
    ("orange", "blue"),
    warriors=[("orange", None, (0, 0)), ("orange", None, (1, 0)), ("blue", None, (0, 1))],
    palisades=[((0, 1), (0, 2)), ((1, 1), (1, 2)), ((1, 0), (2, 0)), ((1, 1), (2, 1))],
    variant=ADVANCED,
)
CORNER["warriors"][1]["arrows"] = 1
CORNER["warriors"][2]["reinforced"] = True


def test_the_reveal_applies_arrows_and_reinforcements_and_says_so(client: FlaskClient, app: Flask) -> None:
    host, links = advanced_game(client, app, CORNER)
    post(client, host + "/end")
    enter(client, links["orange"], "a5", "2")
    enter(client, links["orange"], "a4", "2")
    enter(client, links["blue"], "b5", "3")
    page = client.get(host).get_data(as_text=True)
    assert "blue wins with 4 gold." in page
    assert "<li>a4: 2, -1 arrow</li>" in page and "<li>b5: 3, +1 reinforcement</li>" in page
    assert '<span class="side">orange</span> 3</li><li><span class="side">blue</span> 4</li>' in page


def test_a_photo_of_an_advanced_game_is_read_with_the_game_s_characters(
    client: FlaskClient, app: Flask
) -> None:
    host = new_game(client, ("purple", "green"), variant=ADVANCED)
    answer = send_photo(client, host, BOARD_PHOTO.read_bytes())
    assert answer.status_code == 303
    review = client.get(answer.location).get_data(as_text=True)
    assert 'data-player="purple"' in review and 'data-tool="reinforcement"' in review
    assert "no character for" not in review  # the game's characters, which no photo shows
    assert stored(app, host, 1).variant == ADVANCED


def test_the_powers_told_follow_a_change_of_the_game_s_colours(client: FlaskClient, app: Flask) -> None:
    host, links = advanced_game(client, app)
    tell(client, links["purple"], "mage", cell="h1", value="4")
    with app.test_request_context():
        viewer = store.find_viewer(token(host))
        assert viewer is not None
        store.recolour(viewer.game, {"purple": "orange", "blue": "green"})
    page = client.get(links["purple"]).get_data(as_text=True)  # the same link, now orange's
    assert tokens_left(page) == (1, 1) and "h1, green's: <strong>4</strong>" in page
    # The next turn's photo: the Mage may look again, not at h1, which it has seen.
    renamed = json.loads(json.dumps(MAGE_AND_ELF).replace("purple", "orange").replace("blue", "green"))
    put_position(app, host, renamed)
    page = client.get(links["purple"]).get_data(as_text=True)
    assert '<option value="f1">' in page and '<option value="h1">' not in page


def test_a_store_made_before_the_advanced_game_gains_its_tables_on_start(tmp_path: Path) -> None:
    # A data folder (or a PostgreSQL store) made before the advanced game: no games.characters, no
    # power_uses. The next start adds them, on either store.
    from webui import db

    config = {"DATA_DIR": str(tmp_path / "data")}
    first = make_app(config)
    host = new_game(first.test_client(), ("purple", "blue"))
    older = db.connect(first.config)
    try:
        older.execute("DROP TABLE power_uses")
        older.execute("ALTER TABLE games DROP COLUMN characters")
        assert "characters" not in db.table_columns(older, "games")
    finally:
        older.close()
    again = make_app(config)
    client = again.test_client()
    assert "purple, " in client.get(host).get_data(as_text=True)  # the older game, without characters
    _, links = advanced_game(client, again)
    assert tell(client, links["purple"], "mage", cell="h1", value="4").status_code == 303
    page = client.get(links["purple"]).get_data(as_text=True)
    assert "purple (mage)" in page and "h1, blue's: <strong>4</strong>" in page


def test_pruning_an_idle_advanced_game_removes_its_powers_told(client: FlaskClient, app: Flask) -> None:
    from webui import upkeep

    host, links = advanced_game(client, app)
    assert tell(client, links["purple"], "mage", cell="h1", value="4").status_code == 303
    with app.app_context():
        db = store.get_db()
        db.execute("UPDATE games SET created = '2020-01-01T00:00:00+00:00'")
        db.execute("UPDATE positions SET created = '2020-01-01T00:00:00+00:00'")
        assert upkeep.prune(None, 30) == {"drafts": 0, "games": 1}
        assert db.execute("SELECT COUNT(*) FROM power_uses").fetchone()[0] == 0
    assert client.get(host).status_code == 404


def test_a_look_the_owner_s_supply_cannot_hold_is_refused(client: FlaskClient, app: Flask) -> None:
    _, links = advanced_game(client, app)
    purple = links["purple"]
    assert tell(client, purple, "mage", cell="h1", value="5").status_code == 303
    answer = tell(client, purple, "mage", cell="f1", value="5")  # a 2-player supply has one 5
    assert answer.status_code == 400
    assert "blue has 1 warrior of value 5, and you know of as many already" in error_of(answer)
    assert tokens_left(client.get(purple).get_data(as_text=True)) == (1, 1)  # nothing spent
