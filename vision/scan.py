"""The scanner's pipeline: photo bytes in, position with confidences out, each stage timed.

Stages, each a function of arrays: load (:mod:`vision.load`), locate
(:mod:`vision.locate.features`), register to the millimetre (:mod:`vision.locate.register`),
rectify and balance the light (:mod:`vision.read.rectify`), read cells
(:mod:`vision.read.cells`), read slots (:mod:`vision.read.slots`), read the gold
numerals (:mod:`vision.read.numerals`), assemble (:mod:`vision.read.assemble`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

import vision.read.slots as slots_module
import vision.read.tokens as tokens_module
from engine.board import CELLS, GOLD_CELLS, SLOTS, Cell, Slot
from engine.check import CheckReport, Problem, check
from engine.position import Position
from vision.colour import rgb_to_bgr_float, shaded_distance
from vision.geometry import CANONICAL
from vision.learn.improvise import IMPROVISE_PARAMS, ImproviseParams, improvise
from vision.learn.pieces import PIECE_PARAMS, PieceParams, warrior_looks
from vision.load import MIN_SIDE_PX, Photo, load_photo
from vision.locate.features import (
    SEARCH_ATTEMPTS,
    Camera,
    FoundBy,
    Located,
    NoBoardError,
    camera_from_homography,
    locate,
)
from vision.locate.grid import (
    GRID_PARAMS,
    GRID_WAYS,
    GoldSearch,
    GridFit,
    GridParams,
    gold_search,
    locate_by_grid,
    refine_on_grid,
)
from vision.locate.lattice import gold_twins
from vision.locate.register import (
    ART_MATCH_PARAMS,
    REGISTER_PARAMS,
    ArtMatchParams,
    RegisterParams,
    Registration,
    art_match,
    register,
)
from vision.logistic import logistic
from vision.looks import REFERENCE_GOLD, Kind, Looks, reference_looks
from vision.read.assemble import ASSEMBLE_PARAMS, Assembled, AssembleParams, assemble
from vision.read.cells import (
    CELL_PARAMS,
    CellParams,
    CellReading,
    CellSigns,
    Discs,
    cell_pixels,
    cell_signs,
    occupied_probability,
    photo_colours,
    read_cells,
)
from vision.read.glare import GLARE_PARAMS, GlareParams, clipped_mask, clipped_shares, on_card
from vision.read.numerals import (
    NUMERAL_PARAMS,
    NumeralParams,
    read_gold_values,
)
from vision.read.rectify import RECTIFY_PARAMS, RectifyParams, balance, face_view, rectify, to_float
from vision.read.sharpness import SHARPNESS_PARAMS, SharpnessParams, looks_details, matched_face
from vision.read.slots import (
    SLOT_PARAMS,
    SlotParams,
    SlotReading,
    estimate_wood,
    leans_mm,
    matte_foot,
    palisade_mask,
    read_slots,
    slot_features,
)
from vision.read.tokens import (
    TOKEN_PARAMS,
    TokenParams,
    hidden_occupied,
    hidden_signs,
    match_levels,
    occupied_odds,
    token_match,
)
from vision.texture import TEXTURE_PARAMS, TextureParams, fine_detail

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]
T = TypeVar("T")


@dataclass(frozen=True)
class ScanParams:
    """The pipeline's hand-set numbers, and each stage's own that it passes down."""

    #: Fewer patches of the art than this agreeing on the board's place (:mod:`vision.locate.register`),
    #: and the slower ways of finding the board are tried too; on the tuning photos a board found
    #: right had at least 59.
    confident_patches: int = 45
    #: Fewer than this agreeing even then, and the art is not the looks': another copy whose frame
    #: the features matched. On the tuning photos the reference kit's boards had at least 59 and
    #: other copies found by its features at most 13.
    art_matched_patches: int = 30
    #: The gold's layouts tried before the slow features, which cost less than the rest of the
    #: gold and grid's search where that finds nothing (2 to 5 s on the tuning photos). On the tuning
    #: photos of both worlds that the fast features missed (with 46 raster copies), 72 of the 75
    #: boards the gold found locked within its first 3 layouts, the others by the 5th and 8th, and
    #: the slow features found those 3.
    first_gold_tries: int = 3
    #: A board found by its gold and grid is the reference kit when the art inside its cells matches
    #: the reference face by at least this much more than chance does (a difference of correlations,
    #: :func:`vision.locate.register.art_match`): another copy's art matches it by chance alone.
    #: On the tuning photos of both worlds the reference kit matched by 0.164 at the least, other
    #: copies by 0.096 at the most: the margin lies between.
    art_match_margin: float = 0.13
    #: Cells at least this likely to hold a warrior have its colour weighed by the warriors' pictures.
    maybe_occupied: float = 0.05
    #: Cells the face reads as empty, or as holding a token, with at least this much doubt at most.
    sure_empty: float = 0.05
    #: A hidden gold cell's pixel is gold when this near the gold's colour; a token shows this share
    #: of its cell's disc as gold at least.
    gold_near: float = 0.25
    gold_full_share: float = 0.4
    #: How sharply a better warrior match (normalised correlation) makes its colour the likelier, and
    #: how much the colour votes count beside it (chosen on the tuning copies).
    token_match_weight: float = 20.0
    vote_power: float = 0.5
    #: How sharply a larger share of pixels near a colour (:attr:`vision.read.cells.CellSigns.near`)
    #: makes it the likelier (chosen on the tuning copies).
    near_weight: float = 5.0
    # Each stage's own, passed down to it. (Finding the board by features keeps its module's
    # defaults, FeatureParams, and by gold and grid GridParams' but for the first layouts tried:
    # the tests stand in for those stages with functions of their old signatures.)
    register: RegisterParams = REGISTER_PARAMS
    art: ArtMatchParams = ART_MATCH_PARAMS
    improvise: ImproviseParams = IMPROVISE_PARAMS
    rectify: RectifyParams = RECTIFY_PARAMS
    sharpness: SharpnessParams = SHARPNESS_PARAMS
    texture: TextureParams = TEXTURE_PARAMS
    slots: SlotParams = SLOT_PARAMS
    cells: CellParams = CELL_PARAMS
    tokens: TokenParams = TOKEN_PARAMS
    pieces: PieceParams = PIECE_PARAMS
    assemble: AssembleParams = ASSEMBLE_PARAMS
    glare: GlareParams = GLARE_PARAMS
    numerals: NumeralParams = NUMERAL_PARAMS


SCAN_PARAMS = ScanParams()


@dataclass(frozen=True, eq=False)
class Readings:
    """What the readers said of one photo, before the rules tie it into one position: enough to
    assemble it again for other players (:func:`reassemble`) without reading the photo again."""

    cells: CellReading
    slots: SlotReading
    gold: dict[Cell, tuple[int | None, float]]
    #: The share of each cell and slot under clipped glare, or None.
    glare: tuple[FloatArray, FloatArray] | None
    #: Read with looks improvised from the photo: no profile of its copy was given.
    unknown: bool
    params: ScanParams


@dataclass(frozen=True, eq=False)
class Scan:
    """What one photo showed: the position, how sure each part is, what to look at, and the timings."""

    position: Position
    assembled: Assembled
    check: CheckReport
    located: Located
    image: Image
    timing_ms: dict[str, float] = field(default_factory=dict)
    readings: Readings | None = None

    @property
    def warnings(self) -> tuple[Problem, ...]:
        problems = tuple(
            Problem("check_" + p.code, p.message, p.cells, p.palisades) for p in self.check.problems
        )
        return self.assembled.warnings + problems

    def confidence_json(self) -> dict[str, Any]:
        a = self.assembled
        return {
            # Found by the art's features (out of about 150 inliers), or by the grid's crossings.
            "board": round(
                min(1.0, self.located.inliers / 150)
                if self.located.found_by is FoundBy.FEATURES
                else self.located.inliers / max(self.located.matches, 1),
                3,
            ),
            "cells": {cell.name: round(float(a.cell_confidence[cell.number]), 3) for cell in CELLS},
            "slots": {slot.name: round(float(a.slot_confidence[slot.number]), 3) for slot in SLOTS},
            "gold": {cell.name: round(conf, 3) for cell, conf in sorted(a.gold_confidence.items())},
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position.to_json(),
            "confidence": self.confidence_json(),
            "warnings": [w.to_json() for w in self.warnings],
            "check": self.check.to_json(),
            "timing_ms": {stage: round(ms, 1) for stage, ms in self.timing_ms.items()},
        }


class _Timer:
    def __init__(self) -> None:
        self.ms: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.ms[name] = self.ms.get(name, 0.0) + 1000 * (time.perf_counter() - start)

    def run(self, name: str, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        with self.stage(name):
            return function(*args, **kwargs)


def scan(
    data: bytes,
    *,
    profile: Looks | None = None,
    players: tuple[str, ...] | None = None,
    variant: str = "armadora",
    params: ScanParams = SCAN_PARAMS,
    as_unknown: bool = False,
) -> Scan:
    """Read a photo file's bytes.

    ``as_unknown`` reads the board as a copy without a profile is read, whatever its kit (found by
    its gold and grid, its looks improvised from the photo): how ``armadora bench scan --improvise``
    measures that way of reading on photos of the reference kit too.

    Raises :class:`vision.load.PhotoError` (unreadable) or :class:`vision.locate.features.NoBoardError`.
    """
    timer = _Timer()
    photo: Photo = timer.run("load", load_photo, data, min_side=MIN_SIDE_PX)
    return scan_image(
        photo.image, profile=profile, players=players, variant=variant, timer=timer, params=params,
        as_unknown=as_unknown,
    )  # fmt: skip


@dataclass(frozen=True, eq=False)
class BoardView:
    """The board found in a photo and seen from above under the face's own light."""

    located: Located
    camera: Camera
    balanced: npt.NDArray[np.float32]
    glare: npt.NDArray[np.float32]
    face: npt.NDArray[np.float32]
    white: FloatArray
    #: :func:`vision.texture.fine_detail` of ``balanced`` and ``face``, for the readers' texture signs.
    details: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]
    #: The palisades' colour in ``balanced``: the profile's, or read off the photo where the profile
    #: could only guess it (:func:`vision.read.slots.estimate_wood`).
    wood: npt.NDArray[np.float32]
    #: Where the photo clipped under a lamp's reflection (:func:`vision.read.glare.clipped_mask`):
    #: nothing there can be read.
    clipped: npt.NDArray[np.bool_] | None = None
    #: The part of ``clipped`` that can only be the glossy card mirroring a lamp (:func:`card_glare`):
    #: the readers leave it unread.
    card_glare: npt.NDArray[np.bool_] | None = None
    #: How many patches of the art agreed on the board's place (:mod:`vision.locate.register`), or None
    #: where the board was found by its gold and grid instead.
    agreeing: int | None = None


