"""Is a copy's warrior on a cell whose art the profile never saw? Match the warrior's own picture.

A setup photo hides four cells' art under its corner warriors, so there the
face cannot say what an empty cell looks like. But it shows what each
colour's warrior looks like (:attr:`vision.looks.Looks.tokens`):
the same print, emblem and all, on every warrior of that colour. Each such
cell is searched for each warrior's middle, at every turn and offset a hand
puts a warrior down with; art seldom looks like a warrior's emblem.

How well a picture matches depends on the photo (light, blur, angle) and on
the copy (a faint emblem matches worse than a bold one), so a hidden cell's
best match is read against the same picture's matches in the same photo: on
cells the face shows surely empty, and on cells surely holding a warrior
(:func:`match_levels`). A fixed bar, with the share of token colours to help
it, read an empty corner printed in a token's colour as a warrior. How
clearly a warrior's square outline shows there counts too: a palisade across
a warrior or a faint emblem spoils its picture's match, not its outline.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from engine.board import Cell
from vision.geometry import CANONICAL, WARRIOR_SIDE_MM, FaceRaster, cell_centre_mm
from vision.learn.pieces import warrior_odds
from vision.logistic import fit_logistic, logistic, with_constant
from vision.looks import Looks
from vision.parallel import each
from vision.templates import TemplateBank, best_matches, template_bank
from vision.weights import world_mean

FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class TokenParams:
    """How the warriors' learnt pictures are matched: the hand-set numbers."""

    #: The middle of the warrior matched: its rounded corners and edges turn with it and blur.
    middle_mm: float = 22.0
    #: A warrior's middle lies this far (mm) from its cell's centre at most.
    reach_mm: float = 6.0
    blur_px: float = 0.8
    #: How well a colour's picture matches bare art and a warrior of its own colour, for a photo that
    #: shows no cell surely empty or none surely holding that colour (the tuning copies' medians).
    art_match: float = 0.36
    warrior_match: float = 0.94
    #: The art's level is this percentile of the matches over the cells surely empty: art that
    #: happens to look like a warrior is what a hidden cell must be told from.
    art_percentile: int = 90
    #: Below this gap between the two levels the photo cannot tell them apart; the gap is kept at least this.
    min_gap: float = 0.1


TOKEN_PARAMS = TokenParams()


#: Turns tried (degrees): the warrior in the setup and in the photo each turned up to 15.
TURNS_DEG = tuple(np.arange(-30.0, 30.1, 7.5))

#: The turns tried at each quarter turn but the first (:func:`any_turn_match`): a third of
#: :data:`TURNS_DEG`, and half the work of them all. On the tuning copies of both worlds, matched
#: at these or at all, the same warriors matched another colour's picture better.
QUARTER_TURNS_DEG = (-15.0, 0.0, 15.0)

#: The columns of :func:`hidden_signs`.
FEATURES = ("match_above_art", "token_coloured", "occupied_around", "outline", "warrior_looks")
#: Logistic weights over the features and a constant, with a profile learnt from a setup photo
#: and with one improvised from the photo read, fitted on the tuning copies only
#: (``vision/data/weights/hidden-*.json``; ``armadora bench fit COPIES_TUNING_DIR`` writes them
#: again). Each kind weighs the columns :data:`WEIGHED` names; the others' weights are 0.
LEARNT_WEIGHTS = world_mean("hidden-learnt")
IMPROVISED_WEIGHTS = world_mean("hidden-improvised")
#: Which columns of :func:`hidden_signs` each kind of profile weighs. Where the face was learnt, a
#: cell's share of token colours says more about its art than about a warrior (an empty corner
#: printed near a token's colour is all token-coloured), and how full the board is elsewhere is
#: the odds of a warrior on any cell. Every kind weighs how much a cell looks like a warrior
#: (:func:`vision.learn.pieces.warrior_odds`), not how clearly a warrior's outline shows alone: an
#: empty corner's grid line and board edge draw half a square's outline. Fitted on the raster
#: tuning copies, the outline's reader misread 27 of 220 hidden cells of the path-traced ones, the
#: looks' 8; fitted on the path-traced, 4 and 1 of 456 raster cells (:mod:`vision.train.fit`).
#: Where the face was improvised the looks made 7 of 7,296 mistakes on the tuning copies in
#: two-fold cross-validation, the outline's log in their place 11.
WEIGHED = {"learnt": (0, 2, 4), "improvised": (0, 1, 4)}
#: A second reader of a learnt profile's hidden cells weighs the outline's log in the looks' place
#: (``hidden-outline-learnt*.json``, fitted with the others): it makes other mistakes (the empty
#: corners above, where the looks' reader misses a dark warrior on dark art), so where the two
#: disagree the cell is in doubt (:func:`vision.read.judge.judge_cells`).
OUTLINE_WEIGHED = (0, 2, 3)
OUTLINE_WEIGHTS = world_mean("hidden-outline-learnt")


