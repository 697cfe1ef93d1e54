"""Colours improvised from a photo: groups of warriors that may be one player's under two lights."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.learn.improvise import alike_groups, with_recurring
from vision.learn.pieces import fill_in, filling

SIDE = 160  # a warrior's picture at the improviser's 5 px a millimetre
WHITE = np.ones(3)


def warrior(bgr: tuple[int, int, int], emblem: str, seed: int) -> npt.NDArray[np.uint8]:
    """A warrior's back of colour ``bgr`` with a light ``emblem`` ("cross", "ring" or "bars")."""
    picture = np.full((SIDE, SIDE, 3), bgr, np.uint8)
    light = tuple(min(255, c + 110) for c in bgr)
    c = SIDE // 2
    if emblem == "cross":
        cv2.rectangle(picture, (c - 8, c - 40), (c + 8, c + 40), light, -1)
        cv2.rectangle(picture, (c - 40, c - 8), (c + 40, c + 8), light, -1)
    elif emblem == "ring":
        cv2.circle(picture, (c, c), 32, light, 9)
    else:
        for x in (c - 30, c + 6):
            cv2.rectangle(picture, (x, c - 40), (x + 22, c - 20), light, -1)
        cv2.rectangle(picture, (c - 30, c + 10), (c + 28, c + 36), light, -1)
    noise = np.random.default_rng(seed).normal(0, 4, picture.shape)
    return np.clip(picture + noise, 0, 255).astype(np.uint8)


def group(
    bgr: tuple[int, int, int], emblem: str, count: int = 3
) -> tuple[npt.NDArray[np.float64], list[npt.NDArray[np.uint8]]]:
    """``count`` warriors of one colour and emblem, as the improviser groups them: (colour, pictures)."""
    return np.array(bgr, np.float64) / 255, [warrior(bgr, emblem, seed) for seed in range(count)]


ORANGE = (36, 123, 224)
SHADED_ORANGE = (20, 80, 160)  # orange in a lamp's fall-off: darker, one hue
WASHED_ORANGE = (150, 160, 175)  # orange under a glare: nearly grey
PURPLE = (160, 74, 123)
NAVY = (107, 47, 30)
LIGHT_BLUE = (220, 160, 100)  # of navy's hue


def test_one_players_warriors_in_two_lights_are_alike() -> None:
    groups = [group(ORANGE, "cross"), group(PURPLE, "ring"), group(SHADED_ORANGE, "cross", 2)]
    assert alike_groups(groups, ["orange", "purple", "orange-2"], WHITE) == (("orange-2", "orange"),)
    # Washed nearly grey, the colour says nothing of the hue: the emblem alone tells.
    washed = [group(ORANGE, "cross"), group(WASHED_ORANGE, "cross", 2)]
    assert alike_groups(washed, ["orange", "grey"], WHITE) == (("grey", "orange"),)


def test_two_players_are_not_alike() -> None:
    # Each player's emblem is their own: one hue, other emblems (navy and light blue).
    assert alike_groups([group(NAVY, "bars"), group(LIGHT_BLUE, "ring")], ["navy", "blue"], WHITE) == ()
    # One emblem, other hues: not one player's either.
    assert alike_groups([group(ORANGE, "cross"), group(PURPLE, "cross")], ["orange", "purple"], WHITE) == ()


def test_a_fill_blends_in_as_far_as_its_blur_reaches_and_no_farther() -> None:
    # Holes near one another (their blurs overlap), at the face's edge, and a thin one.
    rng = np.random.default_rng(5)
    face = cv2.GaussianBlur(rng.integers(0, 256, (300, 420, 3), dtype=np.uint8), (0, 0), 3.0)
    mask = np.zeros(face.shape[:2], np.uint8)
    cv2.circle(mask, (100, 100), 30, 255, -1)
    cv2.circle(mask, (165, 100), 25, 255, -1)
    cv2.rectangle(mask, (380, 200), (419, 299), 255, -1)
    cv2.line(mask, (40, 250), (300, 260), 255, 2)
    blend_px = 6.0
    filled = fill_in(face, mask, blend_px)
    soft = cv2.GaussianBlur(mask, (0, 0), blend_px)
    # Where the blur reaches, the fill and the face mixed by it; elsewhere the face as it was.
    share = soft.astype(np.float32)[..., None] / 255
    mixed = np.clip(face * (1 - share) + filling(face, mask) * share, 0, 255).astype(np.uint8)
    assert np.array_equal(filled, mixed)
    assert np.array_equal(filled[soft == 0], face[soft == 0])
    assert (filled[soft > 0] != face[soft > 0]).any()


DARK = (40, 30, 30)  # a dark player's back, and a dark copy's art alike
YELLOW = (40, 200, 230)


def starry_art(seed: int) -> npt.NDArray[np.uint8]:
    """A cell of dark art strewn with small light stars, different on every cell."""
    picture = np.full((SIDE, SIDE, 3), DARK, np.uint8)
    rng = np.random.default_rng(seed)
    for x, y in rng.integers(8, SIDE - 8, (14, 2)):
        cv2.circle(picture, (int(x), int(y)), int(rng.integers(2, 5)), (200, 200, 210), -1)
    return picture


def test_a_lone_warrior_of_art_gives_way_to_the_warriors_its_colour_recurs_on() -> None:
    art = (np.array(DARK, np.float64) / 255, [starry_art(7)])
    ink = group(DARK, "ring", 5)
    found = with_recurring([group(YELLOW, "cross"), art], [ink], WHITE)
    assert [len(members) for _, members in found] == [3, 5]
    assert found[1][1] is ink[1]


def test_a_lone_warrior_keeps_its_place_where_its_colour_recurs_only_on_art() -> None:
    lone = group(DARK, "ring", 1)
    art = (np.array(DARK, np.float64) / 255, [starry_art(seed) for seed in range(5)])
    found = with_recurring([group(YELLOW, "cross"), lone], [art], WHITE)
    assert [len(members) for _, members in found] == [3, 1]
    assert found[1] is lone


def test_a_lone_warrior_joins_the_warriors_its_colour_and_emblem_recur_on() -> None:
    lone = (np.array(DARK, np.float64) / 255, [np.rot90(warrior(DARK, "bars", 9))])
    found = with_recurring([group(YELLOW, "cross"), lone], [group(DARK, "bars", 4)], WHITE)
    assert [len(members) for _, members in found] == [3, 5]
    # Turned back as the others lie, it matches them as they match one another.
    assert float(np.abs(found[1][1][-1].astype(int) - found[1][1][0].astype(int)).mean()) < 10


def test_a_recurring_colour_no_lone_warrior_has_is_a_player_while_there_is_room() -> None:
    players = [group(ORANGE, "cross"), group(PURPLE, "ring")]
    assert len(with_recurring(players, [group(NAVY, "bars", 2)], WHITE)) == 3
    full = [*players, group(NAVY, "bars"), group(YELLOW, "cross")]
    assert len(with_recurring(full, [group(DARK, "ring", 2)], WHITE)) == 4