def board_view(
    image: Image,
    profile: Looks,
    timer: _Timer | None = None,
    found: Located | None = None,
    params: ScanParams = SCAN_PARAMS,
) -> BoardView:
    """Locate the board in an upright BGR photo (unless ``found`` says where it is), rectify it and
    balance its light."""
    timer = timer or _Timer()
    face = face_view(profile, CANONICAL)
    if found is not None:
        return _seen(image, profile, found, face, timer, params)
    found, registration = _found_by_features(image, profile, face, timer, params)
    return _registered_view(image, profile, found, registration, face, timer, params)


def _found_by_features(
    image: Image,
    profile: Looks,
    face: npt.NDArray[np.float32],
    timer: _Timer,
    params: ScanParams,
    attempts: int = len(SEARCH_ATTEMPTS),
    first_attempt: int = 0,
) -> tuple[Located, Registration]:
    """The board found by the features of ``profile``'s art, by :data:`SEARCH_ATTEMPTS` from
    ``first_attempt`` to at most ``attempts``, and how the art registered there."""
    found = timer.run("locate", locate, image, profile, first_attempt, attempts=attempts)
    registration = timer.run("register", register, image, found.homography, face, CANONICAL, params.register)
    # Few patches of art agreeing on where the board is means the features matched badly (a hand,
    # a steep view of a finished game): the later, slower attempts may find it better.
    attempt = found.attempt
    while registration.agreeing < params.confident_patches and attempt + 1 < attempts:
        try:
            again = timer.run("locate", locate, image, profile, attempt + 1, attempts=attempts)
        except NoBoardError:
            break
        attempt = again.attempt
        second = timer.run("register", register, image, again.homography, face, CANONICAL, params.register)
        if second.agreeing > registration.agreeing:
            found, registration = again, second
    return found, registration


