"""The players' colours are taken from the photo's own surest warriors, then every cell read against them."""

from __future__ import annotations

import numpy as np

from engine.board import CELLS
from vision.geometry import CANONICAL, cell_centre_mm
from vision.read.cells import CellParams, CellReading, cell_signs, photo_colours

GOLD = np.array([0.16, 0.65, 0.83], np.float32)
ORANGE = np.array([0.14, 0.48, 0.88], np.float32)
PURPLE = np.array([0.63, 0.29, 0.48], np.float32)
TARGETS = {"gold": GOLD, "orange": ORANGE, "purple": PURPLE}


def board_with(warriors: dict[int, np.ndarray]) -> np.ndarray:
    photo = np.full((*CANONICAL.size[::-1], 3), 0.45, np.float32)
    half = round(14 * CANONICAL.px_per_mm)
    for number, bgr in warriors.items():
        x, y = (round(v) for v in CANONICAL.to_px(*cell_centre_mm(CELLS[number])))
        photo[y - half : y + half, x - half : x + half] = bgr
    return photo


def reading(labels: dict[int, tuple[str, float]]) -> CellReading:
    colours = ("orange", "purple")
    probabilities = np.zeros((len(CELLS), 4))
    probabilities[:, 0] = 1.0
    for number, (name, sure) in labels.items():
        column = 2 + colours.index(name)
        probabilities[number] = (1 - sure) / 3
        probabilities[number, column] = sure
    return CellReading(colours, probabilities, np.zeros((len(CELLS), 4)), np.zeros(len(CELLS)))


def test_a_colour_shown_warmer_by_the_light_is_taken_from_its_sure_warriors() -> None:
    warm_purple = np.array([0.50, 0.30, 0.55], np.float32)
    photo = board_with({1: warm_purple, 2: warm_purple, 3: ORANGE, 4: warm_purple})
    seen = photo_colours(
        photo, reading({1: ("purple", 0.97), 2: ("purple", 0.95), 3: ("orange", 0.99)}), TARGETS
    )
    assert np.allclose(seen["purple"], warm_purple, atol=0.01)
    # Too few sure orange warriors to say how this photo shows orange: the profile's stays.
    assert seen["orange"] is ORANGE
    assert seen["gold"] is GOLD


def test_doubtful_warriors_teach_nothing_and_a_colour_drifting_to_another_is_refused() -> None:
    photo = board_with({1: PURPLE * 0.8, 2: PURPLE * 0.8})
    assert (
        photo_colours(photo, reading({1: ("purple", 0.7), 2: ("purple", 0.8)}), TARGETS)["purple"] is PURPLE
    )
    orange_looking = board_with({1: ORANGE, 2: ORANGE})
    seen = photo_colours(orange_looking, reading({1: ("purple", 0.95), 2: ("purple", 0.95)}), TARGETS)
    assert seen["purple"] is PURPLE
    assert (
        photo_colours(photo, reading({1: ("purple", 0.95)}), TARGETS, params=CellParams(least_sure=1))[
            "purple"
        ]
        is not PURPLE
    )


def test_reading_the_colours_again_from_the_discs_already_seen_gives_what_reading_afresh_does() -> None:
    warm_purple = np.array([0.50, 0.30, 0.55], np.float32)
    photo = board_with({1: warm_purple, 2: warm_purple, 3: ORANGE, 9: GOLD})
    face = np.full_like(photo, 0.45)
    glare = np.full(photo.shape[:2], 0.05, np.float32)
    first = cell_signs(photo, face, TARGETS, glare=glare)
    moved = {"gold": GOLD, "orange": warm_purple, "purple": ORANGE}
    again = cell_signs(photo, face, moved, glare=glare, discs=first.discs)
    afresh = cell_signs(photo, face, moved, glare=glare)
    for name in ("features", "shares", "near", "seen"):
        assert np.array_equal(getattr(again, name), getattr(afresh, name)), name
    # The colours are still read from the targets given: only what does not depend on them is kept.
    assert first.shares[3].argmax() == 1 and again.shares[3].argmax() == 2


#: A stick stained toward purple: its pixels would vote purple if they voted.
WOOD = np.array([0.50, 0.32, 0.46], np.float32)


def test_a_stick_leaning_over_a_warrior_does_not_vote_but_a_warrior_that_looks_like_wood_hints() -> None:
    # A stick's strip across the side of an orange warrior's disc: the wood does not vote.
    photo = board_with({1: ORANGE, 2: WOOD})
    x, y = (round(v) for v in CANONICAL.to_px(*cell_centre_mm(CELLS[1])))
    mm = CANONICAL.px_per_mm
    photo[y - round(14 * mm) : y + round(14 * mm), x + round(8 * mm) : x + round(12 * mm)] = WOOD
    face = np.full_like(photo, 0.45)
    with_stick = cell_signs(photo, face, TARGETS, ignore=(WOOD,))
    unheeded = cell_signs(photo, face, TARGETS)
    assert with_stick.shares[1, 1] > unheeded.shares[1, 1]
    assert with_stick.shares[1, 1] > 0.95
    # A warrior the light turned toward the wood's colour covers its whole disc, as no stick can:
    # it hints at the colour nearest its own, and no more: its reading stays doubtful.
    wooden = with_stick.shares[2]
    assert wooden.argmax() == unheeded.shares[2].argmax() == 2
    assert 0.4 < wooden.max() < 0.8
    hushed = cell_signs(photo, face, TARGETS, ignore=(WOOD,), params=CellParams(stick_share=1.0))
    assert np.allclose(hushed.shares[2], 1 / 3)
