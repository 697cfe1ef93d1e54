"""Setup photos for calibration: the board, its gold, and one face-down warrior of each colour on a corner.

board-spec.md (Calibration): the board any side up, the 8 gold tokens on
their cells, no palisade, and the first player's colour on ``[0,0]``, then in
turn order ``[0,7]``, ``[4,0]``, ``[4,7]``. A player takes it with care: less
tilt, the board larger in the frame, little blur and nothing over the board,
under any light. Bad setups (a corner left empty, a colour twice, gold off
its cells) can be asked for, to test the calibration's error messages.

>>> from vision.worlds.raster.copies import copy_named
>>> photo = render_setup(5, copy_named("canyon"), size=(400, 300))
>>> [w["cell"] for w in photo.truth["warriors"]], len(photo.truth["gold"])
([[0, 0], [0, 7], [4, 0], [4, 7]], 8)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine import GOLD_CELLS, Cell, Position
from engine.game import shuffled_gold
from engine.position import Gold, Warrior
from vision.worlds.raster.conditions import draw_conditions
from vision.worlds.raster.copies import Copy
from vision.worlds.raster.render import RenderedPhoto, Staging, render_staged

SETUP_CORNERS: tuple[Cell, ...] = (Cell(0, 0), Cell(0, 7), Cell(4, 0), Cell(4, 7))


def setup_conditions(seed: int) -> dict[str, Any]:
    """How a careful player photographs the setup; the rest (light, table, noise) as any photo."""
    rng = random.Random(f"setup:{seed}")
    return {
        "tilt_deg": rng.uniform(0, 35),
        "board_area_fraction": rng.uniform(0.35, 0.85),
        "blur": rng.choices(("none", "gaussian"), weights=(1, 2))[0],
        "blur_px": rng.uniform(0.3, 1.2),
        # Clutter may stand beside the board; no hand reaches in while the photo is taken.
        "distractors": tuple(d for d, p in (("cup", 0.3), ("dice", 0.25)) if rng.random() < p),
    }


def render_setup(
    seed: int,
    copy: Copy,
    colours: Sequence[str | None] | None = None,
    *,
    gold_cells: Sequence[Cell | tuple[int, int]] | None = None,
    size: tuple[int, int] = (4000, 3000),
    quality: int | None = None,
    fmt: str = "jpeg",
    set_name: str | None = None,
    **overrides: Any,
) -> RenderedPhoto:
    """The setup photo of ``copy`` from ``seed``: same arguments, same bytes.

    ``colours`` are the warriors on the corners ``[0,0] [0,7] [4,0] [4,7]`` in
    that order (default: the copy's 4 colours in its order); None leaves a
    corner empty and a colour may repeat. ``gold_cells`` puts the 8 gold
    tokens elsewhere than on their cells. Any condition may be overridden
    as for :func:`~vision.worlds.raster.render.render_photo`.
    """
    corners = tuple(copy.keys if colours is None else colours)
    if len(corners) > len(SETUP_CORNERS):
        raise ValueError(f"at most {len(SETUP_CORNERS)} corner colours, not {len(corners)}")
    corners += (None,) * (len(SETUP_CORNERS) - len(corners))
    unknown = [c for c in corners if c is not None and c not in copy.colours]
    if unknown:
        raise ValueError(
            f"copy {copy.name} has no colour {unknown[0]!r}; its colours: {', '.join(copy.keys)}"
        )
    cells = tuple(Cell(*c) for c in (GOLD_CELLS if gold_cells is None else gold_cells))
    if len(cells) != len(GOLD_CELLS):
        raise ValueError(f"{len(GOLD_CELLS)} gold cells, not {len(cells)}")
    values = shuffled_gold(random.Random(f"setup-gold:{seed}"))
    players = tuple(dict.fromkeys(c for c in corners if c is not None))
    position = Position(
        players,
        gold=tuple(Gold(cell, v) for cell, v in zip(cells, values, strict=True)),
        warriors=tuple(Warrior(cell, c, None) for cell, c in zip(SETUP_CORNERS, corners, strict=True) if c),
    )
    wanted = {"players": min(4, max(2, len(players))), **setup_conditions(seed), **overrides}
    conditions = draw_conditions(seed, kind="board", players=None, quality=quality, overrides=wanted)
    staging = Staging(copy, position, clear_board=True)
    photo = render_staged(seed, conditions, staging, kind="board", fmt=fmt, size=size, set_name=set_name)
    truth = photo.truth
    truth["copy"] = copy.name
    truth["colours_hex"] = {c: copy.colours[c] for c in players}
    truth["setup"] = {
        "corners": [list(cell) for cell in SETUP_CORNERS],
        "colours": list(corners),
        "gold_cells": [list(cell) for cell in cells],
    }
    truth["render"]["copy"] = copy.describe()
    truth["render"]["kind"] = "setup"
    return photo