def _registered_view(
    image: Image,
    profile: Looks,
    found: Located,
    registration: Registration,
    face: npt.NDArray[np.float32],
    timer: _Timer,
    params: ScanParams,
) -> BoardView:
    settled = replace(found, homography=registration.homography)
    seen = _seen(image, profile, settled, face, timer, params, registration.warp)
    return replace(seen, agreeing=registration.agreeing)


def _seen(
    image: Image,
    profile: Looks,
    located: Located,
    face: npt.NDArray[np.float32],
    timer: _Timer,
    params: ScanParams,
    warp: npt.NDArray[np.float64] | None = None,
) -> BoardView:
    """The board view once the board's place in the photo is settled (``warp``: what the homography
    leaves, where registration fitted it)."""
    height, width = image.shape[:2]
    camera = camera_from_homography(located.homography, width, height)
    with timer.stage("rectify"):
        tokens = (*token_colours(profile).values(), rgb_to_bgr_float(profile.wood))
        topdown = rectify(image, located.homography, CANONICAL, warp)
        balanced = balance(to_float(topdown), face, CANONICAL, tokens, params.rectify)
        # From here on the face is compared with the photo as blurred as the photo is there.
        # An improvised profile serves one photo: its face's blurred details are not kept.
        kept = profile.kind is not Kind.IMPROVISED
        blurred_details = looks_details(profile, CANONICAL, params.sharpness) if kept else None
        face, _ = matched_face(balanced.image, face, CANONICAL, params.sharpness, blurred_details)
        details = fine_detail(balanced.image, face, params.texture)
        wood = rgb_to_bgr_float(profile.wood)
        if not profile.wood_seen:
            wood = estimate_wood(balanced.image, face, wood, CANONICAL, leans_mm(camera), params=params.slots)
    clipped = clipped_mask(topdown, params.glare)
    return BoardView(
        located, camera, balanced.image, balanced.glare, face, balanced.white, details, wood,
        clipped=clipped, card_glare=card_glare(clipped, camera, profile),
    )  # fmt: skip