@lru_cache(maxsize=8)
def _templates(
    profile: Looks, view: FaceRaster, params: TokenParams = TOKEN_PARAMS
) -> tuple[tuple[str, tuple[FloatImage, ...]], ...]:
    """Each colour's warrior middle, blurred like a photo, at every turn of :data:`TURNS_DEG`."""
    side = round(params.middle_mm * view.px_per_mm) | 1
    out = []
    for name, image in profile.tokens.items():
        scale = view.px_per_mm * WARRIOR_SIDE_MM / image.shape[0]
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        centre = ((small.shape[1] - 1) / 2, (small.shape[0] - 1) / 2)
        turned = []
        for angle in TURNS_DEG:
            turn = np.asarray(cv2.getRotationMatrix2D(centre, float(angle), 1.0), np.float64)
            turn[:, 2] += (side - 1) / 2 - np.array(centre)
            middle = cv2.warpAffine(small, turn, (side, side), flags=cv2.INTER_LINEAR)
            turned.append(
                cast(FloatImage, cv2.GaussianBlur(middle.astype(np.float32) / 255, (0, 0), params.blur_px))
            )
        out.append((name, tuple(turned)))
    return tuple(out)


def token_match(
    balanced: FloatImage,
    profile: Looks,
    cells: list[Cell],
    view: FaceRaster = CANONICAL,
    params: TokenParams = TOKEN_PARAMS,
) -> FloatArray:
    """Per cell (rows) and colour of ``profile.colours`` (columns): how well its warrior's middle
    matches somewhere near the cell's centre (normalised correlation, -1..1; -1 for a colour whose
    warrior the profile has no picture of)."""
    return _best_matches(balanced, profile, cells, _bank(profile, view, params), view, params)


def any_turn_match(
    balanced: FloatImage,
    profile: Looks,
    cells: list[Cell],
    view: FaceRaster = CANONICAL,
    params: TokenParams = TOKEN_PARAMS,
    upright: FloatArray | None = None,
) -> FloatArray:
    """:func:`token_match` with each picture set down at any quarter turn too, as a hand may set a
    warrior down: its square back looks the same at each, its emblem does not. ``upright``:
    :func:`token_match` of these cells, where a reader before matched them already.

    Matched at the quarter turns, the pictures of one copy's colours judge the colours they
    learnt from its setup photo; the hidden cells are weighed on matches near upright
    (:func:`token_match`), as their weights were fitted. A warrior set down a quarter turn round
    from its picture (an L of its emblem's light on its dark back):

    >>> from dataclasses import replace
    >>> from vision.looks import reference_looks
    >>> picture = np.full((90, 90, 3), 60, np.uint8)
    >>> picture[20:70, 30:45] = picture[55:70, 30:70] = 230
    >>> looks = replace(reference_looks(), tokens={"orange": picture})
    >>> side = round(WARRIOR_SIDE_MM * CANONICAL.px_per_mm)
    >>> x, y = (round(v * CANONICAL.px_per_mm) - side // 2 for v in cell_centre_mm(Cell(2, 3)))
    >>> face = np.zeros((530, 800, 3), np.float32)
    >>> face[y : y + side, x : x + side] = np.rot90(cv2.resize(picture, (side, side))) / 255
    >>> float(token_match(face, looks, [Cell(2, 3)])[0, 0]) < 0.6
    True
    >>> float(any_turn_match(face, looks, [Cell(2, 3)])[0, 0]) > 0.95
    True
    >>> near_upright = token_match(face, looks, [Cell(2, 3)])
    >>> given = any_turn_match(face, looks, [Cell(2, 3)], upright=near_upright)
    >>> bool((given == any_turn_match(face, looks, [Cell(2, 3)])).all())
    True
    """
    if upright is None:
        upright = token_match(balanced, profile, cells, view, params)
    turned = _best_matches(balanced, profile, cells, _turned_bank(profile, view, params), view, params)
    return np.maximum(upright, turned)


