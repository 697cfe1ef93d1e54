"""A warrior whose colour the photo washed out, told by its emblem against the emblems of the
warriors the same photo shows surely.

Each player's warriors carry an emblem of their own, light on the back. Where a lamp's
reflection, a haze or a cast washes a warrior's back toward white or the sticks' wood, its
colour votes say little or nothing (:func:`vision.read.cells.colour_shares`: even shares), and
the colour read is a guess. Its emblem's shape often still shows: matched in grey at each quarter
turn (:func:`vision.learn.pieces.emblem_match`), whatever the light's colour or strength, it
names the player whose surely read warriors it matches as well as those warriors match one
another, and no other player's.

How well emblems match depends on the photo (blur, light, the copy's print): the bar is the
photo's own, halfway between how well its sure warriors match their own colour's others and how
well they match another colour's. A colour no warrior shows surely is never named. The colour so
named stays doubtful: it was not seen. A warrior read surely whose emblem names another player
is doubtful too, and so are two colours' warriors that carry one emblem: one player's, read two ways.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from engine.board import CELLS
from vision.geometry import CANONICAL, FaceRaster
from vision.learn.pieces import (
    PIECE_PARAMS,
    PieceParams,
    Place,
    balanced_face,
    emblem,
    emblem_turns,
    find_token,
    token_image,
    turned_match,
)
from vision.looks import Kind, Looks
from vision.parallel import each
from vision.read.cells import EMPTY, GOLD, ON_GOLD, CellReading
from vision.read.tokens import TOKEN_PARAMS, TokenParams, any_turn_match

FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class EmblemParams:
    """How a washed-out warrior's emblem names its colour: the hand-set numbers."""

    #: Warriors read this surely as a colour show this photo's emblem of that colour...
    sure: float = 0.9
    #: ...the surest this many of each colour.
    most_sure: int = 6
    #: A warrior (likelier than an empty cell) whose colour is read less surely than this, the
    #: page's mark, asks its emblem.
    unsure: float = 0.8
    #: The share of its colour a warrior is given for the colour its emblem names: under the page's
    #: mark, since the colour itself was not seen.
    named: float = 0.7


EMBLEM_PARAMS = EmblemParams()