def token_colours(profile: Looks) -> dict[str, npt.NDArray[np.float32]]:
    """``"gold"`` then each player's colour, as the float BGR the readers compare with."""
    return {"gold": rgb_to_bgr_float(profile.gold)} | {
        name: rgb_to_bgr_float(rgb) for name, rgb in profile.colours.items()
    }


def warrior_colours(profile: Looks) -> tuple[npt.NDArray[np.float32], ...]:
    """Each player's colour: what may cover a grid line besides a palisade (a gold coin never reaches one)."""
    return tuple(rgb_to_bgr_float(rgb) for rgb in profile.colours.values())


#: A photo clips where two channels reach the ceiling (:attr:`GlareParams.channels`): a warrior
#: whose colour's two brightest channels are at least this share of white (sRGB, as the profile
#: holds it, in the light it was seen in) is within a stop and a half of clipping, and a bright
#: lamp can clip it as it clips the card.
CLIPPING_COLOUR = 0.6


def glare_is_card(profile: Looks) -> bool:
    """Whether what clipped on the board (:attr:`BoardView.clipped`) can only be the glossy card
    mirroring a lamp: the reference kit, whose art, wood and warriors are known, none of its
    warriors light enough to clip too (:data:`CLIPPING_COLOUR`). A white warrior clips in a bright
    photo, and is still a warrior; another copy's art may be white enough to clip where no lamp
    shines, and what a learnt or improvised face says of it is not known well enough to tell.

    >>> from vision.looks import reference_looks
    >>> glare_is_card(reference_looks())
    True
    >>> from dataclasses import replace
    >>> with_white = {"orange": (224, 123, 36), "white": (182, 167, 150)}  # white, in warm light
    >>> glare_is_card(replace(reference_looks(), colours=with_white))
    False
    >>> glare_is_card(replace(reference_looks(), kind=Kind.LEARNT))
    False
    """
    return profile.kind is Kind.REFERENCE and all(
        sorted(rgb)[1] < CLIPPING_COLOUR * 255 for rgb in profile.colours.values()
    )


def card_glare(
    clipped: npt.NDArray[np.bool_] | None, camera: Camera, profile: Looks
) -> npt.NDArray[np.bool_] | None:
    """Where the photo ``clipped``, where that can only be the card (:func:`glare_is_card`), or None.

    A patch lying where a palisade could stand or lean as ``camera`` sees it may be a pale stick's
    lit face (:func:`vision.read.glare.on_card`): it is left to the readers."""
    if clipped is None or not glare_is_card(profile):
        return None
    return on_card(clipped, palisade_mask(SLOTS, camera))


def view_slot_features(view: BoardView, profile: Looks, params: ScanParams = SCAN_PARAMS) -> FloatArray:
    """The slot reader's signs (:func:`vision.read.slots.slot_features`) on a board seen with ``profile``;
    what clipped there is the card showing where it can be nothing else (:func:`glare_is_card`)."""
    return slot_features(
        view.balanced,
        view.face,
        view.wood,
        view.camera,
        CANONICAL,
        warrior_colours(profile),
        view.glare,
        view.details,
        view.card_glare,
        params=params.slots,
    )


def view_matte_foot(view: BoardView, profile: Looks, params: ScanParams = SCAN_PARAMS) -> FloatArray:
    """:func:`vision.read.slots.matte_foot` on a board seen with ``profile``, as
    :func:`view_slot_features` reads the slots."""
    return matte_foot(
        view.balanced,
        view.face,
        view.wood,
        view.camera,
        CANONICAL,
        warrior_colours(profile),
        view.glare,
        view.card_glare,
        params=params.slots,
    )


def view_cell_signs(
    view: BoardView,
    profile: Looks,
    palisades: Iterable[Slot],
    params: ScanParams = SCAN_PARAMS,
    targets: dict[str, npt.NDArray[np.float32]] | None = None,
    discs: Discs | None = None,
) -> CellSigns:
    """The cell reader's signs (:func:`vision.read.cells.cell_signs`), leaving out what ``palisades`` hide
    and where the photo clipped under glare, where that can only be the card (:func:`glare_is_card`):
    nothing is seen there. The tokens' colours are ``targets``, or else the profile's; ``discs``,
    what an earlier reading of the same view and palisades saw before comparing colours."""
    return cell_signs(
        view.balanced,
        view.face,
        token_colours(profile) if targets is None else targets,
        CANONICAL,
        view.glare,
        None if discs is not None else palisade_mask(palisades, view.camera),
        view.white,
        (view.wood,),
        view.details,
        view.card_glare,
        params=params.cells,
        discs=discs,
    )


