"""The rules of Armadöra and Nuggets in pure Python: positions, territories, legality, scoring.

>>> from engine import check, load_sample, score
>>> position = load_sample("endgame-2p")
>>> check(position).legal
True
>>> score(position).ranking
(('orange',), ('blue',))

Imports nothing from the rest of the project, nor OpenCV or Flask.
"""

from engine.board import (
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
from engine.check import CheckReport, Problem, check
from engine.drawing import draw
from engine.game import Build, GameState, IllegalMove, Move, Pass, PlaceWarrior, playout, random_move
from engine.position import Gold, Position, PositionError, Warrior
from engine.samples import load_sample, sample_names
from engine.scoring import Score, ScoringError, TerritoryResult, score
from engine.supply import SUPPLIES, supply_for
from engine.walls import Walls

__all__ = [
    "COLS",
    "GOLD_CELLS",
    "GOLD_VALUES",
    "MIN_TERRITORY",
    "NUM_SLOTS",
    "ROWS",
    "SLOTS",
    "SUPPLIES",
    "TOTAL_PALISADES",
    "Build",
    "Cell",
    "CheckReport",
    "GameState",
    "Gold",
    "IllegalMove",
    "Move",
    "Pass",
    "PlaceWarrior",
    "Position",
    "PositionError",
    "Problem",
    "Score",
    "ScoringError",
    "Slot",
    "TerritoryResult",
    "Walls",
    "Warrior",
    "check",
    "draw",
    "load_sample",
    "playout",
    "random_move",
    "sample_names",
    "score",
    "supply_for",
]  # fmt: skip