def _best_matches(
    balanced: FloatImage,
    profile: Looks,
    cells: list[Cell],
    bank: TemplateBank,
    view: FaceRaster,
    params: TokenParams,
) -> FloatArray:
    """Per cell and colour of ``profile.colours``, its pictures' best match in ``bank`` (every
    picture of one colour, then the next colour's, in :func:`_templates`' order)."""
    # Asked as _bank asks, so that the cache made for one serves both.
    templates = _templates(profile, view, params)
    columns = {name: k for k, name in enumerate(profile.colours)}
    result = np.full((len(cells), len(profile.colours)), -1.0)
    if not templates:
        return result
    side = templates[0][1][0].shape[0]
    reach = round(params.reach_mm * view.px_per_mm)
    image = cast(FloatImage, cv2.GaussianBlur(balanced, (0, 0), params.blur_px * 0.5))
    colours = [columns[name] for name, _ in templates]

    def matched(cell: Cell) -> FloatArray | None:
        x, y = (round(v * view.px_per_mm) for v in cell_centre_mm(cell))
        half = (side - 1) // 2 + reach
        window = image[max(0, y - half) : y + half + 1, max(0, x - half) : x + half + 1]
        if window.shape[0] < side or window.shape[1] < side:
            return None
        return cast(FloatArray, best_matches(window, bank).reshape(len(colours), -1).max(axis=1))

    for row, best in enumerate(each(matched, cells)):
        if best is not None:
            result[row, colours] = best
    return result


@lru_cache(maxsize=8)
def _bank(profile: Looks, view: FaceRaster, params: TokenParams = TOKEN_PARAMS) -> TemplateBank:
    """:func:`_templates`, every colour's turns one after another, ready to be matched at once."""
    return template_bank([picture for _, turned in _templates(profile, view, params) for picture in turned])


@lru_cache(maxsize=8)
def _turned_bank(profile: Looks, view: FaceRaster, params: TokenParams = TOKEN_PARAMS) -> TemplateBank:
    """Each colour's pictures of :func:`_templates` at the turns of :data:`QUARTER_TURNS_DEG` from
    each quarter turn but the first (:func:`_bank` holds those), one colour's after another."""
    kept = [TURNS_DEG.index(turn) for turn in QUARTER_TURNS_DEG]
    return template_bank(
        [
            np.rot90(turned[k], quarter)
            for _, turned in _templates(profile, view, params)
            for quarter in (1, 2, 3)
            for k in kept
        ]
    )