def scan_image(
    image: Image,
    *,
    profile: Looks | None = None,
    players: tuple[str, ...] | None = None,
    variant: str = "armadora",
    timer: _Timer | None = None,
    params: ScanParams = SCAN_PARAMS,
    as_unknown: bool = False,
) -> Scan:
    """Read an upright BGR photo already in memory (``as_unknown``: as :func:`scan`)."""
    timer = timer or _Timer()
    if as_unknown:
        view, profile, unknown = (*_improvised_only(image, timer, params), True)
    else:
        view, profile, unknown = _view_of_some_copy(image, profile, timer, params)
    targets = token_colours(profile)
    with timer.stage("slots"):
        slots = read_slots(
            view_slot_features(view, profile, params),
            SLOT_WEIGHTS[profile.kind],
            PLAIN_SLOT_WEIGHTS[profile.kind],
            SLOT_RELATIVE[profile.kind],
            params.slots,
        )
        slots = replace(slots, matte_foot=view_matte_foot(view, profile, params))
    with timer.stage("cells"):
        palisades = [SLOTS[i] for i in np.flatnonzero(slots.probabilities > 0.5)]
        cells, judged, discs = _read_cells(view, profile, palisades, targets, params)
        # The kit's colours are the ones this photo's light may have moved: read the colours again
        # against those the surest warriors show here, each cell as occupied as first judged (a
        # learnt or improvised copy's colours were seen in a photo already; read again, the raster
        # copies lost a board).
        seen = targets
        if profile.kind is Kind.REFERENCE:
            seen = photo_colours(view.balanced, cells, targets, view.white, CANONICAL, params.cells)
        if any(seen[name] is not targets[name] for name in targets):
            cells, _, _ = _read_cells(view, profile, palisades, seen, params, judged, discs)
    gold = timer.run(
        "numerals",
        read_gold_values,
        image,
        view.located.homography,
        params.numerals,
        doubtful=params.assemble.doubtful,
    )
    glare = None if view.clipped is None else clipped_shares(view.clipped, params.glare)
    readings = Readings(cells, slots, gold, glare, unknown, params)
    with timer.stage("assemble"):
        assembled, report = _assemble(readings, players, variant)
    return Scan(assembled.position, assembled, report, view.located, image, timer.ms, readings)


def _read_cells(
    view: BoardView,
    profile: Looks,
    palisades: list[Slot],
    targets: dict[str, npt.NDArray[np.float32]],
    params: ScanParams,
    judged: Judged | None = None,
    discs: Discs | None = None,
) -> tuple[CellReading, Judged, Discs]:
    """The cells read with the tokens' colours ``targets`` (gold's first, then each player's), how
    they were judged (:func:`judge_cells`), unless already (``judged``), and what the discs showed
    before any colour was compared (:class:`vision.read.cells.Discs`: ``discs``, if already seen)."""
    signs = view_cell_signs(view, profile, palisades, params, targets, discs)
    judged = judged or judge_cells(view, profile, signs, params)
    reading = read_cells(
        replace(signs, shares=weighed_shares(view, profile, signs, judged, params)),
        tuple(name for name in targets if name != "gold"),
        judged.occupied,
        params.cells,
        judged.second,
    )
    return replace(reading, alike=profile.alike), judged, signs.discs


def _assemble(
    readings: Readings, players: tuple[str, ...] | None, variant: str
) -> tuple[Assembled, CheckReport]:
    params = readings.params
    assembled = assemble(
        readings.cells, readings.slots, readings.gold, players=players, variant=variant,
        glare=readings.glare, glare_params=params.glare, params=params.assemble,
    )  # fmt: skip
    if readings.unknown:
        assembled = replace(assembled, warnings=(UNKNOWN_COPY, *assembled.warnings))
    return assembled, check(assembled.position)


def reassemble(result: Scan, players: tuple[str, ...] | None, variant: str = "armadora") -> Scan:
    """The same photo's reading for other players (None: the colours the photo shows), without
    reading the photo again: only the rules' last step depends on who plays.

    A :class:`Scan` made without its readings (never by :func:`scan`) cannot be reassembled.
    """
    if result.readings is None:
        raise ValueError("this scan keeps no readings to assemble again")
    assembled, report = _assemble(result.readings, players, variant)
    return replace(result, position=assembled.position, assembled=assembled, check=report)


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
    #: The second opinion on the cells whose art the profile never saw
    #: (:attr:`vision.read.cells.CellReading.second`; None where it saw all).
    second: FloatArray | None


