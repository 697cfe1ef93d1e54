"""The debug image: the photo with what the scanner read drawn over it, for a person to check at a glance.

The board's outline and grid in white; each slot read as a palisade as a thick
bar, each cell's reading as a letter, both coloured by confidence (green sure,
yellow doubtful, red unsure); gold with its value.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from engine.board import CELLS, COLS, ROWS, SLOTS
from engine.drawing import colour_letters
from vision.geometry import GRID_H_MM, GRID_W_MM, MARGIN_MM, PITCH_MM, board_corners_mm, cell_centre_mm
from vision.geometry import slot_segment_mm as segment
from vision.locate.features import project
from vision.scan import Scan

Image = npt.NDArray[np.uint8]


def _confidence_colour(confidence: float) -> tuple[int, int, int]:
    """BGR: green at 1, yellow near the warning line, red below it."""
    if confidence >= 0.95:
        return (60, 200, 60)
    if confidence >= 0.8:
        return (0, 210, 240)
    return (40, 40, 235)


def debug_image(result: Scan) -> Image:
    """A copy of the scanned photo with the reading drawn on it."""
    canvas = result.image.copy()
    h = result.located.homography
    thickness = max(1, round(max(canvas.shape[:2]) / 700))

    def line(
        a: tuple[float, float], b: tuple[float, float], colour: tuple[int, int, int], width: int
    ) -> None:
        p, q = project(h, [a, b])
        cv2.line(
            canvas, tuple(np.round(p).astype(int)), tuple(np.round(q).astype(int)), colour, width, cv2.LINE_AA
        )

    outline = np.round(project(h, board_corners_mm())).astype(np.int32)
    cv2.polylines(canvas, [outline], True, (255, 255, 255), thickness * 2, cv2.LINE_AA)
    for col in range(COLS + 1):
        x = MARGIN_MM + col * PITCH_MM
        line((x, MARGIN_MM), (x, MARGIN_MM + GRID_H_MM), (255, 255, 255), thickness)
    for row in range(ROWS + 1):
        y = MARGIN_MM + row * PITCH_MM
        line((MARGIN_MM, y), (MARGIN_MM + GRID_W_MM, y), (255, 255, 255), thickness)
    palisades = result.position.palisades
    for slot in SLOTS:
        confidence = float(result.assembled.slot_confidence[slot.number])
        if slot in palisades or confidence < 0.8:
            width = thickness * (5 if slot in palisades else 2)
            line(*segment(slot), _confidence_colour(confidence), width)
    letters = colour_letters(result.position.players)
    gold = {g.cell: g.value for g in result.position.gold}
    warriors = {w.cell: w.player for w in result.position.warriors}
    font_scale = max(0.5, max(canvas.shape[:2]) / 1600)
    for cell in CELLS:
        confidence = float(result.assembled.cell_confidence[cell.number])
        if cell in gold:
            text = f"${gold[cell] if gold[cell] is not None else '?'}"
        elif cell in warriors:
            text = letters.get(warriors[cell], "?")
        else:
            text = "."
        (x, y) = project(h, [cell_centre_mm(cell)])[0]
        size, _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness * 2)
        origin = (round(x - size[0] / 2), round(y + size[1] / 2))
        cv2.putText(
            canvas, text, origin, cv2.FONT_HERSHEY_SIMPLEX, font_scale, (0, 0, 0), thickness * 5, cv2.LINE_AA
        )
        cv2.putText(
            canvas,
            text,
            origin,
            cv2.FONT_HERSHEY_SIMPLEX,
            font_scale,
            _confidence_colour(confidence),
            thickness * 2,
        )
    return canvas
