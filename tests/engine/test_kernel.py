"""The search kernel against the rules engine, on both backends: the compiled one and the fallback.

The kernel re-implements the rules on bit masks for speed; every test here compares it
with engine.walls, engine.game and engine.scoring, or the two backends with each other.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine.kernel_core as core
from engine import GOLD_CELLS, SLOTS, Build, GameState, Pass, PlaceWarrior, Position, check, playout, score
from engine.board import CELLS
from engine.encoding import decode, encode, kernel_state
from engine.game import shuffled_gold
from engine.kernel import BACKENDS, Kernel, load
from engine.knowledge import Knowledge
from engine.position import Gold, Warrior, sides_of
from engine.supply import supply_for

PLAYERS = {2: ("orange", "blue"), 3: ("orange", "blue", "green"), 4: ("orange", "green", "blue", "purple")}


def midgame(seed: int, players: int = 2, moves: int = 24) -> GameState:
    """A game some random moves in (no passes), seeded."""
    rng = random.Random(seed)
    state = GameState.new(PLAYERS[players], shuffled_gold(rng))
    for _ in range(moves):
        options = [m for m in state.warrior_moves()] + [
            Build((SLOTS[i],)) for i in state.walls.legal_slot_numbers
        ]
        state = state.play(rng.choice(options))
    return state


def full_state(kernel: Kernel, state: GameState) -> Any:
    """The kernel state of a game with every value known (the searcher knows its own; the rest set here)."""
    st = kernel_state(kernel, Knowledge.of(state, state.player))
    for i, w in enumerate(state.warriors):
        if w is not None and w[0] != state.to_move:
            core.place(st, w[0], i, w[1])
    for p, supply in enumerate(state.supplies):
        st[core.S_HIDDEN + p] = 0
        for v in range(5):
            st[core.S_HAND + 5 * p + v] = supply[v]
            st[core.S_POOL + 5 * p + v] = supply[v]
    return st


def position_of(st: Any, players: tuple[str, ...]) -> Position:
    """The position a kernel state stands for, read back from its masks."""
    warriors = []
    for i, cell in enumerate(CELLS):
        for p in range(len(players)):
            bits = [int(st[core.S_PLANES + 3 * p + k]) >> i & 1 for k in range(3)]
            if any(bits):
                warriors.append(Warrior(cell, players[p], bits[0] + 2 * bits[1] + 4 * bits[2]))
    gold = tuple(
        Gold(c, sum((int(st[core.S_GOLD + k]) >> c.number & 1) << k for k in range(3))) for c in GOLD_CELLS
    )
    walls = frozenset(SLOTS[i] for i in range(len(SLOTS)) if not core.slot_free(st, i))
    return Position(players, "armadora", gold, tuple(warriors), walls)


@pytest.mark.parametrize("seed", range(6))
def test_palisade_legality_matches_the_rules(kernel: Kernel, seed: int) -> None:
    state = midgame(seed, moves=40)
    st = full_state(kernel, state)
    legal = [i for i in range(len(SLOTS)) if kernel.core.slot_legal(st, i)]
    assert legal == list(state.walls.legal_slot_numbers)


@pytest.mark.parametrize(("seed", "players"), [(s, n) for s in range(4) for n in (2, 3, 4)])
def test_scores_and_rewards_match_the_rules(kernel: Kernel, seed: int, players: int) -> None:
    rng = random.Random(seed)
    final = playout(GameState.new(PLAYERS[players], shuffled_gold(rng)), rng)
    st = full_state(kernel, GameState.from_position(final.to_position()))
    sc, rew = kernel.ints(core.SCRATCH_SIZE), kernel.floats(4)
    kernel.core.rewards(st, sc, rew)
    result = score(final.to_position())
    sides = sides_of(PLAYERS[players])
    assert [int(sc[s]) for s in range(len(sides))] == [int(2 * result.scores[side]) for side in sides]
    first = result.ranking[0]
    assert [rew[s] for s in range(len(sides))] == [1 / len(first) if side in first else 0.0 for side in sides]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playout_ends_in_a_finished_legal_game(kernel: Kernel, players: int) -> None:
    state = midgame(players, players, moves=10)
    st = kernel_state(kernel, Knowledge.of(state, state.player))
    rng, values = kernel.ints(1), kernel.ints(16)
    kernel.core.seed_rng(rng, players)
    kernel.core.determinize(st, rng, values)
    turns = kernel.core.playout(st, rng)
    assert turns > 0 and kernel.core.is_over(st)
    position = position_of(st, PLAYERS[players])
    assert check(position).legal, check(position).problems
    placed = {w.cell: w.player for w in position.warriors}
    assert all(placed[c] == state.players[w[0]] for c, w in zip(CELLS, state.warriors, strict=True) if w)
    for p in range(players):
        hand = [int(st[core.S_HAND + 5 * p + v]) for v in range(5)]
        on_board = sum(1 for w in position.warriors if w.player == PLAYERS[players][p])
        assert min(hand) >= 0 and sum(hand) + on_board == sum(supply_for(players))


def test_determinize_draws_hidden_values_from_the_pool(kernel: Kernel) -> None:
    state = midgame(3, moves=30)
    me = state.to_move
    st = kernel_state(kernel, Knowledge.of(state, state.player))
    hidden = {p: int(st[core.S_HIDDEN + p]) for p in range(2)}
    assert hidden[me] == 0 and hidden[1 - me] != 0
    rng, values = kernel.ints(1), kernel.ints(16)
    kernel.core.seed_rng(rng, 9)
    drawn = set()
    for _ in range(20):
        work = kernel.ints(core.STATE_SIZE)
        kernel.core.copy_state(st, work)
        kernel.core.determinize(work, rng, values)
        board = position_of(work, state.players)
        theirs = [w.value for w in board.warriors if w.player == state.players[1 - me]]
        assert len(theirs) == hidden[1 - me].bit_count()
        hand = [int(work[core.S_HAND + 5 * (1 - me) + v]) for v in range(5)]
        counts = [theirs.count(v + 1) + hand[v] for v in range(5)]
        assert counts == [11, 2, 1, 1, 1]  # hidden warriors and hand make up the full supply
        mine = [w.value for w in board.warriors if w.player == state.players[me]]
        assert mine == [w[1] for w in state.warriors if w is not None and w[0] == me]
        drawn.add(tuple(theirs))
    assert len(drawn) > 1


@pytest.mark.parametrize("seed", range(3))
def test_full_moves_match_the_rules(kernel: Kernel, seed: int) -> None:
    state = midgame(seed, moves=20)
    st = kernel_state(kernel, Knowledge.of(state, state.player))
    moves = kernel.ints(3 * 512)
    n = kernel.core.list_moves(st, moves)
    listed = [decode(int(moves[3 * m]), int(moves[3 * m + 1]), int(moves[3 * m + 2])) for m in range(n)]
    expected = [m for m in state.legal_moves() if not (isinstance(m, Build) and len(m.slots) == 2)]
    assert sorted(map(str, listed)) == sorted(map(str, expected))


def test_greedy_and_flat_monte_carlo_choose_legal_moves(kernel: Kernel) -> None:
    state = midgame(5, moves=16)
    st = kernel_state(kernel, Knowledge.of(state, state.player))
    work, sc, rng, values = (
        kernel.ints(core.STATE_SIZE),
        kernel.ints(core.SCRATCH_SIZE),
        kernel.ints(1),
        kernel.ints(16),
    )
    moves, out, dets = kernel.ints(3 * 512), kernel.ints(3), kernel.ints(2 * core.STATE_SIZE)
    kernel.core.seed_rng(rng, 3)
    kernel.core.greedy(st, dets, 2, work, sc, rng, values, moves, out)
    assert state.why_illegal(decode(int(out[0]), int(out[1]), int(out[2]))) is None
    n = kernel.core.list_moves(st, moves)
    visits, wins = kernel.ints(n), kernel.floats(n)
    kernel.core.flat_monte_carlo(
        st, work, moves, n, visits, wins, 0, rng, values, sc, kernel.floats(4), 2 * n
    )
    assert [int(v) for v in visits] == [2] * n
    assert all(0 <= wins[m] <= 2 for m in range(n))


def test_the_backends_agree_move_for_move() -> None:
    pytest.importorskip("numba")
    state = midgame(11, moves=12)
    out = []
    for name in BACKENDS:
        k = load(name)
        st = kernel_state(k, Knowledge.of(state, state.player))
        work, sc, rng, values = k.ints(core.STATE_SIZE), k.ints(core.SCRATCH_SIZE), k.ints(1), k.ints(16)
        k.core.seed_rng(rng, 42)
        mean = k.core.playouts(st, work, rng, values, sc, k.floats(4), 30)
        tree, wins, counters = k.ints(2000 * core.NODE_FIELDS), k.floats(2000), k.ints(3)
        order = k.ints(200 * core.NUM_ACTIONS)
        k.core.tree_reset(tree, counters)
        k.core.ismcts(st, work, tree, wins, counters, order, rng, values, k.floats(core.NUM_ACTIONS),
                      k.ints(core.MAX_DEPTH), sc, k.floats(4), 150)  # fmt: skip
        out.append((mean, [int(x) for x in tree[: 300 * core.NODE_FIELDS]], [float(x) for x in wins[:300]]))
    assert out[0] == out[1]


def test_kernel_moves_are_the_rules_moves() -> None:
    for move in (PlaceWarrior(CELLS[9], 4), Build((SLOTS[3],)), Build((SLOTS[3], SLOTS[50])), Pass()):
        assert decode(*encode(move)) == move


def test_the_kernel_state_holds_no_value_of_another_player(kernel: Kernel) -> None:
    """Two games that differ only in blue's values give orange the very same kernel state."""
    state = midgame(8, moves=30)
    me = state.to_move
    other = GameState.from_position(state.to_position(), to_move=state.player)
    blue = [i for i, w in enumerate(state.warriors) if w is not None and w[0] != me]
    values = [state.warriors[i][1] for i in blue]  # type: ignore[index]
    assert len(set(values)) > 1
    changed = list(other.warriors)
    for i, value in zip(blue, values[1:] + values[:1], strict=True):
        changed[i] = (1 - me, value)
    other.warriors = tuple(changed)
    assert other.warriors != state.warriors
    first = [int(x) for x in kernel_state(kernel, Knowledge.of(state, state.player))]
    second = [int(x) for x in kernel_state(kernel, Knowledge.of(other, other.player))]
    assert first == second
