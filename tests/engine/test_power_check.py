"""A power the tree picks is checked against never using one: used only where it clearly pays."""

from __future__ import annotations

import pytest

import engine.search as search
from engine.board import GOLD_VALUES
from engine.game import POWERS, ExtraWarrior, GameState
from engine.knowledge import Knowledge
from engine.search import suggest

ITERATIONS = 2000


def goblin_start() -> Knowledge:
    """The advanced start, orange the Goblin to move: the tree alone spends its warrior at once."""
    state = GameState.new(("orange", "blue"), GOLD_VALUES, "armadora-advanced", ("goblin", "elf"))
    return Knowledge.of(state, "orange")


def test_unchecked_the_tree_spends_the_goblin_warrior_at_the_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "POWER_MARGIN", None)
    found = suggest(goblin_start(), iterations=ITERATIONS, seed=1)
    assert isinstance(found.move, ExtraWarrior)
    assert found.iterations == ITERATIONS


def test_a_power_that_does_not_clear_the_margin_gives_way_to_the_search_without(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(search, "POWER_MARGIN", 1.0)  # no power wins 100 points more often
    view = goblin_start()
    found = suggest(view, iterations=ITERATIONS, seed=1)
    assert not isinstance(found.move, POWERS)
    assert found.move == suggest(view, iterations=ITERATIONS, seed=1, powers=False).move
    assert found.iterations > 2 * ITERATIONS  # the tree, the search without, the state after the power


def test_a_power_that_clears_the_margin_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "POWER_MARGIN", -1.0)  # any power clears it
    found = suggest(goblin_start(), iterations=ITERATIONS, seed=1)
    assert isinstance(found.move, ExtraWarrior)
    assert found.iterations > 2 * ITERATIONS
