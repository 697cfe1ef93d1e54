"""The advanced game's suggestion regression suite: arrows and reinforcements that decide a territory,
a Mage's look where the hidden value decides, a power kept when using it gains nothing.

Each case (tests/regression_advanced.py) is checked for what makes it a case, then the
search is asked at a fixed seed and number of iterations, blue's values hidden from it.
"""

from __future__ import annotations

import pytest
from regression import winner, with_palisades, with_warriors
from regression_advanced import AdvancedCase, advanced_cases, with_change

from engine import check, draw
from engine.game import Arrow, ExtraPalisade, Pass, Peek, PlaceWarrior, Reinforce
from engine.knowledge import Knowledge
from engine.search import suggest

CASES = list(advanced_cases())
KIND = {"arrow": Arrow, "reinforce": Reinforce, "peek": Peek}
ITERATIONS = 4000
SEED = 1


def knowledge(case: AdvancedCase) -> Knowledge:
    return Knowledge.from_position(case.position, "orange", case.passed)


def test_the_suite_has_thirty_advanced_cases() -> None:
    assert len(CASES) >= 30
    assert {case.expect for case in CASES} == {"arrow", "reinforce", "peek", "keep"}
    assert len({case.name for case in CASES}) == len(CASES)


def of_kind(*kinds: str) -> list[AdvancedCase]:
    return [case for case in CASES if case.expect in kinds]


@pytest.mark.parametrize("case", of_kind("arrow", "reinforce"), ids=lambda c: c.name)
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


@pytest.mark.parametrize("case", of_kind("peek"), ids=lambda c: c.name)
def test_each_peek_case_hangs_on_a_hidden_value_a_look_shows(case: AdvancedCase) -> None:
    assert check(case.position).legal, check(case.position).problems
    state = knowledge(case).state
    legal = state.legal_moves()
    assert all(Peek(c) in legal for c in case.cells)
    # Orange's one warrior left, a 2, can go on either top's empty cell, and nowhere else.
    assert {m for m in legal if isinstance(m, PlaceWarrior)} == {PlaceWarrior(c, 2) for c in case.empty}

    def wins(doc: dict[str, object], at: int) -> bool:
        return winner(with_warriors(doc, [("orange", 2, case.empty[at])])) == ("orange",)

    # As the board is (blue's 2 on the first top, its 1 on the second) the second top wins ...
    assert not wins(case.doc, 0) and wins(case.doc, 1)
    # ... and with those two values the other way round, the first: only their values decide.
    values = {c: w["value"] for w in case.doc["warriors"] for c in case.cells if w["cell"] == list(c)}
    swapped = with_change(with_change(case.doc, case.cells[0], value=values[case.cells[1]]),
                          case.cells[1], value=values[case.cells[0]])  # fmt: skip
    assert wins(swapped, 0) and not wins(swapped, 1)


@pytest.mark.parametrize("case", of_kind("keep"), ids=lambda c: c.name)
def test_each_keep_case_loses_with_the_power_and_wins_without(case: AdvancedCase) -> None:
    assert check(case.position).legal, check(case.position).problems
    legal = knowledge(case).state.legal_moves()
    extra = [m for m in legal if isinstance(m, ExtraPalisade)]
    assert extra and Pass() in legal
    assert winner(case.doc) == ("orange",)
    for move in extra:
        assert winner(with_palisades(case.doc, [(move.slot.a, move.slot.b)])) != ("orange",), move


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_suggestion_is_the_deciding_power_or_reinforcement(case: AdvancedCase) -> None:
    move = suggest(knowledge(case), iterations=ITERATIONS, seed=SEED).move
    picture = f"{case.name}: suggested {move}\n{draw(case.position)}"
    if case.expect == "keep":
        assert move == Pass(), picture
    else:
        assert isinstance(move, KIND[case.expect]) and move.cell in case.cells, picture