def match_levels(
    art: FloatArray, warriors: FloatArray, params: TokenParams = TOKEN_PARAMS
) -> tuple[FloatArray, FloatArray]:
    """Per colour (the columns of :func:`token_match`), how well its picture matches this photo's
    bare art and its warriors of that colour.

    ``art`` holds the matches of cells surely empty; ``warriors`` those of cells surely holding a
    warrior, each taken for the colour whose picture matches it best (the pictures tell white from
    black, where the colour votes cannot). A photo's light, blur and angle raise or lower every
    match alike: a hidden cell is judged against these levels, not against a fixed bar. A colour
    seen on no such cell takes the other colours' middle, or :attr:`TokenParams.warrior_match`.

    >>> art = np.array([[0.2, 0.3], [0.4, 0.1]])
    >>> warriors = np.array([[0.9, 0.2], [0.3, 0.5]])
    >>> [level.round(2).tolist() for level in match_levels(art, warriors)]
    [[0.38, 0.28], [0.9, 0.5]]
    """
    colours = warriors.shape[1]
    art_level = (
        np.percentile(art, params.art_percentile, axis=0)
        if len(art) >= 2
        else np.full(colours, params.art_match)
    )
    best = warriors.argmax(axis=1)
    seen = {k: float(np.median(warriors[best == k, k])) for k in set(best.tolist())}
    fallback = float(np.median(list(seen.values()))) if seen else params.warrior_match
    warrior_level = np.array([seen.get(k, fallback) for k in range(colours)])
    return art_level, warrior_level


def hidden_signs(
    matches: FloatArray,
    token_coloured: FloatArray,
    looks: FloatArray,
    art_level: FloatArray,
    warrior_level: FloatArray,
    occupied_around: float = 0.0,
    params: TokenParams = TOKEN_PARAMS,
) -> FloatArray:
    """The signs weighed on a hidden cell (:data:`FEATURES`): how far its best warrior match rises
    from the art's level towards the warriors' (:func:`match_levels`; 0 at the art's, 1 at the
    warriors'), its share of token colours, the log odds of a warrior on the cells seen against the
    face (:func:`occupied_odds`; the same for every hidden cell of a photo), the log of how clearly
    a warrior's outline shows there, and the log odds of a warrior by its looks alone
    (:func:`vision.learn.pieces.warrior_odds`), both from ``looks``, the cells'
    looks as :func:`vision.learn.pieces.placed_warriors` reads them."""
    around = np.full(len(matches), occupied_around)
    outline, odds = looks[:, 0], warrior_odds(looks)
    if not matches.shape[1]:
        return np.column_stack([np.zeros(len(matches)), token_coloured, around, outline, odds])
    best = matches.argmax(axis=1)
    gap = np.maximum(warrior_level[best] - art_level[best], params.min_gap)
    above = (matches.max(axis=1) - art_level[best]) / gap
    return np.column_stack([above, token_coloured, around, outline, odds])


def occupied_odds(occupied: int, seen: int) -> float:
    """The log odds of a warrior on a cell, from ``occupied`` of ``seen`` other cells (one more
    of each, so that none seen is even odds). A board full everywhere else is likely full on the
    cells whose art the profile never saw; on an early board they are likely empty.

    >>> occupied_odds(0, 0), round(occupied_odds(28, 28), 2)
    (0.0, 3.37)
    """
    return float(np.log((occupied + 1) / (seen - occupied + 1)))


def hidden_occupied(signs: FloatArray, weights: npt.ArrayLike = LEARNT_WEIGHTS) -> FloatArray:
    """P(a warrior on the cell) for each row of :func:`hidden_signs`."""
    return logistic(with_constant(signs), weights)


def fit_hidden_weights(
    signs: FloatArray,
    labels: npt.NDArray[np.bool_],
    example_weights: FloatArray | None = None,
    weighed: tuple[int, ...] | None = None,
) -> FloatArray:
    """Weights for :func:`hidden_occupied`, fitted to cells whose truth is known, on the columns
    ``weighed`` (all by default; the others' weights are 0)."""
    columns = [*(range(signs.shape[1]) if weighed is None else weighed), signs.shape[1]]
    fitted = fit_logistic(with_constant(signs)[:, columns], labels, example_weights=example_weights)
    weights = np.zeros(signs.shape[1] + 1)
    weights[columns] = fitted
    return weights
