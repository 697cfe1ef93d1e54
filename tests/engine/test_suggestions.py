"""The suggestion regression suite: hand-made positions where one kind of answer is right.

Each case (tests/regression.py) is checked first for what makes it a case (the scoring
of the positions after the right and the wrong answers), then the search is asked, at
a fixed seed and number of iterations, and must give the right kind of answer.
"""

from __future__ import annotations

import pytest
from regression import Case, cases

from engine import Build, GameState, Pass, PlaceWarrior, Position, check, draw
from engine.knowledge import Knowledge
from engine.search import suggest

CASES = list(cases())
ITERATIONS = 6000
SEED = 1


def ask(case: Case, seed: int = SEED) -> object:
    view = Knowledge.from_position(case.position, "orange", case.passed)
    return suggest(view, iterations=ITERATIONS, seed=seed).move


def test_the_suite_has_thirty_cases_of_four_kinds() -> None:
    assert len(CASES) >= 30
    assert {case.expect for case in CASES} == {"build", "warrior", "avoid", "pass"}
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_suggestion_is_the_right_kind_of_answer(case: Case) -> None:
    move = ask(case)
    picture = f"{case.name}: suggested {move}\n{draw(case.position)}"
    if case.expect == "build":  # seal the territory orange leads
        assert isinstance(move, Build) and set(case.slots) <= set(move.slots), picture
    elif case.expect == "warrior":  # block blue's last claim
        assert isinstance(move, PlaceWarrior) and move.cell == case.cell, picture
    elif case.expect == "avoid":  # never wall orange's gold off from its warriors
        assert not (isinstance(move, Build) and set(case.slots) & set(move.slots)), picture
    else:  # every other move loses
        assert move == Pass(), picture


@pytest.mark.parametrize("case", [c for c in CASES if c.expect == "pass"], ids=lambda c: c.name)
def test_pass_cases_leave_only_losing_builds(case: Case) -> None:
    """What makes a pass case: the only palisades that may still stand are the cuts (each of
    which loses: tests/regression.py chose the gold so), and orange has no warrior left."""
    view = Knowledge.from_position(case.position, "orange", case.passed)
    builds = [m for m in view.state.legal_moves() if isinstance(m, Build)]
    assert {slot for b in builds for slot in b.slots} == set(case.slots)
    assert not view.state.warrior_moves()


@pytest.mark.parametrize("case", CASES[::4], ids=lambda c: c.name)
def test_the_suggestion_never_reads_blue_values(case: Case) -> None:
    """The same position with blue's values changed gives the same suggestion at a fixed seed."""
    swapped = dict(case.doc)
    blue_values = [w["value"] for w in case.doc["warriors"] if w["player"] == "blue"]
    rotated = iter(blue_values[1:] + blue_values[:1])
    swapped["warriors"] = [
        {**w, "value": next(rotated) if w["player"] == "blue" else w["value"]} for w in case.doc["warriors"]
    ]
    assert swapped["warriors"] != case.doc["warriors"] or len(set(blue_values)) == 1
    hidden = [{**w, "value": None if w["player"] == "blue" else w["value"]} for w in case.doc["warriors"]]
    views = [
        Knowledge.from_position(Position.from_json({**case.doc, "warriors": ws}), "orange", case.passed)
        for ws in (case.doc["warriors"], swapped["warriors"], hidden)
    ]
    answers = [suggest(v, iterations=1500, seed=7).candidates for v in views]
    assert answers[0] == answers[1] == answers[2]


@pytest.mark.parametrize("players", [("orange", "blue", "green"), ("orange", "green", "blue", "purple")])
def test_three_and_four_player_games_get_legal_suggestions(players: tuple[str, ...]) -> None:
    """Rewards per player in 3-player games, per team in 4: a whole game of suggestions stays legal."""
    state = GameState.new(players, (7, 6, 6, 5, 5, 4, 4, 3))
    seen_builds = 0
    while not state.is_over:
        move = suggest(Knowledge.of(state, state.player), iterations=150, seed=state.walls.count).move
        seen_builds += isinstance(move, Build)
        state = state.play(move)
    assert seen_builds > 0 and check(state.to_position()).legal
