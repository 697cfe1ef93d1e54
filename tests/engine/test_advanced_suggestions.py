"""The advanced game's suggestion regression suite: arrows and reinforcements that decide a territory.

Each case (tests/regression_advanced.py) is checked for what makes it a case, then the
search is asked at a fixed seed and number of iterations, blue's values hidden from it.
"""

from __future__ import annotations

import pytest
from regression import winner
from regression_advanced import AdvancedCase, advanced_cases, with_change

from engine import check, draw
from engine.game import Arrow, Reinforce
from engine.knowledge import Knowledge
from engine.search import suggest

CASES = list(advanced_cases())
ITERATIONS = 4000
SEED = 1


def knowledge(case: AdvancedCase) -> Knowledge:
    return Knowledge.from_position(case.position, "orange", case.passed)


def test_the_suite_has_thirty_advanced_cases() -> None:
    assert len(CASES) >= 30
    assert {case.expect for case in CASES} == {"arrow", "reinforce"}
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_each_case_is_legal_and_its_answer_decides_the_game(case: AdvancedCase) -> None:
    assert check(case.position).legal, check(case.position).problems
    state = knowledge(case).state
    legal = state.legal_moves()
    answers = [Arrow(c) if case.expect == "arrow" else Reinforce(c) for c in case.cells]
    assert all(a in legal for a in answers)
    assert winner(case.doc) != ("orange",)
    change = {"arrows": 1} if case.expect == "arrow" else {"reinforced": True}
    for cell in case.cells:
        assert winner(with_change(case.doc, cell, **change)) == ("orange",)
    if case.expect == "arrow":  # the decoy's blue warrior may be shot too, for nothing
        assert {m.cell for m in legal if isinstance(m, Arrow)} > set(case.cells)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_suggestion_is_the_deciding_arrow_or_reinforcement(case: AdvancedCase) -> None:
    move = suggest(knowledge(case), iterations=ITERATIONS, seed=SEED).move
    picture = f"{case.name}: suggested {move}\n{draw(case.position)}"
    kind = Arrow if case.expect == "arrow" else Reinforce
    assert isinstance(move, kind) and move.cell in case.cells, picture
