"""Whether a warrior stands on each cell, and whose: the face's signs weighed with what the copy's
warrior pictures add (:mod:`vision.read.tokens`), and on the cells the profile never saw bare, other
readers' opinions beside it."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

import vision.read.tokens as tokens_module
from engine.board import CELLS, GOLD_CELLS, Cell
from vision.colour import rgb_to_bgr_float, shaded_distance
from vision.geometry import CANONICAL
from vision.learn.improvise import colour_picture
from vision.learn.pieces import (
    EVERY_WORLD_WEIGHTS,
    Place,
    balanced_face,
    placed_warriors,
    token_image,
    warrior_probability,
)
from vision.looks import Kind, Looks
from vision.params import SCAN_PARAMS, ScanParams
from vision.read.cells import CellReading, CellSigns, cell_pixels, occupied_probability
from vision.read.tokens import (
    any_turn_match,
    hidden_occupied,
    hidden_signs,
    match_levels,
    occupied_odds,
    token_match,
)
from vision.read.view import BoardView

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

#: The hidden cells' weights, by how the profile's face was made (:attr:`vision.looks.Looks.kind`).
HIDDEN_WEIGHTS = {
    Kind.REFERENCE: tokens_module.LEARNT_WEIGHTS,
    Kind.LEARNT: tokens_module.LEARNT_WEIGHTS,
    Kind.IMPROVISED: tokens_module.IMPROVISED_WEIGHTS,
}


def hidden_cells(profile: Looks) -> list[Cell]:
    """The cells off gold whose art the profile's face does not show."""
    hidden = set(profile.hidden_cells)
    return [cell for cell in CELLS if cell.name in hidden and cell not in GOLD_CELLS]


def hidden_gold(profile: Looks) -> list[int]:
    """The numbers of the gold cells whose art the profile's face does not show."""
    return [cell.number for cell in GOLD_CELLS if cell.name in profile.hidden_cells]


@dataclass(frozen=True, eq=False)
class Judged:
    """What :func:`judge_cells` made of the cells, beside their colours."""

    #: P(a warrior) on each cell.
    occupied: FloatArray
    #: The cells that may hold a warrior, or whose art the profile never saw, and how well each
    #: colour's warrior picture matches there (one row each; no rows without pictures).
    looked_at: list[int]
    matches: FloatArray
    #: The other opinions on the cells whose art the profile never saw
    #: (:attr:`vision.read.cells.CellReading.others`; None where it saw all).
    others: FloatArray | None
    #: Where a warrior would lie on each cell of ``looked_at``, by cell number
    #: (:func:`vision.learn.pieces.placed_warriors`), for the readers after this one.
    places: dict[int, Place]
    #: Where the colours are read with the pictures matched at any quarter turn too (an improvised
    #: profile's, :func:`weighed_shares`, on the cells a warrior may stand on,
    #: :attr:`vision.params.ScanParams.maybe_occupied`; a learnt one's as the photo shows them,
    #: :func:`own_turned`), those matches; None where they are read near upright.
    turned: FloatArray | None = None


def judge_cells(
    view: BoardView, profile: Looks, signs: CellSigns, params: ScanParams = SCAN_PARAMS
) -> Judged:
    """P(a warrior) on each cell, with what the profile's warrior pictures add
    (:mod:`vision.read.tokens`), and how well those pictures match where a warrior may be.

    Where the profile never saw the art, whether a warrior is there comes from how well the copy's
    warriors match and how much the cell looks like a warrior; other readers judge it too: by the
    warrior's looks alone, and where the face was learnt, by the matches and a warrior's outline.
    """
    occupied = occupied_probability(signs.features)
    hidden = [cell.number for cell in hidden_cells(profile)]
    occupied[hidden_gold(profile)] = 1.0
    if not profile.tokens:
        return Judged(occupied, [], np.zeros((0, len(profile.colours))), None, {})
    maybe = set(np.flatnonzero(occupied > params.maybe_occupied).tolist()) - {
        cell.number for cell in GOLD_CELLS
    }
    looked_at = sorted(set(hidden) | maybe)
    matches, hidden_at, looks, places = picture_signs(view, profile, signs, looked_at, occupied, params)
    others = None
    if hidden:
        at = [looked_at.index(n) for n in hidden]
        occupied[hidden] = hidden_occupied(hidden_at[at], HIDDEN_WEIGHTS[profile.kind])
        # The warrior's looks alone (its outline and flat back, whatever the art) read these cells
        # too, as likely as every world's photos say, and a learnt face's cells are read by the
        # outline in the looks' place: where the face never showed the art, any disagreement is doubt.
        opinions = [warrior_probability(looks[at], EVERY_WORLD_WEIGHTS)]
        if profile.kind != Kind.IMPROVISED:
            opinions.append(hidden_occupied(hidden_at[at], tokens_module.OUTLINE_WEIGHTS))
        others = np.full((len(opinions), len(CELLS)), np.nan)
        others[:, hidden] = opinions
    turned = None
    if profile.kind is Kind.IMPROVISED:
        # Only where a warrior may stand does its colour count.
        rows = [k for k, n in enumerate(looked_at) if occupied[n] > params.maybe_occupied]
        turned = matches.copy()
        turned[rows] = any_turn_match(
            view.balanced,
            profile,
            [CELLS[looked_at[k]] for k in rows],
            CANONICAL,
            params.tokens,
            matches[rows],
        )
    return Judged(occupied, looked_at, matches, others, dict(zip(looked_at, places, strict=True)), turned)