def emblem_colours(
    balanced: FloatImage,
    reading: CellReading,
    view: FaceRaster = CANONICAL,
    params: EmblemParams = EMBLEM_PARAMS,
    pieces: PieceParams = PIECE_PARAMS,
    places: Mapping[int, Place] | None = None,
) -> CellReading:
    """``reading`` with each warrior of an unsure colour (:attr:`EmblemParams.unsure`) given the
    colour its emblem names (:func:`named_colours`), at :attr:`EmblemParams.named` of its players'
    share: the rest stays with the other colours as they were read, so that the reading is
    doubtful. Warriors whose emblem names no colour keep their reading.

    A warrior read surely whose emblem names another colour than its own (matched with the other
    sure warriors, :func:`_differing`) is listed in :attr:`CellReading.emblems_differ`, for the
    assembly to doubt: a lamp can move one player's backs onto another's colour, not their
    emblem. Its reading stays: a player with few warriors has few others to match, and the emblem
    is a doubt, not a verdict. Sure here is as the page shows it, by the colour's share of the
    players' alone: a dark warrior that also looks like shaded gold is still shown as its colour.

    ``places``: where a warrior lies on cells (by number) as :func:`vision.learn.pieces.find_token`
    finds it on this view with ``pieces``, where a reader before found it already.

    >>> probabilities = np.zeros((40, 4)); probabilities[:, EMPTY] = 1.0
    >>> reading = CellReading(("orange", "blue"), probabilities, np.zeros((40, 4)), np.zeros(40))
    >>> emblem_colours(np.zeros((530, 800, 3), np.float32), reading) is reading
    True
    """
    probabilities = reading.probabilities
    players, token, share, warriors = _warriors(reading)
    off_gold = ~ON_GOLD
    if not len(warriors):
        return reading
    face = balanced_face(balanced)
    found = places or {}

    def cell_emblem(cell: int) -> tuple[FloatImage, tuple[FloatImage, ...]]:
        place = found[cell] if cell in found else find_token(face, CELLS[cell], view, pieces)
        picture = emblem(token_image(face, place, view), pieces)
        return picture, emblem_turns(picture)

    # Every warrior's emblem is matched below, the sure ones' with the others'.
    emblems = dict(zip(warriors.tolist(), each(cell_emblem, warriors.tolist()), strict=True))
    scores: dict[tuple[int, int], float] = {}

    def work_out(pairs: list[tuple[int, int]]) -> None:
        # The rules below ask for hundreds of pairs a photo, one at a time: those they will ask
        # for are matched beforehand, on the threads.
        for cell in {cell for pair in pairs for cell in pair} - emblems.keys():
            emblems[cell] = cell_emblem(cell)
        asked = [pair for pair in dict.fromkeys(pairs) if pair not in scores]
        matched = each(lambda pair: turned_match(emblems[pair[0]][1], emblems[pair[1]][0])[1], asked)
        scores.update(zip(asked, matched, strict=True))

    def score(number: int, other: int) -> float:
        if (number, other) not in scores:
            work_out([(number, other)])
        return scores[number, other]

    def among(cells: list[int], sure: list[list[int]]) -> list[tuple[int, int]]:
        return [(this, that) for this in cells for those in sure for that in those if that != this]

    columns = players.argmax(axis=1)
    # A colour is named by the warriors read surely as warriors of that colour...
    sure = _surest(np.where(off_gold, players.max(axis=1), 0.0), columns, players.shape[1], params)
    # ...and those the page shows as sure are checked against one another: a warrior whose
    # colour's share of the players' is sure, however much of the cell looked like gold.
    shown = _surest(np.where(off_gold & (token > 0.5), share, 0.0), columns, players.shape[1], params)
    work_out(
        among([n for those in sure for n in those], sure)
        + among([n for those in shown for n in those], shown)
    )
    bar, shown_bar = emblem_bar(sure, score), emblem_bar(shown, score)
    unsure = [int(n) for n in warriors if share[n] < params.unsure]
    checked = [int(n) for n in warriors if share[n] >= params.unsure]
    work_out(
        (among(unsure, sure) if bar is not None else [])
        + (among(checked, shown) if shown_bar is not None else [])
    )
    changed = probabilities.copy()
    for number, column in zip(unsure, named_colours(unsure, sure, score, bar), strict=True):
        if column is not None:
            changed[number] = _given(token[number], column, params.named, players[number])
    differ = [] if shown_bar is None else _differing(checked, shown, columns, score, shown_bar)
    differ_named = tuple((number, reading.colours[column]) for number, column in differ)
    if not differ and np.array_equal(changed, probabilities):
        return reading
    return replace(reading, probabilities=changed, emblems_differ=differ_named)