def judge_cells(
    view: BoardView, profile: Looks, signs: CellSigns, params: ScanParams = SCAN_PARAMS
) -> Judged:
    """P(a warrior) on each cell, with what the profile's warrior pictures add
    (:mod:`vision.read.tokens`), and how well those pictures match where a warrior may be.

    Where the profile never saw the art, whether a warrior is there comes from how well the copy's
    warriors match, and a second reader judges the cell by the warrior's looks alone.
    """
    occupied = occupied_probability(signs.features)
    hidden = [cell.number for cell in hidden_cells(profile)]
    occupied[hidden_gold(profile)] = 1.0
    if not profile.tokens:
        return Judged(occupied, [], np.zeros((0, len(profile.colours))), None)
    maybe = set(np.flatnonzero(occupied > params.maybe_occupied).tolist()) - {
        cell.number for cell in GOLD_CELLS
    }
    looked_at = sorted(set(hidden) | maybe)
    matches, hidden_at = picture_signs(view, profile, signs, looked_at, occupied, params)
    rows = {n: i for i, n in enumerate(looked_at)}
    second = None
    if hidden:
        at = hidden_at[[rows[n] for n in hidden]]
        occupied[hidden] = hidden_occupied(at, HIDDEN_WEIGHTS[profile.kind])
        # The warrior's looks alone (its outline and flat back, whatever the art) read these cells
        # too: where the face never showed the art, the two readers' disagreement is doubt.
        second = np.full(len(CELLS), np.nan)
        looks = tokens_module.FEATURES.index("warrior_looks")
        second[hidden] = logistic(at[:, [looks]], [1.0])
    return Judged(occupied, looked_at, matches, second)


def weighed_shares(
    view: BoardView, profile: Looks, signs: CellSigns, judged: Judged, params: ScanParams = SCAN_PARAMS
) -> FloatArray:
    """The colour shares of :attr:`CellSigns.shares`, weighed by how well each colour's warrior
    picture matches (:attr:`Judged.matches`), which tells a white warrior from a black one where
    their colours' directions cannot."""
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
    matches = judged.matches
    near = signs.near[looked_at, 1:]
    players = (
        shares[looked_at, 1:] ** params.vote_power
        * np.exp(params.token_match_weight * (matches - matches.max(axis=1, keepdims=True)))
        * np.exp(params.near_weight * (near - near.max(axis=1, keepdims=True)))
    )
    shares[looked_at, 1:] = players / players.sum(axis=1, keepdims=True) * (1 - shares[looked_at, :1])
    return shares