def weighed_shares(
    view: BoardView, profile: Looks, signs: CellSigns, judged: Judged, params: ScanParams = SCAN_PARAMS
) -> FloatArray:
    """The colour shares of :attr:`CellSigns.shares`, weighed by how well each colour's warrior
    picture matches (:attr:`Judged.matches`, or at any quarter turn, :attr:`Judged.turned`, where
    made), which tells a white warrior from a black one where their colours' directions cannot.

    A hand sets a warrior down any way round. Pictures improvised from this photo's own warriors,
    in its own light, are matched at every quarter turn. A copy's pictures, learnt from its setup
    photo in another light, are matched near upright: read at every quarter turn too, the tuning
    copies gained, the path-traced test copies read no more cells right and left more mistakes
    unmarked (thirty-first, thirty-second and forty-seventh rounds, docs/benchmarks.md). Its
    colours are read a second time with the pictures this photo's own sure warriors give
    (:func:`own_turned`), and a warrior read surely whose colour another colour's learnt picture
    beats at any quarter turn is doubted (:func:`vision.read.emblems.turned_pictures`).
    """
    shares = signs.shares.copy()
    gold_hidden = hidden_gold(profile)
    if gold_hidden:
        # The face never showed these cells bare, but gold never leaves them: how much of each
        # looks like the gold is all there is to ask.
        discs = cell_pixels(view.balanced, CANONICAL, params=params.cells)[gold_hidden]
        gold = rgb_to_bgr_float(profile.gold)
        seen = (shaded_distance(discs, gold) < params.gold_near).mean(axis=1)
        shares[gold_hidden, 0] = np.clip(seen / params.gold_full_share, 0.0, 1.0)
    looked_at = judged.looked_at
    if not looked_at:
        return shares
    # The pictures tell colours apart where the votes cannot (white from black, navy from green in
    # dim light), and the votes where a picture was learnt badly: both count, the pictures more.
    # A white warrior with a faint emblem matches its picture badly and has no colour to vote with,
    # but its pixels are near white, shade allowed, and not near black.
    matches = judged.matches if judged.turned is None else judged.turned
    near = signs.near[looked_at, 1:]
    players = (
        shares[looked_at, 1:] ** params.vote_power
        * np.exp(params.token_match_weight * (matches - matches.max(axis=1, keepdims=True)))
        * np.exp(params.near_weight * (near - near.max(axis=1, keepdims=True)))
    )
    shares[looked_at, 1:] = players / players.sum(axis=1, keepdims=True) * (1 - shares[looked_at, :1])
    return shares


def own_turned(
    view: BoardView, profile: Looks, reading: CellReading, judged: Judged, params: ScanParams = SCAN_PARAMS
) -> FloatArray | None:
    """The matches a learnt copy's colours are read with a second time (:attr:`Judged.turned`): on
    the cells :func:`judge_cells` looked at, each colour's picture as this photo shows it, matched
    at any quarter turn; or None where ``reading`` holds no warrior read surely.

    A colour's picture here is :func:`vision.learn.improvise.colour_picture` of its warriors read
    at least :attr:`vision.read.cells.CellParams.sure` (one is enough), where :func:`judge_cells`
    placed them; a colour with none keeps the copy's own, learnt from its setup photo. The setup
    photo showed each colour's warrior in another light, one way round: its pictures matched at any
    quarter turn read the test copies no better and left more mistakes unmarked
    (:func:`weighed_shares`); this photo's own warriors, in its own light, read them better and
    left none more.
    """
    face = balanced_face(view.balanced)
    pictures = {}
    for name, surely in reading.read_surely(params.cells.sure).items():
        sure = [n for n in judged.looked_at if n in surely]
        if sure:
            pictures[name] = colour_picture([token_image(face, judged.places[n], CANONICAL) for n in sure])
    if not pictures:
        return None
    own = replace(profile, tokens={**profile.tokens, **pictures})
    return any_turn_match(view.balanced, own, [CELLS[n] for n in judged.looked_at], CANONICAL, params.tokens)


def picture_signs(
    view: BoardView,
    profile: Looks,
    signs: CellSigns,
    numbers: list[int],
    occupied: FloatArray,
    params: ScanParams = SCAN_PARAMS,
) -> tuple[FloatArray, FloatArray, FloatArray, list[Place]]:
    """For the cells ``numbers``: how well each colour's warrior picture matches there
    (:func:`vision.read.tokens.token_match`), the hidden cells' signs
    (:func:`vision.read.tokens.hidden_signs`), the matches weighed against how the pictures match this
    photo's bare art and warriors where the face says surely which (``occupied``, its
    :func:`vision.read.cells.occupied_probability` off the gold and hidden cells;
    :func:`vision.read.tokens.match_levels`), how a warrior there would look and where it would lie
    (:func:`vision.learn.pieces.placed_warriors`).
    """
    seen = np.ones(len(CELLS), bool)
    seen[[cell.number for cell in (*GOLD_CELLS, *hidden_cells(profile))]] = False
    art: list[int] = np.flatnonzero(seen & (occupied < params.sure_empty)).tolist()
    warriors: list[int] = np.flatnonzero(seen & (occupied > 1 - params.sure_empty)).tolist()
    matched = sorted({*numbers, *art, *warriors})
    rows = {n: i for i, n in enumerate(matched)}
    matches = token_match(
        view.balanced, profile, [CELLS[n] for n in matched], CANONICAL, params=params.tokens
    )
    levels = match_levels(
        matches[[rows[n] for n in art]], matches[[rows[n] for n in warriors]], params=params.tokens
    )
    asked = matches[[rows[n] for n in numbers]]
    around = occupied_odds(int((seen & (occupied > 0.5)).sum()), int(seen.sum()))
    places, looks = placed_warriors(
        view.balanced, [CELLS[n] for n in numbers], CANONICAL, params=params.pieces
    )
    hidden = hidden_signs(asked, signs.features[numbers, 1], looks, *levels, around, params=params.tokens)
    return asked, hidden, looks, places
