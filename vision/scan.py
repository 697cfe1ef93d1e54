"""The scanner's pipeline: photo bytes in, position with confidences out, each stage timed.

Stages, each a function of arrays: load (:mod:`vision.load`); find the board and see it from
above (:mod:`vision.locate.find`: the art's features, :mod:`vision.locate.features`, registered to
the millimetre, :mod:`vision.locate.register`, or its gold and grid, :mod:`vision.locate.grid`;
rectified and its light balanced, :mod:`vision.read.rectify`, as :class:`vision.read.view.BoardView`);
read slots (:mod:`vision.read.slots`) and cells (:mod:`vision.read.cells`, judged with what the
copy's warrior pictures add, :mod:`vision.read.judge`); read the gold numerals
(:mod:`vision.read.numerals`); assemble (:mod:`vision.read.assemble`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

import vision.read.slots as slots_module
from engine.board import CELLS, SLOTS, Cell, Slot
from engine.check import CheckReport, Problem, check
from engine.position import Position
from vision.geometry import CANONICAL
from vision.load import MIN_SIDE_PX, Photo, load_photo
from vision.locate.features import FoundBy, Located
from vision.locate.find import find_board, improvised_only, placed_by_numerals
from vision.looks import Kind, Looks
from vision.parallel import both
from vision.params import SCAN_PARAMS, ScanParams
from vision.read.assemble import Assembled, assemble
from vision.read.cells import CellReading, CellSigns, Discs, photo_colours, read_cells
from vision.read.emblems import emblem_colours, turned_pictures
from vision.read.frame import Beyond, beyond_frame, refuse_cut_off
from vision.read.glare import clipped_shares, outlines_under_glare
from vision.read.judge import Judged, judge_cells, own_turned, weighed_shares
from vision.read.numerals import read_gold_values
from vision.read.slots import SlotReading, read_slots
from vision.read.view import (
    BoardView,
    token_colours,
    view_cell_signs,
    view_slot_signs,
    view_stickless,
)
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
    #: What of the board lies beyond the photo's edge (:func:`vision.read.frame.beyond_frame`), or None.
    beyond: Beyond | None = None


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
    beyond, gold, (slots, palisades, cells) = _read(image, view, profile, timer, params)
    if unknown:
        sure = float(np.mean([confidence for _, confidence in gold.values()]))
        placed = placed_by_numerals(image, view.located, sure, timer, params)
        if placed is not None:
            view, profile = placed
            beyond, gold, (slots, palisades, cells) = _read(image, view, profile, timer, params)
    glare = None if view.clipped is None else clipped_shares(view.clipped, params.glare)
    if glare is not None:
        with timer.stage("cells"):
            outlines = outlines_under_glare(
                image, view.located.homography, glare[0], palisades, view.camera, params.glare
            )
            cells = cells.with_warriors_under_glare(outlines.found & ~beyond.cells, params.glare.doubtful)
            cells = cells.without_warriors_under_glare(outlines.bare & ~beyond.cells, params.glare.doubtful)
    readings = Readings(cells, slots, gold, glare, unknown, params, beyond)
    with timer.stage("assemble"):
        assembled, report = _assemble(readings, players, variant)
    return Scan(assembled.position, assembled, report, view.located, image, timer.ms, readings)


def _read(
    image: Image, view: BoardView, profile: Looks, timer: Timer, params: ScanParams
) -> tuple[Beyond, dict[Cell, tuple[int | None, float]], tuple[SlotReading, list[Slot], CellReading]]:
    """What the frame cuts off (refused where it is too much), the gold's values, and the board read
    (:func:`_read_board`) where ``view`` places it."""
    height, width = image.shape[:2]
    beyond = beyond_frame(view.located.homography, width, height, params.frame)
    refuse_cut_off(beyond, view.located.homography, width, height, params.frame)
    # The gold's numerals are read from the photo where the board lies, and read nothing the
    # board's other readers do: on a thread of their own beside them.
    gold, board = both(
        lambda: timer.run(
            "numerals",
            read_gold_values,
            image,
            view.located.homography,
            params.numerals,
            doubtful=params.assemble.doubtful,
        ),
        lambda: _read_board(view, profile, beyond, timer, params),
    )
    return beyond, gold, board


def _read_board(
    view: BoardView, profile: Looks, beyond: Beyond, timer: Timer, params: ScanParams
) -> tuple[SlotReading, list[Slot], CellReading]:
    """The slots read, the palisades they show, and the cells read with those palisades standing."""
    targets = token_colours(profile)
    with timer.stage("slots"):
        signs = view_slot_signs(view, profile, params)
        slots = read_slots(
            signs.features,
            SLOT_WEIGHTS[profile.kind],
            PLAIN_SLOT_WEIGHTS[profile.kind],
            SLOT_RELATIVE[profile.kind],
            params.slots,
        )
        slots = replace(slots, matte_foot=signs.matte_foot, claimed=signs.claimed, line_bare=signs.line_bare)
        slots = slots.ruling_out(view_stickless(view, params) | beyond.slots)
    with timer.stage("cells"):
        palisades = [SLOTS[i] for i in np.flatnonzero(slots.probabilities > 0.5)]
        cells, judged, cell_signs = _read_cells(view, profile, palisades, targets, params)
        if profile.kind is Kind.LEARNT:
            # A copy's colours read again with its pictures as this photo shows them, at any
            # quarter turn, where it shows a warrior of them surely: the same signs, weighed anew.
            turned = own_turned(view, profile, cells, judged, params)
            if turned is not None:
                cells = _weighed_reading(
                    view, profile, cell_signs, replace(judged, turned=turned), targets, params
                )
        # The kit's colours are the ones this photo's light may have moved: read the colours again
        # against those the surest warriors show here, each cell as occupied as first judged (a
        # learnt or improvised copy's colours were seen in a photo already; read again, the raster
        # copies lost a board).
        seen = targets
        if profile.kind is Kind.REFERENCE:
            seen = photo_colours(view.balanced, cells, targets, view.white, CANONICAL, params.cells)
        if any(seen[name] is not targets[name] for name in targets):
            cells, _, _ = _read_cells(view, profile, palisades, seen, params, judged, cell_signs.discs)
        cells = emblem_colours(view.balanced, cells, CANONICAL, params.emblems, params.pieces, judged.places)
        upright = dict(zip(judged.looked_at, judged.matches, strict=True))
        cells = turned_pictures(
            view.balanced, cells, profile, CANONICAL, params.emblems, params.tokens, upright
        )
        return slots, palisades, cells.unseen(beyond.cells)


def _read_cells(
    view: BoardView,
    profile: Looks,
    palisades: list[Slot],
    targets: dict[str, npt.NDArray[np.float32]],
    params: ScanParams,
    judged: Judged | None = None,
    discs: Discs | None = None,
) -> tuple[CellReading, Judged, CellSigns]:
    """The cells read with the tokens' colours ``targets`` (gold's first, then each player's), how
    they were judged (:func:`judge_cells`), unless already (``judged``), and their signs, which hold
    what the discs showed before any colour was compared (:class:`vision.read.cells.Discs`:
    ``discs``, if already seen)."""
    signs = view_cell_signs(view, profile, palisades, params, targets, discs)
    judged = judged or judge_cells(view, profile, signs, params)
    return _weighed_reading(view, profile, signs, judged, targets, params), judged, signs


def _weighed_reading(
    view: BoardView,
    profile: Looks,
    signs: CellSigns,
    judged: Judged,
    targets: dict[str, npt.NDArray[np.float32]],
    params: ScanParams,
) -> CellReading:
    """The cells read from their ``signs`` against ``targets``, the colours weighed as ``judged``
    says (:func:`vision.read.judge.weighed_shares`)."""
    reading = read_cells(
        replace(signs, shares=weighed_shares(view, profile, signs, judged, params)),
        tuple(name for name in targets if name != "gold"),
        judged.occupied,
        params.cells,
        judged.others,
    )
    return replace(reading, alike=profile.alike, colours_from=profile.kind)


def _assemble(
    readings: Readings, players: tuple[str, ...] | None, variant: str
) -> tuple[Assembled, CheckReport]:
    params = readings.params
    assembled = assemble(
        readings.cells, readings.slots, readings.gold, players=players, variant=variant,
        glare=readings.glare, glare_params=params.glare, beyond=readings.beyond, params=params.assemble,
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


#: The slot reader's weights, by how the profile's face was made
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


#: What a reading of a copy without its profile says first.
UNKNOWN_COPY = Problem(
    "unknown_copy",
    "this board is not the reference kit and no profile of its copy was given: read without one, "
    "colours named after the nearest known colour (armadora calibrate makes a profile)",
)