def picture_signs(
    view: BoardView,
    profile: Looks,
    signs: CellSigns,
    numbers: list[int],
    occupied: FloatArray,
    params: ScanParams = SCAN_PARAMS,
) -> tuple[FloatArray, FloatArray]:
    """For the cells ``numbers``: how well each colour's warrior picture matches there
    (:func:`vision.read.tokens.token_match`), and the hidden cells' signs
    (:func:`vision.read.tokens.hidden_signs`), the matches weighed against how the pictures match this
    photo's bare art and warriors where the face says surely which (``occupied``, its
    :func:`vision.read.cells.occupied_probability` off the gold and hidden cells;
    :func:`vision.read.tokens.match_levels`).
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
    looks = warrior_looks(view.balanced, [CELLS[n] for n in numbers], CANONICAL, params=params.pieces)
    return asked, hidden_signs(
        asked, signs.features[numbers, 1], looks, *levels, around, params=params.tokens
    )


#: The slot reader's and the hidden cells' weights, by how the profile's face was made
#: (:attr:`vision.looks.Looks.kind`).
SLOT_WEIGHTS = {
    Kind.REFERENCE: slots_module.WEIGHTS,
    Kind.LEARNT: slots_module.LEARNT_WEIGHTS,
    Kind.IMPROVISED: slots_module.IMPROVISED_WEIGHTS,
}
#: Whether those weights read the signs told against the photo's own bare slots
#: (:func:`vision.read.slots.relative_to_bare`).
SLOT_RELATIVE = {kind: slots_module.reads_relative(f"slots-{kind.value}") for kind in Kind}
#: The plain slot reader's weights (:func:`vision.read.slots.plain_probability`), the same way.
PLAIN_SLOT_WEIGHTS = {
    Kind.REFERENCE: slots_module.PLAIN_WEIGHTS,
    Kind.LEARNT: slots_module.PLAIN_LEARNT_WEIGHTS,
    Kind.IMPROVISED: slots_module.PLAIN_IMPROVISED_WEIGHTS,
}
HIDDEN_WEIGHTS = {
    Kind.REFERENCE: tokens_module.LEARNT_WEIGHTS,
    Kind.LEARNT: tokens_module.LEARNT_WEIGHTS,
    Kind.IMPROVISED: tokens_module.IMPROVISED_WEIGHTS,
}

#: What a reading of a copy without its profile says first.
UNKNOWN_COPY = Problem(
    "unknown_copy",
    "this board is not the reference kit and no profile of its copy was given: read without one, "
    "colours named after the nearest known colour (armadora calibrate makes a profile)",
)


def _view_of_some_copy(
    image: Image, profile: Looks | None, timer: _Timer, params: ScanParams
) -> tuple[BoardView, Looks, bool]:
    """The board view, the profile it was seen with, and whether that was improvised.

    The cheap ways first: the art's fast features, else the gold laid on its first few layouts and
    confirmed by the grid (:func:`_cheap_look`), which find any copy's board, and whether the art
    lies there. Then the slow features; only where they too fail to place the board surely, the
    whole search of the gold and grid, its lines and the outline, which costs seconds where it
    finds nothing. With no profile given, the reference kit's is looked for; a board found by its
    gold and grid whose art is not the reference kit's is another copy, read with a profile
    improvised from the photo (:mod:`vision.learn.improvise`).
    """
    looks = profile or reference_looks()
    face = face_view(looks, CANONICAL)
    first_gold = replace(GRID_PARAMS, gold_tries=params.first_gold_tries)
    cheap = _cheap_look(image, looks, face, timer, params, first_gold, (FoundBy.GOLD,))
    seen = _seen_on_grid(image, profile, looks, cheap, face, timer, params)
    if seen is not None:
        return seen
    slow: tuple[Located, Registration] | None = None
    refusal: NoBoardError | None = None
    try:
        slow = _found_by_features(image, looks, face, timer, params, first_attempt=1)
    except NoBoardError as error:
        refusal = error
    if cheap.fit is None and (slow is None or slow[1].agreeing < params.confident_patches):
        cheap = _grid_look(image, cheap.placed, face, timer, params, GRID_PARAMS, GRID_WAYS, cheap.search)
        seen = _seen_on_grid(image, profile, looks, cheap, face, timer, params)
        if seen is not None:
            return seen
    # Nothing placed the board surely: the better placement of those made.
    found = max((f for f in (cheap.placed, slow) if f is not None), key=lambda f: f[1].agreeing, default=None)
    if found is None:
        raise refusal or NoBoardError("no_board", "no board found: nothing in the photo looks like the board")
    return _registered_view(image, looks, *found, face, timer, params), looks, False


def _seen_on_grid(
    image: Image,
    profile: Looks | None,
    looks: Looks,
    cheap: _CheapLook,
    face: npt.NDArray[np.float32],
    timer: _Timer,
    params: ScanParams,
) -> tuple[BoardView, Looks, bool] | None:
    """The board where ``cheap`` placed it with the looks' art lying there; or, with no profile
    given, where the gold and grid found another copy, read in its own colours; else None."""
    if cheap.art_matches and cheap.placed is not None:
        return _registered_view(image, looks, *cheap.placed, face, timer, params), looks, False
    if profile is None and cheap.fit is not None:
        # The reference art does not lie on this board: another copy, read in its own colours.
        seen = improvised_view(image, timer, params, cheap.fit)
        if seen is not None:
            return (*seen, True)
    return None


def _improvised_only(image: Image, timer: _Timer, params: ScanParams) -> tuple[BoardView, Looks]:
    """The board found by its gold and grid and seen with looks improvised from the photo, whatever
    its kit; :class:`NoBoardError` where the gold and grid find none."""
    seen = improvised_view(image, timer, params)
    if seen is None:
        raise NoBoardError("no_board", "no board found by its gold and grid")
    return seen


def reference_view(image: Image, params: ScanParams = SCAN_PARAMS) -> BoardView | None:
    """The board as :func:`scan_image` sees it in an upright BGR photo with no profile given, where
    it takes it for the reference kit; None where it takes it for another copy.

    The fit reads its tuning photos this way, so that the readers learn the views the scan gives
    them: found by the art's features, or by the gold and grid where those fail (glare, a steep view).
    Raises :class:`vision.locate.features.NoBoardError` where no board is found.
    """
    view, _, unknown = _view_of_some_copy(image, None, _Timer(), params)
    return None if unknown else view


@dataclass(frozen=True, eq=False)
class _CheapLook:
    """What the quick ways of finding a board found: the best placement and how the art registered
    there, the gold-and-grid fit if one was made, and whether the looks' art lies there."""

    placed: tuple[Located, Registration] | None
    fit: GridFit | None
    art_matches: bool
    #: The search of the gold and grid, where one began: a wider one goes on from it.
    search: GoldSearch | None = None


def _cheap_look(
    image: Image,
    looks: Looks,
    face: npt.NDArray[np.float32],
    timer: _Timer,
    params: ScanParams,
    grid: GridParams,
    ways: Collection[FoundBy],
) -> _CheapLook:
    """The fast features of ``looks``' art (:data:`SEARCH_ATTEMPTS`' first) and, unless they place
    the board surely, its gold and grid by ``ways`` (:func:`_grid_look`)."""
    quick: tuple[Located, Registration] | None = None
    with suppress(NoBoardError):
        quick = _found_by_features(image, looks, face, timer, params, attempts=1)
    if quick is not None and quick[1].agreeing >= params.confident_patches:
        return _CheapLook(quick, None, True)
    if quick is not None:
        confirmed = _confirmed_on_grid(image, quick, face, timer, params)
        if confirmed is not None:
            return _CheapLook(confirmed, None, True)
    return _grid_look(image, quick, face, timer, params, grid, ways)


