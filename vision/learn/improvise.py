"""A provisional profile of a copy the scanner has no profile of, made up from the game photo itself.

Without a setup photo nothing says what this copy's empty cells look like or
which colours its warriors are. But the photo shows warriors: squares of one
print whose outline stands out from the art and whose flat back steps away from
it on its sides (:func:`vision.learn.pieces.warrior_odds`). The surest of them are
grouped by colour; so are cells of a colour none of them has whose emblems
match one another's, for a player whose warriors all look unsure (a full
board). Each group's picture stands in for that colour's warrior
(:mod:`vision.read.tokens`), so that every cell is judged by how well a warrior of
the board matches it, as a setup's hidden corners are, and by how much it looks
like a warrior. The face is the photo itself, with the gold, the surest warriors and
every palisade line's surroundings (as far as a palisade there would lean)
filled in from around them and the grid line drawn back, so that the slot
reader compares each line with a line bare of palisades. Groups are named
after the nearest known colour (:mod:`vision.colour_names`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from engine.board import CELLS, OFF_GOLD_CELLS, SLOTS, Cell
from vision.colour import rgb_to_bgr_float
from vision.colour_names import colour_name, lab_of, unique_names
from vision.geometry import GRID_H_MM, GRID_LINE_MM, GRID_W_MM, MARGIN_MM, slot_segment_mm
from vision.learn.pieces import (
    FACE_VIEW,
    PIECE_PARAMS,
    READ_VIEW,
    Place,
    bgr_to_rgb,
    dominant_colour,
    emblem,
    emblem_match,
    emblem_turns,
    fill_in,
    fill_tokens,
    gold_colour,
    placed_tokens,
    token_image,
    turned_match,
    warrior_odds,
)
from vision.locate.features import camera_from_homography
from vision.locate.follow import followed
from vision.locate.grid import GridFit, light_colour, locate_by_grid
from vision.looks import REFERENCE_GOLD, REFERENCE_WOOD, RGB, Kind, Looks
from vision.parallel import both, each
from vision.read.cells import cell_pixels
from vision.read.rectify import rectify
from vision.read.slots import leans_mm

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

#: A cell whose warrior's looks give these log odds of a warrior (:func:`vision.learn.pieces.warrior_odds`)
#: is taken as surely holding one: on the tuning copies' photos 1320-1559, none of 3,222 empty
#: cells looked as sure, and 5 % of the warriors looked less sure.
SURE_WARRIOR = float(np.log(0.98 / 0.02))


@dataclass(frozen=True)
class ImproviseParams:
    """How looks are made up from the photo being read: the hand-set numbers."""

    #: Fewer such warriors than this, and the likeliest down to these odds count too (9 of the 3,222
    #: empty cells looked as likely, and 1.6 % of the warriors less).
    min_sure_warriors: int = 10
    #: Sure warriors nearer than this in colour (CIE76, the light taken off) are one player's.
    same_player_delta_e: float = 14.0
    max_players: int = 4
    #: Cells not taken as sure warriors, of a colour no sure warrior has, whose emblems match another's
    #: this well (normalised correlation, at any quarter turn) are warriors too: one player's outlines
    #: can all be unclear (a full board in soft light). On the tuning copies' photos 360-599 no two
    #: cells of art of one colour matched as well as 0.85.
    same_emblem: float = 0.9
    #: Sure warriors grouped by colour of which no two emblems match this well are art that looked like
    #: warriors: on the tuning copies' photos 360-599, 11 such groups matched at 0.69 at most, and
    #: each of 555 players' groups at 0.72 at least.
    min_group_emblem: float = 0.65
    #: Two groups of one colour apart whose warriors' emblems match this well are one player's, lit
    #: differently across the board (a lamp's warm fall-off, a shadow): each player has an emblem of
    #: their own. Across groups of different players emblems matched at 0.79 at most on 60 raster
    #: tuning copies' photos and at 0.89 on 12 Cycles ones; one player's split groups at 0.94 and
    #: more in half the cases.
    same_player_emblem: float = 0.93
    #: A group whose warriors' emblem matches an earlier group's this well, in a colour of the same
    #: hue (within this many degrees) or of one too grey to have one (chroma under this), may be
    #: that player's warriors in other light: its cells are doubtful (:func:`alike_groups`). Groups
    #: of the same player were so on the path-traced reference tuning photos read as unknown copies
    #: in 195 of 260 pairs, and groups of two players in 37 of 957 (the reference kit's blue and
    #: purple emblems match at up to 0.87); on 48 raster tuning copies' photos in 13 of 17 and 0 of 160.
    alike_emblem: float = 0.75
    alike_hue_deg: float = 30.0
    grey_chroma: float = 20.0
    #: A board found without a profile whose gold's values read this surely at least, on average
    #: (:func:`vision.read.numerals.read_gold_values`), stands where it was found. Under it, a place a
    #: few whole cells along or turned half round (:func:`vision.locate.lattice.nearby_moves`) whose
    #: numerals read better by :attr:`better_placed` (:func:`vision.read.numerals.numerals_shown`)
    #: is the board's: a copy's art with round shapes of the gold's colour can hold the gold search a
    #: half turn or cells off, every grid line on a line. On 148 path-traced tuning photos of twelve
    #: copies read without a profile, 16 read under 0.9; the three of them placed so read 0.56 to 0.69
    #: there and 0.32 to 0.44 better on the board's place, the others at least 0.02 worse anywhere
    #: else: the margin lies halfway. The gold's twins (six of eight gold cells on gold,
    #: :func:`vision.locate.lattice.gold_twins`) may read nearly as well: the art tells those.
    placed_surely: float = 0.9
    better_placed: float = 0.15
    #: A warrior's back shows between its bevel (:attr:`vision.learn.pieces.PieceParams.bevel`) and
    #: this share of its side from its edge (its emblem).
    back_inner: float = 0.17
    #: Around each interior grid line the face is filled in this far (mm) either side, then the line
    #: drawn back.
    line_fill_mm: float = 4.5


IMPROVISE_PARAMS = ImproviseParams()


LIKELY_WARRIOR = float(np.log(0.8 / 0.2))


@dataclass(frozen=True, eq=False)
class BoardFace:
    """A board of an unknown copy seen from above (:data:`vision.learn.pieces.FACE_VIEW`): where it is in
    the photo, its gold's colour and the light's (float BGR, 0..1)."""

    fit: GridFit
    face: Image
    gold: FloatArray
    white: FloatArray


@dataclass(frozen=True, eq=False)
class Improvised:
    """A provisional profile, and where the board is in the photo it was made from."""

    profile: Looks
    fit: GridFit


def board_face(
    image: Image, gold_rgb: tuple[int, int, int] = REFERENCE_GOLD, fit: GridFit | None = None
) -> BoardFace | None:
    """The board in a game ``image`` of an unknown copy, found by its gold and grid
    (:func:`vision.locate.grid.locate_by_grid`, unless ``fit`` is what it found) and seen from
    above, or None when no board is found."""
    gold_bgr = rgb_to_bgr_float(gold_rgb) * 255
    fit = fit or locate_by_grid(image, gold_bgr)
    if fit is None:
        return None
    fit = followed(image, fit)
    read = rectify(image, fit.homography, READ_VIEW).astype(np.float32) / 255
    gold = gold_colour(cell_pixels(read, READ_VIEW), light_colour(read), gold_bgr)
    return BoardFace(fit, rectify(image, fit.homography, FACE_VIEW), gold, gold / (gold_bgr / 255))


def improvise(
    image: Image,
    gold_rgb: tuple[int, int, int] = REFERENCE_GOLD,
    params: ImproviseParams = IMPROVISE_PARAMS,
    fit: GridFit | None = None,
) -> Improvised | None:
    """A provisional profile of the board in a game ``image`` whose copy is unknown, or None when no
    board is found (:func:`board_face`; ``fit``, where the board's gold and grid were found already)."""
    seen = board_face(image, gold_rgb, fit)
    if seen is None:
        return None
    fit, face, gold, white = seen.fit, seen.face, seen.gold, seen.white
    off_gold = list(OFF_GOLD_CELLS)
    places, signs = placed_tokens(face, off_gold, FACE_VIEW)
    placed = dict(zip(off_gold, places, strict=True))
    looks = dict(zip(off_gold, warrior_odds(signs), strict=True))
    # A dim or blurred photo draws few sharp warriors: then the likeliest of the likely ones count
    # too, so that each player's colour is seen on a few warriors.
    ranked = sorted(off_gold, key=lambda cell: -looks[cell])
    sure = [
        cell
        for rank, cell in enumerate(ranked)
        if looks[cell] >= SURE_WARRIOR or (rank < params.min_sure_warriors and looks[cell] >= LIKELY_WARRIOR)
    ]
    camera = camera_from_homography(fit.homography, image.shape[1], image.shape[0])
    # The face made bare and the players' looks read from the same warriors: neither needs the
    # other, and the first is mostly OpenCV's work, which leaves Python free for the second.
    bare, (colours, tokens, alike) = both(
        lambda: _bare_lines(
            fill_tokens(face, [placed[cell] for cell in sure]), leans_mm(camera), params=params
        ),
        lambda: _players(face, placed, sure, white, params),
    )
    profile = Looks(
        name="unknown copy",
        face=bare,
        colours=colours,
        gold=bgr_to_rgb(gold),
        wood=bgr_to_rgb(rgb_to_bgr_float(REFERENCE_WOOD) * white),
        tokens=tokens,
        hidden_cells=tuple(cell.name for cell in CELLS),
        wood_seen=False,
        kind=Kind.IMPROVISED,
        alike=alike,
    )
    return Improvised(profile, fit)


def _players(
    face: Image,
    placed: dict[Cell, Place],
    sure: list[Cell],
    white: FloatArray,
    params: ImproviseParams = IMPROVISE_PARAMS,
) -> tuple[dict[str, RGB], dict[str, Image], tuple[tuple[str, str], ...]]:
    """The players a board's warriors show (``placed`` on ``face``, the ``sure`` ones first): each
    one's colour and warrior picture by name, and the names of those that look like another's
    (:func:`alike_groups`). Two players at least: a board with one colour seen was still set up
    for two."""
    pictures = [token_image(face, placed[cell], FACE_VIEW) for cell in sure]
    # Four players at most: the largest groups are theirs, the rest taken for art that looked
    # like a warrior.
    groups = _merged_by_emblem(
        [
            (colour, [pictures[i] for i in members])
            for colour, members in sorted(
                _group_by_colour(pictures, white, params=params), key=lambda group: -len(group[1])
            )
            if len(members) == 1
            or _any_emblems_match([pictures[i] for i in members], params.min_group_emblem)
        ],
        params=params,
    )[: params.max_players]
    unclear = [token_image(face, place, FACE_VIEW) for cell, place in placed.items() if cell not in sure]
    seen_surely = len(groups)
    groups = with_recurring(
        groups, _recurring_groups(unclear, white, _confirmed(groups), params=params), white, params
    )
    colours, tokens = {}, {}
    names = unique_names([colour_name(bgr_to_rgb(colour / white)) for colour, _ in groups])
    alike = alike_groups(groups, names, white, seen_surely, params=params)
    for name, (colour, members) in zip(names, groups, strict=True):
        colours[name] = bgr_to_rgb(colour)
        tokens[name] = _middle(members)
    for name in unique_names([*colours, "unknown", "unknown"])[len(colours) :][: max(0, 2 - len(colours))]:
        colours[name] = bgr_to_rgb(white * 0.5)
    return colours, tokens, alike


def alike_groups(
    groups: list[tuple[FloatArray, list[Image]]],
    names: list[str],
    white: FloatArray,
    seen_surely: int | None = None,
    params: ImproviseParams = IMPROVISE_PARAMS,
) -> tuple[tuple[str, str], ...]:
    """Each group of warriors (colour, pictures; ``names`` theirs) that looks like an earlier one,
    with that one's name: emblems matching (:attr:`ImproviseParams.alike_emblem`) on backs of one hue,
    or too grey to have one. One player's warriors lit two ways (a lamp's fall-off, a glare that
    washes the colour out) look so; two players' seldom do, as each has an emblem of their own.

    The groups from ``seen_surely`` on (none of them if None) were seen on no sure warrior, only as
    unclear cells whose emblems match one another: there one hue is enough, as a glare that washes
    a player's warriors out washes their emblems out too.
    """
    labs = [_lab(colour, white) for colour, _ in groups]
    emblems = [emblem(_middle(members)) for _, members in groups]
    alike = []
    for later in range(1, len(groups)):
        for earlier in range(later):
            if _one_hue(labs[earlier], labs[later], params=params) and (
                later >= (len(groups) if seen_surely is None else seen_surely)
                or emblem_match(emblems[later], emblems[earlier])[1] >= params.alike_emblem
            ):
                alike.append((names[later], names[earlier]))
                break
    return tuple(alike)


def _one_hue(a: FloatArray, b: FloatArray, params: ImproviseParams = IMPROVISE_PARAMS) -> bool:
    """Whether two CIE Lab colours are of one hue (:attr:`ImproviseParams.alike_hue_deg`), or either
    is too grey to tell (:attr:`ImproviseParams.grey_chroma`).

    >>> _one_hue(np.array([60.0, 40.0, 60.0]), np.array([75.0, 25.0, 45.0]))  # orange, paler
    True
    >>> _one_hue(np.array([60.0, 40.0, 60.0]), np.array([40.0, 30.0, -40.0]))  # orange, purple
    False
    >>> _one_hue(np.array([95.0, 2.0, 3.0]), np.array([40.0, 30.0, -40.0]))  # white: no hue
    True
    """
    if min(float(np.hypot(a[1], a[2])), float(np.hypot(b[1], b[2]))) < params.grey_chroma:
        return True
    turn = abs(float(np.degrees(np.arctan2(a[2], a[1]) - np.arctan2(b[2], b[1])))) % 360
    return min(turn, 360 - turn) <= params.alike_hue_deg


def _group_by_colour(
    pictures: list[Image], white: FloatArray, params: ImproviseParams = IMPROVISE_PARAMS
) -> list[tuple[FloatArray, list[int]]]:
    """The warriors' pictures grouped by their back's colour: each group's colour and members."""
    groups: list[tuple[FloatArray, list[int]]] = []
    labs: list[FloatArray] = []
    backs = each(lambda picture: dominant_colour(_back(picture, params=params))[0], pictures)
    for i, colour in enumerate(backs):
        lab = _lab(colour, white)
        near = [
            k
            for k, other in enumerate(labs)
            if float(np.linalg.norm(other - lab)) < params.same_player_delta_e
        ]
        if near:
            groups[near[0]][1].append(i)
            continue
        labs.append(lab)
        groups.append((colour, [i]))
    return groups


def _merged_by_emblem(
    groups: list[tuple[FloatArray, list[Image]]], params: ImproviseParams = IMPROVISE_PARAMS
) -> list[tuple[FloatArray, list[Image]]]:
    """``groups`` (colour, pictures; largest first) with each one whose warriors' emblem matches a
    larger group's (:attr:`ImproviseParams.same_player_emblem`) taken into it, its pictures turned
    as the larger group's lie: one player's warriors whose colour the light spread over two groups.
    The larger group keeps its colour; the result is largest first again.
    """
    merged: list[tuple[FloatArray, list[Image]]] = []
    emblems: list[npt.NDArray[np.float32]] = []
    for colour, members in groups:
        own = emblem(_middle(members))
        for k, other in enumerate(emblems):
            turn, match = emblem_match(own, other)
            if match >= params.same_player_emblem:
                merged[k][1].extend(np.rot90(picture, turn) for picture in members)
                break
        else:
            merged.append((colour, list(members)))
            emblems.append(own)
    return sorted(merged, key=lambda group: -len(group[1]))


def _recurring_groups(
    pictures: list[Image],
    white: FloatArray,
    known: list[FloatArray],
    params: ImproviseParams = IMPROVISE_PARAMS,
) -> list[tuple[FloatArray, list[Image]]]:
    """Among cells not taken as sure warriors (``pictures``), groups of one colour that none of the
    ``known`` groups' colours is near, keeping the members whose emblem another member's matches
    (:attr:`ImproviseParams.same_emblem`): each group's colour and its members' pictures, turned alike,
    largest first.

    Art seldom repeats one colour with one emblem on it from cell to cell; a player's warriors do.
    """
    known_labs = [_lab(colour, white) for colour in known]
    found = []
    for colour, members in _group_by_colour(pictures, white, params=params):
        lab = _lab(colour, white)
        if len(members) < 2 or any(
            np.linalg.norm(lab - other) < params.same_player_delta_e for other in known_labs
        ):
            continue
        matches, turns = _emblem_matches([pictures[i] for i in members], params=params)
        kept = [k for k in range(len(members)) if matches[k].max() >= params.same_emblem]
        if len(kept) < 2:
            continue
        # Turn every member as it best matches the one most others match.
        anchor = max(kept, key=lambda k: int((matches[k] >= params.same_emblem).sum()))
        found.append((colour, [np.rot90(pictures[members[k]], int(turns[k, anchor])) for k in kept]))
    return sorted(found, key=lambda group: -len(group[1]))


def _confirmed(groups: list[tuple[FloatArray, list[Image]]]) -> list[FloatArray]:
    """The colours of the ``groups`` (colour, pictures) that more than one warrior shows."""
    return [colour for colour, members in groups if len(members) > 1]


def with_recurring(
    groups: list[tuple[FloatArray, list[Image]]],
    recurring: list[tuple[FloatArray, list[Image]]],
    white: FloatArray,
    params: ImproviseParams = IMPROVISE_PARAMS,
) -> list[tuple[FloatArray, list[Image]]]:
    """The sure warriors' ``groups`` (colour, pictures) with the ``recurring`` ones
    (:func:`_recurring_groups`, largest first) added while there is room for a player
    (:attr:`ImproviseParams.max_players`).

    One sure warrior is no proof of a player: art as dark as a dark player's warriors can look more
    like a warrior than they do on it. A recurring group of a lone warrior's colour takes it in
    where its emblem matches theirs (:attr:`ImproviseParams.same_emblem`), turned as they lie; where
    it does not, the group takes its place if the emblem of its middle picture (:func:`_middle`)
    stands out at least as much as the lone warrior's does (:func:`_emblem_contrast`): a print's
    emblem survives the median of its warriors, while art's detail, which differs from cell to cell,
    washes out of it.

    >>> white, dark, yellow = np.ones(3), np.full(3, 0.1), np.array([0.1, 0.8, 0.9])
    >>> ring = np.zeros((40, 40, 3), np.uint8)
    >>> ring[10:30, 10:30], ring[14:26, 14:26] = 230, 0
    >>> speckle = [np.random.default_rng(seed).random((40, 40, 1)) < 0.05 for seed in range(3)]
    >>> stars = [np.where(few, 230, 0).repeat(3, 2).astype(np.uint8) for few in speckle]
    >>> def sizes(groups): return [len(members) for _, members in groups]
    >>> sizes(with_recurring([(yellow, [ring, ring]), (dark, [stars[0]])], [(dark, [ring, ring])], white))
    [2, 2]
    >>> sizes(with_recurring([(yellow, [ring, ring]), (dark, [ring])], [(dark, stars)], white))
    [2, 1]
    >>> sizes(with_recurring([(yellow, [ring, ring]), (dark, [ring])], [(dark, [ring, ring])], white))
    [2, 3]
    >>> sizes(with_recurring([(yellow, [ring, ring])], [(dark, [ring])], white))
    [2, 1]
    """
    groups = list(groups)
    for colour, members in recurring:
        lab = _lab(colour, white)
        lone = next(
            (
                k
                for k, (other, others) in enumerate(groups)
                if len(others) == 1 and np.linalg.norm(_lab(other, white) - lab) < params.same_player_delta_e
            ),
            None,
        )
        if lone is not None:
            picture, middle = groups[lone][1][0], emblem(_middle(members))
            own = emblem(picture)
            turn, match = emblem_match(own, middle)
            if match >= params.same_emblem:
                groups[lone] = (colour, [*members, np.rot90(picture, turn)])
            elif _emblem_contrast(middle) >= _emblem_contrast(own):
                groups[lone] = (colour, members)
        elif len(groups) < params.max_players:
            groups.append((colour, members))
    return groups


def _emblem_contrast(grey: npt.NDArray[np.float32]) -> float:
    """How much an emblem (:func:`vision.learn.pieces.emblem`) stands out: its grey levels' spread.

    >>> flat, ring = np.full((20, 20), 40, np.float32), np.full((20, 20), 40, np.float32)
    >>> ring[5:15, 5:15], ring[7:13, 7:13] = 200, 40
    >>> _emblem_contrast(flat) < _emblem_contrast(ring)
    True
    """
    return float(np.std(grey))


def _lab(colour: FloatArray, white: FloatArray) -> FloatArray:
    """A group's colour (float BGR) in CIE Lab, the board's light (``white``) taken off."""
    return lab_of(bgr_to_rgb(colour / white))


def colour_picture(pictures: list[Image]) -> Image:
    """One colour's warrior picture from ``pictures`` of its warriors in one photo: each turned the
    quarter turns its emblem best matches the one whose emblem the others match best
    (:func:`_emblem_matches`), then their middle (:func:`_middle`). A hand sets warriors down any way
    round; their middle, turned alike, keeps their emblem sharp.

    >>> mark = np.zeros((40, 40, 3), np.uint8)
    >>> mark[8:32, 10:16] = mark[26:32, 10:30] = 255  # an L
    >>> turned = [mark, np.rot90(mark).copy(), np.rot90(mark, 2).copy()]
    >>> picture = colour_picture(turned)  # the L, one way round
    >>> any(bool((picture == np.rot90(mark, k)).all()) for k in range(4))
    True
    >>> any(bool((_middle(turned) == np.rot90(mark, k)).all()) for k in range(4))  # not turned alike
    False
    """
    matches, turns = _emblem_matches(pictures)
    anchor = max(range(len(pictures)), key=lambda k: float(matches[k].sum()))
    return _middle([np.rot90(picture, int(turns[k, anchor])) for k, picture in enumerate(pictures)])


def _middle(pictures: list[Image]) -> Image:
    """The middle (per-pixel median) of a group's warrior pictures: the group's own picture.

    numpy's median, rounded down as its mean of the two middle values is when cast back to 8 bits,
    without its cost: a median along the pictures' axis strides through memory, some 2 to 14 ms for
    the 1 to 15 pictures a group has, where the pictures sorted pixel by pixel against one another
    (an odd-even transposition sort, whole pictures at a time) take a few hundredths of that.

    >>> rng = np.random.default_rng(1)
    >>> pictures = [rng.integers(0, 256, (4, 4, 3), dtype=np.uint8) for _ in range(4)]
    >>> bool((_middle(pictures) == np.median(np.stack(pictures), axis=0).astype(np.uint8)).all())
    True
    """
    ordered = list(pictures)
    count = len(ordered)
    for round_ in range(count):
        for i in range(round_ % 2, count - 1, 2):
            low, high = ordered[i], ordered[i + 1]
            ordered[i], ordered[i + 1] = np.minimum(low, high), np.maximum(low, high)
    half = count // 2
    if count % 2:
        return ordered[half].copy()
    return ((ordered[half - 1].astype(np.uint16) + ordered[half]) // 2).astype(np.uint8)


def _any_emblems_match(pictures: list[Image], bar: float) -> bool:
    """Whether any picture's emblem matches another's at least ``bar`` (the largest of
    :func:`_emblem_matches`, which this stops working out at the first such pair).

    >>> star = np.zeros((40, 40, 3), np.uint8)
    >>> star[8:32, 18:22] = 255
    >>> star[18:22, 8:20] = 255
    >>> bar = np.zeros_like(star)
    >>> bar[18:22, 4:36] = 255
    >>> _any_emblems_match([star, np.rot90(star).copy()], 0.9), _any_emblems_match([star, bar], 0.9)
    (True, False)
    """
    emblems = [emblem(picture) for picture in pictures]
    turns = [emblem_turns(picture) for picture in emblems]
    pairs = itertools.permutations(range(len(emblems)), 2)
    return any(turned_match(turns[a], emblems[b])[1] >= bar for a, b in pairs)


def _emblem_matches(
    pictures: list[Image], params: ImproviseParams = IMPROVISE_PARAMS
) -> tuple[FloatArray, npt.NDArray[np.int_]]:
    """How well each picture's emblem matches each other's
    (:func:`vision.learn.pieces.emblem_match`; -1 with itself), and the quarter turns that match
    them."""
    emblems = [emblem(picture) for picture in pictures]
    turned = each(emblem_turns, emblems)
    turns = np.zeros((len(pictures), len(pictures)), int)
    matches = np.full((len(pictures), len(pictures)), -1.0)
    pairs = list(itertools.permutations(range(len(pictures)), 2))
    for (a, b), (turn, match) in zip(
        pairs, each(lambda pair: turned_match(turned[pair[0]], emblems[pair[1]]), pairs), strict=True
    ):
        turns[a, b], matches[a, b] = turn, match
    return matches, turns


def _back(picture: Image, params: ImproviseParams = IMPROVISE_PARAMS) -> npt.NDArray[np.float32]:
    """The pixels of a warrior's picture between its edge and its emblem: only the back's colour."""
    n = picture.shape[0]
    inner, outer = round(n * params.back_inner), round(n * PIECE_PARAMS.bevel)
    ring = np.zeros(picture.shape[:2], bool)
    ring[outer:-outer, outer:-outer] = True
    ring[inner:-inner, inner:-inner] = False
    return cast(npt.NDArray[np.float32], picture[ring].astype(np.float32) / 255)


def _bare_lines(face: Image, leans: FloatArray, params: ImproviseParams = IMPROVISE_PARAMS) -> Image:
    """The face with each interior grid line's surroundings filled in and the line drawn back, as
    the line looks where no palisade stands (its colour taken from the grid's outer edge).

    The surroundings reach as far as a palisade on the line leans across the face (``leans``, from
    :func:`vision.read.slots.leans_mm`): filled in from nearer, a steep photo's face would take its
    colours from the palisade's own top.
    """
    s = FACE_VIEW.px_per_mm
    mask = np.zeros(face.shape[:2], np.uint8)
    width = max(1, round(2 * params.line_fill_mm * s))
    for slot, lean in zip(SLOTS, leans, strict=True):
        (x0, y0), (x1, y1) = slot_segment_mm(slot)
        # Steps of a quarter of the lean, narrower than the band, leave no gap between them.
        for shift in np.linspace(0.0, 1.0, 5):
            dx, dy = shift * lean
            cv2.line(
                mask,
                (round((x0 + dx) * s), round((y0 + dy) * s)),
                (round((x1 + dx) * s), round((y1 + dy) * s)),
                255,
                width,
            )
    line_colour = _outer_line_colour(face)
    out = fill_in(face, mask)
    thickness = max(1, round(GRID_LINE_MM * s))
    for slot in SLOTS:
        (x0, y0), (x1, y1) = slot_segment_mm(slot)
        cv2.line(
            out,
            (round(x0 * s), round(y0 * s)),
            (round(x1 * s), round(y1 * s)),
            line_colour,
            thickness,
            cv2.LINE_AA,
        )
    return out


def _outer_line_colour(face: Image) -> tuple[float, float, float]:
    """The printed grid line's colour, from the grid's outer edge, where no palisade ever stands."""
    s = FACE_VIEW.px_per_mm
    xs = np.arange(MARGIN_MM + 5, MARGIN_MM + GRID_W_MM - 5, 1.0)
    top = [face[round(MARGIN_MM * s), round(x * s)] for x in xs]
    bottom = [face[round((MARGIN_MM + GRID_H_MM) * s), round(x * s)] for x in xs]
    b, g, r = np.median(np.array(top + bottom, np.float64), axis=0)
    return (float(b), float(g), float(r))
