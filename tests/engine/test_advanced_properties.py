"""Property tests of the advanced game against references written here.

The references read :class:`Position` values with plain sets and the breadth-first
territories of tests/reference.py: the moves a power or the reinforcement allows, the
problems check() must find, and the score with arrows and reinforcements.
``ADVANCED_POSITIONS`` sets how many random positions the agreement test draws; the slow
test takes 10,000 (in the full run; ``python -m pytest -m slow tests/engine`` alone).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import REFERENCE_CELLS, bfs_territories

from engine.board import CELLS, GOLD_CELLS, GOLD_VALUES, SLOTS, Cell
from engine.check import check
from engine.game import (
    Arrow,
    ExtraPalisade,
    ExtraWarrior,
    GameState,
    Move,
    Pass,
    Peek,
    PlaceWarrior,
    Reinforce,
    playout,
    random_move,
    shuffled_gold,
)
from engine.knowledge import Knowledge, KnowledgeError
from engine.position import Gold, Position, Warrior
from engine.scoring import score

COLOURS = ("orange", "green", "blue", "purple")
CHARACTERS = ("goblin", "orc", "elf", "mage")
TOKENS = {"goblin": 1, "orc": 1, "elf": 2, "mage": 2}
ADVANCED_CODES = {
    "missing_character", "character_twice", "too_many_powers", "arrow_without_elf", "arrow_on_elf",
    "arrow_on_partner", "too_many_arrows", "too_many_reinforcements", "reinforcement_not_full",
    "reinforcements_in_territory", "face_up_not_goblin", "too_many_face_up", "advanced_in_base_game",
}  # fmt: skip


def team(players: tuple[str, ...], colour: str) -> int:
    """Partners sit opposite in the 4-player game."""
    return players.index(colour) % (2 if len(players) == 4 else len(players))


def territory_of(position: Position, cell: Cell) -> frozenset[Cell]:
    return next(t for t in bfs_territories(position.palisades) if cell in t)


def full(position: Position, region: frozenset[Cell]) -> bool:
    taken = {w.cell for w in position.warriors} | set(GOLD_CELLS)
    return region <= taken


# --------------------------------------------------------------------------------------------------
# Moves


def reference_extra_moves(state: GameState) -> set[Move]:
    """The powers and reinforcements the rules give the player to move, read from the position."""
    position = state.to_position()
    me = state.player
    character = position.character_of(me)
    by_cell = {w.cell: w for w in position.warriors}
    out: set[Move] = set()
    if position.reinforcements_left[position.players.index(me)]:
        for w in position.warriors:
            region = territory_of(position, w.cell)
            if w.player == me and full(position, region) and not any(by_cell[c].reinforced for c in region
                                                                     if c in by_cell):  # fmt: skip
                out.add(Reinforce(w.cell))
    if state.power_used or not position.powers_left[position.players.index(me)]:
        return out
    opponents = [
        w for w in position.warriors if team(position.players, w.player) != team(position.players, me)
    ]
    if character == "mage":
        out |= {Peek(w.cell) for w in opponents if not w.face_up}
    elif character == "elf":
        for w in opponents:
            region = territory_of(position, w.cell)
            mine_there = any(by_cell[c].player == me for c in region if c in by_cell)
            if w.arrows < 2 and mine_there and not full(position, region):
                out.add(Arrow(w.cell))
    elif character == "orc":
        out |= {ExtraPalisade(SLOTS[i]) for i in state.walls.legal_slot_numbers}
    else:
        out |= {ExtraWarrior(m.cell, m.value) for m in state.warrior_moves()}
    return out


def new_game(seed: int, players: int) -> tuple[GameState, random.Random]:
    rng = random.Random(seed)
    characters = list(CHARACTERS)
    rng.shuffle(characters)
    return GameState.new(
        COLOURS[:players], shuffled_gold(rng), "armadora-advanced", characters[:players]
    ), rng


def assert_step(before: GameState, move: Move, after: GameState) -> None:
    p = before.to_move
    report = check(after.to_position())
    assert report.legal, report.to_json()
    if isinstance(move, Peek | Arrow | ExtraPalisade | ExtraWarrior):
        assert after.to_move == p and after.power_used and after.powers[p] == before.powers[p] - 1
        assert not after.power_moves()
    else:
        assert not after.power_used
        assert after.to_move != p or after.is_over or len(before.players) - bin(before.passed).count("1") == 1
    if isinstance(move, Peek):
        assert after.seen[p] == before.seen[p] | move.cell.bit
    if isinstance(move, ExtraWarrior):
        w = after.to_position().warrior_at(move.cell)
        assert w is not None and w.face_up and w.value == move.value
    if isinstance(move, Reinforce):
        assert after.reinforcements[p] == 0 and after.reinforced & move.cell.bit
    if isinstance(move, Arrow):
        w = after.to_position().warrior_at(move.cell)
        before_w = before.to_position().warrior_at(move.cell)
        assert w is not None and before_w is not None and w.arrows == before_w.arrows + 1


def assert_knowledge(state: GameState) -> None:
    """What the player to move knows: their values, the face-up ones and what their Mage saw, nothing
    else; the moves on offer are the same as in the real game (they hang on public things only)."""
    p = state.to_move
    knowledge = Knowledge.of(state, state.player)
    for i, w in enumerate(state.warriors):
        if w is None:
            continue
        shown = w[0] == p or state.face_up >> i & 1 or state.seen[p] >> i & 1
        assert knowledge.value_at(CELLS[i]) == (w[1] if shown else None)
    assert set(knowledge.state.legal_moves()) - set(knowledge.state.warrior_moves()) == set(
        state.legal_moves()
    ) - set(state.warrior_moves())
    assert knowledge.state.to_position().characters == state.characters


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([2, 3, 4]))
def test_random_advanced_games_offer_what_the_reference_allows(seed: int, players: int) -> None:
    state, rng = new_game(seed, players)
    for _ in range(400):
        if state.is_over:
            break
        legal = state.legal_moves()
        assert len(legal) == len(set(legal))
        extras = {m for m in legal if isinstance(m, Peek | Arrow | ExtraPalisade | ExtraWarrior | Reinforce)}
        assert extras == reference_extra_moves(state)
        assert_knowledge(state)
        assert Pass() in legal
        move = random_move(state, rng)
        assert move in legal and state.why_illegal(move) is None
        after = state.play(move)
        assert_step(state, move, after)
        passed = [c for i, c in enumerate(after.players) if after.passed >> i & 1]
        if not after.is_over:
            again = GameState.from_position(
                after.to_position(), after.player, passed, power_used=after.power_used
            )
            assert again.to_position() == after.to_position()
            assert (again.powers, again.reinforcements, again.power_used) == (
                after.powers, after.reinforcements, after.power_used,
            )  # fmt: skip
        state = after
    assert state.is_over
    assert score(state.to_position()).scores


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([2, 3, 4]))
def test_advanced_playouts_play_legal_moves_to_the_end(seed: int, players: int) -> None:
    start, rng = new_game(seed, players)
    final = playout(start, rng)
    assert final.is_over and check(final.to_position()).legal
    assert playout(start, random.Random(seed ^ 1)).is_over
    again, rng2 = new_game(seed, players)
    assert playout(again, rng2) == final


def test_powers_are_refused_with_a_reason() -> None:
    state = GameState.new(("orange", "blue"), GOLD_VALUES, "armadora-advanced", ("mage", "elf"))
    assert (
        state.why_illegal(Arrow(Cell(2, 2)))
        == "orange is the mage: power elf c3 is another character's power"
    )
    assert state.why_illegal(Peek(Cell(2, 2))) == "c3 holds no opponent's warrior"
    assert state.why_illegal(Reinforce(Cell(2, 2))) == "c3 holds no warrior of orange's"
    base = GameState.new(("orange", "blue"), GOLD_VALUES)
    assert base.why_illegal(Peek(Cell(2, 2))) == "power mage c3 belongs to the advanced game"
    with pytest.raises(ValueError, match="each character at most once"):
        GameState.new(("orange", "blue"), GOLD_VALUES, "armadora-advanced", ("elf", "elf"))


def test_a_mage_learns_what_it_looked_at_and_nobody_else_does() -> None:
    state = GameState.new(("orange", "blue"), GOLD_VALUES, "armadora-advanced", ("goblin", "mage"))
    state = state.play(ExtraWarrior(Cell(2, 2), 5)).play(PlaceWarrior(Cell(2, 3), 4))
    blue = Knowledge.of(state, "blue")
    assert blue.value_at(Cell(2, 2)) == 5, "a face-up warrior is public"
    assert blue.value_at(Cell(2, 3)) is None
    state = state.play(Peek(Cell(2, 3)))
    assert Knowledge.of(state, "blue").value_at(Cell(2, 3)) == 4
    assert Knowledge.of(state, "orange").value_at(Cell(2, 3)) == 4  # orange's own
    # The engine's side of the same turn: it spends the power, then is told the value.
    seen = blue.play(Peek(Cell(2, 3)))
    assert seen.value_at(Cell(2, 3)) is None and seen.state.power_used
    told = seen.learn(Cell(2, 3), 4)
    assert told.value_at(Cell(2, 3)) == 4 and told.state.power_used and told.state.player == "blue"
    with pytest.raises(KnowledgeError, match="known to be 4, not 5"):
        told.learn(Cell(2, 3), 5)
    position = state.to_position()
    again = Knowledge.from_position(position, "blue", seen=[Cell(2, 3)], power_used=True)
    assert again.value_at(Cell(2, 3)) == 4 and again.value_at(Cell(2, 2)) == 5
    assert Knowledge.from_position(position, "blue", power_used=True).value_at(Cell(2, 3)) is None


# --------------------------------------------------------------------------------------------------
# check and score against references, on random advanced positions


def random_advanced_position(rng: random.Random) -> Position:
    """Any advanced position: characters right or wrong, arrows, reinforcements, face-up warriors anywhere."""
    n = rng.choice([2, 3, 4])
    players = COLOURS[:n]
    if rng.random() < 0.9:
        characters: list[str | None] = rng.sample(CHARACTERS, n)
    else:
        characters = [rng.choice([*CHARACTERS, None]) for _ in players]
    values = list(GOLD_VALUES)
    rng.shuffle(values)
    free = [c for c in REFERENCE_CELLS if c not in GOLD_CELLS]
    cells = rng.sample(free, rng.randint(0, len(free)))
    reveal = rng.random() < 0.1
    warriors = [
        Warrior(
            c, rng.choice(players), rng.choice([1, 1, 1, 2, 3, 4, 5]),
            face_up=reveal or rng.random() < 0.05,
            arrows=rng.choice([0] * 12 + [1, 1, 2]),
            reinforced=rng.random() < 0.06,
        )
        for c in cells
    ]  # fmt: skip
    slots = rng.sample(SLOTS, rng.randint(0, 30))
    return Position(
        players=players,
        variant="armadora-advanced",
        gold=tuple(Gold(c, v) for c, v in zip(GOLD_CELLS, values, strict=True)),
        warriors=tuple(warriors),
        palisades=frozenset(slots),
        characters=tuple(characters),
        powers_left=tuple(rng.choice([None, 0, 1, 2]) for _ in players) if rng.random() < 0.5 else (),
        reinforcements_left=tuple(rng.choice([None, 0, 1]) for _ in players) if rng.random() < 0.5 else (),
    )


def reference_advanced_problems(position: Position) -> set[tuple[str, frozenset[Cell]]]:
    """The advanced rules written out: each broken rule with the cells it names."""
    players, characters = position.players, position.characters
    out: set[tuple[str, frozenset[Cell]]] = set()
    if any(c is None for c in characters):
        out.add(("missing_character", frozenset()))
    if any(count > 1 for count in Counter(c for c in characters if c).values()):
        out.add(("character_twice", frozenset()))
    for colour, left in zip(players, position.powers_left, strict=False):
        character = characters[players.index(colour)]
        if left is not None and character and left > TOKENS[character]:
            out.add(("too_many_powers", frozenset()))
    elf = next((p for p, c in zip(players, characters, strict=True) if c == "elf"), None)
    struck = [w for w in position.warriors if w.arrows]
    if struck and elf is None:
        out.add(("arrow_without_elf", frozenset(w.cell for w in struck)))
    elif struck and elf is not None:
        own = frozenset(w.cell for w in struck if w.player == elf)
        if own:
            out.add(("arrow_on_elf", own))
        partner = frozenset(
            w.cell for w in struck if w.player != elf and team(players, w.player) == team(players, elf)
        )
        if partner:
            out.add(("arrow_on_partner", partner))
        left = position.powers_left[players.index(elf)] if position.powers_left else None
        total = sum(w.arrows for w in struck)
        if total > 2 or total + (left or 0) > 2:
            out.add(("too_many_arrows", frozenset(w.cell for w in struck)))
    for colour in players:
        mine = frozenset(w.cell for w in position.warriors if w.player == colour and w.reinforced)
        left = position.reinforcements_left[players.index(colour)] if position.reinforcements_left else None
        if len(mine) + (left or 0) > 1 and mine:
            out.add(("too_many_reinforcements", mine))
    for region in bfs_territories(position.palisades):
        here = frozenset(w.cell for w in position.warriors if w.reinforced and w.cell in region)
        if here and not full(position, region):
            out.add(("reinforcement_not_full", here))
        if len(here) > 1:
            out.add(("reinforcements_in_territory", here))
    if not all(w.face_up for w in position.warriors):
        goblin = next((p for p, c in zip(players, characters, strict=True) if c == "goblin"), None)
        stray = frozenset(w.cell for w in position.warriors if w.face_up and w.player != goblin)
        if stray:
            out.add(("face_up_not_goblin", stray))
        extra = frozenset(w.cell for w in position.warriors if w.face_up and w.player == goblin)
        if goblin is not None and extra:
            left = position.powers_left[players.index(goblin)] if position.powers_left else None
            if len(extra) + (left or 0) > 1:
                out.add(("too_many_face_up", extra))
    return out


def reference_totals(position: Position) -> dict[frozenset[Cell], dict[int, int]]:
    """Each territory's total per side: a warrior counts its value less its arrows, at least 0, plus 1 if
    reinforced."""
    out = {}
    for region in bfs_territories(position.palisades):
        totals: dict[int, int] = {}
        for w in position.warriors:
            if w.cell in region:
                assert w.value is not None
                counted = w.value - w.arrows
                if counted < 0:
                    counted = 0
                if w.reinforced:
                    counted += 1
                totals[team(position.players, w.player)] = (
                    totals.get(team(position.players, w.player), 0) + counted
                )
        out[region] = totals
    return out


def reference_scores(position: Position) -> dict[int, Fraction]:
    gold_at = {g.cell: g.value or 0 for g in position.gold}
    scores: dict[int, Fraction] = {}
    sides = 2 if len(position.players) == 4 else len(position.players)
    for region, totals in reference_totals(position).items():
        gold = sum(gold_at.get(c, 0) for c in region)
        best = max(totals.values(), default=0)
        winners = [s for s in range(sides) if totals.get(s, 0) == best]
        if best > 0 and gold:
            for s in winners:
                scores[s] = scores.get(s, Fraction(0)) + gold // len(winners)
    return {s: scores.get(s, Fraction(0)) for s in range(sides)}


def agree(position: Position) -> None:
    problems = {(p.code, frozenset(p.cells)) for p in check(position).problems if p.code in ADVANCED_CODES}
    assert problems == reference_advanced_problems(position), position.to_json()
    result = score(position)
    totals = reference_totals(position)
    sides = position.sides
    for t in result.territories:
        expected = totals[frozenset(t.cells)]
        assert dict(t.totals) == {side: expected.get(n, 0) for n, side in enumerate(sides)}
        assert {a.cell for a in t.adjustments} == {
            w.cell for w in position.warriors if w.cell in t.cells and (w.arrows or w.reinforced)
        }
    assert {side: Fraction(result.scores[side]) for side in sides} == {
        side: v for side, v in zip(sides, reference_scores(position).values(), strict=True)
    }


def advanced_positions(count: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    return [random_advanced_position(rng) for _ in range(count)]


def test_check_and_score_agree_with_the_references_on_random_advanced_positions() -> None:
    count = int(os.environ.get("ADVANCED_POSITIONS", "600"))
    for position in advanced_positions(count, seed=20):
        agree(position)


@pytest.mark.slow
def test_check_and_score_agree_on_ten_thousand_random_advanced_positions() -> None:
    positions = advanced_positions(10_000, seed=10_000)
    for position in positions:
        agree(position)
    problems = Counter(p.code for position in positions for p in check(position).problems)
    assert ADVANCED_CODES - {"advanced_in_base_game"} <= set(problems), problems  # every rule was exercised
