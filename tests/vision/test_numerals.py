"""The gold-value reader: numerals in fonts the classifier never saw, blank discs, and the assignment.

The crops here come from a renderer of the test's own (not the one the classifier was trained
with): a disc with a dark rim on a textured board with grid lines, offset from the cell centre,
a numeral in a held-out font (DejaVu Serif, DejaVu Sans Mono and DejaVu Sans, kept out of
training with their clones; OpenCV's built-in fonts; a polygonal stroke font drawn here), rotated,
under a coloured light, blurred, noisy and JPEG compressed, at 2, 4 and 8 pixels a millimetre.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.read.numerals import (
    GOLD_VALUES,
    NUMERAL_PARAMS,
    VALUES,
    assign_gold_values,
    numeral_probabilities,
)
from vision.train.numerals import Backgrounds, glyph_alpha_from_font, render_token_crop

DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
HELD_OUT_TTF = (
    "DejaVuSerif.ttf",
    "DejaVuSerif-Bold.ttf",
    "DejaVuSansMono.ttf",
    "DejaVuSansCondensed-Bold.ttf",
)
RESOLUTIONS = (2.0, 4.0, 8.0)

Alpha = NDArray[np.float32]

# A polygonal stroke font of the test's own: corners where other fonts have curves.
STROKES: dict[int, list[list[tuple[float, float]]]] = {
    3: [
        [(0.0, 0.1), (0.2, 0.0), (0.45, 0.0), (0.6, 0.12), (0.6, 0.3), (0.45, 0.45), (0.25, 0.45)],
        [(0.45, 0.45), (0.62, 0.58), (0.62, 0.85), (0.45, 1.0), (0.15, 1.0), (0.0, 0.9)],
    ],
    4: [[(0.25, 0.0), (0.0, 0.68), (0.65, 0.68)], [(0.48, 0.35), (0.48, 1.0)]],
    5: [[(0.58, 0.0), (0.1, 0.0), (0.05, 0.45), (0.2, 0.38), (0.45, 0.38), (0.62, 0.55), (0.62, 0.85),
         (0.45, 1.0), (0.15, 1.0), (0.0, 0.88)]],
    6: [[(0.55, 0.05), (0.4, 0.0), (0.2, 0.0), (0.05, 0.2), (0.0, 0.55), (0.0, 0.8), (0.15, 1.0), (0.45, 1.0),
         (0.6, 0.85), (0.6, 0.6), (0.45, 0.45), (0.15, 0.45), (0.0, 0.6)]],
    7: [[(0.0, 0.0), (0.62, 0.0), (0.3, 0.55), (0.22, 1.0)]],
}  # fmt: skip


def _tight(alpha: Alpha) -> Alpha:
    ys, xs = np.nonzero(alpha > 0.2)
    return np.ascontiguousarray(alpha[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def ttf_alpha(name: str) -> Callable[[int], Alpha]:
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(DEJAVU / name), 120)

    def draw(digit: int) -> Alpha:
        canvas = Image.new("L", (300, 300), 0)
        ImageDraw.Draw(canvas).text((90, 40), str(digit), fill=255, font=font)
        return _tight(np.asarray(canvas, np.float32) / 255.0)

    return draw


def cv2_alpha(face: int, thickness: int) -> Callable[[int], Alpha]:
    def draw(digit: int) -> Alpha:
        canvas = np.zeros((200, 200), np.uint8)
        cv2.putText(canvas, str(digit), (40, 150), face, 4.0, 255, thickness, cv2.LINE_AA)
        return _tight(canvas.astype(np.float32) / 255.0)

    return draw


def stroke_alpha(pen: float) -> Callable[[int], Alpha]:
    def draw(digit: int) -> Alpha:
        canvas = np.zeros((260, 200), np.uint8)
        for line in STROKES[digit]:
            pts = np.array([(30 + 200 * x, 30 + 200 * y) for x, y in line]) * 16
            cv2.polylines(canvas, [pts.astype(np.int32)], False, 255, round(200 * pen), cv2.LINE_AA, 4)
        return _tight(canvas.astype(np.float32) / 255.0)

    return draw


def held_out_fonts() -> dict[str, Callable[[int], Alpha]]:
    fonts = {
        "cv2 simplex": cv2_alpha(cv2.FONT_HERSHEY_SIMPLEX, 3),
        "cv2 complex bold": cv2_alpha(cv2.FONT_HERSHEY_COMPLEX, 8),
        "cv2 script": cv2_alpha(cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 5),
        "stroke thin": stroke_alpha(0.06),
        "stroke bold": stroke_alpha(0.13),
    }
    for name in HELD_OUT_TTF:
        if (DEJAVU / name).exists():
            fonts[name] = ttf_alpha(name)
    return fonts


def token_crop(alpha: Alpha | None, px_per_mm: float, rng: np.random.Generator) -> NDArray[np.uint8]:
    """A gold cell, 55 mm square, the cell centre in the middle; ``alpha`` None for a blank disc."""
    s = px_per_mm
    side = round(55 * s)
    c = side / 2
    # Board: blotchy greens and browns with speckle, dark grid lines on the cell edges.
    blotches = rng.uniform(40, 170, size=(4, 4, 3)).astype(np.float32) * np.float32([0.6, 1.0, 0.9])
    image = cv2.resize(blotches, (side, side), interpolation=cv2.INTER_CUBIC)
    image += rng.normal(0, 12, image.shape).astype(np.float32)
    for edge in (c - 22.5 * s, c + 22.5 * s):
        cv2.line(image, (round(edge), 0), (round(edge), side), (30, 35, 40), max(1, round(1.5 * s)))
        cv2.line(image, (0, round(edge)), (side, round(edge)), (30, 35, 40), max(1, round(1.5 * s)))
    # Disc: 30 mm, up to 4 mm off, gold with a darker rim and a soft shadow.
    off = 4.0 * math.sqrt(rng.random())
    ang = rng.uniform(0, 2 * math.pi)
    cx, cy = c + off * s * math.cos(ang), c + off * s * math.sin(ang)
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    r = np.hypot(xx + 0.5 - cx, yy + 0.5 - cy) / s
    shadow = np.clip(15.8 - np.hypot(xx + 0.5 - cx - 1.2 * s, yy + 0.5 - cy - 1.2 * s) / s, 0, 1)
    image *= (1 - 0.4 * shadow)[..., None]
    disc = np.clip(15.0 - r, 0, 1)[..., None]
    rim = np.clip(r - 13.6, 0, 1)[..., None]
    gold = np.float32([42, 166, 212]) * rng.uniform(0.85, 1.1, 3).astype(np.float32)
    face = gold * (1 - 0.45 * rim)
    if alpha is not None:
        height = 12.0 * s * rng.uniform(0.9, 1.1)
        a = cv2.resize(
            alpha, None, fx=height / alpha.shape[0], fy=height / alpha.shape[0], interpolation=cv2.INTER_AREA
        )
        m = cv2.getRotationMatrix2D((a.shape[1] / 2, a.shape[0] / 2), rng.uniform(-10, 10), 1.0)
        m[:, 2] += (cx - a.shape[1] / 2, cy - a.shape[0] / 2)
        ink = cv2.warpAffine(a, m, (side, side))[..., None]
        face = face * (1 - ink) + np.float32([25, 25, 35]) * ink
    image = image * (1 - disc) + face * disc
    # Light of some colour, a brightness ramp, a highlight, optics, sensor and compression.
    warm = rng.uniform(-1, 1)
    cast = np.float32([1 - 0.45 * max(warm, 0), 1 - 0.12 * max(warm, 0), 1 - 0.15 * max(-warm, 0)])
    ramp = 1 + 0.3 * (xx - c) / side
    image = image * cast * ramp[..., None] * rng.uniform(0.6, 1.15)
    if rng.random() < 0.5:
        gx, gy = cx + rng.uniform(-12, 12) * s, cy + rng.uniform(-12, 12) * s
        spot = np.exp(-0.5 * ((xx - gx) ** 2 + (yy - gy) ** 2) / (3.0 * s) ** 2)
        image += (120 * spot)[..., None]
    image = cv2.GaussianBlur(image, (0, 0), 0.4 + 0.6 * rng.random())
    image += rng.normal(0, 5, image.shape).astype(np.float32)
    out = np.clip(image, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)


@pytest.fixture(scope="module")
def held_out_results() -> dict[float, list[tuple[str, int, NDArray[np.float64]]]]:
    """(font, true value, probabilities) for every held-out font and value, twice, at each resolution."""
    rng = np.random.default_rng(7)
    fonts = held_out_fonts()
    results: dict[float, list[tuple[str, int, NDArray[np.float64]]]] = {s: [] for s in RESOLUTIONS}
    for name, draw in fonts.items():
        glyphs = {v: draw(v) for v in VALUES}
        for s in RESOLUTIONS:
            for _ in range(2):
                for v in VALUES:
                    results[s].append((name, v, numeral_probabilities(token_crop(glyphs[v], s, rng), s)))
    return results


def accuracy(rows: list[tuple[str, int, NDArray[np.float64]]]) -> float:
    return float(np.mean([VALUES[int(np.argmax(p))] == v for _, v, p in rows]))


# Measured with the committed model on this renderer, 270 crops a resolution (seeds 100-105):
# 2 px/mm 1.000, 4 px/mm 0.996, 8 px/mm 0.996; on the 90 a resolution here (seed 7): 0.989, 1.0, 1.0.
# The threshold allows 4 misreads in 90.
MIN_ACCURACY = {2.0: 0.95, 4.0: 0.95, 8.0: 0.95}
# The training renderer's conditions are harsher. Measured on the held-out DejaVu faces, 120 crops a
# resolution (seed 1234): 2 px/mm 0.992, 4 px/mm 0.983, 8 px/mm 1.000; the build's own report on 65
# held-out faces of other families: 0.980, 0.989, 0.982. The threshold allows 4 misreads in 40.
MIN_ACCURACY_HARD = 0.9


@pytest.mark.slow
@pytest.mark.parametrize("px_per_mm", RESOLUTIONS)
def test_reads_numerals_in_held_out_fonts(
    held_out_results: dict[float, list[tuple[str, int, NDArray[np.float64]]]], px_per_mm: float
) -> None:
    rows = held_out_results[px_per_mm]
    acc = accuracy(rows)
    wrong = sorted(
        {f"{name}:{v}->{VALUES[int(np.argmax(p))]}" for name, v, p in rows if VALUES[int(np.argmax(p))] != v}
    )
    assert acc >= MIN_ACCURACY[px_per_mm], f"accuracy {acc:.3f} at {px_per_mm} px/mm; misread {wrong}"


@pytest.mark.slow
@pytest.mark.skipif(not (DEJAVU / "DejaVuSerif.ttf").exists(), reason="needs the DejaVu fonts")
def test_reads_held_out_fonts_under_the_training_renderers_hardest_conditions() -> None:
    """The module's own renderer (glare, cast shadows, palisades, skew, motion blur, JPEG down to
    quality 35) with fonts it was never trained on, on procedural board texture."""
    rng = np.random.default_rng(21)
    backgrounds = Backgrounds()
    correct: dict[float, list[bool]] = {s: [] for s in RESOLUTIONS}
    for name in HELD_OUT_TTF:
        for v in VALUES:
            alpha = glyph_alpha_from_font(DEJAVU / name, v)
            assert alpha is not None
            for s in RESOLUTIONS:
                for _ in range(2):
                    p = numeral_probabilities(render_token_crop(alpha, s, rng, backgrounds), s)
                    correct[s].append(VALUES[int(np.argmax(p))] == v)
    for s, hits in correct.items():
        assert np.mean(hits) >= MIN_ACCURACY_HARD, f"{np.mean(hits):.3f} at {s} px/mm"


@pytest.mark.slow
def test_probabilities_are_a_distribution(
    held_out_results: dict[float, list[tuple[str, int, NDArray[np.float64]]]],
) -> None:
    for rows in held_out_results.values():
        for _, _, p in rows:
            assert p.shape == (5,)
            assert p.dtype == np.float64
            assert np.all(p > 0)
            assert p.sum() == pytest.approx(1.0, abs=1e-9)


@pytest.mark.slow
def test_assignment_of_read_tokens_recovers_a_game(
    held_out_results: dict[float, list[tuple[str, int, NDArray[np.float64]]]],
) -> None:
    """Eight tokens of one font at 4 px/mm, dealt 7,6,6,5,5,4,4,3: the assignment gets them all."""
    by_font: dict[str, dict[int, list[NDArray[np.float64]]]] = {}
    for name, v, p in held_out_results[4.0]:
        by_font.setdefault(name, {}).setdefault(v, []).append(p)
    solved = 0
    for reads in by_font.values():
        rows = np.array([reads[v][GOLD_VALUES[:i].count(v) % 2] for i, v in enumerate(GOLD_VALUES)])
        values, _ = assign_gold_values(rows)
        assert sorted(values) == sorted(GOLD_VALUES)
        solved += values == GOLD_VALUES
    assert solved >= len(by_font) - 1


@pytest.mark.parametrize("px_per_mm", RESOLUTIONS)
def test_blank_disc_gives_a_flat_distribution(px_per_mm: float) -> None:
    rng = np.random.default_rng(11)
    for _ in range(4):
        p = numeral_probabilities(token_crop(None, px_per_mm, rng), px_per_mm)
        assert p.sum() == pytest.approx(1.0)
        assert p.max() < 0.45, p


def test_how_a_reading_is_trusted_is_the_callers_to_set() -> None:
    rng = np.random.default_rng(5)
    draw = next(iter(held_out_fonts().values()))
    crop = token_crop(draw(6), 4.0, rng)
    sure = numeral_probabilities(crop, 4.0)
    assert VALUES[int(np.argmax(sure))] == 6 and sure.min() < 0.05
    # A larger floor keeps every value possible; a contrast no stroke reaches reads nothing.
    floored = numeral_probabilities(crop, 4.0, replace(NUMERAL_PARAMS, floor=0.5))
    assert floored.min() >= 0.5 / len(VALUES) - 1e-9
    blind = numeral_probabilities(crop, 4.0, replace(NUMERAL_PARAMS, min_contrast=1.0, full_contrast=1.1))
    assert np.allclose(blind, 1 / len(VALUES))


def test_no_token_at_all_gives_a_flat_distribution() -> None:
    rng = np.random.default_rng(3)
    board = cv2.resize(
        rng.uniform(60, 160, (5, 5, 3)).astype(np.uint8), (220, 220), interpolation=cv2.INTER_CUBIC
    )
    assert numeral_probabilities(board, 4.0).max() < 0.45
    assert numeral_probabilities(np.zeros((110, 110, 3), np.uint8), 2.0).max() < 0.45


def test_rejects_what_is_not_a_bgr_crop() -> None:
    with pytest.raises(ValueError):
        numeral_probabilities(np.zeros((50, 50), np.uint8), 2.0)
    with pytest.raises(ValueError):
        numeral_probabilities(np.zeros((50, 50, 3), np.uint8), 0.0)


# --- assignment ---------------------------------------------------------------------------------


def confident_rows(values: tuple[int, ...], sure: float = 0.96) -> NDArray[np.float64]:
    p = np.full((len(values), 5), (1 - sure) / 4)
    for i, v in enumerate(values):
        p[i, VALUES.index(v)] = sure
    return p


def test_assignment_uses_exactly_the_kit_values() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        p = rng.dirichlet(np.ones(5), size=8)
        values, confidences = assign_gold_values(p)
        assert sorted(values) == sorted(GOLD_VALUES)
        assert len(confidences) == 8
        assert all(0.0 < c <= 1.0 for c in confidences)


def test_assignment_keeps_clear_reads() -> None:
    order = (3, 7, 5, 6, 4, 5, 6, 4)
    values, confidences = assign_gold_values(confident_rows(order))
    assert values == order
    assert min(confidences) > 0.95


def test_assignment_fixes_a_single_confusable_token() -> None:
    """Three tokens read best as 6; the one with 5 as runner-up takes the free 5."""
    truth = (7, 6, 6, 5, 5, 4, 4, 3)
    p = confident_rows(truth)
    p[3] = [0.01, 0.02, 0.30, 0.66, 0.01]  # a 5 that looks like a 6
    assert [VALUES[int(i)] for i in p.argmax(axis=1)].count(6) == 3
    values, confidences = assign_gold_values(p)
    assert values == truth
    assert confidences[3] > 0.9
    # The same rows without the constraint would have said 6: the constraint did the work.
    assert VALUES[int(np.argmax(p[3]))] == 6


def test_assignment_confidence_reflects_a_coin_flip() -> None:
    """Two tokens that could each be the 7 or the 3, nothing else to tell them apart: 50/50."""
    p = confident_rows((6, 6, 5, 5, 4, 4, 7, 3))
    p[6] = p[7] = [0.5, 0.0, 0.0, 0.0, 0.5]
    values, confidences = assign_gold_values(p)
    assert sorted(values[6:]) == [3, 7]
    assert confidences[6] == pytest.approx(0.5, abs=1e-6)
    assert confidences[0] > 0.99


def test_assignment_with_fewer_tokens_draws_without_replacement() -> None:
    # Three tokens all read as 7: only one 7 exists, the others take their runner-up values.
    p = np.array(
        [
            [0.01, 0.01, 0.01, 0.02, 0.95],
            [0.01, 0.01, 0.02, 0.36, 0.60],
            [0.01, 0.30, 0.01, 0.08, 0.60],
        ]
    )
    values, confidences = assign_gold_values(p)
    assert values == (7, 6, 4)
    assert len(confidences) == 3
    # A single token is read as it looks.
    assert assign_gold_values(p[:1])[0] == (7,)
    assert assign_gold_values(np.zeros((0, 5))) == ((), ())
    # Any read the multiset allows twice is allowed twice, never three times.
    values, _ = assign_gold_values(confident_rows((4, 4, 4)))
    assert sorted(values).count(4) == 2


def test_assignment_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        assign_gold_values(np.full((9, 5), 0.2))
    with pytest.raises(ValueError):
        assign_gold_values(np.full((8, 4), 0.25))
    with pytest.raises(ValueError):
        assign_gold_values(np.full((8, 5), np.nan))


@pytest.mark.parametrize("misread", [1, 2, 3])
def test_gold_values_the_kit_overrules_in_several_places_are_all_doubtful(
    misread: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import vision.read.numerals as numerals
    from vision.read.assemble import ASSEMBLE_PARAMS

    # Sure numerals, right but for ``misread`` tokens read surely as a 7 (the kit has one 7).
    truth = (7, 6, 6, 5, 5, 4, 4, 3)
    rows = np.full((8, len(VALUES)), 0.005)
    for row, value in enumerate(truth):
        rows[row, VALUES.index(7 if 0 < row <= misread else value)] = 0.98
    read = iter(rows)
    monkeypatch.setattr(numerals, "gold_crop", lambda *args: (np.zeros((8, 8, 3), np.uint8), 4.0))
    # Discs without ink to compare: no numerals pair up, the readings alone decide.
    monkeypatch.setattr(numerals, "numeral_ink", lambda *args: (np.zeros((60, 60), np.float32), 1.0))
    monkeypatch.setattr(numerals, "ink_probabilities", lambda ink, contrast, *_: next(read))
    doubtful = ASSEMBLE_PARAMS.doubtful
    gold = numerals.read_gold_values(np.zeros((8, 8, 3), np.uint8), np.eye(3), doubtful=doubtful)
    confidences = [conf for _, conf in gold.values()]
    if misread > numerals.NUMERAL_PARAMS.most_overruled:
        # How the values are shared out is a guess: every one is marked, right or not.
        assert max(confidences) <= doubtful
    else:
        # One 7 too many: the values left say a 6 was misread, between the two tokens read 7 (both
        # marked); the others stay as read, and as sure.
        values = [value for value, _ in gold.values()]
        assert sorted(values[:2]) == [6, 7] and values[2:] == list(truth[2:])
        assert max(confidences[:2]) < 0.8 < min(confidences[2:])


def drawn_ink(value: int, turn: float, blur: float) -> NDArray[np.float32]:
    """A disc's ink (as :func:`vision.read.numerals.numeral_ink` gives it): ``value`` in one font,
    turned ``turn`` degrees, blurred ``blur`` pixels."""
    drawn = np.zeros((105, 105), np.uint8)
    cv2.putText(drawn, str(value), (34, 76), cv2.FONT_HERSHEY_DUPLEX, 2.2, 255, 5, cv2.LINE_AA)
    ink = drawn.astype(np.float32) / 255
    turned = cv2.warpAffine(ink, cv2.getRotationMatrix2D((52.0, 52.0), turn, 1.0), (105, 105))
    return np.asarray(cv2.GaussianBlur(turned, (0, 0), blur), np.float32)


def test_numerals_printed_alike_pair_up_and_settle_what_the_blurred_readings_cannot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import vision.read.numerals as numerals
    from vision.read.assemble import ASSEMBLE_PARAMS

    # A blurred photo's readings (a real one's, path-traced): the 5 on the third token read as a
    # 6 surely, the 3 on the sixth nearly as a 5; alone, the kit's values make three mistakes or more.
    truth = (6, 7, 5, 4, 5, 3, 6, 4)
    rows = np.array(
        [
            [0.01, 0.03, 0.01, 0.94, 0.01],
            [0.2, 0.2, 0.2, 0.2, 0.2],
            [0.01, 0.01, 0.002, 0.98, 0.002],
            [0.002, 0.99, 0.002, 0.002, 0.002],
            [0.02, 0.34, 0.17, 0.44, 0.04],
            [0.43, 0.07, 0.48, 0.02, 0.01],
            [0.01, 0.002, 0.002, 0.99, 0.002],
            [0.002, 0.99, 0.002, 0.002, 0.002],
        ]
    )
    alone, _ = assign_gold_values(rows)
    assert sum(a != b for a, b in zip(alone, truth, strict=True)) >= 3
    # Each token lies its own way round, the photo blurs all alike.
    inks = [
        drawn_ink(value, turn, 2.0)
        for value, turn in zip(truth, (0, 40, 95, 170, 230, 300, 20, 75), strict=True)
    ]
    likeness = numerals.numeral_likeness(inks)
    assert numerals.alike_pairs(likeness) == ((0, 6), (2, 4), (3, 7))
    ink_of = iter(inks)
    read = iter(rows)
    monkeypatch.setattr(numerals, "gold_crop", lambda *args: (np.zeros((8, 8, 3), np.uint8), 4.0))
    monkeypatch.setattr(numerals, "numeral_ink", lambda *args: (next(ink_of), 1.0))
    monkeypatch.setattr(numerals, "ink_probabilities", lambda ink, contrast, *_: next(read))
    doubtful = ASSEMBLE_PARAMS.doubtful
    gold = numerals.read_gold_values(np.zeros((8, 8, 3), np.uint8), np.eye(3), doubtful=doubtful)
    assert tuple(value for value, _ in gold.values()) == truth
    # The values the pairs moved are taken, and doubted; with three numerals overruled, as where
    # the kit's values alone overrule them, every value is.
    assert max(conf for _, conf in gold.values()) <= doubtful
    # Blank discs pair nothing: the readings alone decide, as before.
    ink_of, read = iter([np.zeros((105, 105), np.float32)] * 8), iter(rows)
    blind = numerals.read_gold_values(np.zeros((8, 8, 3), np.uint8), np.eye(3), doubtful=doubtful)
    assert tuple(value for value, _ in blind.values()) == alone
