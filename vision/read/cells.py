"""Read each cell of the balanced top-down view: empty, gold, or a warrior of which colour.

Only a disc at the cell's centre is looked at: every token covers it whatever
its offset and turn, and a palisade leaning in from the cell's edge does not
reach it. A cell is occupied when much of that disc no longer looks like the
face printed there; the pixels that do not then vote for the token colour
they are nearest. Pixels near none (a warrior's light emblem, a numeral's
dark strokes) do not vote.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from typing import TypeVar, cast

import cv2
import numpy as np
import numpy.typing as npt

from engine.board import CELLS, GOLD_MASK
from vision.colour import FACE_LIMIT, channel_norm, channel_sum, chroma, shaded_distance
from vision.geometry import CANONICAL, FaceRaster, cell_centre_mm
from vision.logistic import fit_logistic, logistic, with_constant
from vision.looks import Kind
from vision.texture import FACE_BLUR_PX, fine_detail, texture_match
from vision.weights import load_weights

FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]
ScalarT = TypeVar("ScalarT", bound=np.generic)

#: Radius of the disc read at each cell's centre: a 32 mm warrior 5 mm off centre and turned 15
#: degrees still covers 9 mm around it.
READ_RADIUS_MM = 12.0


@dataclass(frozen=True)
class CellParams:
    """The cell reader's hand-set numbers."""

    #: Every this many pixels of the disc (:data:`READ_RADIUS_MM` across) is read.
    sample_step: int = 2
    #: A pixel nearer a token colour than the face by this margin is covered.
    token_margin: float = 0.0
    #: A covered pixel this much brighter than the face under it, of no token colour, is an emblem.
    light_ratio: float = 1.25
    #: A covered pixel further than this from every token colour does not vote (emblems, numerals).
    vote_limit: float = 0.42
    #: Each colour starts with this many votes (a pixel each): a disc with no colour in it gets even shares.
    prior_votes: float = 0.5
    #: A pixel votes for a colour when at least this much of it is colour (:func:`colour_shares`).
    min_saturation: float = 0.15
    #: A disc seen over less than this share of its pixels shows too little to tell a warrior by:
    #: it is read empty (:func:`read_cells`), and what hid it (glare) is reported.
    least_seen: float = 0.25
    #: A player's colour is taken from the photo (:func:`photo_colours`) where at least this many of
    #: its warriors are read this surely.
    least_sure: int = 2
    sure: float = 0.9
    #: A stick leaning over a cell covers a strip at the side of its disc, never this share of what
    #: covers the disc: where more looks like the ``ignore`` colour (:func:`cell_signs`), it may be a
    #: token whose colour the light moved toward the stick's, and it hints (:func:`colour_shares`).
    stick_share: float = 0.5


CELL_PARAMS = CellParams()


EMPTY, GOLD = 0, 1
#: Per cell (in cell number order), whether the gold lies there: the columns' meaning off and on it.
ON_GOLD = np.array([bool(cell.bit & GOLD_MASK) for cell in CELLS])
ON_GOLD.setflags(write=False)


