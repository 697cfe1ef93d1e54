"""Game records: ``armadora record export`` and ``import``, the game page's download, ``arena
--record``; records read back, and one-line errors for bad input."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import stores
from console import run
from flask import Flask

from engine.board import GOLD_VALUES, Cell, Slot
from engine.game import Build, GameState, Pass, PlaceWarrior
from engine.record import Record, dumps, parse
from webui import store

MOVES = [
    PlaceWarrior(Cell.parse("c3"), 5),
    PlaceWarrior(Cell.parse("d3"), 1),
    Build((Slot.between(Cell.parse("a5"), Cell.parse("b5")),)),
    PlaceWarrior(Cell.parse("e3"), 2),
    Pass(),
    PlaceWarrior(Cell.parse("f3"), 1),
    Pass(),
]


def photos() -> list[GameState]:
    """The game of ``MOVES`` after each turn, as a photo after every one."""
    state = GameState.new(("orange", "blue"), GOLD_VALUES)
    out = []
    for move in MOVES:
        state = state.play(move)
        out.append(state)
    return out


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    flask_app = stores.make_app({"DATA_DIR": str(tmp_path / "data")})
    with flask_app.app_context():
        yield flask_app


def stored_game(*, ended: bool) -> store.Viewer:
    """A game on the page with a confirmed photo after every turn; ended, with every value entered."""
    return stores.game_of_photos(photos(), ended=ended)


def export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, *options: str
) -> tuple[int, str, str]:
    # A link's token may begin with "-": after "--" it is not taken for an option.
    data = ("--data", str(tmp_path / "data"), *stores.store_args())
    return run(capsys, "record", "export", *data, *options, "--", game)


def test_export_gives_the_game_turn_by_turn_and_after_the_reveal_its_values_and_result(
    app: Flask, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host = stored_game(ended=True)
    code, out, err = export(tmp_path, capsys, f"http://127.0.0.1:8000/{host.token}")
    assert (code, err) == (0, "")
    record = parse(out)
    truth = Record.of_moves(GameState.new(("orange", "blue"), GOLD_VALUES), MOVES)
    # The order is the game's; a turn whose player the photos cannot tell says so in a note.
    assert [replace(t, note="") for t in record.turns] == list(truth.turns)
    assert record.reveal == truth.reveal
    assert record.result == truth.result and record.result is not None
    assert record.date == host.game.created
    # By number too, and to a file.
    code, _, err = export(tmp_path, capsys, str(host.game.id), "--out", str(tmp_path / "game.txt"))
    assert code == 0 and "record written to" in err
    assert (tmp_path / "game.txt").read_text(encoding="utf-8") == out


def test_before_the_reveal_the_record_tells_no_value(
    app: Flask, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host = stored_game(ended=False)
    code, out, _ = export(tmp_path, capsys, store.seat_tokens(host.game)["blue"])
    assert code == 0
    record = parse(out)
    assert record.reveal == () and record.result is None
    assert "reveal" not in out and len(record.turns) >= 4


@pytest.mark.parametrize(
    ("game", "message"),
    [
        ("no-such-link", "armadora record: no game 'no-such-link' in this store: give a game's link"),
        ("999", "armadora record: no game '999' in this store"),
    ],
)
def test_export_of_a_game_the_store_lacks_says_so_in_a_line(
    app: Flask, tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, message: str
) -> None:
    code, out, err = export(tmp_path, capsys, game)
    assert code == 2 and out == "" and err.startswith(message) and err.count("\n") == 1


@stores.embedded_only
def test_export_from_a_folder_without_a_store_says_so_and_makes_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    code, _, err = run(capsys, "record", "export", "1", "--data", str(elsewhere))
    assert code == 2 and not elsewhere.exists()
    said = "give the data folder that armadora serve uses (--data DIR)"
    assert err == f"armadora record: no store in {elsewhere}: {said}\n"


def test_export_of_a_game_without_a_confirmed_photo_says_what_to_do(
    app: Flask, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host = store.create_game("armadora", ("orange", "blue"), None)
    code, _, err = export(tmp_path, capsys, host.token)
    assert code == 2
    said = "no confirmed position yet: the record starts with the first one"
    assert err == f"armadora record: game {host.game.id}: {said}\n"


GOOD = dumps(Record.of_moves(GameState.new(("orange", "blue"), GOLD_VALUES), MOVES))


def test_import_checks_a_record_and_says_what_it_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.txt"
    path.write_text(GOOD, encoding="utf-8")
    code, out, err = run(capsys, "record", "import", str(path))
    assert (code, err) == (0, "")
    assert out.startswith(f"{path}: a valid record: armadora, orange, blue; 7 turns\n")
    assert str(parse(GOOD).result) in out and "nothing stored" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            GOOD.replace("2. blue warrior d3", "2. orange warrior d3"),
            "line 6: it is blue's turn, not orange's",
        ),
        ("hello\n", "line 1: a record starts with the line 'armadora-record 1'"),
        (None, "no such file"),
        (b"\xff\xfe\x00", "not a text file (not UTF-8)"),
    ],
)
def test_import_of_a_bad_file_says_what_is_wrong_in_a_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | bytes | None, message: str
) -> None:
    path = tmp_path / "game.txt"
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    elif isinstance(text, bytes):
        path.write_bytes(text)
    code, out, err = run(capsys, "record", "import", str(path))
    assert code == 2 and out == ""
    assert err == f"armadora record: {path}: {message}\n"


def test_arena_writes_a_record_of_each_game_that_replays_to_its_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "records"
    argv = ["arena", "--players", "greedy,random", "--games", "2", "--time", "0.01", "--processes", "1"]
    code, out, _ = run(capsys, *argv, "--record", str(folder), "--kernel", "python")
    assert code == 0 and out.startswith("greedy vs random")
    files = sorted(folder.iterdir())
    assert [f.name for f in files] == ["game-1-greedy-random.txt", "game-1-random-greedy.txt"]
    for f in files:
        record = parse(f.read_text(encoding="utf-8"))
        assert record.result is not None and record.final_state().is_over


def test_arena_refuses_a_record_folder_it_cannot_make(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    code, out, err = run(
        capsys, "arena", "--players", "greedy,random", "--games", "1", "--record", str(blocker / "x")
    )
    assert code == 2 and out == ""
    assert (
        err.startswith(f"error: --record: cannot make the folder {blocker / 'x'}: ") and err.count("\n") == 1
    )


def test_the_game_page_links_its_record_and_any_link_downloads_it(app: Flask) -> None:
    host = stored_game(ended=False)
    client = app.test_client()
    page = client.get(f"/g/{host.token}").get_data(as_text=True)
    assert f'href="/g/{host.token}/record.txt"' in page
    blue = store.seat_tokens(host.game)["blue"]
    answer = client.get(f"/g/{blue}/record.txt")
    assert answer.status_code == 200 and answer.mimetype == "text/plain"
    assert answer.headers["Content-Disposition"] == (
        f'attachment; filename="armadora-{host.game.created[:10]}-game-{host.game.id}.txt"'
    )
    record = parse(answer.get_data(as_text=True))
    assert record.reveal == () and len(record.turns) >= 4  # no value before the reveal
    assert client.get(f"/g/{host.token}/record.txt").get_data() == answer.get_data()


def test_after_the_reveal_the_download_holds_the_values_and_the_result(app: Flask) -> None:
    host = stored_game(ended=True)
    record = parse(app.test_client().get(f"/g/{host.token}/record.txt").get_data(as_text=True))
    truth = Record.of_moves(GameState.new(("orange", "blue"), GOLD_VALUES), MOVES)
    assert record.reveal == truth.reveal and record.result == truth.result


def test_a_record_no_game_has_or_of_a_game_without_photos_is_refused(app: Flask) -> None:
    client = app.test_client()
    assert client.get("/g/no-such-link/record.txt").status_code == 404
    host = store.create_game("armadora", ("orange", "blue"), None)
    answer = client.get(f"/g/{host.token}/record.txt")
    assert answer.status_code == 409
    assert (
        answer.get_data(as_text=True) == "no confirmed position yet: the record starts with the first one\n"
    )
    assert "record.txt" not in client.get(f"/g/{host.token}").get_data(as_text=True)


def test_a_link_whose_token_begins_with_a_dash_exports(
    app: Flask, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    made = iter(range(100))
    monkeypatch.setattr(store.secrets, "token_urlsafe", lambda n: f"-dash{next(made)}" + "x" * n)
    host = stored_game(ended=False)
    assert host.token.startswith("-")
    code, out, err = export(tmp_path, capsys, host.token)
    assert (code, err) == (0, "") and len(parse(out).turns) >= 4
