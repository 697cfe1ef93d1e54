"""Where the photo's edge cuts the board off (:mod:`vision.read.frame`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.board import CELLS, SLOTS
from vision.geometry import board_corners_mm
from vision.locate.features import NoBoardError
from vision.read.frame import beyond_frame, refuse_cut_off


def placed(corners: list[list[float]]) -> np.ndarray:
    """The homography putting the board's corners (clockwise from its top-left) at ``corners``."""
    return cv2.getPerspectiveTransform(
        board_corners_mm().astype(np.float32), np.array(corners, np.float32)
    ).astype(np.float64)


def test_a_board_wholly_in_the_photo_loses_nothing_even_seen_steeply() -> None:
    homography = placed([[300, 200], [1300, 260], [1500, 1100], [100, 1050]])
    beyond = beyond_frame(homography, 1600, 1200)
    assert not beyond.anything


def test_the_cells_and_slots_past_the_photo_s_left_edge_are_unseen() -> None:
    # The board's left 60 mm (the frame and most of column a) lie left of the photo.
    homography = placed([[-150, 200], [850, 200], [850, 862], [-150, 862]])  # 2.5 px a mm
    beyond = beyond_frame(homography, 1000, 1000)
    assert {cell.name[0] for cell in CELLS if beyond.cells[cell.number]} == {"a"}
    assert not beyond.cells_partly.any()
    assert {slot.name for slot in SLOTS if beyond.slots[slot.number]} == {
        "a5-a4", "a4-a3", "a3-a2", "a2-a1"
    }  # fmt: skip
    # The lines between columns a and b are in the photo, but their reader looks across at a too.
    beside = {f"a{row}|b{row}" for row in range(1, 6)}
    assert {slot.name for slot in SLOTS if beyond.slots_partly[slot.number]} == beside
    refuse_cut_off(beyond, homography, 1000, 1000)  # one column of eight: read, not refused


def test_a_cell_whose_disc_is_in_the_photo_but_not_its_square_is_read_in_doubt() -> None:
    # The photo's bottom edge 6 mm into the bottom row's cells: their discs are whole, the lines
    # between them not.
    homography = placed([[0, 0], [800, 0], [800, 530], [0, 530]])  # 2 px a mm
    beyond = beyond_frame(homography, 800, 2 * (20 + 5 * 45 - 6))
    assert {cell.name for cell in CELLS if beyond.cells_partly[cell.number]} == {f"{c}1" for c in "abcdefgh"}
    assert not beyond.cells.any()
    assert {slot.name for slot in SLOTS if beyond.slots[slot.number]} == {
        f"{a}1|{b}1" for a, b in zip("abcdefg", "bcdefgh", strict=True)
    }


@pytest.mark.parametrize(
    ("corners", "sides"),
    [
        ([[-400, 200], [600, 200], [600, 862], [-400, 862]], "left"),
        ([[0, 600], [1000, 600], [1000, 1262], [0, 1262]], "bottom"),
        ([[-400, 600], [600, 600], [600, 1262], [-400, 1262]], "left and bottom"),
    ],
)
def test_a_board_cut_off_by_more_than_a_quarter_is_refused_naming_the_sides(
    corners: list[list[float]], sides: str
) -> None:
    homography = placed(corners)
    beyond = beyond_frame(homography, 1000, 1000)
    with pytest.raises(NoBoardError) as refused:
        refuse_cut_off(beyond, homography, 1000, 1000)
    assert refused.value.reason == "cut_off"
    assert f"cut off at the {sides} of the photo" in str(refused.value)
