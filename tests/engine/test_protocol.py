"""The engine's line protocol: a whole game against itself, then every way a command can be refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.board import GOLD_VALUES, Cell, Slot
from engine.game import (
    Arrow,
    Build,
    ExtraPalisade,
    ExtraWarrior,
    GameState,
    Move,
    Pass,
    Peek,
    PlaceWarrior,
    Reinforce,
)
from engine.protocol import Session
from engine.record import Record, dumps

ROOT = Path(__file__).resolve().parents[2]
GOLD = "gold 7 6 6 5 5 4 4 3"


def session(*lines: str, iterations: int | None = None) -> Session:
    s = Session(seconds=0.02, seed=3, iterations=iterations)
    for line in lines:
        assert s.handle(line) == "= ", line
    return s


def parse(colour: str, answer: str) -> tuple[str, list[int]]:
    """A genmove answer as (kind, numbers), checked to read as a play command."""
    assert answer.startswith("= "), answer
    kind, *numbers = answer[2:].split()
    assert kind in ("warrior", "palisade", "pass")
    return kind, [int(n) for n in numbers]


def test_the_engine_plays_a_whole_game_against_itself_in_play_syntax() -> None:
    s = session(f"newgame armadora orange blue {GOLD}")
    referee = GameState.new(("orange", "blue"), (7, 6, 6, 5, 5, 4, 4, 3))
    while not referee.is_over:
        colour = referee.player
        kind, n = parse(colour, s.handle(f"genmove {colour}"))
        if kind == "warrior":
            assert len(n) == 3
            move: PlaceWarrior | Build | Pass = PlaceWarrior(Cell(n[0], n[1]), n[2])
        elif kind == "palisade":
            assert len(n) in (4, 8)
            move = Build(
                tuple(Slot.between((n[i], n[i + 1]), (n[i + 2], n[i + 3])) for i in range(0, len(n), 4))
            )
        else:
            move = Pass()
        referee = referee.play(move)  # raises on an illegal move
        assert s.view is not None and s.view.state == referee
    assert s.handle("genmove orange") == "? the game is over"
    assert s.handle("quit") == "= " and s.finished


def test_play_is_accepted_for_any_colour_and_hidden_values_stay_hidden() -> None:
    s = session(f"newgame armadora orange blue {GOLD}", "play orange warrior 2 2", "play blue warrior 2 3 5")
    assert s.view is not None and s.view.value_at(Cell(2, 2)) is None and s.view.value_at(Cell(2, 3)) == 5
    assert s.handle("play orange palisade 0 0 0 1 1 0 1 1") == "= "
    answer = s.handle("genmove blue")
    assert answer.startswith("= ")
    assert s.handle("genmove blue") == "? it is orange to move, not blue"


def test_newgame_takes_the_gold_on_its_line_or_from_a_gold_command() -> None:
    s = session("newgame nuggets orange green blue", "gold 3 4 4 5 5 6 6 7")
    assert s.view is not None and s.view.state.gold == (3, 4, 4, 5, 5, 6, 6, 7)
    assert s.view.state.variant == "nuggets" and len(s.view.state.players) == 3


NEW = ("NEW",)
HIDDEN = ("NEW", "play orange warrior 2 2", "play blue pass")  # orange's values not told
KNOWN = ("NEW", "play orange warrior 2 2 1", "play blue pass")  # orange's values told
CORNER = ("NEW", "play orange palisade 0 0 0 1 1 0 1 1", "play blue palisade 2 0 2 1")


@pytest.mark.parametrize(
    ("setup", "line", "reason"),
    [
        ((), "play orange pass", "no game: send newgame and gold first"),
        ((), "gold 7 6 6 5 5 4 4 3", "no game: send newgame first"),
        (("newgame armadora orange blue",), "genmove orange", "no game: send newgame and gold first"),
        (
            (),
            "newgame chess orange blue",
            "variant 'chess' is not one of armadora, armadora-advanced, nuggets",
        ),
        ((), "newgame armadora orange", "newgame <variant> <colour> <colour> [...] [gold v v v v v v v v]"),
        ((), "newgame armadora orange orange " + GOLD, "a colour is listed twice in ('orange', 'orange')"),
        (
            (),
            "newgame armadora orange blue gold 7 7 6 5 5 4 4 3",
            "gold values must be (7, 6, 6, 5, 5, 4, 4, 3)",
        ),
        (
            (),
            "newgame armadora orange blue gold 7 6",
            "gold takes 8 values, for the gold cells in board-spec",
        ),
        ((), "dance", "unknown command 'dance' (newgame, gold, play, peek, genmove, time, loadrecord, quit)"),
        ((), "time fast", "time <seconds>, more than 0 and at most 600"),
        ((), "time 0", "time <seconds>, more than 0 and at most 600"),
        (NEW, "play red pass", "'red' is not a colour of this game (orange, blue)"),
        (NEW, "play blue pass", "it is orange to move, not blue"),
        (NEW, "play orange warrior 0 3", "orange cannot place a warrior on d5: d5 holds gold"),
        (NEW, "play orange warrior 0 3 5", "orange cannot play warrior d5 5: d5 holds gold"),
        (NEW, "play orange warrior 7 3", "[7, 3] is off the board (rows 0-4, columns 0-7)"),
        (NEW, "play orange warrior 2 x", "numbers expected, got 2 x"),
        (
            NEW,
            "play orange warrior 2 2 6",
            "orange cannot play warrior c3 6: orange has no warrior of value 6",
        ),
        (NEW, "play orange palisade 0 0 1 1", "[0, 0] and [1, 1] are not neighbouring cells"),
        (NEW, "play orange palisade 0 0 0 1 0 0 0 1", "orange cannot play palisade a5|b5 a5|b5: the two"),
        (NEW, "play orange jump", "play <colour> [power ...] warrior <r> <c> [value] | palisade <r1> <c1>"),
        (
            HIDDEN,
            "play orange warrior 2 3 4",
            "orange's values are hidden from the engine: no value expected",
        ),
        (HIDDEN, "genmove orange", "orange's values are hidden from the engine: it cannot move for orange"),
        (
            HIDDEN,
            "play orange warrior 2 2",
            "orange cannot place a warrior on c3: c3 already holds a warrior",
        ),
        (KNOWN, "play orange warrior 2 4", "the engine knows orange's values: give the warrior's value"),
        (KNOWN, "gold 7 6 6 5 5 4 4 3", "the gold is set before the first move"),
        (
            CORNER,
            "play orange palisade 2 0 3 0",
            "orange cannot play palisade a3-a2: a palisade on a3-a2 would",
        ),
    ],
)
def test_refused_commands_answer_one_line_saying_why(setup: tuple[str, ...], line: str, reason: str) -> None:
    s = session(*(f"newgame armadora orange blue {GOLD}" if x == "NEW" else x for x in setup))
    answer = s.handle(line)
    assert answer is not None and answer.startswith("? ") and "\n" not in answer
    assert answer[2:].startswith(reason)


def test_blank_lines_and_comments_get_no_answer() -> None:
    s = Session()
    assert s.handle("") is None and s.handle("   # a comment") is None


def test_the_command_answers_each_line_on_stdout_and_nothing_else() -> None:
    lines = [f"newgame armadora orange blue {GOLD}", "play orange warrior 9 9", "time 0.05", "genmove orange"]
    commands = "\n".join([*lines, "bogus", "quit", ""])
    bin_dir = Path(sys.executable).parent
    run = subprocess.run(
        [str(bin_dir / "armadora"), "engine", "--processes", "2"],
        input=commands, capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 6
    assert lines[0] == "= " and lines[2] == "= " and lines[5] == "= "
    assert lines[1] == "? [9, 9] is off the board (rows 0-4, columns 0-7)"
    assert lines[3].startswith("= ") and parse("orange", lines[3])
    assert lines[4].startswith("? unknown command 'bogus'")
    assert "Traceback" not in run.stderr


# --------------------------------------------------------------------------------------------------
# The advanced game

ADVANCED = f"newgame armadora-advanced orange:mage blue:goblin {GOLD}"


def moves_of(words: list[str]) -> list[Move]:
    """The moves of a genmove answer in the advanced game: a power first, perhaps, then the action."""
    out: list[Move] = []
    while words:
        if words[0] == "power":
            name, words = words[1], words[2:]
            size = {"mage": 2, "elf": 2, "orc": 4, "goblin": 3}[name]
            n, words = [int(x) for x in words[:size]], words[size:]
            if name == "orc":
                out.append(ExtraPalisade(Slot.between((n[0], n[1]), (n[2], n[3]))))
            elif name == "goblin":
                out.append(ExtraWarrior(Cell(n[0], n[1]), n[2]))
            else:
                out.append((Peek if name == "mage" else Arrow)(Cell(n[0], n[1])))
            continue
        kind, rest = words[0], words[1:]
        if kind == "warrior":
            out.append(PlaceWarrior(Cell(int(rest[0]), int(rest[1])), int(rest[2])))
        elif kind == "palisade":
            n = [int(x) for x in rest]
            out.append(
                Build(
                    tuple(Slot.between((n[i], n[i + 1]), (n[i + 2], n[i + 3])) for i in range(0, len(n), 4))
                )
            )
        elif kind == "reinforce":
            out.append(Reinforce(Cell(int(rest[0]), int(rest[1]))))
        else:
            out.append(Pass())
        words = []
    return out


@pytest.mark.parametrize("characters", [("goblin", "elf"), ("orc", "mage")])
def test_the_engine_plays_a_whole_advanced_game_against_itself(characters: tuple[str, str]) -> None:
    """Powers used and each answer in play's syntax (the engine plays both colours, so its Mage
    knows every value and never looks; the Goblin's warrior waits for the last cells)."""
    # A fixed search a move: timed, on a loaded machine, it may find no power worth its token.
    newgame = f"newgame armadora-advanced orange:{characters[0]} blue:{characters[1]} {GOLD}"
    s = session(newgame, iterations=300)
    referee = GameState.new(("orange", "blue"), (7, 6, 6, 5, 5, 4, 4, 3), "armadora-advanced", characters)
    used: set[str] = set()
    while not referee.is_over:
        colour = referee.player
        answer = s.handle(f"genmove {colour}")
        assert answer is not None and answer.startswith("= "), answer
        for move in moves_of(answer[2:].split()):
            referee = referee.play(move)  # raises on an illegal move
            used.add(type(move).__name__)
            if isinstance(move, Peek):
                assert referee.player == colour and s.handle(
                    f"genmove {colour}",
                ).startswith("? ")
                value = referee.warriors[move.cell.number][1]  # type: ignore[index]
                assert s.handle(f"peek {move.cell.row} {move.cell.col} {value}") == "= "
                assert s.view is not None and s.view.value_at(move.cell) == value
        assert s.view is not None and s.view.state.to_position() == referee.to_position()
    assert used & {"Peek", "ExtraWarrior", "Arrow", "ExtraPalisade"}, used


