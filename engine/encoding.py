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
from engine.board import CELLS, SLOTS
from engine.game import (
    Arrow,
    Build,
    ExtraPalisade,
    ExtraWarrior,
    Move,
    Pass,
    Peek,
    PlaceWarrior,
    Reinforce,
)
from engine.kernel import Kernel
from engine.knowledge import Knowledge, KnowledgeError
from engine.supply import supply_for

CHARACTER_CODES = {"goblin": core.C_GOBLIN, "orc": core.C_ORC, "elf": core.C_ELF, "mage": core.C_MAGE}


def kernel_state(kernel: Kernel, view: Knowledge, *, powers: bool = True) -> Any:
    """The kernel's state of the game for the player to move, who must know all their own values.

    Other players' values are there only where the knowledge has them (face up, or seen by
    the player's Mage); the rest are drawn from what their owners' supplies leave. With
    ``powers`` false the searcher never uses a power (the advanced game).
    """
    state = view.state
    me = state.to_move
    if state.is_over:
        raise KnowledgeError("the game is over")
    if not view.knows(state.player):
        raise KnowledgeError(f"the values of {state.player}'s warriors are not known here")
    st = kernel.ints(core.STATE_SIZE)
    core.new_game(st, len(state.players), int(state.variant == "nuggets"), me)
    st[core.S_GOLD_CELLS] = 0
    for cell, value in zip(state.gold_cells, state.gold, strict=True):
        if value >= 1 << core.GOLD_PLANES:
            raise KnowledgeError(f"the search holds gold values below {1 << core.GOLD_PLANES}, not {value}")
        core.set_gold(st, cell.number, value)
    for slot in state.walls:
        core.add_wall(st, slot.number)
    full = supply_for(len(state.players))
    pools = [list(full) for _ in state.players]
    for i, w in enumerate(state.warriors):
        if w is None:
            continue
        p, value = w
        if p == me or view.known >> i & 1:
            core.place(st, p, i, value)
            pools[p][value - 1] -= 1
        else:
            st[core.S_OCC] |= 1 << i
            st[core.S_HIDDEN + p] |= 1 << i
            st[core.S_UNKNOWN] |= 1 << i
    for p in range(len(state.players)):
        for v in range(5):
            st[core.S_HAND + 5 * p + v] = state.supplies[p][v] if p == me else 0
            st[core.S_POOL + 5 * p + v] = state.supplies[p][v] if p == me else pools[p][v]
    st[core.S_TURN] = me
    st[core.S_PASSED] = state.passed
    if state.advanced:
        for p, character in enumerate(state.characters):
            core.set_character(st, p, CHARACTER_CODES[character], state.powers[p], state.reinforcements[p])
        st[core.S_ARROW1] = state.arrows
        st[core.S_ARROW2] = state.arrows2
        st[core.S_REINF] = state.reinforced
        st[core.S_FACEUP] = state.face_up
        st[core.S_USED] = int(state.power_used)
        st[core.S_NOPOWER] = int(not powers)
    return st


def decode(kind: int, a: int, b: int) -> Move:
    """The move the kernel's three integers stand for."""
    if kind == core.K_WARRIOR:
        return PlaceWarrior(CELLS[a], b)
    if kind == core.K_BUILD:
        return Build(tuple(SLOTS[i] for i in sorted(i for i in (a, b) if i >= 0)))
    if kind == core.K_REINF:
        return Reinforce(CELLS[a])
    if kind == core.K_ARROW:
        return Arrow(CELLS[a])
    if kind == core.K_ORC:
        return ExtraPalisade(SLOTS[a])
    if kind == core.K_GOBLIN:
        return ExtraWarrior(CELLS[a], b)
    return Pass()


def encode(move: Move) -> tuple[int, int, int]:
    """The kernel's three integers for a move."""
    if isinstance(move, PlaceWarrior):
        return core.K_WARRIOR, move.cell.number, move.value
    if isinstance(move, Build):
        numbers = [slot.number for slot in move.slots]
        return core.K_BUILD, numbers[0], numbers[1] if len(numbers) > 1 else -1
    if isinstance(move, Reinforce):
        return core.K_REINF, move.cell.number, -1
    if isinstance(move, Arrow):
        return core.K_ARROW, move.cell.number, -1
    if isinstance(move, ExtraPalisade):
        return core.K_ORC, move.slot.number, -1
    if isinstance(move, ExtraWarrior):
        return core.K_GOBLIN, move.cell.number, move.value
    if isinstance(move, Peek):
        raise ValueError("a Mage's look is no kernel move: what it shows decides the rest of the turn")
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
    if isinstance(move, Reinforce):
        return {"kind": "reinforce", "cell": list(move.cell)}
    if isinstance(move, Peek | Arrow):
        return {
            "kind": "power",
            "power": "mage" if isinstance(move, Peek) else "elf",
            "cell": list(move.cell),
        }
    if isinstance(move, ExtraPalisade):
        return {"kind": "power", "power": "orc", "palisades": [move.slot.to_json()]}
    if isinstance(move, ExtraWarrior):
        return {"kind": "power", "power": "goblin", "cell": list(move.cell), "value": move.value}
    return {"kind": "pass"}


def action_move(first: int, second: int) -> Move:
    """The move made of a tree action at the root and the action under it (-1 for none)."""
    if first >= core.A_REINF:
        return _advanced_action_move(first, second)
    if first < core.A_SLOT:
        return PlaceWarrior(CELLS[first], second - core.A_VALUE)
    if first < core.A_PASS:
        slots = [first - core.A_SLOT] + (
            [second - core.A_SLOT] if core.A_SLOT <= second < core.A_PASS else []
        )
        return Build(tuple(SLOTS[i] for i in sorted(slots)))
    return Pass()


def _advanced_action_move(first: int, second: int) -> Move:
    if first < core.A_PEEK:
        return Reinforce(CELLS[first - core.A_REINF])
    if first < core.A_ARROW:
        return Peek(CELLS[first - core.A_PEEK])
    if first < core.A_ORC:
        return Arrow(CELLS[first - core.A_ARROW])
    if first < core.A_GOBLIN:
        return ExtraPalisade(SLOTS[first - core.A_ORC])
    return ExtraWarrior(CELLS[first - core.A_GOBLIN], second - core.A_VALUE)
