"""Property tests of the rules engine against small reference implementations written here.

The references work on :class:`Cell` and :class:`Slot` values with plain sets and a
breadth-first search, never with the engine's bit masks, lattice labels or floods,
so that a mistake in one of the engine's shortcuts shows up as a disagreement.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from itertools import pairwise
from typing import Any, NamedTuple
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import REFERENCE_CELLS, bfs_territories, cells_in, reference_neighbours, reference_slot

from engine.board import (
    CELLS,
    COLS,
    GOLD_CELLS,
    GOLD_VALUES,
    MIN_TERRITORY,
    NUM_SLOTS,
    ROWS,
    SLOTS,
    TOTAL_PALISADES,
    Cell,
    Slot,
)
from engine.check import check
from engine.drawing import draw as draw_position
from engine.game import Build, GameState, Move, Pass, PlaceWarrior, playout, random_move, shuffled_gold
from engine.position import VARIANTS, Gold, Position, Warrior
from engine.scoring import Score, rank, score
from engine.supply import supply_for
from engine.walls import EMPTY_WALLS, Walls

COLOURS = ("orange", "green", "blue", "purple")
GAME_VARIANTS = ("armadora", "nuggets")
TOTAL_GOLD = sum(GOLD_VALUES)


def reference_is_legal(palisades: frozenset[Slot], slot: Slot) -> bool:
    """The rule as written: a free line, a palisade left, and no territory under 4 cells afterwards."""
    if slot in palisades or len(palisades) >= TOTAL_PALISADES:
        return False
    return all(len(t) >= MIN_TERRITORY for t in bfs_territories(palisades | {slot}))


def reference_creates_no_small_territory(palisades: frozenset[Slot], slot: Slot) -> bool:
    """The rule on any board, even one that already has a small territory: no new one under 4 cells."""
    if slot in palisades or len(palisades) >= TOTAL_PALISADES:
        return False
    before = set(bfs_territories(palisades))
    return all(len(t) >= MIN_TERRITORY for t in bfs_territories(palisades | {slot}) if t not in before)


def reference_legal_pairs(palisades: frozenset[Slot]) -> set[tuple[int, int]]:
    """Every pair of free lines whose two palisades leave no territory under 4 cells, by brute force."""
    if len(palisades) + 2 > TOTAL_PALISADES:
        return set()
    free = [i for i, slot in enumerate(SLOTS) if slot not in palisades]
    pairs = set()
    for n, first in enumerate(free):
        for second in free[n + 1 :]:
            after = palisades | {SLOTS[first], SLOTS[second]}
            if all(len(t) >= MIN_TERRITORY for t in bfs_territories(after)):
                pairs.add((first, second))
    return pairs


# --------------------------------------------------------------------------------------------------
# Strategies


any_palisades = st.frozensets(st.sampled_from(SLOTS), max_size=NUM_SLOTS)
few_palisades = st.frozensets(st.sampled_from(SLOTS), max_size=TOTAL_PALISADES)


@st.composite
def legal_boards(
    draw: st.DrawFn, min_count: int = 0, max_count: int = TOTAL_PALISADES
) -> tuple[list[Slot], Walls]:
    """A board reachable in a game: palisades added one by one in a random order, each legal by the reference.

    Returns the palisades in the order they went up and the engine's walls built in that order.
    """
    order = draw(st.permutations(range(NUM_SLOTS)))
    target = draw(st.integers(min_count, max_count))
    placed: list[Slot] = []
    standing: frozenset[Slot] = frozenset()
    for i in order:
        if len(placed) >= target:
            break
        if reference_is_legal(standing, SLOTS[i]):
            placed.append(SLOTS[i])
            standing = standing | {SLOTS[i]}
    walls = EMPTY_WALLS
    for slot in placed:
        walls = walls.add(slot)
    return placed, walls


def sides_for(players: tuple[str, ...]) -> tuple[list[str], Callable[[str], str]]:
    """The scoring sides, written out: in a 4-player game players 1+3 and 2+4 are teams."""
    if len(players) == 4:
        names = [f"{players[0]}+{players[2]}", f"{players[1]}+{players[3]}"]
        return names, lambda colour: names[players.index(colour) % 2]
    return list(players), lambda colour: colour


@st.composite
def random_scored_positions(draw: st.DrawFn) -> Position:
    """A fully revealed position with any palisades and warriors of any value: many ties and splits."""
    n = draw(st.sampled_from([2, 3, 4]))
    players = COLOURS[:n]
    variant = draw(st.sampled_from(GAME_VARIANTS))
    values = draw(st.permutations(GOLD_VALUES))
    free_cells = [c for c in REFERENCE_CELLS if c not in GOLD_CELLS]
    cells = draw(st.lists(st.sampled_from(free_cells), unique=True, max_size=len(free_cells)))
    warriors = [Warrior(c, draw(st.sampled_from(players)), draw(st.integers(1, 5))) for c in cells]
    palisades = draw(few_palisades)
    return Position(
        players=players,
        variant=variant,
        gold=tuple(Gold(c, v) for c, v in zip(GOLD_CELLS, values, strict=True)),
        warriors=tuple(warriors),
        palisades=palisades,
    )


@st.composite
def finished_games(draw: st.DrawFn) -> Position:
    """The last position of a random game played to the end by :func:`playout`."""
    n = draw(st.sampled_from([2, 3, 4]))
    variant = draw(st.sampled_from(GAME_VARIANTS))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    state = playout(GameState.new(COLOURS[:n], shuffled_gold(rng), variant), rng)
    return state.to_position()


colour_keys = st.from_regex(r"[a-z][a-z0-9_-]{0,23}", fullmatch=True)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def random_positions(draw: st.DrawFn) -> Position:
    """Any valid document: any colours, cells, values (or None), palisades and unknown extra keys."""
    players = tuple(draw(st.lists(colour_keys, min_size=2, max_size=4, unique=True)))
    cells = draw(st.permutations(REFERENCE_CELLS))
    n_gold = draw(st.integers(0, 10))
    n_warriors = draw(st.integers(0, 40 - n_gold))
    gold = [Gold(c, draw(st.none() | st.integers(3, 7))) for c in cells[:n_gold]]
    owners = st.sampled_from(players) | st.text(min_size=1, max_size=8)
    warriors = [
        Warrior(c, draw(owners), draw(st.none() | st.integers(1, 5)))
        for c in cells[n_gold : n_gold + n_warriors]
    ]
    extra_keys = st.text(max_size=8).filter(
        lambda k: k not in {"variant", "players", "gold", "warriors", "palisades"}
    )
    return Position(
        players=players,
        variant=draw(st.sampled_from(VARIANTS)),
        gold=tuple(gold),
        warriors=tuple(warriors),
        palisades=draw(any_palisades),
        extra=draw(st.dictionaries(extra_keys, json_values, max_size=3)),
    )


# --------------------------------------------------------------------------------------------------
# Territories


def test_slots_are_exactly_the_interior_lines() -> None:
    expected = {reference_slot(c, n) for c in REFERENCE_CELLS for n in reference_neighbours(c)}
    assert set(SLOTS) == expected
    assert len(SLOTS) == 7 * 5 + 4 * 8 == NUM_SLOTS
    assert (ROWS, COLS) == (5, 8)
    assert list(CELLS) == REFERENCE_CELLS


@settings(max_examples=250, deadline=None)
@given(st.one_of(any_palisades, few_palisades))
def test_territories_partition_the_board_and_match_bfs(palisades: frozenset[Slot]) -> None:
    walls = Walls.from_slots(palisades)
    masks = walls.territories
    assert all(masks), "an empty territory"
    for n, first in enumerate(masks):
        for second in masks[n + 1 :]:
            assert first & second == 0, "two territories share a cell"
    union = 0
    for mask in masks:
        union |= mask
    assert union == (1 << 40) - 1
    lowest = [(m & -m).bit_length() for m in masks]
    assert lowest == sorted(lowest), "territories not ordered by their lowest cell"

    expected = bfs_territories(palisades)
    assert [cells_in(m) for m in masks] == expected
    assert [frozenset(cells) for cells in walls.territory_cells()] == expected
    for region in expected:
        for cell in region:
            assert cells_in(walls.territory_of[cell.row * 8 + cell.col]) == region


@settings(max_examples=250, deadline=None)
@given(st.permutations(SLOTS), st.integers(0, NUM_SLOTS - 1))
def test_insertion_order_does_not_matter(order: list[Slot], count: int) -> None:
    chosen = order[:count]
    forwards = Walls.from_slots(chosen)
    backwards = Walls.from_slots(reversed(chosen))
    by_index = Walls(sum(slot.bit for slot in chosen))
    assert forwards == backwards == by_index
    assert forwards.territories == backwards.territories == by_index.territories
    free = [i for i in range(NUM_SLOTS) if i not in forwards]
    assert [forwards.splits(i) for i in free] == [backwards.splits(i) for i in free]


@settings(max_examples=300, deadline=None)
@given(st.one_of(any_palisades, few_palisades), st.sampled_from(SLOTS))
def test_adding_a_palisade_never_joins_territories(palisades: frozenset[Slot], slot: Slot) -> None:
    palisades = palisades - {slot}
    walls = Walls.from_slots(palisades)
    before = walls.territories
    splits = walls.splits(slot)
    after = walls.add(slot).territories
    for region in after:
        assert any(region & ~old == 0 for old in before), f"{slot.name} joined territories"
    assert len(after) - len(before) in (0, 1)
    assert splits == (len(after) == len(before) + 1)
    assert len(bfs_territories(palisades | {slot})) == len(after)


def test_adding_a_standing_palisade_is_refused() -> None:
    walls = Walls.from_slots([SLOTS[0]])
    try:
        walls.add(SLOTS[0])
    except ValueError:
        pass
    else:
        raise AssertionError("a second palisade went up on the same line")


# --------------------------------------------------------------------------------------------------
# Legality of palisades


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(legal_boards())
def test_is_legal_matches_brute_force_on_reachable_boards(board: tuple[list[Slot], Walls]) -> None:
    placed, walls = board
    standing = frozenset(placed)
    assert walls.count == len(placed)
    assert all(len(t) >= MIN_TERRITORY for t in bfs_territories(standing))
    expected = [i for i, slot in enumerate(SLOTS) if reference_is_legal(standing, slot)]
    got = [i for i in range(NUM_SLOTS) if walls.is_legal(i)]
    assert got == expected, {SLOTS[i].name for i in set(got) ^ set(expected)}
    assert list(walls.legal_slot_numbers) == expected
    assert list(walls.legal_slots()) == [SLOTS[i] for i in expected]
    assert [i for i in range(NUM_SLOTS) if walls.is_legal(SLOTS[i])] == got


@settings(max_examples=150, deadline=None)
@given(few_palisades, st.sampled_from(SLOTS))
def test_is_legal_on_any_board_refuses_only_new_small_territories(
    palisades: frozenset[Slot], slot: Slot
) -> None:
    walls = Walls.from_slots(palisades)
    assert walls.is_legal(slot) == reference_creates_no_small_territory(palisades, slot)


@settings(max_examples=50, deadline=None)
@given(legal_boards(min_count=TOTAL_PALISADES))
def test_no_palisade_once_the_box_is_empty(board: tuple[list[Slot], Walls]) -> None:
    _, walls = board
    if walls.count == TOTAL_PALISADES:
        assert walls.legal_slot_numbers == ()
        assert walls.legal_pairs() == ()
    else:  # the board filled up before the box emptied
        assert walls.legal_slot_numbers == ()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(legal_boards(min_count=8))
def test_legal_pairs_match_brute_force(board: tuple[list[Slot], Walls]) -> None:
    placed, walls = board
    expected = reference_legal_pairs(frozenset(placed))
    got = walls.legal_pairs()
    assert len(got) == len(set(got)), "a pair listed twice"
    assert all(a < b for a, b in got)
    assert set(got) == expected, sorted(set(got) ^ expected)[:5]


@settings(max_examples=10, deadline=None)
@given(st.integers(TOTAL_PALISADES - 3, TOTAL_PALISADES - 1), st.integers(0, 2**32 - 1))
def test_legal_pairs_respect_the_palisade_count(count: int, seed: int) -> None:
    rng = random.Random(seed)
    walls = EMPTY_WALLS
    while walls.count < count and walls.legal_slot_numbers:
        walls = walls.add(rng.choice(walls.legal_slot_numbers))
    placed = frozenset(walls)
    assert set(walls.legal_pairs()) == reference_legal_pairs(placed)
    if walls.count == TOTAL_PALISADES - 1:
        assert walls.legal_pairs() == ()


# --------------------------------------------------------------------------------------------------
# Scoring


class RefTerritory(NamedTuple):
    gold: int
    totals: dict[str, int]
    winners: tuple[str, ...]
    share: Fraction
    lost: Fraction


class RefScore(NamedTuple):
    territories: dict[frozenset[Cell], RefTerritory]
    scores: dict[str, Fraction]
    ranking: list[frozenset[str]]
    unclaimed: int


def reference_score(position: Position) -> RefScore:
    """The scoring rules written out: the strongest side of a territory takes its gold, ties share it.

    A tie shares the gold in whole points (base game) or half points (Nuggets); the rest is lost.
    Places go by total, then by the best single winnings, then the next best, and so on.
    """
    sides, side_of = sides_for(position.players)
    gold_at = {g.cell: g.value for g in position.gold}
    warrior_at = {w.cell: w for w in position.warriors}
    unit = Fraction(1, 2) if position.variant == "nuggets" else Fraction(1)
    territories = {}
    winnings: dict[str, list[Fraction]] = {side: [] for side in sides}
    unclaimed = 0
    for region in bfs_territories(position.palisades):
        gold = sum(gold_at.get(cell) or 0 for cell in region)
        totals = dict.fromkeys(sides, 0)
        for cell in region:
            if cell in warrior_at:
                warrior = warrior_at[cell]
                totals[side_of(warrior.player)] += warrior.value or 0
        best = max(totals.values())
        winners = tuple(s for s in sides if totals[s] == best) if best > 0 and gold > 0 else ()
        share = lost = Fraction(0)
        if winners:
            exact = Fraction(gold, len(winners))
            share = (exact // unit) * unit
            lost = gold - share * len(winners)
            for side in winners:
                winnings[side].append(share)
        else:
            unclaimed += gold
        territories[region] = RefTerritory(gold, totals, winners, share, lost)
    scores = {side: sum(winnings[side], Fraction(0)) for side in sides}
    keys = {side: (scores[side], sorted(winnings[side], reverse=True)) for side in sides}
    ranking: list[frozenset[str]] = []
    for key in sorted({(t, tuple(w)) for t, w in keys.values()}, reverse=True):
        ranking.append(frozenset(s for s in sides if (keys[s][0], tuple(keys[s][1])) == key))
    return RefScore(territories, scores, ranking, unclaimed)


def assert_gold_accounted(result: Score, half_points: bool) -> None:
    """Every piece of gold is scored, lost to a tie, or unclaimed; never more than the 40 in the game."""
    scored = sum(Fraction(v) for v in result.scores.values())
    claimed = sum(Fraction(t.gold) - Fraction(t.lost) for t in result.territories if t.winners)
    lost = sum(Fraction(t.lost) for t in result.territories)
    assert scored <= TOTAL_GOLD
    assert scored == claimed
    assert scored + lost + result.unclaimed == TOTAL_GOLD
    assert sum(t.gold for t in result.territories) == TOTAL_GOLD
    for t in result.territories:
        if t.winners:
            assert Fraction(t.share) * len(t.winners) + Fraction(t.lost) == t.gold
            assert 0 <= Fraction(t.lost) < len(t.winners) * (Fraction(1, 2) if half_points else 1)
        else:
            assert t.share == 0 and t.lost == 0
    step = Fraction(1, 2) if half_points else Fraction(1)
    for value in [*result.scores.values(), *(t.share for t in result.territories)]:
        assert Fraction(value) % step == 0, f"{value} is not a multiple of {step}"


def assert_matches_reference(result: Score, position: Position) -> None:
    expected = reference_score(position)
    got = {frozenset(t.cells): t for t in result.territories}
    assert set(got) == set(expected.territories)
    for cells, ref in expected.territories.items():
        t = got[cells]
        assert (t.gold, dict(t.totals), t.winners) == (ref.gold, ref.totals, ref.winners), sorted(cells)
        assert (Fraction(t.share), Fraction(t.lost)) == (ref.share, ref.lost), sorted(cells)
    assert {side: Fraction(v) for side, v in result.scores.items()} == expected.scores
    assert [frozenset(place) for place in result.ranking] == expected.ranking
    assert result.unclaimed == expected.unclaimed
    for side, takes in result.winnings.items():
        assert list(takes) == sorted(takes, reverse=True)
        assert sum(Fraction(x) for x in takes) == expected.scores[side]


@settings(max_examples=150, deadline=None)
@given(st.one_of(finished_games(), random_scored_positions()))
def test_score_matches_reference_and_accounts_for_all_gold(position: Position) -> None:
    result = score(position)
    assert_gold_accounted(result, half_points=position.variant == "nuggets")
    assert_matches_reference(result, position)


@settings(max_examples=40, deadline=None)
@given(finished_games())
def test_four_player_games_score_teams(position: Position) -> None:
    result = score(position)
    if len(position.players) == 4:
        a, b, c, d = position.players
        assert set(result.scores) == {f"{a}+{c}", f"{b}+{d}"}
    else:
        assert set(result.scores) == set(position.players)


@settings(max_examples=80, deadline=None)
@given(random_scored_positions())
def test_nuggets_halves_where_the_base_game_loses(position: Position) -> None:
    base = score(dataclasses.replace(position, variant="armadora"))
    nuggets = score(dataclasses.replace(position, variant="nuggets"))
    for b, n in zip(base.territories, nuggets.territories, strict=True):
        assert b.winners == n.winners
        assert Fraction(b.share) <= Fraction(n.share) <= Fraction(b.share) + Fraction(1, 2)
        if len(b.winners) == 1:
            assert b.share == n.share == b.gold
    assert all(isinstance(v, int) for v in base.scores.values())


def reference_places(totals: dict[str, int], winnings: dict[str, list[int]]) -> list[set[str]]:
    """Places by total; a tie goes to the better best single winnings, then the next best, and so on."""

    def ahead(x: str, y: str) -> bool:
        if totals[x] != totals[y]:
            return totals[x] > totals[y]
        a, b = sorted(winnings[x], reverse=True), sorted(winnings[y], reverse=True)
        for i in range(max(len(a), len(b))):
            left, right = (a[i] if i < len(a) else 0), (b[i] if i < len(b) else 0)
            if left != right:
                return left > right
        return False

    remaining = set(totals)
    places = []
    while remaining:
        best = {s for s in remaining if not any(ahead(o, s) for o in remaining)}
        places.append(best)
        remaining -= best
    return places


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(1, 6), max_size=4), min_size=2, max_size=4))
def test_rank_breaks_ties_on_the_best_single_winnings(takes: list[list[int]]) -> None:
    sides = tuple("abcd"[: len(takes)])
    winnings = {s: sorted(t, reverse=True) for s, t in zip(sides, takes, strict=True)}
    totals = {s: sum(w) for s, w in winnings.items()}
    places, why = rank(sides, [totals[s] for s in sides], [winnings[s] for s in sides])
    assert [set(place) for place in places] == reference_places(totals, winnings)
    tied_totals = [t for t in set(totals.values()) if list(totals.values()).count(t) > 1]
    assert len(why) == len(tied_totals)


# --------------------------------------------------------------------------------------------------
# Random games


def max_moves(players: int) -> int:
    """No game lasts longer: each move but a pass uses a warrior or a palisade; each player passes once."""
    return min(players * sum(supply_for(players)), 32) + TOTAL_PALISADES + players


def assert_state_consistent(state: GameState) -> None:
    """The state matches a real board: check() passes and every warrior came from its owner's supply."""
    position = state.to_position()
    report = check(position)
    assert report.legal, f"{report.to_json()}\n{draw_position(position)}"
    full = supply_for(len(state.players))
    occupied = 0
    for p in range(len(state.players)):
        placed = Counter(w[1] for w in state.warriors if w is not None and w[0] == p)
        assert tuple(state.supplies[p][v - 1] + placed[v] for v in range(1, 6)) == full
    for i, w in enumerate(state.warriors):
        if w is not None:
            occupied |= 1 << i
    assert occupied == state.occupied
    assert state.walls.count <= TOTAL_PALISADES