def test_play_takes_a_power_then_the_action_and_hidden_looks_stay_hidden() -> None:
    s = session(ADVANCED, "play orange warrior 2 2 3", "play blue power goblin 2 3 5 warrior 2 4")
    assert s.view is not None
    assert s.view.value_at(Cell(2, 3)) == 5, "the goblin's warrior lies face up"
    assert s.view.value_at(Cell(2, 4)) is None
    assert s.handle("play orange power mage 2 4") == "= "  # the engine knows orange: its own look
    assert s.handle("play orange warrior 2 5 1").startswith("? orange's Mage looks at 2 4: send peek 2 4 <v>")
    assert s.handle("peek 2 4 6") == "? a warrior's value is 1..5"
    assert s.handle("peek 2 5 1").startswith("? the engine's Mage looked at 2 4")
    assert s.handle("peek 2 4 2") == "= " and s.view.value_at(Cell(2, 4)) == 2
    assert s.handle("play orange warrior 2 5 1") == "= "
    assert s.handle("peek 2 4 2") == "? no look of the engine's own Mage waits for its value"


def test_a_look_by_a_colour_the_engine_does_not_play_teaches_it_nothing() -> None:
    s = session(f"newgame armadora-advanced orange:goblin blue:mage {GOLD}", "play orange warrior 2 2 3",
                "play blue power mage 2 2 warrior 2 3")  # fmt: skip
    assert s.view is not None and s.view.state.power_used is False and s.view.state.powers == (1, 1)
    assert s.handle("peek 2 2 3") == "? no look of the engine's own Mage waits for its value"


