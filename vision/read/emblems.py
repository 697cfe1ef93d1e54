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
named stays doubtful: it was not seen.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from engine.board import CELLS
from vision.geometry import CANONICAL, FaceRaster
from vision.learn.pieces import PIECE_PARAMS, PieceParams, emblem, emblem_match, find_token, token_image
from vision.read.cells import EMPTY, GOLD, ON_GOLD, CellReading

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
) -> CellReading:
    """``reading`` with each warrior of an unsure colour (:attr:`EmblemParams.unsure`) given the
    colour its emblem names (:func:`named_colours`), at :attr:`EmblemParams.named` of its players'
    share: the rest stays with the other colours as they were read, so that the reading is
    doubtful. Warriors whose emblem names no colour keep their reading.

    >>> probabilities = np.zeros((40, 4)); probabilities[:, EMPTY] = 1.0
    >>> reading = CellReading(("orange", "blue"), probabilities, np.zeros((40, 4)), np.zeros(40))
    >>> emblem_colours(np.zeros((530, 800, 3), np.float32), reading) is reading
    True
    """
    probabilities = reading.probabilities
    players = probabilities[:, GOLD + 1 :]
    # What looked gold off the gold cells is a warrior too (as the assembly takes it).
    token = 1.0 - probabilities[:, EMPTY]
    share = players.max(axis=1) / np.maximum(players.sum(axis=1), 1e-12)
    off_gold = ~ON_GOLD
    unsure = np.flatnonzero(off_gold & (token > 0.5) & (share < params.unsure))
    if not len(unsure):
        return reading
    face = np.clip(balanced * 255, 0, 255).astype(np.uint8)

    def emblem_at(number: int) -> FloatImage:
        picture = token_image(face, find_token(face, CELLS[number], view, pieces), view)
        return emblem(picture, pieces)

    columns = players.argmax(axis=1)
    sure: list[list[FloatImage]] = []
    for colour in range(players.shape[1]):
        surely = np.flatnonzero(off_gold & (players[:, colour] > params.sure) & (columns == colour))
        surest = surely[np.argsort(-players[surely, colour])][: params.most_sure]
        sure.append([emblem_at(int(n)) for n in surest])
    named = named_colours([emblem_at(int(n)) for n in unsure], sure)
    changed = probabilities.copy()
    for number, column in zip(unsure, named, strict=True):
        if column is None:
            continue
        rest = players[number].copy()
        if rest.sum() - rest[column] <= 0:
            rest[:] = 1.0
        rest[column] = 0.0
        rest /= max(rest.sum(), 1e-12)
        changed[number, GOLD] = 0.0
        changed[number, GOLD + 1 :] = token[number] * (1 - params.named) * rest
        changed[number, GOLD + 1 + column] = token[number] * params.named
    return replace(reading, probabilities=changed)


def named_colours(asked: list[FloatImage], sure: list[list[FloatImage]]) -> list[int | None]:
    """For each emblem ``asked``, the colour (index into ``sure``, each colour's surely read
    warriors' emblems) whose warriors it alone matches at least as well as the photo's bar, or None.

    The bar is halfway between how well the sure warriors match the best of their own colour's
    others and the best of another colour's (medians over the photo's sure warriors); with no two
    sure warriors of one colour, or a single colour seen surely, there is no bar and nothing is
    named.

    >>> rng = np.random.default_rng(0)
    >>> star, moon = (rng.random((20, 20)).astype(np.float32) for _ in range(2))
    >>> noisy = lambda picture: picture + 0.1 * rng.random((20, 20)).astype(np.float32)
    >>> sure = [[noisy(star), noisy(star)], [noisy(moon), noisy(moon)]]
    >>> named_colours([noisy(moon), noisy(star), rng.random((20, 20)).astype(np.float32)], sure)
    [1, 0, None]
    """
    own: list[float] = []
    other: list[float] = []
    for colour, emblems in enumerate(sure):
        for k, this in enumerate(emblems):
            theirs = [emblem_match(this, that)[1] for j, that in enumerate(emblems) if j != k]
            others = [
                emblem_match(this, that)[1] for c, those in enumerate(sure) if c != colour for that in those
            ]
            if theirs:
                own.append(max(theirs))
            if others:
                other.append(max(others))
    if not own or not other:
        return [None] * len(asked)
    bar = (float(np.median(own)) + float(np.median(other))) / 2
    named: list[int | None] = []
    for this in asked:
        best = [max((emblem_match(this, that)[1] for that in those), default=-1.0) for those in sure]
        above = [colour for colour, match in enumerate(best) if match >= bar]
        named.append(above[0] if len(above) == 1 else None)
    return named