def turned_pictures(
    balanced: FloatImage,
    reading: CellReading,
    profile: Looks,
    view: FaceRaster = CANONICAL,
    params: EmblemParams = EMBLEM_PARAMS,
    tokens: TokenParams = TOKEN_PARAMS,
    upright: Mapping[int, FloatArray] | None = None,
) -> CellReading:
    """``reading`` with each warrior read surely (as the page shows it: :attr:`EmblemParams.unsure`)
    whose colour's learnt picture another colour's matches better, at any quarter turn
    (:func:`vision.read.tokens.any_turn_match`), listed in :attr:`CellReading.pictures_differ` with
    that colour, for the assembly to doubt; those its emblem lists already
    (:attr:`CellReading.emblems_differ`) are not asked again. Its reading stays.

    A copy's pictures come from its setup photo, each colour's warrior lying one way round there; a
    hand sets the others down any way round. Matched near upright only, as the colours are read, a
    warrior turned a quarter can match another colour's picture of a like back better than its
    own, and the colours' votes then decide alone (a charcoal warrior with a leaf, turned, read as
    the petrol one with a diamond, surely). Only a learnt profile's pictures judge: an improvised
    one's are made of this photo's warriors as they were grouped, a misread one among them.
    ``upright``: each cell's (by number) matches near upright (:func:`vision.read.tokens.token_match`),
    where a reader before matched them (:attr:`vision.read.judge.Judged.matches`).

    >>> from vision.looks import reference_looks
    >>> probabilities = np.zeros((40, 4)); probabilities[:, EMPTY] = 1.0
    >>> reading = CellReading(("orange", "blue"), probabilities, np.zeros((40, 4)), np.zeros(40))
    >>> turned_pictures(np.zeros((530, 800, 3), np.float32), reading, reference_looks()) is reading
    True
    """
    if profile.kind is not Kind.LEARNT or not profile.tokens:
        return reading
    players, _, share, warriors = _warriors(reading)
    listed = dict(reading.emblems_differ)
    shown = [int(n) for n in warriors if share[n] >= params.unsure and n not in listed]
    if not shown:
        return reading
    known = upright or {}
    rows = [known.get(n) for n in shown]
    first = np.array(rows) if all(row is not None for row in rows) else None
    matches = any_turn_match(balanced, profile, [CELLS[n] for n in shown], view, tokens, first)
    # Columns of the reading's colours in the profile's order: the same names, read with them.
    columns = [list(profile.colours).index(name) for name in reading.colours]
    differ = []
    for number, match in zip(shown, matches[:, columns], strict=True):
        own = int(players[number].argmax())
        other = int(np.argmax(np.where(np.arange(len(match)) == own, -np.inf, match)))
        if match[other] > match[own]:
            differ.append((number, reading.colours[other]))
    if not differ:
        return reading
    return replace(reading, pictures_differ=tuple(differ))


def _warriors(reading: CellReading) -> tuple[FloatArray, FloatArray, FloatArray, npt.NDArray[np.intp]]:
    """Each cell's players' probabilities, how likely a token it holds, its likeliest colour's
    share of the players', and the cells off the gold likelier to hold a warrior than not."""
    players = reading.probabilities[:, GOLD + 1 :]
    # What looked gold off the gold cells is a warrior too (as the assembly takes it).
    token = 1.0 - reading.probabilities[:, EMPTY]
    share = players.max(axis=1) / np.maximum(players.sum(axis=1), 1e-12)
    return players, token, share, np.flatnonzero(~ON_GOLD & (token > 0.5))


def _differing(
    checked: list[int],
    sure: list[list[int]],
    columns: npt.NDArray[np.intp],
    score: Callable[[int, int], float],
    bar: float,
) -> list[tuple[int, int]]:
    """The warriors ``checked`` whose emblem names another colour than theirs (``columns``), each
    with that colour: matched with the other ``sure`` warriors (not itself) against the photo's
    ``bar``, another colour alone; or its own and another whose sure warriors it matches half of
    at least. Each player's emblem is their own: two colours whose warriors carry one emblem are
    one player's read two ways, and either may be the wrong one; one warrior of theirs read as
    another colour is matched by that colour's best alone."""
    differ = []
    for number in checked:
        others = [[n for n in those if n != number] for those in sure]
        matched = matched_colours(number, others, score, bar)
        elsewhere = [column for column in matched if column != columns[number]]
        if len(elsewhere) != 1:
            continue
        other = others[elsewhere[0]]
        if len(matched) == 1 or np.median([score(number, that) for that in other]) >= bar:
            differ.append((number, elsewhere[0]))
    return differ


def _surest(
    certainty: FloatArray, columns: npt.NDArray[np.intp], colours: int, params: EmblemParams
) -> list[list[int]]:
    """Per colour (``colours`` of them), the cells read as it (``columns``) more surely than
    :attr:`EmblemParams.sure` by ``certainty``, the surest :attr:`EmblemParams.most_sure` of them.

    >>> _surest(np.array([0.95, 0.99, 0.5, 0.97]), np.array([0, 0, 0, 1]), 3, EMBLEM_PARAMS)
    [[1, 0], [3], []]
    """
    sure: list[list[int]] = []
    for colour in range(colours):
        surely = np.flatnonzero((certainty > params.sure) & (columns == colour))
        sure.append([int(n) for n in surely[np.argsort(-certainty[surely])][: params.most_sure]])
    return sure