@pytest.mark.parametrize(
    ("setup", "line", "reason"),
    [
        ((), "newgame armadora-advanced orange blue", "the advanced game needs one character per player"),
        ((), "newgame armadora-advanced orange:elf blue:elf", "each character at most once"),
        ((), "newgame armadora-advanced orange:elf blue", "name every colour's character"),
        ((), "newgame armadora orange:elf blue:orc", "characters belong to the advanced game, not armadora"),
        ((ADVANCED,), "play orange power elf 2 2", "orange cannot play power elf c3: orange is the mage"),
        ((ADVANCED,), "play orange power mage 2", "power mage <r> <c> | elf <r> <c> | orc"),
        ((ADVANCED,), "play orange reinforce 2 2", "orange cannot play reinforce c3: c3 holds no warrior"),
        ((ADVANCED, "play orange warrior 2 2 1"), "play blue power goblin 2 2 5", "blue cannot play power"),
    ],
)
def test_refused_advanced_commands_say_why(setup: tuple[str, ...], line: str, reason: str) -> None:
    s = session(*setup)
    answer = s.handle(line)
    assert answer is not None and answer.startswith("? ") and "\n" not in answer
    assert answer[2:].startswith(reason), answer


LOADED = [PlaceWarrior(Cell(2, 2), 5), Build((Slot.between((0, 0), (0, 1)),)), PlaceWarrior(Cell(2, 4), 1)]