def assert_step(before: GameState, move: Move, after: GameState) -> None:
    """One move was legal and did what it says."""
    assert before.why_illegal(move) is None, (move, before.why_illegal(move))
    assert not before.is_over
    p = before.to_move
    if isinstance(move, Build):
        assert 1 <= len(move.slots) <= 2
        if before.variant == "nuggets" and before.walls.legal_pairs():
            assert len(move.slots) == 2, f"a single palisade while pairs fit: {move}"
        assert after.walls.mask == before.walls.mask | sum(slot.bit for slot in move.slots)
        assert after.walls.count == before.walls.count + len(move.slots)
    elif isinstance(move, PlaceWarrior):
        assert after.warriors[move.cell.row * 8 + move.cell.col] == (p, move.value)
        assert after.walls == before.walls
    else:
        assert after.passed == before.passed | 1 << p
    if not after.is_over:
        assert not after.passed >> after.to_move & 1, "a player who passed is to move"
    assert_state_consistent(after)


def new_game(seed: int, players: int, variant: str) -> tuple[GameState, random.Random]:
    rng = random.Random(seed)
    return GameState.new(COLOURS[:players], shuffled_gold(rng), variant), rng


seeds = st.integers(0, 2**32 - 1)
player_counts = st.sampled_from([2, 3, 4])
game_variants = st.sampled_from(GAME_VARIANTS)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(seeds, player_counts, game_variants)
def test_random_move_games_stay_legal_and_end(seed: int, players: int, variant: str) -> None:
    state, rng = new_game(seed, players, variant)
    for _ in range(max_moves(players)):
        if state.is_over:
            break
        legal = state.legal_moves()
        assert len(legal) == len(set(legal)), "a move listed twice"
        move = random_move(state, rng)
        assert move in legal
        after = state.play(move)
        assert_step(state, move, after)
        if not after.is_over:
            passed = [c for i, c in enumerate(after.players) if after.passed >> i & 1]
            assert GameState.from_position(after.to_position(), after.player, passed) == after
        state = after
    assert state.is_over
    assert state.legal_moves() == []
    assert_gold_accounted(state.score(), half_points=variant == "nuggets")


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(seeds, player_counts, game_variants)
def test_long_random_games_stay_legal_and_end(seed: int, players: int, variant: str) -> None:
    """random_move, except that nobody passes while another move is left: games run to a full board."""
    state, rng = new_game(seed, players, variant)
    for _ in range(max_moves(players)):
        if state.is_over:
            break
        legal = state.legal_moves()
        move = random_move(state, rng)
        while isinstance(move, Pass) and len(legal) > 1:
            move = random_move(state, rng)
        assert move in legal
        after = state.play(move)
        assert_step(state, move, after)
        state = after
    assert state.is_over
    assert state.walls.legal_slot_numbers == ()
    assert_gold_accounted(state.score(), half_points=variant == "nuggets")