@dataclass(frozen=True, eq=False)
class CellReading:
    """Per cell (40 rows, in cell number order) the probability of each label.

    Columns: ``EMPTY``, ``GOLD``, then one per colour of ``colours``, in order.
    ``votes`` holds the share of the disc covered, then each target's share of
    the votes; ``unexplained`` the share of the disc covered by something of no
    known colour (high where something hides the cell).
    """

    colours: tuple[str, ...]
    probabilities: FloatArray
    votes: FloatArray
    unexplained: FloatArray
    #: P(a warrior) by other readers (one row each, 40 columns), where they judged the cell too (NaN
    #: elsewhere): the cells whose art the profile never saw (:func:`vision.read.judge.judge_cells`).
    #: A reading is only as sure as the least sure of them (:func:`vision.read.assemble.choose_cells`).
    others: FloatArray | None = None
    #: Colours the profile could not surely tell from another one's (:attr:`vision.looks.Looks.alike`):
    #: the cells read so are doubtful while both are taken for players
    #: (:func:`vision.read.assemble.alike_colours`).
    alike: tuple[tuple[str, str], ...] = ()
    #: Where the colours come from: the reference kit's four, far apart; a copy's learnt from its setup
    #: photo, often nearer each other; or grouped from this photo's own warriors (an improvised
    #: profile), where one player's warriors in two lights can make two colours. Only the reference
    #: kit's colour is taken for a player because a warrior shows it unsurely
    #: (:func:`vision.read.assemble.unsure_colours`); a kit's, learnt or the reference kit's, bound
    #: the players guessed by their own supplies (:func:`vision.read.assemble.likeliest_players`).
    colours_from: Kind = Kind.REFERENCE
    #: Warriors read surely as one colour whose emblem names another (cell number, that colour's
    #: name; :func:`vision.read.emblems.emblem_colours`): the assembly doubts them.
    emblems_differ: tuple[tuple[int, str], ...] = ()
    #: Warriors read surely as one colour that another colour's learnt picture matches better, at
    #: any quarter turn (cell number, that colour's name; :func:`vision.read.emblems.turned_pictures`):
    #: the assembly doubts them, and moves one to that colour only as it would for an emblem, where
    #: the supply says its colour was misread and a warrior surely stands there
    #: (:func:`vision.read.assemble.emblem_named`).
    pictures_differ: tuple[tuple[int, str], ...] = ()
    #: Cells whose warrior a lamp's reflection clipped, found by its outline alone
    #: (:meth:`with_warriors_under_glare`): its colour is a guess.
    under_glare: tuple[int, ...] = ()

    def label(self, number: int) -> str:
        index = int(np.argmax(self.probabilities[number]))
        return ("empty", "gold", *self.colours)[index]

    def read_surely(self, sure: float) -> dict[str, npt.NDArray[np.intp]]:
        """Per colour, the cells read as its warrior with a probability of at least ``sure``.

        >>> probabilities = np.zeros((40, 4)); probabilities[:, EMPTY] = 1.0
        >>> probabilities[3] = (0.0, 0.0, 0.95, 0.05); probabilities[4] = (0.0, 0.0, 0.3, 0.7)
        >>> reading = CellReading(("orange", "blue"), probabilities, np.zeros((40, 4)), np.zeros(40))
        >>> {name: cells.tolist() for name, cells in reading.read_surely(0.9).items()}
        {'orange': [3], 'blue': []}
        """
        labels = np.argmax(self.probabilities, axis=1)
        surest = self.probabilities.max(axis=1)
        return {
            name: np.flatnonzero((labels == column) & (surest >= sure))
            for column, name in enumerate(self.colours, start=GOLD + 1)
        }

    def with_warriors_under_glare(
        self, cells: npt.NDArray[np.bool_], occupied: float, sure: float = 0.9
    ) -> CellReading:
        """This reading with a warrior ``occupied`` likely on ``cells`` (off the gold) read empty,
        where a lamp's reflection clipped it (:attr:`vision.read.glare.Outlines.found`).

        Its colour is whatever colour the reflection left to vote (:attr:`votes`); where none did,
        each player's share of the warriors read at least ``sure`` elsewhere on the board: the guess
        that most often names the right player, and a player no other warrior shows is never added.

        >>> probabilities = np.zeros((40, 4)); probabilities[:, EMPTY] = 1.0
        >>> probabilities[[5, 6, 7], 3] = 1.0; probabilities[[5, 6, 7], EMPTY] = 0.0  # three blue
        >>> votes = np.zeros((40, 4)); votes[:, 2:] = 0.5
        >>> votes[10, 2:] = (0.8, 0.2)  # orange shows at the edge of the reflection on 10
        >>> reading = CellReading(("orange", "blue"), probabilities, votes, np.zeros(40))
        >>> found = np.isin(np.arange(40), [5, 8, 9, 10])  # 9 holds gold, 5 a warrior read already
        >>> glared = reading.with_warriors_under_glare(found, 0.7)
        >>> glared.label(8), glared.label(9), glared.label(10), glared.label(11), glared.under_glare
        ('blue', 'empty', 'orange', 'empty', (8, 10))
        >>> bool((glared.probabilities[5] == reading.probabilities[5]).all())
        True
        """
        probabilities = self.probabilities.copy()
        counts = np.array([len(cells) for cells in self.read_surely(sure).values()], np.float64)
        prior = _shares_or_even(counts)
        changed = []
        # A warrior read already (off the gold, whatever is not empty is one: what looks gold too)
        # keeps its reading: a white one is all clipped pixels as well.
        for number in np.flatnonzero(cells & ~ON_GOLD & (probabilities[:, EMPTY] >= 0.5)):
            shares = self.votes[number, 2:]
            # Uniform shares are the votes' prior alone: nothing of the warrior's colour was seen.
            colours = shares / shares.sum() if np.ptp(shares) > 1e-6 else prior
            # The outline says a warrior is there, whoever's: its presence is weighed against the
            # likeliest colour's share of it alone, so that an unsure colour does not read it empty.
            empty = (1 - occupied) * colours.max()
            probabilities[number] = np.concatenate([[empty, 0.0], occupied * colours]) / (empty + occupied)
            changed.append(int(number))
        return replace(self, probabilities=probabilities, under_glare=tuple(changed))

    def without_warriors_under_glare(self, cells: npt.NDArray[np.bool_], empty: float) -> CellReading:
        """This reading with ``cells`` (off the gold) read as a warrior read empty, ``empty``
        likely, where a lamp's reflection clipped the card and no warrior's outline shows
        (:attr:`vision.read.glare.Outlines.bare`): a reader that knows a pale colour sees it in
        the clipped white. What is left of the warrior keeps its colours' shares as read.

        >>> probabilities = np.zeros((40, 4)); probabilities[:, EMPTY] = 1.0
        >>> probabilities[[5, 6]] = (0.1, 0.0, 0.6, 0.3)
        >>> reading = CellReading(("white", "blue"), probabilities, np.zeros((40, 4)), np.zeros(40))
        >>> bare = reading.without_warriors_under_glare(np.isin(np.arange(40), [5, 7, 9]), 0.7)
        >>> bare.label(5), bare.label(6), bare.label(7), bare.probabilities[5].round(2).tolist()
        ('empty', 'white', 'empty', [0.7, 0.0, 0.2, 0.1])
        """
        probabilities = self.probabilities.copy()
        for number in np.flatnonzero(cells & ~ON_GOLD & (probabilities[:, EMPTY] < 0.5)):
            shares = _shares_or_even(probabilities[number, GOLD + 1 :])
            probabilities[number] = np.concatenate([[empty, 0.0], (1 - empty) * shares])
        return replace(self, probabilities=probabilities)

    def unseen(self, cells: npt.NDArray[np.bool_]) -> CellReading:
        """This reading with no warrior read on ``cells``, by any reader, and the gold where the
        layout puts it: where the photo does not show them (:func:`vision.read.frame.beyond_frame`),
        whatever the warp's border looked like.

        >>> reading = CellReading(("orange",), np.tile([0.1, 0.0, 0.9], (40, 1)), np.zeros((40, 3)),
        ...                       np.zeros(40), emblems_differ=((0, "blue"), (5, "blue")),
        ...                       pictures_differ=((2, "blue"),))
        >>> gone = reading.unseen(np.arange(40) < 4)  # d5, the fourth, holds gold
        >>> gone.label(0), gone.label(3), gone.label(4), gone.emblems_differ, gone.pictures_differ
        ('empty', 'gold', 'orange', ((5, 'blue'),), ())
        """
        probabilities = self.probabilities.copy()
        probabilities[cells] = 0.0
        probabilities[cells & ~ON_GOLD, EMPTY] = 1.0
        probabilities[cells & ON_GOLD, GOLD] = 1.0
        votes = self.votes.copy()
        votes[cells] = 0.0
        others = None
        if self.others is not None:
            others = self.others.copy()
            others[:, cells] = np.nan

        def seen(listed: tuple[tuple[int, str], ...]) -> tuple[tuple[int, str], ...]:
            return tuple((number, name) for number, name in listed if not cells[number])

        return replace(
            self,
            probabilities=probabilities,
            votes=votes,
            unexplained=np.where(cells, 0.0, self.unexplained),
            others=others,
            emblems_differ=seen(self.emblems_differ),
            pictures_differ=seen(self.pictures_differ),
        )