def record_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "game.txt"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_loadrecord_replays_a_record_whose_values_it_gives_and_the_engine_plays_on(tmp_path: Path) -> None:
    start = GameState.new(("orange", "blue"), GOLD_VALUES)
    s = Session(seconds=0.02, seed=3, kernel="python")
    path = record_file(tmp_path, dumps(Record.of_moves(start, LOADED, hidden=False)))
    assert s.handle(f"loadrecord {path}") == "= 3 turns, blue to move"
    state = start
    for move in LOADED:
        state = state.play(move)
    assert s.view is not None and s.view.state == state
    assert s.handle("genmove blue").startswith("= ")


def test_loadrecord_keeps_the_values_it_leaves_hidden_hidden(tmp_path: Path) -> None:
    start = GameState.new(("orange", "blue"), GOLD_VALUES)
    text = dumps(Record.of_moves(start, LOADED)).replace("reveal orange c3=5 e3=1\n", "")
    s = Session(seconds=0.02, seed=3, kernel="python")
    assert s.handle(f"loadrecord {record_file(tmp_path, text)}") == "= 3 turns, blue to move"
    assert s.view is not None and s.view.value_at(Cell(2, 2)) is None
    assert s.handle("genmove orange") == "? it is blue to move, not orange"
    assert s.handle("play blue warrior 3 3") == "= "
    assert (
        s.handle("genmove orange")
        == "? orange's values are hidden from the engine: it cannot move for orange"
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (None, "cannot read {path}: No such file or directory"),
        (
            "armadora-record 1\nvariant armadora\nplayers orange blue\n1. blue pass\n",
            "{path}: line 4: it is orange's",
        ),
        (
            "armadora-record 1\nvariant armadora\nplayers orange blue\n"
            "1. orange warrior c3\n! warrior_gone c3\n",
            "{path}: it notes 1 irregularity(ies): no legal game to replay",
        ),
        (
            "armadora-record 1\nvariant armadora\nplayers orange blue\n! warrior_gone c3\n",
            "{path}: line 4: no warrior on c3 to be gone",
        ),
        (
            "armadora-record 1\nvariant armadora\nplayers orange blue\n1. orange pass\n",
            "{path}: the record leaves gold values unknown: the game cannot be replayed",
        ),
    ],
)
def test_loadrecord_refuses_a_file_it_cannot_replay_saying_why(
    tmp_path: Path, text: str | None, reason: str
) -> None:
    path = record_file(tmp_path, text) if text is not None else str(tmp_path / "missing.txt")
    answer = Session(seconds=0.02).handle(f"loadrecord {path}")
    assert answer is not None and answer.startswith("? " + reason.format(path=path)), answer