def _grid_look(
    image: Image,
    placed: tuple[Located, Registration] | None,
    face: npt.NDArray[np.float32],
    timer: _Timer,
    params: ScanParams,
    grid: GridParams,
    ways: Collection[FoundBy],
    search: GoldSearch | None = None,
) -> _CheapLook:
    """The board found by its gold and grid (:func:`vision.locate.grid.locate_by_grid` by
    ``ways``, going on from ``search`` where an earlier look began one), the better placed of that
    and ``placed``, and whether the face's art lies there (:func:`vision.locate.register.art_match`):
    a board found by the grid and not matching would not be found by the slower features either."""
    gold = rgb_to_bgr_float(REFERENCE_GOLD) * 255
    with timer.stage("locate"):
        search = search or gold_search(image, gold, grid)
        fit = locate_by_grid(image, gold, grid, ways, search)
    if fit is None:
        return _CheapLook(placed, None, False, search)
    best, art = _better_placed(image, placed, grid_located(fit), face, timer, params)
    twin = art_twin(image, fit, face, params, timer) if art < params.art_match_margin else None
    if twin is not None:
        fit = twin
        best, art = _better_placed(image, placed, grid_located(fit), face, timer, params)
    return _CheapLook(best, fit, art >= params.art_match_margin, search)


def art_twin(
    image: Image,
    fit: GridFit,
    face: npt.NDArray[np.float32],
    params: ScanParams = SCAN_PARAMS,
    timer: _Timer | None = None,
) -> GridFit | None:
    """The grid fit moved to the place its gold can hardly tell from its own
    (:func:`vision.locate.lattice.gold_twins`) where the looks' art lies, or None.

    Where the grid's lines hardly show (a late game, glare), a board turned half round and two
    columns along still has six of its eight gold cells on gold: the art inside the cells is the
    one sign left, and without this the board would be taken for another copy.
    """
    with (timer or _Timer()).stage("register"):
        moved = [fit.homography @ move for move in gold_twins()]
        arts = [art_match(image, h, face, CANONICAL, params.art, params.register) for h in moved]
    best = int(np.argmax(arts))
    if arts[best] < params.art_match_margin:
        return None
    return replace(fit, homography=moved[best], found_by=FoundBy.ART_ON_GRID)


def _better_placed(
    image: Image,
    quick: tuple[Located, Registration] | None,
    other: Located,
    face: npt.NDArray[np.float32],
    timer: _Timer,
    params: ScanParams,
) -> tuple[tuple[Located, Registration], float]:
    """``other`` registered on the face, or the fast features' placement ``quick`` where more of
    its patches agree; and how well the looks' art lies there
    (:func:`vision.locate.register.art_match`)."""
    on_other = timer.run("register", register, image, other.homography, face, CANONICAL, params.register)
    best = (other, on_other)
    if quick is not None and quick[1].agreeing > on_other.agreeing:
        best = quick
    with timer.stage("register"):
        art = art_match(image, best[1].homography, face, CANONICAL, params.art, params.register)
    return best, art


def _confirmed_on_grid(
    image: Image,
    quick: tuple[Located, Registration],
    face: npt.NDArray[np.float32],
    timer: _Timer,
    params: ScanParams,
) -> tuple[Located, Registration] | None:
    """The fast features' placement pulled onto the printed grid's crossings, where the grid
    confirms it and the looks' art lies there (:func:`vision.locate.register.art_match`), or None.

    One pull onto the grid costs what one of the gold search's many starts does: where the
    features placed the board roughly but not surely (glare, blur, a steep view), it saves the
    search. A placement a whole cell off can lock onto the grid too, but not onto the art.
    """
    refined, crossings, _ = timer.run("locate", refine_on_grid, image, quick[0].homography)
    if crossings < GRID_PARAMS.confirming_crossings:
        return None
    best, art = _better_placed(image, quick, replace(quick[0], homography=refined), face, timer, params)
    return best if art >= params.art_match_margin else None


def improvised_view(
    image: Image, timer: _Timer | None = None, params: ScanParams = SCAN_PARAMS, fit: GridFit | None = None
) -> tuple[BoardView, Looks] | None:
    """The board found by its gold and grid (``fit``, where found already), seen with a profile
    improvised from the photo (:func:`vision.learn.improvise.improvise`), or None."""
    timer = timer or _Timer()
    improvised = timer.run("locate", improvise, image, params=params.improvise, fit=fit)
    if improvised is None:
        return None
    view = board_view(image, improvised.profile, timer, grid_located(improvised.fit), params)
    return view, improvised.profile


def grid_located(fit: GridFit) -> Located:
    """A board found by its gold and grid (:func:`vision.locate.grid.locate_by_grid`), as the locate stage
    reports one: its crossings agreeing out of those looked for."""
    return Located(fit.homography, fit.crossings, fit.looked_for, found_by=fit.found_by)
