"""The search kernel in the advanced game: scoring, moves and actions against the rules, playouts,
the backends in step, and what the searcher may know."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_kernel import PLAYERS, full_state

import engine.kernel_core as core
from engine.board import CELLS, OFF_GOLD_CELLS, SLOTS, Cell, Slot
from engine.encoding import action_move, decode, encode, kernel_state
from engine.game import (
    POWERS,
    Arrow,
    Build,
    ExtraPalisade,
    ExtraWarrior,
    GameState,
    Pass,
    Peek,
    PlaceWarrior,
    Reinforce,
    playout,
    random_move,
    shuffled_gold,
)
from engine.kernel import BACKENDS, Kernel, load
from engine.knowledge import Knowledge
from engine.position import CHARACTERS, sides_of
from engine.scoring import score


def advanced_game(
    seed: int, players: int = 2, moves: int = 30, characters: tuple[str, ...] = ()
) -> GameState:
    """An advanced game some random moves in (no passes), seeded; the characters dealt at random."""
    rng = random.Random(seed)
    dealt = characters or tuple(rng.sample(CHARACTERS, players))
    state = GameState.new(PLAYERS[players], shuffled_gold(rng), "armadora-advanced", dealt)
    for _ in range(moves):
        move = random_move(state, rng)
        while move.__class__.__name__ == "Pass":
            move = random_move(state, rng)
        state = state.play(move)
    return state


@pytest.mark.parametrize(("seed", "players"), [(s, n) for s in range(5) for n in (2, 3, 4)])
def test_advanced_scores_match_the_rules(kernel: Kernel, seed: int, players: int) -> None:
    rng = random.Random(seed)
    start = GameState.new(
        PLAYERS[players], shuffled_gold(rng), "armadora-advanced", rng.sample(CHARACTERS, players)
    )
    final = playout(start, rng)
    position = final.to_position()
    st = full_state(kernel, GameState.from_position(position))
    sc, rew = kernel.ints(core.SCRATCH_SIZE), kernel.floats(4)
    kernel.core.rewards(st, sc, rew)
    result = score(position)
    sides = sides_of(PLAYERS[players])
    assert [int(sc[s]) for s in range(len(sides))] == [int(2 * result.scores[side]) for side in sides]


def test_some_advanced_game_has_arrows_and_reinforcements() -> None:
    """The scoring test above would prove little if its games had none."""
    finals = []
    for seed in range(5):
        rng = random.Random(seed)
        chars = rng.sample(CHARACTERS, 2)
        finals.append(playout(GameState.new(PLAYERS[2], shuffled_gold(rng), "armadora-advanced", chars), rng))
    assert any(f.arrows for f in finals) and all(f.reinforced for f in finals)


@pytest.mark.parametrize("seed", range(8))
def test_advanced_full_moves_match_the_rules(kernel: Kernel, seed: int) -> None:
    state = advanced_game(seed, moves=26 + seed)
    st = kernel_state(kernel, Knowledge.of(state, state.player))
    moves = kernel.ints(3 * 512)
    n = kernel.core.list_moves(st, moves)
    listed = [decode(int(moves[3 * m]), int(moves[3 * m + 1]), int(moves[3 * m + 2])) for m in range(n)]
    expected = [
        m
        for m in state.legal_moves()
        if not (isinstance(m, Build) and len(m.slots) == 2) and not isinstance(m, Peek)
    ]
    assert sorted(map(str, listed)) == sorted(map(str, expected))


@pytest.mark.parametrize(("seed", "character"), [(s, c) for s in range(3) for c in CHARACTERS])
def test_tree_actions_for_powers_and_reinforcements_match_the_rules(
    kernel: Kernel, seed: int, character: str
) -> None:
    others = [c for c in CHARACTERS if c != character]
    state = advanced_game(seed, moves=28, characters=(character, others[seed % 3]))
    while state.player != "orange" or state.power_used:
        state = state.play(next(m for m in state.legal_moves() if not isinstance(m, POWERS)))
    knowledge = Knowledge.of(state, "orange")
    st = kernel_state(kernel, knowledge)
    rng, values = kernel.ints(1), kernel.ints(16)
    kernel.core.seed_rng(rng, seed)
    kernel.core.determinize(st, rng, values)
    acts = kernel.ints(core.NUM_ACTIONS)
    n = kernel.core.list_actions(st, acts, 0)
    extra = {action_move(int(a), -1 if not core.A_GOBLIN <= a < core.A_SEEN else core.A_VALUE + 1)
             for a in list(acts)[:n] if a >= core.A_REINF}  # fmt: skip
    rules = {m for m in state.legal_moves() if isinstance(m, Reinforce | Arrow | ExtraPalisade)}
    rules |= {m for m in state.legal_moves() if isinstance(m, Peek) and not knowledge.known & m.cell.bit}
    rules |= {ExtraWarrior(m.cell, 1) for m in state.legal_moves() if isinstance(m, ExtraWarrior)}
    assert extra == rules


@pytest.mark.parametrize("players", [2, 3, 4])
def test_advanced_playouts_end_with_the_tokens_in_bounds(kernel: Kernel, players: int) -> None:
    state = advanced_game(players, players, moves=12)
    st = kernel_state(kernel, Knowledge.of(state, state.player))
    rng, values = kernel.ints(1), kernel.ints(16)
    kernel.core.seed_rng(rng, players)
    kernel.core.determinize(st, rng, values)
    assert kernel.core.playout(st, rng) > 0 and kernel.core.is_over(st)
    arrows = core.popcount(int(st[core.S_ARROW1])) + core.popcount(int(st[core.S_ARROW2]))
    assert arrows <= 2 and int(st[core.S_ARROW2]) & ~int(st[core.S_ARROW1]) == 0
    for p in range(players):
        assert int(st[core.S_POWERS + p]) >= 0 and 0 <= int(st[core.S_REINF_LEFT + p]) <= 1
    assert core.popcount(int(st[core.S_REINF])) <= players


def test_the_backends_agree_on_an_advanced_search() -> None:
    pytest.importorskip("numba")
    state = advanced_game(4, moves=16, characters=("mage", "elf"))
    while state.player != "orange":
        state = state.play(next(m for m in state.legal_moves() if not isinstance(m, POWERS)))
    assert any(isinstance(m, Peek) for m in state.power_moves())
    out: list[Any] = []
    for name in BACKENDS:
        k = load(name)
        st = kernel_state(k, Knowledge.of(state, state.player))
        work, sc, rng, values = k.ints(core.STATE_SIZE), k.ints(core.SCRATCH_SIZE), k.ints(1), k.ints(16)
        k.core.seed_rng(rng, 42)
        tree, wins, counters = k.ints(3000 * core.NODE_FIELDS), k.floats(3000), k.ints(3)
        order = k.ints(300 * core.NUM_ACTIONS)
        k.core.tree_reset(tree, counters)
        k.core.ismcts(st, work, tree, wins, counters, order, rng, values, k.floats(core.NUM_ACTIONS),
                      k.ints(core.MAX_DEPTH), sc, k.floats(4), 300)  # fmt: skip
        out.append(([int(x) for x in tree[: 600 * core.NODE_FIELDS]], [float(x) for x in wins[:600]]))
    assert out[0] == out[1]
    actions = {int(x) for x in out[0][0][core.N_ACTION :: core.NODE_FIELDS]}
    assert any(core.A_SEEN < a <= core.A_SEEN + 5 for a in actions), "the Mage's looks were observed"


def test_a_look_is_known_to_the_searcher_alone() -> None:
    """Orange (the mage) looked at one blue warrior: its value is in orange's kernel state, the
    others' are not; blue's state holds none of orange's."""
    k = load("python")
    state = advanced_game(4, moves=24, characters=("mage", "goblin"))
    while state.player != "orange" or state.power_used:
        state = state.play(next(m for m in state.legal_moves() if not isinstance(m, POWERS)))
    look = next(m for m in state.legal_moves() if isinstance(m, Peek))
    after = state.play(look)
    st = kernel_state(k, Knowledge.of(after, "orange"))
    blue = state.players.index("blue")
    assert not int(st[core.S_HIDDEN + blue]) & look.cell.bit
    assert core.value_at(st, blue, look.cell.number) == after.warriors[look.cell.number][1]  # type: ignore[index]
    hidden = [
        i for i, w in enumerate(after.warriors)
        if w and w[0] == blue and not (after.face_up | after.seen[0]) >> i & 1
    ]  # fmt: skip
    assert hidden
    assert all(int(st[core.S_HIDDEN + blue]) >> i & 1 for i in hidden)


