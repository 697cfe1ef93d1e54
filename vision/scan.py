"""The scanner's pipeline: photo bytes in, position with confidences out, each stage timed.

Stages, each a function of arrays: load (:mod:`vision.load`); find the board and see it from
above (:mod:`vision.locate.find`: the art's features, :mod:`vision.locate.features`, registered to
the millimetre, :mod:`vision.locate.register`, or its gold and grid, :mod:`vision.locate.grid`;
rectified and its light balanced, :mod:`vision.read.rectify`, as :class:`vision.read.view.BoardView`);
read slots (:mod:`vision.read.slots`) and cells (:mod:`vision.read.cells`, judged here with what
the copy's warrior pictures add, :mod:`vision.read.tokens`); read the gold numerals
(:mod:`vision.read.numerals`); assemble (:mod:`vision.read.assemble`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

import vision.read.slots as slots_module
import vision.read.tokens as tokens_module
from engine.board import CELLS, GOLD_CELLS, SLOTS, Cell, Slot
from engine.check import CheckReport, Problem, check
from engine.position import Position
from vision.colour import rgb_to_bgr_float, shaded_distance
from vision.geometry import CANONICAL
from vision.learn.pieces import warrior_looks
from vision.load import MIN_SIDE_PX, Photo, load_photo
from vision.locate.features import (
    FoundBy,
    Located,
)
from vision.locate.find import find_board, improvised_only
from vision.logistic import logistic
from vision.looks import Kind, Looks
from vision.params import SCAN_PARAMS, ScanParams
from vision.read.assemble import Assembled, assemble
from vision.read.cells import (
    CellReading,
    CellSigns,
    Discs,
    cell_pixels,
    occupied_probability,
    photo_colours,
    read_cells,
)
from vision.read.glare import clipped_shares
from vision.read.numerals import (
    read_gold_values,
)
from vision.read.slots import (
    SlotReading,
    read_slots,
)
from vision.read.tokens import (
    hidden_occupied,
    hidden_signs,
    match_levels,
    occupied_odds,
    token_match,
)
from vision.read.view import BoardView, token_colours, view_cell_signs, view_matte_foot, view_slot_features
from vision.timing import Timer

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]


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
    timer = Timer()
    photo: Photo = timer.run("load", load_photo, data, min_side=MIN_SIDE_PX)
    return scan_image(
        photo.image, profile=profile, players=players, variant=variant, timer=timer, params=params,
        as_unknown=as_unknown,
    )  # fmt: skip


def scan_image(
    image: Image,
    *,
    profile: Looks | None = None,
    players: tuple[str, ...] | None = None,
    variant: str = "armadora",
    timer: Timer | None = None,
    params: ScanParams = SCAN_PARAMS,
    as_unknown: bool = False,
) -> Scan:
    """Read an upright BGR photo already in memory (``as_unknown``: as :func:`scan`)."""
    timer = timer or Timer()
    if as_unknown:
        view, profile, unknown = (*improvised_only(image, timer, params), True)
    else:
        view, profile, unknown = find_board(image, profile, timer, params)
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
