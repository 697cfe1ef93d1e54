"""The ``armadora`` command line: check, score and show, their exit codes, text and JSON output.

Most tests call ``webui.cli.main(argv)`` in-process; a few run the installed
``armadora`` console script to prove it works and that exit codes reach the shell.
Every position document is built here, with the helpers of tests/positions.py.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from console import run
from positions import document

from engine.samples import sample_names, sample_text
from webui.cli import BENCH_COMMANDS, COMMANDS

STANDARD_VALUES = (7, 6, 6, 5, 5, 4, 4, 3)  # one legal assignment of the game's 8 gold piles

STDIN = "<stdin>"  # how reports name the input read from `-`


def fake_stdin(text: str) -> io.TextIOWrapper:
    """Standard input as the command reads it: bytes behind a text wrapper."""
    return io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8")


Cell = tuple[int, int]


# --------------------------------------------------------------------------- helpers


def position(**kwargs: Any) -> dict[str, Any]:
    """A position document (tests/positions.py) whose gold defaults to ``STANDARD_VALUES``."""
    return document(**{"gold": STANDARD_VALUES, **kwargs})


def column_wall(col: int) -> list[tuple[Cell, Cell]]:
    """A palisade on every row between column ``col`` and ``col + 1``: a wall from top to bottom."""
    return [((r, col), (r, col + 1)) for r in range(5)]


def write(tmp_path: Path, name: str, doc: object) -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(path)


def json_lines(out: str) -> list[dict[str, Any]]:
    lines = out.splitlines()
    assert lines, "no output"
    return [json.loads(line) for line in lines]


# A legal end of game, split into three territories by two walls:
#   L = columns a-b (gold b4=7, a2=3: 10), M = columns c-f (gold 20), R = columns g-h (gold 10).
# Orange takes L and R (10 + 10), blue takes M (20): a tie on 20, broken by blue's best win.
THREE_COLUMNS_VALUES = (6, 7, 5, 6, 3, 5, 4, 4)
THREE_COLUMNS_WALLS = column_wall(1) + column_wall(5)


def three_columns(orange: int | None = 1, blue: int | None = 1) -> dict[str, Any]:
    return position(
        gold=THREE_COLUMNS_VALUES,
        warriors=[("orange", orange, (0, 0)), ("orange", 1, (0, 7)), ("blue", blue, (0, 2))],
        palisades=THREE_COLUMNS_WALLS,
    )


# A territory of 6 cells (a1-b3) holding only the 7 gold of a2, where orange and blue tie 2 to 2;
# orange alone (3) in the other territory of 34 cells and 33 gold.
CORNER_VALUES = (5, 6, 6, 5, 7, 4, 4, 3)
CORNER_WALLS = [
    ((1, 0), (2, 0)),
    ((1, 1), (2, 1)),
    ((2, 1), (2, 2)),
    ((3, 1), (3, 2)),
    ((4, 1), (4, 2)),
]


def corner_tie(variant: str) -> dict[str, Any]:
    return position(
        gold=CORNER_VALUES,
        warriors=[("orange", 2, (2, 0)), ("blue", 2, (2, 1)), ("orange", 3, (0, 0))],
        palisades=CORNER_WALLS,
        variant=variant,
    )


LEGAL = position()  # all the gold, no warrior, no palisade: the start of a game
# Two palisades close a5 off alone: a territory of one cell.
ILLEGAL = position(palisades=[((0, 0), (0, 1)), ((0, 0), (1, 0))])


# --------------------------------------------------------------------------- check


def test_check_legal_position_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", write(tmp_path, "legal.json", LEGAL))
    assert (code, out, err) == (0, "legal\n", "")


def test_check_illegal_position_exits_1_and_names_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "check", write(tmp_path, "illegal.json", ILLEGAL))
    assert code == 1
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == "illegal: 1 problem"
    assert lines[1].startswith("  territory_too_small: ")
    assert "a5" in lines[1]


def test_check_json_legal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "legal.json", LEGAL)
    code, out, _ = run(capsys, "check", "--json", path)
    assert code == 0
    assert json_lines(out) == [{"file": path, "legal": True, "problems": []}]


def test_check_json_illegal_problem_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "illegal.json", ILLEGAL)
    code, out, _ = run(capsys, "check", "--json", path)
    assert code == 1
    [doc] = json_lines(out)
    assert doc["file"] == path
    assert doc["legal"] is False
    [problem] = doc["problems"]
    assert {"code", "message", "cells"} <= set(problem)
    assert problem["code"] == "territory_too_small"
    assert problem["cells"] == [[0, 0]]
    assert isinstance(problem["message"], str)
    assert "a5" in problem["message"]


def test_check_json_lists_every_problem_with_its_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = position(
        gold=(7, 7, 6, 5, 5, 4, 4, 3),  # two piles of 7: the game has one
        warriors=[("red", 1, (2, 2))],  # red does not play
    )
    del doc["gold"][-1]  # and h1 has no gold
    code, out, _ = run(capsys, "check", "--json", write(tmp_path, "p.json", doc))
    assert code == 1
    problems = {p["code"]: p for p in json_lines(out)[0]["problems"]}
    assert set(problems) == {"unknown_colour", "missing_gold", "gold_values"}
    assert problems["unknown_colour"]["cells"] == [[2, 2]]
    assert problems["missing_gold"]["cells"] == [[4, 6]]
    assert sorted(problems["gold_values"]["cells"]) == [[0, 3], [1, 1]]


def test_check_sample_is_legal(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--sample")
    assert (code, out) == (0, "legal\n")


# --------------------------------------------------------------------------- unreadable input


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "nowhere.json")
    code, out, err = run(capsys, "check", path)
    assert code == 2
    assert out == ""
    assert err == f"{path}: error: no such file\n"


def test_folder_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 2
    assert out == ""
    assert err.startswith(f"{tmp_path}: error: ")
    assert "folder" in err


def test_non_utf8_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"players": ["orange", "blue"], "note": "Armadöra"}'.encode("latin-1"))
    code, out, err = run(capsys, "check", str(path))
    assert code == 2
    assert out == ""
    assert "UTF-8" in err


@pytest.mark.parametrize("text", ["", "{", "{players: []}", '{"players": ["orange", "blue"]} trailing'])
def test_invalid_json_exits_2(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "bad.json", text)
    code, out, err = run(capsys, "check", path)
    assert code == 2
    assert out == ""
    assert err.startswith(f"{path}: error: not valid JSON")


def _off_board() -> dict[str, Any]:
    return position(warriors=[("orange", 1, (0, 0)), ("blue", 1, (5, 0))])


def _two_on_one_cell() -> dict[str, Any]:
    return position(warriors=[("orange", 1, (2, 2)), ("blue", 1, (2, 2))])


def _warrior_on_gold_cell() -> dict[str, Any]:
    return position(warriors=[("orange", 1, (3, 4))])


def _not_neighbours() -> dict[str, Any]:
    return position(palisades=[((0, 0), (1, 1))])


def _duplicate_palisade() -> dict[str, Any]:
    # The same line twice, the second time with its cells the other way round.
    return position(palisades=[((2, 2), (2, 3)), ((0, 0), (0, 1)), ((2, 3), (2, 2))])


def _palisade_off_board() -> dict[str, Any]:
    return position(palisades=[((0, 7), (0, 8))])


def _bad_warrior_value() -> dict[str, Any]:
    return position(warriors=[("orange", 6, (0, 0))])


def _bad_gold_value() -> dict[str, Any]:
    return position(gold=(7, 6, 6, 5, 5, 4, 4, 2))


def _one_player() -> dict[str, Any]:
    return position(players=["orange"])


def _bad_variant() -> dict[str, Any]:
    return position(variant="chess")


@pytest.mark.parametrize(
    ("make", "entry", "detail"),
    [
        (_off_board, "warriors[1].cell", "off the board"),
        (_two_on_one_cell, "warriors[1].cell", "already holds warriors[0]"),
        (_warrior_on_gold_cell, "warriors[0].cell", "already holds gold[5]"),
        (_not_neighbours, "palisades[0]", "not orthogonal neighbours"),
        (_duplicate_palisade, "palisades[2]", "duplicate of palisades[0]"),
        (_palisade_off_board, "palisades[0][1]", "off the board"),
        (_bad_warrior_value, "warriors[0].value", "1..5"),
        (_bad_gold_value, "gold[7].value", "3..7"),
        (_one_player, "players", "2 to 4"),
        (_bad_variant, "variant", "chess"),
    ],
)
def test_malformed_position_exits_2_naming_the_entry(
    make: Any, entry: str, detail: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "bad.json", make())
    code, out, err = run(capsys, "check", path)
    assert code == 2
    assert out == ""
    assert err.startswith(f"{path}: error: {entry}: ")
    assert detail in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("command", ["check", "score", "show"])
def test_every_command_rejects_malformed_input_with_2(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, command, write(tmp_path, "bad.json", _off_board()))
    assert code == 2
    assert out == ""
    assert "warriors[1].cell" in err


def test_malformed_input_in_json_mode_is_a_json_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "bad.json", _duplicate_palisade())
    code, out, err = run(capsys, "check", "--json", path)
    assert code == 2
    [doc] = json_lines(out)
    assert set(doc) == {"file", "error", "error_code"}
    assert doc["error_code"] == "unreadable"
    assert doc["file"] == path
    assert doc["error"].startswith("palisades[2]: duplicate of palisades[0]")
    assert "palisades[2]" in err


def test_unknown_sample_exits_2_and_lists_the_samples(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "show", "--sample", "no-such-sample")
    assert code == 2
    assert out == ""
    for name in sample_names():
        assert name in err


def test_huge_integer_is_rejected_not_a_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # json.loads raises a plain ValueError, not JSONDecodeError, for an integer literal of
    # more than 4300 digits (Python's int/str conversion limit): it must still exit 2.
    doc = json.dumps(position()).replace('"value": 7', '"value": ' + "9" * 5000, 1)
    path = write(tmp_path, "huge.json", doc)
    code, out, err = run(capsys, "check", path)
    assert code == 2
    assert out == ""
    assert "gold[0].value" in err or "not valid JSON" in err


def test_non_utf8_stdin_is_rejected_not_a_crash(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Under a UTF-8 locale (LANG=en_US.UTF-8) sys.stdin decodes strictly: bytes that are
    # not UTF-8 must get exit 2 and a message, not a UnicodeDecodeError traceback.
    stdin = io.TextIOWrapper(io.BytesIO(b'{"players": ["orange", "blue"], "x": "\xff"}'), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, err = run(capsys, "check", "-")
    assert code == 2
    assert out == ""
    assert "UTF-8" in err


# --------------------------------------------------------------------------- several files


def test_check_several_files_json_in_order_worst_exit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    illegal = write(tmp_path, "illegal.json", ILLEGAL)
    legal = write(tmp_path, "legal.json", LEGAL)
    missing = str(tmp_path / "missing.json")
    code, out, err = run(capsys, "check", "--json", illegal, missing, legal)
    assert code == 2
    docs = json_lines(out)
    assert [d["file"] for d in docs] == [illegal, missing, legal]
    assert docs[0]["legal"] is False
    assert "error" in docs[1]
    assert "no such file" in docs[1]["error"]
    assert docs[2] == {"file": legal, "legal": True, "problems": []}
    assert missing in err


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["legal", "legal"], 0),
        (["legal", "illegal"], 1),
        (["illegal", "legal"], 1),
        (["illegal", "broken", "legal"], 2),
        (["broken", "illegal"], 2),
    ],
)
def test_exit_code_is_the_worst(
    names: list[str], expected: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = {"legal": LEGAL, "illegal": ILLEGAL, "broken": _not_neighbours()}
    paths = [write(tmp_path, f"{n}-{name}.json", docs[name]) for n, name in enumerate(names)]
    code, out, _ = run(capsys, "check", "--json", *paths)
    assert code == expected
    assert [d["file"] for d in json_lines(out)] == paths


def test_check_several_files_text_prefixes_each_with_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    legal = write(tmp_path, "legal.json", LEGAL)
    illegal = write(tmp_path, "illegal.json", ILLEGAL)
    code, out, _ = run(capsys, "check", legal, illegal)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"{legal}: legal"
    assert lines[1:4] == ["", f"{illegal}:", "illegal: 1 problem"]


def test_score_several_files_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path, "good.json", three_columns())
    hidden = write(tmp_path, "hidden.json", three_columns(orange=None))
    code, out, _ = run(capsys, "score", "--json", good, hidden, good)
    assert code == 2
    docs = json_lines(out)
    assert [d["file"] for d in docs] == [good, hidden, good]
    assert docs[0]["scores"] == {"orange": 20, "blue": 20}
    assert docs[2] == docs[0]
    assert set(docs[1]) == {"file", "error", "error_code"}
    assert docs[1]["error_code"] == "not_scorable"


def test_several_samples(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--json", "--sample", "midgame-2p", "endgame-4p")
    assert code == 0
    docs = json_lines(out)
    assert [d["file"] for d in docs] == ["sample midgame-2p", "sample endgame-4p"]
    assert [d["legal"] for d in docs] == [True, True]


def test_with_sample_the_names_are_samples_not_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "legal.json", LEGAL)
    code, out, err = run(capsys, "check", "--sample", path)
    assert code == 2
    assert out == ""
    assert "no sample named" in err


def test_stdin_cannot_be_read_twice(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", "-", "-")
    assert code == 2
    assert out == ""
    assert "only once" in err


# --------------------------------------------------------------------------- score


def test_score_json_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "end.json", three_columns())
    code, out, err = run(capsys, "score", "--json", path)
    assert (code, err) == (0, "")
    [doc] = json_lines(out)
    assert doc["file"] == path
    assert {"territories", "scores", "ranking"} <= set(doc)
    territories = doc["territories"]
    assert len(territories) == 3
    for t in territories:
        assert set(t) == {"cells", "gold", "totals", "winners", "share", "lost", "adjustments"}
        assert t["adjustments"] == []  # the base game counts every warrior at its value
    left, middle, right = territories  # ordered by their first cell: a5, c5, g5
    assert left["cells"] == [[r, c] for r in range(5) for c in (0, 1)]
    assert len(middle["cells"]) == 20
    assert [left["gold"], middle["gold"], right["gold"]] == [10, 20, 10]
    assert left["totals"] == {"orange": 1, "blue": 0}
    assert middle["totals"] == {"orange": 0, "blue": 1}
    assert [left["winners"], middle["winners"], right["winners"]] == [["orange"], ["blue"], ["orange"]]
    assert [left["share"], middle["share"], right["share"]] == [10, 20, 10]
    assert all(t["lost"] == 0 for t in territories)
    assert doc["scores"] == {"orange": 20, "blue": 20}
    # Tied on 20: blue's best single territory (20) beats orange's (10).
    assert doc["ranking"] == [["blue"], ["orange"]]


def test_score_text_has_territories_scores_ranking_and_tiebreak(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "score", write(tmp_path, "end.json", three_columns()))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Territories:"
    # The map: each cell marked by its territory's letter.
    assert lines[2] == "5   A A B B B B C C"
    assert lines[6] == "1   A A B B B B C C"
    assert any(
        line.startswith("A: 10 cells, gold 10;") and line.endswith("-> orange takes 10") for line in lines
    )
    assert any(
        line.startswith("B: 20 cells, gold 20;") and line.endswith("-> blue takes 20") for line in lines
    )
    assert "Scores: orange 20, blue 20" in lines
    assert "Ranking: 1. blue (20)  2. orange (20)" in lines
    [tiebreak] = [line for line in lines if line.startswith("Tie-break:")]
    assert "tie on 20" in tiebreak
    assert "20 against 10" in tiebreak


def test_score_text_has_no_tiebreak_without_a_tie(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = three_columns()
    doc["warriors"][1]["player"] = "blue"  # blue now takes R as well: 30 against 10
    code, out, _ = run(capsys, "score", write(tmp_path, "end.json", doc))
    assert code == 0
    assert "Scores: orange 10, blue 30" in out.splitlines()
    assert "Ranking: 1. blue (30)  2. orange (10)" in out.splitlines()
    assert "Tie-break" not in out


def test_score_tie_with_equal_winnings_shares_a_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two halves of 20 gold each, orange takes the left, blue the right.
    doc = position(
        gold=(7, 6, 6, 5, 4, 5, 3, 4),
        warriors=[("orange", 1, (0, 0)), ("blue", 1, (0, 7))],
        palisades=column_wall(3),
    )
    path = write(tmp_path, "even.json", doc)
    code, out, _ = run(capsys, "score", "--json", path)
    assert code == 0
    [result] = json_lines(out)
    assert result["scores"] == {"orange": 20, "blue": 20}
    assert [sorted(place) for place in result["ranking"]] == [["blue", "orange"]]
    code, out, _ = run(capsys, "score", path)
    assert "Ranking: 1. orange = blue (20)" in out.splitlines()
    assert "share a place" in out


def test_score_hidden_warriors_is_an_error_listing_their_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "hidden.json", three_columns(orange=None, blue=None))
    code, out, err = run(capsys, "score", path)
    assert code == 2
    assert out == ""
    assert err.startswith(f"{path}: error: ")
    assert "hidden" in err
    assert "a5" in err  # orange's hidden warrior on [0, 0]
    assert "c5" in err  # blue's hidden warrior on [0, 2]
    assert "h5" not in err  # orange's warrior on [0, 7] shows its value


def test_score_hidden_warriors_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "hidden.json", three_columns(blue=None))
    code, out, _ = run(capsys, "score", "--json", path)
    assert code == 2
    [doc] = json_lines(out)
    assert doc["file"] == path
    assert "c5" in doc["error"]
    assert "territories" not in doc


def test_score_unread_gold_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = position(gold=(7, 6, 6, 5, 5, None, 4, 3), warriors=[("orange", 1, (0, 0))])
    code, out, err = run(capsys, "score", write(tmp_path, "unread.json", doc))
    assert code == 2
    assert out == ""
    assert "e2" in err  # the gold on [3, 4]


def test_score_illegal_position_warns_but_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = three_columns()
    doc["palisades"] += [[[0, 2], [0, 3]], [[0, 2], [1, 2]]]  # c5 closed off alone
    path = write(tmp_path, "odd.json", doc)
    code, out, _ = run(capsys, "score", path)
    assert code == 0
    assert out.startswith("warning: this position cannot occur in a real game\n")
    assert "territory_too_small" in out
    assert "Scores:" in out
    code, out, _ = run(capsys, "score", "--json", path)
    assert code == 0
    [result] = json_lines(out)
    assert result["check"]["legal"] is False
    assert "scores" in result


def test_score_four_players_scores_partners_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Turn order orange, green, blue, purple: orange+blue against green+purple.
    doc = position(
        gold=(7, 6, 6, 4, 5, 4, 5, 3),  # left half (a-d) 23 gold, right half (e-h) 17
        warriors=[
            ("orange", 2, (0, 0)),
            ("blue", 1, (2, 1)),
            ("green", 2, (0, 1)),
            ("purple", 4, (0, 7)),
            ("orange", 1, (2, 7)),
        ],
        palisades=column_wall(3),
        players=("orange", "green", "blue", "purple"),
    )
    path = write(tmp_path, "four.json", doc)
    code, out, _ = run(capsys, "score", "--json", path)
    assert code == 0
    [result] = json_lines(out)
    assert result["check"]["legal"] is True
    assert result["scores"] == {"orange+blue": 23, "green+purple": 17}
    assert result["ranking"] == [["orange+blue"], ["green+purple"]]
    left, right = result["territories"]
    assert left["totals"] == {"orange+blue": 3, "green+purple": 2}
    assert right["totals"] == {"orange+blue": 1, "green+purple": 4}
    assert left["winners"] == ["orange+blue"]
    assert right["winners"] == ["green+purple"]
    code, out, _ = run(capsys, "score", path)
    assert "Scores: orange+blue 23, green+purple 17" in out.splitlines()


def test_score_four_player_sample_uses_partner_sides(capsys: pytest.CaptureFixture[str]) -> None:
    players = json.loads(sample_text("endgame-4p"))["players"]
    code, out, _ = run(capsys, "score", "--json", "--sample", "endgame-4p")
    assert code == 0
    [result] = json_lines(out)
    sides = {f"{players[0]}+{players[2]}", f"{players[1]}+{players[3]}"}
    assert set(result["scores"]) == sides
    assert {side for place in result["ranking"] for side in place} == sides
    for territory in result["territories"]:
        assert set(territory["totals"]) == sides


def test_nuggets_tie_splits_gold_in_half_points(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "--json", write(tmp_path, "n.json", corner_tie("nuggets")))
    assert code == 0
    [result] = json_lines(out)
    assert result["check"]["legal"] is True
    rest, corner = result["territories"]
    assert corner["gold"] == 7
    assert corner["winners"] == ["orange", "blue"]
    assert corner["share"] == 3.5
    assert corner["lost"] == 0
    assert rest["winners"] == ["orange"]
    assert rest["share"] == 33
    assert result["scores"] == {"orange": 36.5, "blue": 3.5}
    assert result["ranking"] == [["orange"], ["blue"]]


def test_nuggets_half_points_in_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", write(tmp_path, "n.json", corner_tie("nuggets")))
    assert code == 0
    assert "tie between orange and blue: 3.5 each" in out
    assert "Scores: orange 36.5, blue 3.5" in out.splitlines()


def test_base_game_tie_loses_the_odd_gold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The same board in the base game: 7 between two is 3 each and 1 lost.
    code, out, _ = run(capsys, "score", "--json", write(tmp_path, "a.json", corner_tie("armadora")))
    assert code == 0
    [result] = json_lines(out)
    corner = result["territories"][1]
    assert (corner["share"], corner["lost"]) == (3, 1)
    assert result["scores"] == {"orange": 36, "blue": 3}
    code, out, _ = run(capsys, "score", write(tmp_path, "a.json", corner_tie("armadora")))
    assert "tie between orange and blue: 3 each, 1 lost" in out


def test_score_nuggets_sample_json_has_half_points(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "--json", "--sample", "endgame-3p-nuggets")
    assert code == 0
    [result] = json_lines(out)
    total = sum(t["gold"] for t in result["territories"])
    assert total == 40
    # Every point of gold goes to a winner, is lost, or stays unclaimed.
    awarded = sum(t["share"] * len(t["winners"]) + t["lost"] for t in result["territories"] if t["winners"])
    assert awarded + result["unclaimed"] == total
    assert sum(result["scores"].values()) == awarded - sum(t["lost"] for t in result["territories"])
    assert any(isinstance(s, float) and s % 1 == 0.5 for s in result["scores"].values())


# --------------------------------------------------------------------------- show


def test_show_draws_the_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = position(
        warriors=[("orange", 3, (0, 0)), ("blue", None, (4, 7))],
        palisades=[((0, 0), (0, 1)), ((1, 0), (2, 0))],
    )
    code, out, err = run(capsys, "show", write(tmp_path, "p.json", doc))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "    a   b   c   d   e   f   g   h"
    assert lines[1] == "  +" + "---+" * 8
    assert lines[2] == "5 | O3|         $7                | 5"
    assert lines[3] == "  +   +   .   .   .   .   .   .   +"
    assert lines[5] == "  +---+   .   .   .   .   .   .   +"  # the palisade between a4 and a3
    assert lines[10] == "1 |         $4              $3  B?| 1"
    assert lines[-1] == "O orange, B blue; 2/35 palisades"
    assert len(lines) == 14


@pytest.mark.parametrize("name", sample_names())
def test_show_every_sample(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(sample_text(name))
    code, out, err = run(capsys, "show", "--sample", name)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "    a   b   c   d   e   f   g   h"
    assert lines[-1].endswith(f"; {len(doc['palisades'])}/35 palisades")
    for colour in doc["players"]:
        assert colour in lines[-1]
    drawn = out.count("$")
    assert drawn == len(doc["gold"])


def test_show_default_sample(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "--sample")
    code_named, out_named, _ = run(capsys, "show", "--sample", "endgame-2p")
    assert code == code_named == 0
    assert out == out_named
    assert "orange" in out.splitlines()[-1]


def test_show_reads_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    doc = position(warriors=[("blue", 4, (2, 2))])
    monkeypatch.setattr(sys, "stdin", fake_stdin(json.dumps(doc)))
    code, out, err = run(capsys, "show", "-")
    assert (code, err) == (0, "")
    assert out.splitlines()[6] == "3 |         B4                    | 3"


def test_check_and_score_read_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", fake_stdin(json.dumps(ILLEGAL)))
    code, out, _ = run(capsys, "check", "--json", "-")
    assert code == 1
    assert json_lines(out)[0]["file"] == STDIN
    monkeypatch.setattr(sys, "stdin", fake_stdin(json.dumps(three_columns())))
    code, out, _ = run(capsys, "score", "--json", "-")
    assert code == 0
    assert json_lines(out)[0]["scores"] == {"orange": 20, "blue": 20}


def test_stdin_garbage_exits_2(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", fake_stdin("not json at all"))
    code, out, err = run(capsys, "show", "-")
    assert code == 2
    assert out == ""
    assert err.startswith(f"{STDIN}: error: not valid JSON")


# --------------------------------------------------------------------------- usage


@pytest.mark.parametrize("command", ["check", "score", "show"])
def test_no_files_and_no_sample_is_a_usage_error(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, command)
    assert code != 0
    assert out == ""
    assert "--sample" in err
    assert "position files" in err


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert code == 2
    assert out == ""
    assert err.startswith("usage: armadora")


def test_show_has_no_json_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "show", "--json", "--sample")
    assert code == 2
    assert "--json" in err


# --------------------------------------------------------------------------- the installed console script


def _executable() -> str:
    beside = Path(sys.executable).parent / ("armadora.exe" if os.name == "nt" else "armadora")
    found = str(beside) if beside.exists() else shutil.which("armadora")
    if found is None:
        pytest.skip("the armadora console script is not installed")
    return found


def _shell(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_executable(), *args], input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(("doc", "expected"), [(LEGAL, 0), (ILLEGAL, 1), ("{oops", 2)])
def test_console_script_exit_codes(doc: object, expected: int, tmp_path: Path) -> None:
    done = _shell(["check", write(tmp_path, "p.json", doc)])
    assert done.returncode == expected
    assert "Traceback" not in done.stderr
    if expected < 2:
        assert done.stdout.startswith("legal" if expected == 0 else "illegal")
    else:
        assert "not valid JSON" in done.stderr


def test_console_script_score_json_from_stdin() -> None:
    done = _shell(["score", "--json", "-"], stdin=json.dumps(three_columns()))
    assert done.returncode == 0, done.stderr
    [result] = json_lines(done.stdout)
    assert result["file"] == STDIN
    assert result["ranking"] == [["blue"], ["orange"]]


def test_console_script_without_files_is_a_usage_error() -> None:
    done = _shell(["check"])
    assert done.returncode != 0
    assert done.stdout == ""
    assert "--sample" in done.stderr
    assert "Traceback" not in done.stderr


# --------------------------------------------------------------------------- what a command loads

# The console script's code, then the modules it loaded as the last line of standard output.
LOADED = """\
import json, sys
from webui.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""