def test_advanced_kernel_moves_are_the_rules_moves() -> None:
    for move in (Reinforce(CELLS[3]), Arrow(CELLS[9]), ExtraPalisade(SLOTS[4]), ExtraWarrior(CELLS[2], 5)):
        assert decode(*encode(move)) == move
    with pytest.raises(ValueError, match="no kernel move"):
        encode(Peek(CELLS[9]))


def _tree_actions(kernel: Kernel, state: GameState, powers: bool = True) -> set[int]:
    """The tree's actions at the root of a search of ``state`` by the player to move."""
    st = kernel_state(kernel, Knowledge.of(state, state.player), powers=powers)
    rng, values = kernel.ints(1), kernel.ints(16)
    kernel.core.seed_rng(rng, 7)
    kernel.core.determinize(st, rng, values)  # as every iteration does: the hidden values drawn
    acts = kernel.ints(core.NUM_ACTIONS)
    n = kernel.core.list_actions(st, acts, 0)
    return {int(a) for a in list(acts)[:n]}


def _strip_walled_off() -> tuple[Slot, ...]:
    """The palisades that wall off the top row's four right cells, e5 to h5: no gold there."""
    row = [Cell(0, c) for c in range(4, 8)]
    return (Slot.between(Cell(0, 3), row[0]), *(Slot.between(cell, Cell(1, cell.col)) for cell in row))