@settings(max_examples=60, deadline=None)
@given(seeds, player_counts, game_variants)
def test_playout_plays_only_legal_moves_and_ends(seed: int, players: int, variant: str) -> None:
    start, rng = new_game(seed, players, variant)
    steps: list[tuple[GameState, Move, GameState]] = []
    apply = GameState._apply

    def recording(self: GameState, move: Move) -> GameState:
        after = apply(self, move)
        steps.append((self, move, after))
        assert len(steps) <= max_moves(players), "the playout does not end"
        return after

    with mock.patch.object(GameState, "_apply", recording):
        final = playout(start, rng)
    assert steps and steps[0][0] is start and steps[-1][2] is final
    for before, move, after in steps:
        assert_step(before, move, after)
        assert before.play(move) == after
    for (_, _, after), (before, _, _) in pairwise(steps):
        assert after is before
    assert final.is_over
    # Playout passes only when nothing else is left.
    assert final.walls.legal_slot_numbers == ()
    for p in range(players):
        assert sum(final.supplies[p]) == 0 or final.empty_cells == 0
    again, rng2 = new_game(seed, players, variant)
    assert playout(again, rng2) == final, "playout is not reproducible from its seed"


# --------------------------------------------------------------------------------------------------
# Position JSON


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(random_positions())
def test_position_json_round_trip(position: Position) -> None:
    doc: dict[str, Any] = position.to_json()
    again = Position.from_json(doc)
    assert again == position
    assert dict(again.extra) == dict(position.extra)
    assert again.to_json() == doc
    assert Position.loads(position.dumps()) == position
    indices = [SLOTS.index(Slot.between(*pair)) for pair in doc["palisades"]]
    assert indices == sorted(indices)
    assert all(a < b for a, b in doc["palisades"])
