"""``armadora suggest``, ``arena`` and ``bench``: answers, JSON, and one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from console import run
from test_cli import write

from engine import Cell, Position
from engine.game import Pass
from engine.knowledge import Knowledge
from engine.samples import sample_text

MIDGAME = json.loads(sample_text("midgame-2p"))  # orange's values known, blue's hidden


def legal(move: str, position: Position, colour: str) -> bool:
    """Whether the move's text names a legal move of the player in the position."""
    view = Knowledge.from_position(position, colour)
    moves = [*view.state.legal_moves(), Pass()]
    return move in {str(m) for m in moves}


@pytest.mark.parametrize("processes", ["1", "2"])
def test_suggest_json_gives_three_legal_moves_best_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], processes: str
) -> None:
    path = write(tmp_path, "mid.json", MIDGAME)
    argv = ["suggest", path, "--player", "orange", "--iterations", "300", "--processes", processes, "--json"]
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["player"] == "orange" and doc["processes"] == int(processes)
    assert doc["iterations"] == 300 * int(processes)
    moves = doc["moves"]
    assert len(moves) == 3
    assert [m["visits"] for m in moves] == sorted((m["visits"] for m in moves), reverse=True)
    assert all(0 <= m["share"] <= 1 and 0 <= m["win"] <= 1 for m in moves)
    assert all(legal(m["move"], Position.from_json(MIDGAME), "orange") for m in moves)
    for m in moves:
        assert m["kind"] in ("warrior", "palisade", "pass")
        if m["kind"] == "warrior":
            assert m["move"] == f"warrior {Cell(*m['cell']).name} {m['value']}"


def test_suggest_text_names_the_moves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "mid.json", MIDGAME)
    code, out, _ = run(capsys, "suggest", path, "--player", "orange", "--time", "0.2", "--processes", "1")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("orange to move: ") and lines[0].endswith(" on 1 process")
    assert [line[:3] for line in lines[1:]] == ["1. ", "2. ", "3. "]
    assert all(
        legal(line[3:].split("  ")[0].strip(), Position.from_json(MIDGAME), "orange") for line in lines[1:]
    )


def test_suggest_ignores_the_values_it_should_not_know(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    told = json.loads(json.dumps(MIDGAME))
    for w, value in zip([w for w in told["warriors"] if w["player"] == "blue"], (5, 4, 3, 2), strict=True):
        w["value"] = value
    answers = []
    for name, doc in (("hidden.json", MIDGAME), ("told.json", told)):
        argv = ["suggest", write(tmp_path, name, doc), "--player", "orange", "--iterations", "400", "--json"]
        code, out, _ = run(capsys, *argv, "--processes", "1", "--seed", "5")
        assert code == 0
        answers.append(json.loads(out)["moves"])
    assert answers[0] == answers[1]


@pytest.mark.parametrize(
    ("doc", "args", "message"),
    [
        ("{not json", [], "error: not valid JSON: "),
        (MIDGAME, ["--player", "red"], "error: 'red' is not a colour of this game (orange, blue)"),
        (MIDGAME, ["--player", "blue"], "error: blue's own warrior values must be given: a5, e4, g3, d2"),
        (MIDGAME, ["--player", "orange", "--passed", "orange"], "error: orange has passed and cannot move"),
        ({"players": ["orange", "blue"], "warriors": [{"cell": [9, 9], "player": "orange", "value": 1}]},
         ["--player", "orange"], "error: warriors[0].cell: [9, 9] is off the board"),
        ({"players": ["orange", "blue"]}, ["--player", "orange"], "error: every gold value must be known"),
    ],
)  # fmt: skip
def test_suggest_refuses_bad_input_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: object, args: list[str], message: str
) -> None:
    path = write(tmp_path, "p.json", doc)
    code, out, err = run(capsys, "suggest", path, *(args or ["--player", "orange"]), "--processes", "1")
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1


def test_suggest_needs_a_player(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "suggest", write(tmp_path, "p.json", MIDGAME))
    assert code == 2 and "--player" in err


def test_arena_plays_seat_swapped_pairs_and_reports_an_interval(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "arena",
        "--players",
        "greedy,random",
        "--games",
        "4",
        "--time",
        "0.01",
        "--processes",
        "2",
        "--json",
    ]
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["games"] == 4 and doc["player"] == "greedy" and doc["fair"] == 0.5
    low, high = doc["ci95"]
    assert 0 <= low <= doc["rate"] <= high <= 1
    assert doc["score"] >= 3  # greedy beats a random player


def test_arena_text_and_team_games(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "arena",
        "--players",
        "random,greedy",
        "--seats",
        "4",
        "--games",
        "2",
        "--time",
        "0.01",
        "--processes",
        "1",
    ]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert out.startswith("random vs greedy, 4 players: 2 games, random scored ")
    assert "fair share 50.0 %, Elo " in out


@pytest.mark.parametrize("players", ["ismcts", "ismcts,ismcts", "ismcts,chess", "a,b,c"])
def test_arena_refuses_a_bad_pairing(capsys: pytest.CaptureFixture[str], players: str) -> None:
    code, out, err = run(capsys, "arena", "--players", players, "--games", "1")
    assert code == 2 and out == ""
    assert (
        err
        == "error: --players takes two different players of random, greedy, pimc, ismcts, ismcts-nopower, "
        f"not {players!r}\n"
    )


def test_bench_reports_playouts_and_iterations(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "search", "--time", "0.05", "--repeat", "1", "--processes", "1")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 6
    assert lines[1].startswith("playouts from the start, one core: ")
    assert lines[2].startswith("playouts from the advanced start (goblin, elf), one core: ")
    assert lines[3].startswith("start: 1 suggestions of 0.05 s on 1 processes: iterations min ")
    assert lines[5].startswith("advanced-start: 1 suggestions of 0.05 s on 1 processes: iterations min ")