def _shares_or_even(amounts: FloatArray) -> FloatArray:
    """Each of ``amounts`` (none negative) as a share of their sum; even shares where they sum to 0.

    >>> _shares_or_even(np.array([3.0, 1.0])).tolist(), _shares_or_even(np.zeros(4)).tolist()
    ([0.75, 0.25], [0.25, 0.25, 0.25, 0.25])
    """
    total = float(amounts.sum())
    shares: FloatArray = amounts / total if total > 0 else np.full(len(amounts), 1 / len(amounts))
    return shares


@cache
def _disc_offsets(
    view: FaceRaster, radius_mm: float, params: CellParams = CELL_PARAMS
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    r = radius_mm * view.px_per_mm
    # Every other pixel each way: shares over a quarter of the disc are as good, four times cheaper.
    reach = int(np.ceil(r)) // params.sample_step * params.sample_step
    span = np.arange(-reach, reach + 1, params.sample_step)
    dy, dx = np.meshgrid(span, span, indexing="ij")
    inside = dx * dx + dy * dy <= r * r
    return dy[inside], dx[inside]


def cell_coordinates(
    view: FaceRaster = CANONICAL, radius_mm: float = READ_RADIUS_MM, params: CellParams = CELL_PARAMS
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Rows and columns of the disc of pixels at each cell's centre: each shape (40, pixels)."""
    dy, dx = _disc_offsets(view, radius_mm, params=params)
    centres = np.array([view.to_px(*cell_centre_mm(cell)) for cell in CELLS])
    ys = np.round(centres[:, 1:2]).astype(np.intp) + dy[None, :]
    xs = np.round(centres[:, 0:1]).astype(np.intp) + dx[None, :]
    return ys, xs


def cell_pixels(
    image: npt.NDArray[ScalarT],
    view: FaceRaster = CANONICAL,
    radius_mm: float = READ_RADIUS_MM,
    params: CellParams = CELL_PARAMS,
) -> npt.NDArray[ScalarT]:
    """The disc of pixels at each cell's centre: shape (40, pixels, channels)."""
    ys, xs = cell_coordinates(view, radius_mm, params=params)
    pixels: npt.NDArray[ScalarT] = image[ys, xs]
    return pixels


def _face_distance(
    photo_px: FloatImage,
    face: FloatImage,
    view: FaceRaster,
    glare: FloatImage | None,
    params: CellParams = CELL_PARAMS,
) -> FloatImage:
    """Each disc pixel's distance from the face, forgiving a pixel of misregistration either way."""
    ys, xs = cell_coordinates(view, params=params)
    height, width = face.shape[:2]
    best: FloatImage | None = None
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            # The face moved by (dy, dx), as np.roll would move it, read at the discs alone.
            shifted = face[(ys - dy) % height, (xs - dx) % width]
            distance = shaded_distance(photo_px, shifted, glare=glare)
            best = distance if best is None else np.minimum(best, distance)
    assert best is not None
    return best


@dataclass(frozen=True, eq=False)
class Discs:
    """What each cell's disc shows whatever the tokens' colours (:func:`cell_discs`): made once a
    view, however many times its colours are read."""

    #: The balanced photo's, the face's and the glare's pixels, (40, pixels[, 3]).
    photo: FloatImage
    face: FloatImage
    glare: FloatImage | None
    #: Each pixel's distance from the face (:func:`_face_distance`).
    face_distance: FloatImage
    #: The pixels neither hidden nor clipped.
    seen: npt.NDArray[np.bool_]
    #: How well the art's texture shows through, and how much it has (:func:`vision.texture.texture_match`).
    match: FloatArray
    face_detail: FloatArray
    #: The share of each disc's pixels that glare left seen.
    seen_share: FloatArray


def cell_discs(
    balanced: FloatImage,
    face: FloatImage,
    view: FaceRaster = CANONICAL,
    glare: FloatImage | None = None,
    hidden: npt.NDArray[np.bool_] | None = None,
    details: tuple[FloatImage, FloatImage] | None = None,
    glared: npt.NDArray[np.bool_] | None = None,
    params: CellParams = CELL_PARAMS,
) -> Discs:
    """Each cell's disc as :func:`cell_signs` reads it, before any colour is compared: the
    arguments are :func:`cell_signs`' own."""
    if glared is not None:
        hidden = glared if hidden is None else hidden | glared
    photo_px = cell_pixels(balanced, view, params=params)
    glare_px = None if glare is None else cell_pixels(glare[..., None], view, params=params)[..., 0]
    face_px_distance = _face_distance(
        photo_px,
        cast(FloatImage, cv2.GaussianBlur(face, (0, 0), FACE_BLUR_PX)),
        view,
        glare_px,
        params=params,
    )
    seen = (
        np.ones(face_px_distance.shape, bool)
        if hidden is None
        else ~cell_pixels(hidden[..., None], view, params=params)[..., 0]
    )
    match, face_detail = texture_match(
        *(details or fine_detail(balanced, face)), *cell_coordinates(view, params=params), seen
    )
    seen_share = (
        np.ones(len(CELLS))
        if glared is None
        else 1.0 - cell_pixels(glared[..., None].astype(np.float32), view, params=params)[..., 0].mean(axis=1)
    ).astype(np.float64)
    face_px = cell_pixels(face, view, params=params)
    return Discs(photo_px, face_px, glare_px, face_px_distance, seen, match, face_detail, seen_share)


@dataclass(frozen=True, eq=False)
class CellSigns:
    """What each cell's disc shows (40 rows): the signs weighed for occupancy, and the colour votes."""

    features: FloatArray
    shares: FloatArray
    #: Per target (columns as ``targets``): the share of the disc's visible pixels unlike the face
    #: and near that target's own colour.
    near: FloatArray
    #: The share of each disc's pixels that glare left seen (:func:`cell_signs`' ``glared``).
    seen: FloatArray
    #: What the discs showed before any colour was compared: another reading of the colours starts there.
    discs: Discs


#: The columns of :attr:`CellSigns.features`.
FEATURES = ("covered", "token_coloured", "light", "face_darkness", "glare", "face_match", "face_detail")

#: Logistic weights over :func:`model_inputs`, fitted on the tuning set only
#: (``vision/data/weights/cells-reference.json``; ``armadora bench fit TUNING_DIR`` writes it again).
WEIGHTS = load_weights("cells-reference")


def cell_signs(
    balanced: FloatImage,
    face: FloatImage,
    targets: dict[str, FloatImage],
    view: FaceRaster = CANONICAL,
    glare: FloatImage | None = None,
    hidden: npt.NDArray[np.bool_] | None = None,
    white: npt.ArrayLike = (1.0, 1.0, 1.0),
    ignore: tuple[FloatImage, ...] = (),
    details: tuple[FloatImage, FloatImage] | None = None,
    glared: npt.NDArray[np.bool_] | None = None,
    params: CellParams = CELL_PARAMS,
    discs: Discs | None = None,
) -> CellSigns:
    """The signs of a token on each cell's disc, and the share of colour votes for each target.

    ``targets`` are the gold's colour, then each player's (as
    :func:`vision.read.view.token_colours` gives them).

    Signs, as shares of the disc's visible pixels: unlike the face (or more
    like a token than the face); of a token's colour; light and unlike the
    face (an emblem); and, for how far to trust them, how dark the face is
    there and how much glare. Then how well the art's fine texture shows
    through (:func:`vision.texture.texture_match`) and how much texture the art has there.
    The colour votes are :func:`colour_shares`, and beside them, per target, the share of pixels
    near its colour with shade allowed (:attr:`CellSigns.near`: white and black have no colour
    to vote with, but are far apart in it); ``white`` is the colour of
    glare in ``balanced`` (:class:`vision.read.rectify.Balanced`); pixels nearer
    one of the ``ignore`` colours (the palisades' wood, leaning over the
    cell) than to every target do not vote; where they are most of what covers the disc
    (:attr:`CellParams.stick_share`) they hint. ``details`` is
    :func:`vision.texture.fine_detail` of ``balanced`` and ``face``, if already made. Pixels
    ``hidden`` (a palisade leaning over the cell) and ``glared`` (where the photo clipped) are not
    read; how much of each disc glare left seen is :attr:`CellSigns.seen`. ``discs`` is
    :func:`cell_discs` of the same view, where already made: then only ``targets``, ``white`` and
    ``ignore`` are looked at.
    """
    discs = discs or cell_discs(balanced, face, view, glare, hidden, details, glared, params)
    photo_px, face_px, glare_px, seen = discs.photo, discs.face, discs.glare, discs.seen
    to_target = np.stack(
        [shaded_distance(photo_px, colour, glare=glare_px) for colour in targets.values()], axis=-1
    )
    nearest_distance = np.min(to_target, axis=-1)
    covered = (discs.face_distance > FACE_LIMIT) | (
        nearest_distance + params.token_margin < discs.face_distance
    )
    covered &= seen
    visible = np.maximum(seen.sum(axis=1), 1)
    near_each = covered[..., None] & (to_target < params.vote_limit)
    votes_for = near_each.any(axis=-1)
    light = covered & ~votes_for & (channel_sum(photo_px) > params.light_ratio * channel_sum(face_px))
    features = np.column_stack(
        [
            covered.sum(axis=1) / visible,
            votes_for.sum(axis=1) / visible,
            light.sum(axis=1) / visible,
            1.0 - face_px.sum(axis=-1).mean(axis=1) / 3,
            np.zeros(len(CELLS)) if glare_px is None else glare_px.mean(axis=1),
            discs.match,
            discs.face_detail,
        ]
    )
    voting, hints = covered, np.zeros_like(covered)
    covering = np.maximum(covered.sum(axis=1, keepdims=True), 1)
    for other in ignore:
        like_other = covered & (nearest_distance >= shaded_distance(photo_px, other, glare=glare_px))
        voting = voting & ~like_other
        hints |= like_other & (like_other.sum(axis=1, keepdims=True) > params.stick_share * covering)
    shares = colour_shares(photo_px, voting, tuple(targets.values()), white, params=params, hints=hints)
    near = near_each.sum(axis=1) / visible[:, None]
    return CellSigns(features.astype(np.float64), shares, near.astype(np.float64), discs.seen_share, discs)


def _chroma_of(
    pixels: FloatImage, white: npt.ArrayLike, params: CellParams = CELL_PARAMS
) -> tuple[FloatImage, npt.NDArray[np.bool_]]:
    """Each pixel's :func:`vision.colour.chroma`, and whether enough of it is colour to vote
    (:attr:`CellParams.min_saturation`)."""
    colour = chroma(pixels, white)
    saturation = channel_norm(colour) / np.maximum(channel_norm(pixels), 1e-6)
    return colour, saturation >= params.min_saturation


def _directions(targets: tuple[FloatImage, ...], white: npt.ArrayLike) -> FloatImage:
    """Each target's chroma as a unit direction, one row each: what a pixel's chroma is compared with."""
    directions = np.stack([chroma(target, white) for target in targets])
    unit: FloatImage = directions / np.maximum(np.linalg.norm(directions, axis=-1, keepdims=True), 1e-6)
    return unit


def colour_shares(
    pixels: FloatImage,
    voting: npt.NDArray[np.bool_],
    targets: tuple[FloatImage, ...],
    white: npt.ArrayLike,
    params: CellParams = CELL_PARAMS,
    hints: npt.NDArray[np.bool_] | None = None,
) -> FloatArray:
    """Per disc (rows of ``pixels``), the share of its ``voting`` pixels going to each target.

    The first target is the gold's: its share is of the pixels nearer it than
    any other. The rest share what is left between them, each pixel voting for
    the nearest of them alone: a warrior's colour washed towards gold still
    tells which warrior it is. Colours are compared by their
    :func:`vision.colour.chroma`'s direction, so that glare and shade do not
    turn one into another; a pixel with too little colour left (a pale
    emblem, a washed-out patch, a grey shadow) does not vote. A disc's ``hints`` (pixels that may
    be a token or may be something else) vote together as one pixel: a hint, where nothing else
    votes, that leaves the reading doubtful.
    """
    colour, coloured = _chroma_of(pixels, white, params)
    weight = (voting & coloured).astype(np.float64)
    if hints is not None:
        hinting = hints & coloured & ~voting
        weight += hinting / np.maximum(hinting.sum(axis=1, keepdims=True), 1)
    alike = colour @ _directions(targets, white).T

    def votes(nearest: npt.NDArray[np.intp], count: int) -> FloatArray:
        tally = np.stack([(weight * (nearest == k)).sum(axis=1) for k in range(count)], axis=-1)
        shares: FloatArray = (tally + params.prior_votes) / (
            tally.sum(axis=1, keepdims=True) + params.prior_votes * count
        )
        return shares

    gold = votes(np.argmax(alike, axis=-1), len(targets))[:, :1]
    players = votes(np.argmax(alike[..., 1:], axis=-1), len(targets) - 1)
    return np.concatenate([gold, (1 - gold) * players], axis=1).astype(np.float64)


def model_inputs(features: FloatArray) -> FloatArray:
    """The occupancy model's inputs: the features and a constant.

    Interactions (each sign scaled by the glare or the face's darkness) did
    worse when fitted on one half of the tuning photos and tried on the other.
    """
    return with_constant(features)


def occupied_probability(features: FloatArray, weights: npt.ArrayLike = WEIGHTS) -> FloatArray:
    """P(a token on the cell) for each row of :attr:`CellSigns.features`."""
    return logistic(model_inputs(features), weights)


def fit_weights(
    features: FloatArray, labels: npt.NDArray[np.bool_], example_weights: FloatArray | None = None
) -> FloatArray:
    """Weights for :func:`occupied_probability`, fitted to cells whose truth is known."""
    return fit_logistic(model_inputs(features), labels, example_weights=example_weights)


def read_cells(
    signs: CellSigns,
    colours: tuple[str, ...],
    occupied: FloatArray | None = None,
    params: CellParams = CELL_PARAMS,
    others: FloatArray | None = None,
) -> CellReading:
    """Label probabilities for the 40 cells from their :func:`cell_signs`.

    Whether a cell holds anything comes from the signs through :data:`WEIGHTS`
    (or from ``occupied``, where another reader judged it); what it holds is
    whichever target colour most of its covered pixels are (``colours`` names
    the players' ones, after gold, in the targets' order). A disc hardly seen
    (:attr:`CellParams.least_seen`) gives no sign either way, and is read empty.
    """
    if occupied is None:
        occupied = occupied_probability(signs.features)
    occupied = np.where(signs.seen < params.least_seen, 0.0, occupied)
    probabilities = np.concatenate([(1 - occupied)[:, None], occupied[:, None] * signs.shares], axis=1)
    votes = np.concatenate([signs.features[:, :1], signs.shares], axis=1)
    unexplained = signs.features[:, 0] - signs.features[:, 1] - signs.features[:, 2]
    return CellReading(colours, probabilities.astype(np.float64), votes, unexplained, others)


def photo_colours(
    balanced: FloatImage,
    reading: CellReading,
    targets: dict[str, FloatImage],
    white: npt.ArrayLike = (1.0, 1.0, 1.0),
    view: FaceRaster = CANONICAL,
    params: CellParams = CELL_PARAMS,
) -> dict[str, FloatImage]:
    """Each player's colour as this photo shows it: the middle colour of the warriors read surely as
    that colour (:attr:`CellParams.sure`, at least :attr:`CellParams.least_sure` of them), where
    there are enough; ``targets``' own colour elsewhere.

    A lamp's colour left over in the balanced view, or a copy's print, moves every warrior of a
    colour the same way: the warriors read surely say where, and the doubtful ones are then read
    against that. Only the pixels with colour (:attr:`CellParams.min_saturation`) nearest the
    target's direction count (the emblem and the art at the disc's rim do not); a colour that would
    then point nearer another target's than its own is not taken.

    >>> gold, blue = np.array([0.1, 0.7, 0.8], np.float32), np.array([0.7, 0.4, 0.1], np.float32)
    >>> targets = {"gold": gold, "blue": blue}
    >>> photo = np.full((530, 800, 3), 0.5, np.float32)
    >>> probabilities = np.zeros((40, 3)); probabilities[:, 0] = 1.0
    >>> for number in (1, 2):
    ...     x, y = CANONICAL.to_px(*cell_centre_mm(CELLS[number]))
    ...     photo[round(y) - 30 : round(y) + 30, round(x) - 30 : round(x) + 30] = (0.6, 0.45, 0.2)
    ...     probabilities[number] = (0.0, 0.0, 1.0)
    >>> reading = CellReading(("blue",), probabilities, np.zeros((40, 3)), np.zeros(40))
    >>> [round(float(v), 2) for v in photo_colours(photo, reading, targets)["blue"]]
    [0.6, 0.45, 0.2]
    """
    names = list(targets)
    directions = _directions(tuple(targets.values()), white)
    pixels = cell_pixels(balanced, view, params=params)
    colour, saturated = _chroma_of(pixels, white, params)
    nearest = np.argmax(colour @ directions.T, axis=-1)
    result = dict(targets)
    for name, sure in reading.read_surely(params.sure).items():
        index = names.index(name)
        if len(sure) < params.least_sure:
            continue
        chosen = saturated[sure] & (nearest[sure] == index)
        if not chosen.any():
            continue
        middle = np.median(pixels[sure][chosen], axis=0).astype(np.float32)
        direction = chroma(middle, white)
        if int(np.argmax(directions @ direction)) == index:
            result[name] = middle
    return result