def _loaded(*argv: str) -> tuple[str, set[str]]:
    """What ``armadora ARGV...`` prints in a fresh interpreter, and the top-level modules it loaded."""
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *argv], capture_output=True, text=True, timeout=60, check=True
    )
    out, _, modules = done.stdout.rstrip("\n").rpartition("\n")
    return out, {name.split(".")[0] for name in json.loads(modules)}


@pytest.mark.parametrize(
    ("argv", "printed"),
    [
        (("check", "--help"), "usage: armadora check"),
        (("show", "--sample"), "palisades"),
        (("score", "--sample"), "Scores:"),
    ],
)
def test_the_engines_commands_load_no_opencv_numpy_or_pillow(argv: tuple[str, ...], printed: str) -> None:
    out, loaded = _loaded(*argv)
    assert printed in out
    assert "engine" in loaded
    assert not loaded & {"cv2", "numpy", "PIL", "numba", "flask", "vision", "calibration"}, sorted(loaded)


@pytest.mark.slow
def test_a_photo_command_loads_opencv_only_when_it_runs() -> None:
    out, loaded = _loaded("scan", "--help")
    assert "usage: armadora scan" in out
    assert not loaded & {"cv2", "numpy", "PIL"}, sorted(loaded)
    _, loaded = _loaded("scan", str(Path(__file__).parents[2] / "sample_images" / "samples-0000.jpg"))
    assert {"cv2", "numpy"} <= loaded


def _names(register: Callable[[Any], None]) -> set[str]:
    """The subcommands that ``register`` adds to a parser."""
    subparsers = argparse.ArgumentParser().add_subparsers()
    register(subparsers)
    return set(subparsers.choices)


@pytest.mark.parametrize(("table", "function"), [(COMMANDS, "register"), (BENCH_COMMANDS, "register_bench")])
def test_each_module_adds_the_subcommands_the_table_says(table: dict[str, str], function: str) -> None:
    for module in set(table.values()):
        added = _names(getattr(importlib.import_module(module), function))
        assert added == {name for name, owner in table.items() if owner == module}, module


def test_top_level_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    listed = {line.split()[0] for line in out.split("COMMAND\n", 1)[1].split("\noptions:")[0].splitlines()}
    assert listed >= {*COMMANDS, "bench"}


def test_a_mistyped_command_is_told_the_real_ones(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "chekc")
    assert code == 2
    assert "invalid choice: 'chekc'" in err and "'check'" in err and "'render'" in err and "'bench'" in err
    code, _, err = run(capsys, "bench", "scna")
    assert code == 2
    assert "'scan'" in err and "'search'" in err
