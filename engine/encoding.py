"""Between the rules' objects and the kernel's integers: a view as a kernel state, moves both ways.

The kernel state of a view holds the values of the searching player's own warriors
only (the player to move): every other warrior is marked hidden, to be drawn from its
owner's full supply, whatever the view may know about it.

>>> from engine.board import GOLD_VALUES, Cell
>>> from engine.game import GameState, PlaceWarrior
>>> from engine.kernel import load
>>> k = load("python")
>>> state = GameState.new(("orange", "blue"), GOLD_VALUES).play(PlaceWarrior(Cell(2, 2), 5))
>>> st = kernel_state(k, Knowledge.of(state, "blue"))
>>> st[k.core.S_ME], st[k.core.S_HIDDEN], st[k.core.S_POOL + 4]
(1, 262144, 1)
>>> decode(k.core.K_WARRIOR, 18, 3)
PlaceWarrior(cell=Cell(row=2, col=2), value=3)
>>> encode(decode(k.core.K_BUILD, 0, 40))
(2, 0, 40)
"""

from __future__ import annotations

from typing import Any

import engine.kernel_core as core
from engine.board import CELLS, GOLD_CELLS, SLOTS
from engine.game import Build, Move, Pass, PlaceWarrior
from engine.kernel import Kernel
from engine.knowledge import Knowledge, KnowledgeError
from engine.supply import supply_for


def kernel_state(kernel: Kernel, view: Knowledge) -> Any:
    """The kernel's state of the game for the player to move, who must know all their own values."""
    state = view.state
    me = state.to_move
    if state.is_over:
        raise KnowledgeError("the game is over")
    if not view.knows(state.player):
        raise KnowledgeError(f"the values of {state.player}'s warriors are not known here")
    st = kernel.ints(core.STATE_SIZE)
    core.new_game(st, len(state.players), int(state.variant == "nuggets"), me)
    for cell, value in zip(GOLD_CELLS, state.gold, strict=True):
        core.set_gold(st, cell.number, value)
    for slot in state.walls:
        core.add_wall(st, slot.number)
    full = supply_for(len(state.players))
    for i, w in enumerate(state.warriors):
        if w is None:
            continue
        p, value = w
        if p == me:
            core.place(st, p, i, value)
        else:
            st[core.S_OCC] |= 1 << i
            st[core.S_HIDDEN + p] |= 1 << i
    for p in range(len(state.players)):
        for v in range(5):
            st[core.S_HAND + 5 * p + v] = state.supplies[p][v] if p == me else 0
            st[core.S_POOL + 5 * p + v] = state.supplies[p][v] if p == me else full[v]
    st[core.S_TURN] = me
    st[core.S_PASSED] = state.passed
    return st


def decode(kind: int, a: int, b: int) -> Move:
    """The move the kernel's three integers stand for."""
    if kind == core.K_WARRIOR:
        return PlaceWarrior(CELLS[a], b)
    if kind == core.K_BUILD:
        return Build(tuple(SLOTS[i] for i in sorted(i for i in (a, b) if i >= 0)))
    return Pass()


def encode(move: Move) -> tuple[int, int, int]:
    """The kernel's three integers for a move."""
    if isinstance(move, PlaceWarrior):
        return core.K_WARRIOR, move.cell.number, move.value
    if isinstance(move, Build):
        numbers = [slot.number for slot in move.slots]
        return core.K_BUILD, numbers[0], numbers[1] if len(numbers) > 1 else -1
    return core.K_PASS, -1, -1


def move_json(move: Move) -> dict[str, Any]:
    """A move as data, in the position JSON's terms.

    >>> move_json(PlaceWarrior(CELLS[9], 4))
    {'kind': 'warrior', 'cell': [1, 1], 'value': 4}
    >>> move_json(Build((SLOTS[0],)))
    {'kind': 'palisade', 'palisades': [[[0, 0], [0, 1]]]}
    """
    if isinstance(move, PlaceWarrior):
        return {"kind": "warrior", "cell": list(move.cell), "value": move.value}
    if isinstance(move, Build):
        return {"kind": "palisade", "palisades": [slot.to_json() for slot in move.slots]}
    return {"kind": "pass"}


def action_move(first: int, second: int) -> Move:
    """The move made of a tree action at the root and the action under it (-1 for none)."""
    if first < core.A_SLOT:
        return PlaceWarrior(CELLS[first], second - core.A_VALUE)
    if first < core.A_PASS:
        slots = [first - core.A_SLOT] + (
            [second - core.A_SLOT] if core.A_SLOT <= second < core.A_PASS else []
        )
        return Build(tuple(SLOTS[i] for i in sorted(slots)))
    return Pass()