def _given(token: float, column: int, named: float, players: FloatArray) -> FloatArray:
    """A cell's probabilities (empty, gold, each player) for a warrior likely ``token``: colour
    ``column`` ``named`` of it, the rest shared by the other colours as ``players`` were (evenly
    where they had none).

    >>> _given(0.9, 0, 0.7, np.array([5.0, 1.0, 3.0])).round(3).tolist()
    [0.1, 0.0, 0.63, 0.068, 0.203]
    >>> _given(1.0, 1, 0.7, np.array([0.0, 1.0, 0.0])).round(2).tolist()
    [0.0, 0.0, 0.15, 0.7, 0.15]
    """
    others = players.astype(np.float64)
    if others.sum() - others[column] <= 0:
        others[:] = 1.0
    others[column] = 0.0
    others /= others.sum()
    given = np.concatenate([[1.0 - token, 0.0], token * (1 - named) * others])
    given[GOLD + 1 + column] = token * named
    return given


def emblem_bar(sure: list[list[int]], score: Callable[[int, int], float]) -> float | None:
    """How well an emblem must match a colour's surely read warriors (``sure``, per colour) to name
    that colour: halfway between how well those warriors match the best of their own colour's
    others and the best of another colour's (medians over the photo's sure warriors); ``score``
    tells how well one warrior's emblem matches another's. None with no two sure warriors of one
    colour, or a single colour seen surely: nothing can be named."""
    own: list[float] = []
    other: list[float] = []
    for colour, warriors in enumerate(sure):
        for this in warriors:
            theirs = [score(this, that) for that in warriors if that != this]
            others = [score(this, that) for c, those in enumerate(sure) if c != colour for that in those]
            if theirs:
                own.append(max(theirs))
            if others:
                other.append(max(others))
    if not own or not other:
        return None
    return (float(np.median(own)) + float(np.median(other))) / 2


def named_colours(
    asked: list[int], sure: list[list[int]], score: Callable[[int, int], float], bar: float | None
) -> list[int | None]:
    """For each warrior ``asked``, the colour (index into ``sure``, each colour's surely read
    warriors) whose warriors it alone matches at least as well as the photo's ``bar``
    (:func:`emblem_bar`), or None; ``score`` tells how well one warrior's emblem matches another's.

    >>> rng = np.random.default_rng(0)
    >>> star, moon = (rng.random((20, 20)).astype(np.float32) for _ in range(2))
    >>> noisy = lambda picture: picture + 0.1 * rng.random((20, 20)).astype(np.float32)
    >>> emblems = [noisy(star), noisy(star), noisy(moon), noisy(moon)]
    >>> emblems += [noisy(moon), noisy(star), rng.random((20, 20)).astype(np.float32)]
    >>> from vision.learn.pieces import emblem_match
    >>> score = lambda a, b: emblem_match(emblems[a], emblems[b])[1]
    >>> sure = [[0, 1], [2, 3]]
    >>> named_colours([4, 5, 6], sure, score, emblem_bar(sure, score))
    [1, 0, None]
    >>> named_colours([4], [[0, 1], [2]], score, emblem_bar([[0, 1], [2]], score))
    [1]
    >>> emblem_bar([[0], [2]], score) is None
    True
    """
    if bar is None:
        return [None] * len(asked)
    named: list[int | None] = []
    for this in asked:
        above = matched_colours(this, sure, score, bar)
        named.append(above[0] if len(above) == 1 else None)
    return named


def matched_colours(
    this: int, sure: list[list[int]], score: Callable[[int, int], float], bar: float
) -> list[int]:
    """The colours (indices into ``sure``) whose surely read warriors warrior ``this`` matches at
    least as well as the photo's ``bar`` (:func:`emblem_bar`)."""
    best = [max((score(this, that) for that in those), default=-1.0) for those in sure]
    return [colour for colour, match in enumerate(best) if match >= bar]
