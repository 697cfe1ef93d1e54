"""Clipped glare is found in the photo's own pixels and makes what lies under it doubtful."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from engine.board import CELLS, GOLD_CELLS, SLOTS, Cell, Slot
from vision.geometry import CANONICAL, cell_origin_mm, slot_segment_mm
from vision.read.assemble import assemble
from vision.read.cells import EMPTY, CellReading
from vision.read.glare import (
    GlareParams,
    Outlines,
    clipped_mask,
    clipped_shares,
    doubt_under_glare,
    on_card,
    outlines_under_glare,
    stickless,
)
from vision.read.slots import FEATURES as SLOT_FEATURES
from vision.read.slots import SlotReading, palisade_mask


def face(level: int = 120) -> np.ndarray:
    return np.full((*CANONICAL.size[::-1], 3), level, np.uint8)


def lines_shown() -> np.ndarray:
    """Slot features of a photo whose every printed line shows as printed."""
    features = np.zeros((len(SLOTS), len(SLOT_FEATURES)))
    features[:, SLOT_FEATURES.index("line_narrow")] = 1.0
    return features


def paint_mm(image: np.ndarray, x0: float, y0: float, x1: float, y1: float, bgr: tuple[int, ...]) -> None:
    s = CANONICAL.px_per_mm
    image[round(y0 * s) : round(y1 * s), round(x0 * s) : round(x1 * s)] = bgr


def test_a_highlight_over_a_line_marks_that_slot_alone() -> None:
    image = face()
    slot = Slot(Cell(2, 3), Cell(2, 4))
    (x, y0), (_, y1) = slot_segment_mm(slot)
    paint_mm(image, x - 5, y0 + 8, x + 5, y1 - 8, (255, 255, 255))
    cells, slots = clipped_shares(clipped_mask(image))
    lost = np.flatnonzero(slots >= GlareParams().doubt_share).tolist()
    assert lost == [slot.number]
    # The highlight stays on the line: the cells beside it are read as usual.
    assert cells.max() < GlareParams().doubt_share


def test_a_highlight_over_a_cell_marks_the_cell_and_not_its_neighbours() -> None:
    image = face()
    cell = Cell(3, 5)
    x, y = cell_origin_mm(cell)
    paint_mm(image, x + 10, y + 10, x + 35, y + 35, (252, 250, 253))
    cells, slots = clipped_shares(clipped_mask(image))
    assert np.flatnonzero(cells >= 0.2).tolist() == [cell.number]
    assert slots.max() == 0.0


@pytest.mark.parametrize(
    "bgr",
    [
        (240, 240, 240),  # bright, but the camera recorded it
        (90, 160, 255),  # warm light on an orange warrior: one channel clipped, the colour still there
    ],
)
def test_bright_pixels_that_did_not_clip_are_not_glare(bgr: tuple[int, int, int]) -> None:
    image = face()
    paint_mm(image, 100, 100, 200, 200, bgr)
    assert not clipped_mask(image).any()


def test_specks_narrower_than_a_stroke_are_not_glare() -> None:
    image = face()
    # A white emblem's thin lines: 1 mm wide, under the 1.5 mm that counts as a highlight.
    paint_mm(image, 100, 100, 101, 140, (255, 255, 255))
    paint_mm(image, 100, 100, 140, 101, (255, 255, 255))
    assert not clipped_mask(image).any()


def test_doubt_caps_only_what_glare_covers_and_never_raises_confidence() -> None:
    confidence = np.array([0.99, 0.95, 0.5, 0.99])
    shares = np.array([0.0, 0.3, 0.9, 0.19])
    capped = doubt_under_glare(confidence, shares, GlareParams(doubt_share=0.2, doubtful=0.7))
    assert capped.tolist() == [0.99, 0.7, 0.5, 0.99]
    assert (capped <= confidence).all()


def test_assemble_marks_what_glare_hides_in_one_warning() -> None:
    colours = ("orange", "green")
    probs = np.zeros((len(CELLS), 2 + len(colours)))
    probs[:, EMPTY] = 0.99
    probs[:, 2] = 0.01
    for cell in GOLD_CELLS:
        probs[cell.number] = [0.0, 1.0, 0.0, 0.0]
    warriors = {Cell(2, 2): 2, Cell(2, 5): 3}
    for cell, column in warriors.items():
        probs[cell.number] = 0.0
        probs[cell.number, column] = 1.0
    cells = CellReading(colours, probs, probs, np.zeros(len(CELLS)))
    slot = Slot(Cell(2, 2), Cell(2, 3))
    slot_probs = np.full(len(SLOTS), 0.02)
    slot_probs[slot.number] = 0.99
    gold = {cell: (value, 0.99) for cell, value in zip(GOLD_CELLS, (7, 6, 6, 5, 5, 4, 4, 3), strict=True)}
    cell_glare, slot_glare = np.zeros(len(CELLS)), np.zeros(len(SLOTS))
    cell_glare[[Cell(2, 5).number, GOLD_CELLS[0].number]] = 0.6
    slot_glare[slot.number] = 0.5

    features = lines_shown()
    features[slot.number, SLOT_FEATURES.index("art_hidden")] = 0.6  # the palisade hides the art
    slots = SlotReading(slot_probs, features)
    plain = assemble(cells, slots, gold)
    glared = assemble(cells, slots, gold, glare=(cell_glare, slot_glare))

    # The reading itself stands; only how sure it is changes, and only where the glare is.
    assert glared.position == plain.position
    assert [w.code for w in plain.warnings] == []
    assert [w.code for w in glared.warnings] == ["glare"]
    (warning,) = glared.warnings
    assert set(warning.cells) == {Cell(2, 5), GOLD_CELLS[0]} and warning.palisades == (slot,)
    doubtful = GlareParams().doubtful
    assert glared.cell_confidence[Cell(2, 5).number] <= doubtful
    assert glared.slot_confidence[slot.number] <= doubtful
    assert glared.gold_confidence[GOLD_CELLS[0]] <= doubtful
    assert glared.cell_confidence[Cell(2, 2).number] == plain.cell_confidence[Cell(2, 2).number]
    assert glared.gold_confidence[GOLD_CELLS[1]] == 0.99


@pytest.mark.parametrize(
    ("offset_px", "radius_px"),
    [
        (25, 40),  # most of the disc the cell reader looks at
        (0, 60),  # all of it
    ],
)
def test_a_lamps_reflection_on_an_empty_cell_is_the_card_showing_not_a_warrior(
    offset_px: int, radius_px: int
) -> None:
    from faces import photo_of_face

    from vision.geometry import cell_centre_mm
    from vision.locate.features import project
    from vision.scan import scan_image

    corners = [[150, 120], [1450, 160], [1400, 1040], [180, 1000]]
    photo, homography = photo_of_face(corners)
    cell = Cell(2, 4)
    centre = project(homography, np.array([cell_centre_mm(cell)]))[0]
    cv2.circle(photo, (round(centre[0]) + offset_px, round(centre[1])), radius_px, (255, 255, 255), -1)
    reading = scan_image(photo)
    assert cell not in {warrior.cell for warrior in reading.position.warriors}
    assert reading.assembled.cell_confidence[cell.number] <= GlareParams().doubtful
    assert any(problem.code == "glare" and cell in problem.cells for problem in reading.assembled.warnings)


def test_a_pale_sticks_clipped_face_is_left_to_the_readers_and_a_lamps_reflection_is_not() -> None:
    image = face()
    slot = Slot(Cell(1, 2), Cell(2, 2))
    (x0, y), (x1, _) = slot_segment_mm(slot)
    # The stick's lit face: a strip along its line, no wider than the stick.
    paint_mm(image, x0 + 4, y - 2, x1 - 4, y + 2, (255, 255, 255))
    # A lamp's reflection: a blob over the middle of a cell and the lines beside it.
    (cx, cy) = cell_origin_mm(Cell(3, 5))
    paint_mm(image, cx - 8, cy + 5, cx + 30, cy + 40, (255, 255, 255))
    clipped = clipped_mask(image)
    card = on_card(clipped, palisade_mask(SLOTS, None))
    s = CANONICAL.px_per_mm
    assert clipped[round(y * s), round((x0 + x1) / 2 * s)]
    assert not card[round(y * s), round((x0 + x1) / 2 * s)]
    assert card[round((cy + 20) * s), round((cx + 10) * s)]
    # Both still make what they cover doubtful.
    _, slots = clipped_shares(clipped)
    assert slots[slot.number] >= GlareParams().doubt_share


def test_no_stick_stands_where_the_card_clips_over_more_of_its_band_than_a_stick_leaves() -> None:
    image = face()
    ruled, half, stick = (
        Slot(Cell(2, 3), Cell(2, 4)),
        Slot(Cell(0, 1), Cell(0, 2)),
        Slot(Cell(1, 2), Cell(2, 2)),
    )
    # A lamp's reflection over the whole of one slot's band and the cells either side.
    (x, y0), (_, y1) = slot_segment_mm(ruled)
    paint_mm(image, x - 20, y0 - 2, x + 20, y1 + 2, (255, 255, 255))
    # One over half of another's band: a stick could stand on the other half.
    (x, y0), (_, y1) = slot_segment_mm(half)
    paint_mm(image, x, y0 - 2, x + 20, y1 + 2, (255, 255, 255))
    # A pale stick's clipped face along a third: within reach of a stick, it may be the stick.
    (x0, y), (x1, _) = slot_segment_mm(stick)
    paint_mm(image, x0 + 4, y - 2, x1 - 4, y + 2, (255, 255, 255))
    card = on_card(clipped_mask(image), palisade_mask(SLOTS, None))
    assert np.flatnonzero(stickless(clipped_shares(card)[1])).tolist() == [ruled.number]


@pytest.mark.parametrize("as_unknown", [False, True])
def test_a_lamps_reflection_over_lines_reads_no_palisade_there_and_doubts_it(as_unknown: bool) -> None:
    from faces import photo_of_face

    from vision.locate.features import project
    from vision.scan import scan_image

    photo, homography = photo_of_face([[150, 120], [1450, 160], [1400, 1040], [180, 1000]])
    # A broad reflection over the line between d3 and e3 and most of both cells: neither art nor
    # line shows along that slot, as on a stick's foot.
    (x, y0), (_, y1) = slot_segment_mm(Slot(Cell(2, 3), Cell(2, 4)))
    centre = project(homography, np.array([[x, (y0 + y1) / 2]]))[0]
    cv2.circle(photo, (round(centre[0]), round(centre[1])), 140, (255, 255, 255), -1)
    reading = scan_image(photo, as_unknown=as_unknown)
    under = np.flatnonzero(reading.readings.glare[1] > 0.9)
    assert len(under) >= 1
    assert not {SLOTS[n] for n in under} & reading.position.palisades
    assert (reading.assembled.slot_confidence[under] <= GlareParams().doubtful).all()


def glared_photo(
    warrior_on: Cell | None, lines_show: bool = False, speck_mm: float = 0.0
) -> tuple[np.ndarray, Cell]:
    """A photo of the reference face with a lamp's reflection clipping c3 and the cells around
    it, and, on ``warrior_on``, a warrior whose top the reflection clips too: only its near side
    wall, dark, and its shadow along one side still show. ``lines_show``: the clipped white is
    pale art, not a reflection, and c3's printed lines still show on it. ``speck_mm``: a speck of
    shadow this deep, 2 mm wide, just beyond the side wall at one point along it."""
    from faces import photo_of_face

    from vision.geometry import WARRIOR_SIDE_MM, cell_centre_mm
    from vision.locate.features import project

    photo, homography = photo_of_face([[150, 120], [1450, 160], [1400, 1040], [180, 1000]])

    def paint(x0: float, y0: float, x1: float, y1: float, bgr: tuple[int, int, int]) -> None:
        box = project(homography, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64))
        cv2.fillPoly(photo, [np.round(box).astype(np.int32)], bgr)

    glared = Cell(2, 2)
    x, y = cell_centre_mm(glared)
    paint(x - 40, y - 35, x + 40, y + 35, (255, 255, 255))
    if lines_show:
        x0, y0 = cell_origin_mm(glared)
        for left, top, right, bottom in ((0, 0, 45, 0), (0, 45, 45, 45), (0, 0, 0, 45), (45, 0, 45, 45)):
            paint(x0 + left - 0.75, y0 + top - 0.75, x0 + right + 0.75, y0 + bottom + 0.75, (60, 60, 60))
    if warrior_on is not None:
        x, y = cell_centre_mm(warrior_on)
        half = WARRIOR_SIDE_MM / 2
        paint(x - half, y + half, x + half, y + half + 1.5, (70, 75, 80))  # the side wall
        paint(x - half - 1.2, y - half, x - half, y + half, (150, 150, 150))  # the shadow
        if speck_mm:
            at = x + 0.6 * half
            paint(at - 1, y + half + 1.5, at + 1, y + half + 1.5 + speck_mm, (40, 40, 40))
    return photo, glared


def test_a_warrior_under_a_lamps_reflection_is_found_by_its_outline_and_its_colour_doubted() -> None:
    from vision.scan import scan_image

    photo, cell = glared_photo(warrior_on=Cell(2, 2))
    reading = scan_image(photo)
    assert cell in {warrior.cell for warrior in reading.position.warriors}
    assert reading.assembled.cell_confidence[cell.number] <= GlareParams().doubtful
    codes = {problem.code: problem for problem in reading.assembled.warnings}
    assert cell in codes["glare_warrior"].cells and cell in codes["glare"].cells


@pytest.mark.parametrize("speck_mm", [2.0, 4.0])
def test_a_warrior_under_a_reflection_is_found_with_a_speck_of_shadow_by_its_side(speck_mm: float) -> None:
    # The speck draws the side's strongest edge off its line at one point: the side is straight all
    # the same (vision.learn.pieces.on_one_line).
    from vision.scan import scan_image

    photo, cell = glared_photo(warrior_on=Cell(2, 2), speck_mm=speck_mm)
    reading = scan_image(photo)
    assert cell in {warrior.cell for warrior in reading.position.warriors}
    assert cell in {problem.code: problem for problem in reading.assembled.warnings}["glare_warrior"].cells


@pytest.mark.parametrize("radius_mm", [15.0, 17.0, 19.0, 21.0, 23.0])
@pytest.mark.parametrize("off_mm", [(0.0, 0.0), (3.0, 0.0), (-4.0, 1.0)])
def test_a_round_reflection_as_large_as_a_warrior_holds_no_warrior(
    radius_mm: float, off_mm: tuple[float, float]
) -> None:
    # Its rim steps sharply from the clipped white on every side of a warrior's square, but curves
    # away from any straight line.
    from faces import photo_of_face

    from vision.geometry import cell_centre_mm
    from vision.locate.features import project
    from vision.scan import scan_image

    photo, homography = photo_of_face([[150, 120], [1450, 160], [1400, 1040], [180, 1000]])
    cell = Cell(2, 2)
    x, y = cell_centre_mm(cell)
    turn = np.linspace(0, 2 * np.pi, 180)
    rim = np.c_[x + off_mm[0] + radius_mm * np.cos(turn), y + off_mm[1] + radius_mm * np.sin(turn)]
    cv2.fillPoly(photo, [np.round(project(homography, rim)).astype(np.int32)], (255, 255, 255))
    reading = scan_image(photo)
    assert cell not in {warrior.cell for warrior in reading.position.warriors}
    assert "glare_warrior" not in {problem.code for problem in reading.assembled.warnings}


@pytest.mark.parametrize("lines_show", [False, True])
def test_the_bare_card_under_the_same_reflection_holds_no_warrior(lines_show: bool) -> None:
    from vision.scan import scan_image

    photo, cell = glared_photo(warrior_on=None, lines_show=lines_show)
    reading = scan_image(photo)
    assert cell not in {warrior.cell for warrior in reading.position.warriors}
    assert reading.assembled.cell_confidence[cell.number] <= GlareParams().doubtful
    assert "glare_warrior" not in {problem.code for problem in reading.assembled.warnings}


@pytest.mark.parametrize("channels", [1, 2, 3])
def test_a_pixel_is_lost_when_as_many_channels_as_asked_reach_the_ceiling(channels: int) -> None:
    rng = np.random.default_rng(channels)
    # Blocks of one random level per channel, wider than a speck: every mix of clipped channels.
    blocks = rng.choice(np.array([200, 246, 247, 255], np.uint8), size=(53, 80, 3))
    image = np.repeat(np.repeat(blocks, 10, axis=0), 10, axis=1)
    params = GlareParams(channels=channels)
    at_ceiling = ((image >= params.ceiling).sum(axis=-1) >= channels).astype(np.uint8)
    width = round(params.min_width_mm * CANONICAL.px_per_mm)
    expected = cv2.morphologyEx(at_ceiling, cv2.MORPH_OPEN, np.ones((width, width), np.uint8)).astype(bool)
    assert np.array_equal(clipped_mask(image, params), expected)
    assert 0 < expected.mean() < 1


GLARED_CORNERS = [[150, 120], [1450, 160], [1400, 1040], [180, 1000]]


def outlines_of(photo: np.ndarray) -> Outlines:
    """What the outlines say under the glare of a photo of the reference face at GLARED_CORNERS."""
    from faces import photo_of_face

    from vision.read.rectify import rectify

    _, homography = photo_of_face(GLARED_CORNERS)
    cell_shares, _ = clipped_shares(clipped_mask(rectify(photo, homography, CANONICAL)))
    return outlines_under_glare(photo, homography, cell_shares)


def test_under_a_reflection_wider_than_a_warrior_a_cell_with_no_side_is_bare_and_one_with_two_found() -> None:
    bare_photo, cell = glared_photo(warrior_on=None)
    bare = outlines_of(bare_photo)
    assert bare.bare[cell.number] and not bare.found[cell.number]
    warrior = outlines_of(glared_photo(warrior_on=cell)[0])
    assert warrior.found[cell.number] and not warrior.bare[cell.number]
    assert not (bare.bare & bare.found).any()
    assert not bare.bare[[c.number for c in GOLD_CELLS]].any()


@pytest.mark.parametrize(("radius_mm", "is_bare"), [(16.0, False), (30.0, True)])
def test_a_clipped_patch_no_larger_than_a_warrior_may_be_a_white_one_and_is_never_called_bare(
    radius_mm: float, is_bare: bool
) -> None:
    # A white warrior in a bright light clips as the card does, and covers at most
    # (WARRIOR_SIDE_MM / PITCH_MM) ** 2 of its cell; a reflection wider than that lies on the card.
    from faces import photo_of_face

    from vision.geometry import cell_centre_mm
    from vision.locate.features import project

    photo, homography = photo_of_face(GLARED_CORNERS)
    cell = Cell(2, 2)
    x, y = cell_centre_mm(cell)
    turn = np.linspace(0, 2 * np.pi, 180)
    rim = np.c_[x + radius_mm * np.cos(turn), y + radius_mm * np.sin(turn)]
    cv2.fillPoly(photo, [np.round(project(homography, rim)).astype(np.int32)], (255, 255, 255))
    outlines = outlines_of(photo)
    assert outlines.bare[cell.number] == is_bare
    assert not outlines.found[cell.number]


def test_a_pale_warrior_read_in_the_reflection_on_the_bare_card_is_read_empty_and_doubted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A reader that knows a pale colour (a copy's white warriors) sees one in the clipped white.
    import vision.scan as scan_module
    from vision.scan import scan_image

    photo, cell = glared_photo(warrior_on=None)
    read = scan_module._read

    def reading_a_pale_warrior_on(on: Cell):  # type: ignore[no-untyped-def]
        def pale_warrior_read(*args, **kwargs):  # type: ignore[no-untyped-def]
            beyond, gold, (slots, palisades, cells) = read(*args, **kwargs)
            probabilities = cells.probabilities.copy()
            probabilities[on.number] = 0.0
            probabilities[on.number, [EMPTY, EMPTY + 2]] = (0.1, 0.9)
            return beyond, gold, (slots, palisades, replace(cells, probabilities=probabilities))

        return pale_warrior_read

    monkeypatch.setattr(scan_module, "_read", reading_a_pale_warrior_on(cell))
    reading = scan_image(photo)
    assert cell not in {warrior.cell for warrior in reading.position.warriors}
    assert reading.assembled.cell_confidence[cell.number] <= GlareParams().doubtful
    # The same reader's warrior away from the reflection stands.
    away = Cell(0, 0)
    monkeypatch.setattr(scan_module, "_read", reading_a_pale_warrior_on(away))
    assert away in {warrior.cell for warrior in scan_image(photo).position.warriors}
