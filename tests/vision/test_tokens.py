"""A copy's warrior pictures matched on the cells of a photo."""

from __future__ import annotations

import numpy as np

from engine.board import Cell
from vision.geometry import CANONICAL
from vision.looks import Kind, Looks, reference_face
from vision.read.tokens import _templates, token_match


def test_a_copy_s_pictures_are_turned_once_for_all_the_cells_of_a_photo() -> None:
    picture = np.full((160, 160, 3), 40, np.uint8)
    picture[50:110, 60:100] = 220
    copy = Looks(
        name="test copy",
        face=reference_face(),
        colours={"dark": (40, 40, 40)},
        tokens={"dark": picture},
        kind=Kind.LEARNT,
    )
    view = np.full((*CANONICAL.size[::-1], 3), 0.5, np.float32)
    before = _templates.cache_info()
    matches = token_match(view, copy, [Cell(2, 3), Cell(0, 0)])
    after = _templates.cache_info()
    # Turned once, when first asked; the bank made of them asks for the same turns.
    assert after.misses - before.misses == 1 and after.hits - before.hits >= 1
    assert matches.shape == (2, 1) and (matches > -1.0).all()