def test_the_searchers_mage_looks_first_where_a_value_may_still_matter(kernel: Kernel) -> None:
    """With a token left, the searching Mage's only actions are looks at the opponent's unseen
    warriors in territories that hold gold and are not full; a warrior walled off from the gold is
    not worth a token."""
    state = GameState.new(PLAYERS[2], shuffled_gold(random.Random(1)), "armadora-advanced", ("mage", "elf"))
    walls = _strip_walled_off()
    for part in (walls[:2], walls[2:4], walls[4:]):
        move = Build(tuple(sorted(part, key=lambda slot: slot.number)))
        state = state.play(move)
    blue_open, blue_closed = Cell(2, 2), Cell(0, 5)
    state = state.play(PlaceWarrior(blue_open, 3)).play(PlaceWarrior(Cell(2, 3), 2))
    state = state.play(PlaceWarrior(blue_closed, 4))
    assert state.player == "orange" and state.powers[0] == 2
    assert _tree_actions(kernel, state) == {core.A_PEEK + blue_open.number}
    # Never forced on a searcher that keeps its powers, nor once the turn's power is used.
    plain = _tree_actions(kernel, state, powers=False)
    assert Cell(3, 5).number in plain and not any(core.A_PEEK <= a < core.A_ARROW for a in plain)
    after = state.play(Peek(blue_open))
    assert not any(core.A_PEEK <= a < core.A_ARROW for a in _tree_actions(kernel, after))
    # Next turn the seen warrior is known: nothing left worth a look, so the usual actions.
    later = after.play(PlaceWarrior(Cell(3, 3), 1)).play(Pass())
    actions = _tree_actions(kernel, later)
    assert Cell(3, 5).number in actions and core.A_PEEK + blue_open.number not in actions


def test_the_goblins_extra_warrior_waits_for_the_last_empty_cells(kernel: Kernel) -> None:
    """The searching Goblin's extra warrior is on offer only with at most GOBLIN_LATE cells empty."""
    state = GameState.new(PLAYERS[2], shuffled_gold(random.Random(2)), "armadora-advanced", ("goblin", "orc"))
    state = state.play(PlaceWarrior(Cell(0, 0), 1)).play(PlaceWarrior(Cell(0, 1), 1))
    early = _tree_actions(kernel, state)
    assert Cell(2, 2).number in early and not any(core.A_GOBLIN <= a < core.A_SEEN for a in early)
    empty = [c for c in OFF_GOLD_CELLS if state.warriors[c.number] is None]
    rng = random.Random(3)
    while len(empty) > core.GOBLIN_LATE:
        for _ in range(2):  # a warrior each, orange then blue
            cell = empty.pop(rng.randrange(len(empty)))
            supply = state.supplies[state.to_move]
            state = state.play(PlaceWarrior(cell, next(v for v in range(1, 6) if supply[v - 1])))
    late = _tree_actions(kernel, state)
    assert {a - core.A_GOBLIN for a in late if core.A_GOBLIN <= a < core.A_SEEN} == {c.number for c in empty}
