"""Learn a copy of the game from one setup photo: its board's face, its colours, its gold.

The setup (``docs/kit.md``, the setup photo) is the board with its 8 gold tokens on
the gold cells, no palisade, and one face-down warrior of each colour in play
on the corner cells a5, h5, a1, h1 (``[0,0]``, ``[0,7]``, ``[4,0]``,
``[4,7]``), in turn order. The board is found without knowing its art, by its
gold and its printed grid (:mod:`vision.locate.grid`); the photo seen from above then
becomes the profile's face, with what the tokens hid filled in from around
them; the corner warriors give the players' colours, and the gold tokens the
gold's. Everything is measured in the setup photo's own light, which is the
light the scanner brings every later photo into (:mod:`vision.read.rectify`).

A setup photo that cannot teach a whole copy raises :class:`SetupError`,
saying what is missing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, cast

import cv2
import numpy as np
import numpy.typing as npt

from calibration.profile import Profile
from engine.board import CELLS, GOLD_CELLS, OFF_GOLD_CELLS, Cell
from vision.colour import rgb_to_bgr_float
from vision.colour_names import colour_name, lab_of, unique_names
from vision.geometry import cell_centre_mm
from vision.learn.pieces import (
    EVERY_WORLD_WEIGHTS,
    FACE_VIEW,
    READ_VIEW,
    WARRIOR_SIGNS,
    bgr_to_rgb,
    dominant_colour,
    face_looks,
    fill_tokens,
    find_token,
    gold_colour,
    gold_pixels,
    place_by_colour,
    ring_strength,
    token_image,
    warrior_probability,
)
from vision.load import MIN_SIDE_PX, load_photo
from vision.locate.grid import GridFit, light_colour, locate_by_grid
from vision.looks import REFERENCE_GOLD, REFERENCE_WOOD, RGB, Kind
from vision.read.cells import cell_pixels
from vision.read.rectify import rectify

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]
Floats = npt.NDArray[np.floating[Any]]

FULL_SIZE = 1 << 20
#: The corner cells, in turn order.
CORNERS: tuple[Cell, ...] = (Cell(0, 0), Cell(0, 7), Cell(4, 0), Cell(4, 7))
#: The cells a setup photo shows bare: neither a corner nor gold.
SETUP_EMPTY: tuple[Cell, ...] = tuple(cell for cell in OFF_GOLD_CELLS if cell not in CORNERS)
#: A gold cell without its token shows less than this share of gold in its disc (glare can wash
#: most of a token out).
GOLD_MIN_SHARE = 0.08
#: A gold cell whose token's colour does not show (a lamp's highlight on it, a paler print) still
#: holds its token when a token's round outline circles it
#: (:func:`vision.learn.pieces.ring_strength`) at least this share as strongly as it circles the
#: gold cells' middle one, and this many times as strongly as the middle empty cell's art: the eight
#: tokens look alike, and unlike the art.
RING_SHARE_OF_GOLD = 0.5
RING_TIMES_ART = 3.0
#: A gold token on a cell where no gold belongs: a blob this round
#: (:func:`vision.locate.grid.gold_candidates`) within this distance of the cell's centre.
TOKEN_ROUNDNESS = 0.88
TOKEN_OFF_CENTRE_MM = 10.0
#: A corner holds a warrior when this share of its disc is of colours rare on the empty cells...
RARE_SHARE = 0.3
#: ...(a colour is rare when fewer than this share of the empty cells' pixels fall in its bin, or
#: when it is at least this many times as frequent in the disc as on the empty cells: a black
#: warrior's colour is rare on snowy art with a few dark specks)...
RARE_FREQUENCY = 2e-4
RARE_RATIO = 100.0
#: ...or when its disc is this much more one colour than nine in ten empty cells (a white warrior
#: on pale art), or this much one colour at all; but not on art whose empty cells are themselves
#: this much one colour (snow), where only rare colours tell.
UNIFORM_MARGIN = 0.05
UNIFORM_CAP = 0.99
#: A corner colour with a channel this bright (0..1) is washed out: the light clipped it.
CLIPPED = 0.98
#: Two corner colours nearer than this (CIE76 delta E, the light's colour taken off) are one colour.
SAME_COLOUR_DELTA_E = 10.0


class SetupError(ValueError):
    """A setup photo that cannot teach a copy; ``code`` for programs, the message for people.

    Codes: ``no_board``, ``gold_missing``, ``corner_empty``, ``same_colour``,
    ``players``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, eq=False)
class Calibration:
    """What a setup photo taught: the profile, and how sure the finding of the board was."""

    profile: Profile
    homography: FloatArray
    gold_hits: int
    crossings: int
    #: How a white surface shows in the setup photo (BGR, 0..1), judged by its gold.
    white: FloatArray
    timing_ms: dict[str, float] = field(default_factory=dict)
    #: What was learnt but is doubtful, a sentence each saying what to retake.
    warnings: tuple[str, ...] = ()

    def summary(self) -> dict[str, Any]:
        """What was learnt, as the command and the web page show it."""
        p = self.profile
        return {
            "name": p.name,
            "colours": {name: _hex(rgb) for name, rgb in p.colours.items()},
            "gold": _hex(p.gold),
            "grid_crossings_found": self.crossings,
            "gold_tokens_found": self.gold_hits,
            "timing_ms": {k: round(v, 1) for k, v in self.timing_ms.items()},
            "warnings": list(self.warnings),
        }


def calibrate(
    data: bytes, *, players: tuple[str, ...] | None = None, name: str = "calibrated"
) -> Calibration:
    """Learn a copy from the bytes of its setup photo.

    ``players`` names the corner colours in turn order (as many as there are
    warriors on the corners); without it each colour is named after the
    nearest known colour. Raises :class:`vision.load.PhotoError` for a file
    that is not a photo and :class:`SetupError` for a photo that is not a
    whole setup.
    """
    start = time.perf_counter()
    # The whole photo, not the reduced one the scanner reads: the face is kept at 5 pixels a
    # millimetre, which a setup photo of 8 to 12 megapixels has at full size.
    image = load_photo(data, min_long_side=FULL_SIZE, min_side=MIN_SIDE_PX).image
    return calibrate_image(image, players=players, name=name, started=start)


def calibrate_image(
    image: Image,
    *,
    players: tuple[str, ...] | None = None,
    name: str = "calibrated",
    started: float | None = None,
) -> Calibration:
    """:func:`calibrate` on an upright BGR photo already in memory."""
    timing: dict[str, float] = {}
    clock = started if started is not None else time.perf_counter()
    gold_bgr = rgb_to_bgr_float(REFERENCE_GOLD) * 255
    fit = locate_by_grid(image, gold_bgr)
    if fit is None:
        raise SetupError(
            "no_board",
            "no board found: could not find a printed 8x5 grid with gold tokens on its gold cells "
            "(the whole board should be in the photo, with the 8 gold tokens on their cells)",
        )
    timing["locate"] = 1000 * (time.perf_counter() - clock)
    clock = time.perf_counter()
    view = rectify(image, fit.homography, READ_VIEW).astype(np.float32) / 255
    grey_world = light_colour(view)
    pixels = cell_pixels(view, READ_VIEW)
    gold_share = _gold_share(pixels, grey_world, gold_bgr)
    _check_gold(gold_share, _rings(view), _tokens_mm(fit))
    gold = gold_colour(pixels, grey_world, gold_bgr)
    # Gold is gold in every copy, near enough: how the reference kit's gold shows here is the
    # setup's light, to name colours and to guess how the palisades' wood will show.
    white = gold / (gold_bgr / 255)
    face = rectify(image, fit.homography, FACE_VIEW)
    signs = face_looks(face, [*CORNERS, *SETUP_EMPTY], FACE_VIEW)
    outline = signs[:, WARRIOR_SIGNS.index("outline")]
    corners = len(CORNERS)
    looks = warrior_probability(signs[:corners], EVERY_WORLD_WEIGHTS)
    colours_bgr, warnings = _corner_colours(pixels, white, looks, outline[:corners] > outline[corners:].max())
    colours = _name_colours(colours_bgr, white, players)
    timing["read"] = 1000 * (time.perf_counter() - clock)
    clock = time.perf_counter()
    placed = [
        place_by_colour(face, cell, colour, FACE_VIEW) or find_token(face, cell, FACE_VIEW)
        for cell, colour in zip(CORNERS, colours_bgr, strict=False)
    ]
    tokens = {name: token_image(face, place, FACE_VIEW) for name, place in zip(colours, placed, strict=True)}
    face = fill_tokens(face, placed)
    timing["face"] = 1000 * (time.perf_counter() - clock)
    wood = bgr_to_rgb(rgb_to_bgr_float(REFERENCE_WOOD) * white)
    profile = Profile(
        name=name,
        face=face,
        colours=colours,
        gold=bgr_to_rgb(gold),
        wood=wood,
        tokens=tokens,
        hidden_cells=tuple(cell.name for cell in (*GOLD_CELLS, *CORNERS[: len(colours)])),
        wood_seen=False,
        kind=Kind.LEARNT,
        extra={
            "learnt": {
                "gold_tokens_found": fit.gold_hits,
                "grid_crossings_found": fit.crossings,
                "light_rgb": [round(float(v), 4) for v in white[::-1]],
                "warnings": warnings,
            }
        },
    )
    return Calibration(profile, fit.homography, fit.gold_hits, fit.crossings, white, timing, tuple(warnings))


def _gold_share(pixels: Floats, white: npt.ArrayLike, gold_bgr: npt.ArrayLike) -> FloatArray:
    return cast(FloatArray, gold_pixels(pixels, white, gold_bgr).mean(axis=1))


def _tokens_mm(fit: GridFit) -> FloatArray:
    """Where on the board (mm) the photo shows round gold tokens."""
    centres = fit.tokens[fit.roundness >= TOKEN_ROUNDNESS]
    if not len(centres):
        return np.zeros((0, 2))
    mm = cv2.perspectiveTransform(centres.reshape(-1, 1, 2), np.linalg.inv(fit.homography))
    return cast(FloatArray, mm.reshape(-1, 2))


def _rings(view: Floats) -> FloatArray:
    """Per cell, how strongly a gold token's round outline circles its centre."""
    return ring_strength(view, [cell_centre_mm(cell) for cell in CELLS], READ_VIEW)


def _token_outlined(rings: FloatArray) -> npt.NDArray[np.bool_]:
    """Per cell, whether a round outline circles it as the gold cells' tokens do and the art does not."""
    gold_numbers = [cell.number for cell in GOLD_CELLS]
    corner_numbers = {cell.number for cell in CORNERS}
    art = [cell.number for cell in CELLS if cell.number not in {*gold_numbers, *corner_numbers}]
    like_gold = rings >= RING_SHARE_OF_GOLD * float(np.median(rings[gold_numbers]))
    unlike_art = rings >= RING_TIMES_ART * float(np.median(rings[art]))
    return like_gold & unlike_art


def _check_gold(share: FloatArray, rings: FloatArray, tokens_mm: FloatArray) -> None:
    """Refuse a setup whose gold is not on the gold cells, saying where it seems to be instead.

    A gold cell holds its token when its disc shows the gold's colour or a token's round outline
    (``rings``, :func:`_rings`): a highlight can wash a token's colour out, not its rim. The box
    holds eight gold tokens: with one on every gold cell, a round gold shape elsewhere is the art's
    (autumn tree crowns, suns), never a ninth token, and does not refuse the setup.
    """
    outlined = _token_outlined(rings)
    missing = [
        cell.name for cell in GOLD_CELLS if share[cell.number] < GOLD_MIN_SHARE and not outlined[cell.number]
    ]
    if not missing:
        return
    gold_numbers = {cell.number for cell in GOLD_CELLS}
    elsewhere = sorted(
        {
            cell.name
            for cell in CELLS
            if cell.number not in gold_numbers
            and any(np.hypot(*(p - cell_centre_mm(cell))) < TOKEN_OFF_CENTRE_MM for p in tokens_mm)
        }
    )
    seen = f"; a gold token seems to lie on {', '.join(elsewhere)} instead" if elsewhere else ""
    raise SetupError(
        "gold_missing",
        f"gold not on the gold cells: no gold token on {', '.join(missing)}{seen} "
        f"(the 8 gold tokens go on {', '.join(c.name for c in GOLD_CELLS)}; retake the photo once "
        "they are there, the whole board in view)",
    )


def _corner_colours(
    pixels: Floats, white: FloatArray, looks: FloatArray, outlined: npt.NDArray[np.bool_]
) -> tuple[list[FloatArray], list[str]]:
    """The colour of the warrior on each corner in turn, stopping at the first empty corner, and
    what the player should know of them.

    A corner holds a warrior when much of its disc is of colours rare on the board's empty cells, or
    it is far more of one colour than any empty cell (a white warrior on pale art), or it looks like
    a warrior whatever its colours (``looks``, P(a warrior) on each corner by its square outline
    and flat back, :func:`vision.learn.pieces.warrior_probability`): a white warrior under a lamp's
    glare is of the same washed-out colours as the art around it. Or its square outline stands out
    more than on any of the board's empty cells (``outlined``): a black warrior on black art shows
    little else, and its outline alone is no sure sign on busy art in general.
    """
    empty = [cell.number for cell in SETUP_EMPTY]
    bins = _colour_bins(pixels[empty].reshape(-1, 3), white)
    frequency = np.bincount(bins, minlength=16**3) / max(len(bins), 1)
    uniform_empty = float(np.percentile([dominant_colour(pixels[n])[1] for n in empty], 90))
    found: list[FloatArray] = []
    present: list[bool] = []
    for cell in CORNERS:
        disc = pixels[cell.number]
        disc_bins = _colour_bins(disc, white)
        here = np.bincount(disc_bins, minlength=16**3)[disc_bins] / len(disc_bins)
        on_empty = frequency[disc_bins]
        rare = float(((on_empty < RARE_FREQUENCY) | (RARE_RATIO * on_empty < here)).mean())
        colour, uniform = dominant_colour(disc)
        plain = uniform_empty < UNIFORM_CAP and uniform >= min(uniform_empty + UNIFORM_MARGIN, UNIFORM_CAP)
        looked = bool(looks[len(present)] > 0.5 or outlined[len(present)])
        present.append(rare >= RARE_SHARE or plain or looked)
        found.append(colour)
    count = present.index(False) if False in present else len(present)
    if count < 2 or any(present[count:]):
        missing = [cell.name for cell, there in zip(CORNERS, present, strict=True) if not there]
        raise SetupError(
            "corner_empty",
            f"a corner without a warrior: {', '.join(missing)} "
            "(put one face-down warrior of each colour in play on a5, h5, a1, h1, in turn order; "
            "at least two)",
        )
    found = found[:count]
    labs = [lab_of(bgr_to_rgb(colour / white)) for colour in found]
    warnings = []
    for i in range(count):
        for j in range(i + 1, count):
            if float(np.linalg.norm(labs[i] - labs[j])) >= SAME_COLOUR_DELTA_E:
                continue
            pair = f"{CORNERS[i].name} and {CORNERS[j].name}"
            # Washed out, two colours can look one: say so rather than refuse a good setup.
            if not (found[i] >= CLIPPED).any() and not (found[j] >= CLIPPED).any():
                raise SetupError(
                    "same_colour",
                    f"two corners of one colour: {pair} (each corner holds a different player's colour)",
                )
            warnings.append(
                f"the warriors on {pair} look alike: the light washes their colours out, and the scanner "
                "will mark those players' warriors as doubtful; retake with less light on the board to "
                "tell them apart"
            )
    return found, warnings


def _colour_bins(pixels: npt.NDArray[np.floating], white: FloatArray) -> npt.NDArray[np.intp]:
    balanced = np.clip(np.asarray(pixels, np.float64).reshape(-1, 3) / white, 0, 0.999)
    q = (balanced * 16).astype(np.intp)
    return cast(npt.NDArray[np.intp], q[:, 0] * 256 + q[:, 1] * 16 + q[:, 2])


def _name_colours(
    colours: list[FloatArray], white: FloatArray, players: tuple[str, ...] | None
) -> dict[str, RGB]:
    if players is not None:
        if len(players) != len(colours):
            raise SetupError(
                "players",
                f"{len(players)} players named ({', '.join(players)}) but {len(colours)} warriors on the "
                "corners",
            )
        names = list(players)
    else:
        names = unique_names([colour_name(bgr_to_rgb(c / white)) for c in colours])
    return {name: bgr_to_rgb(colour) for name, colour in zip(names, colours, strict=True)}


def _hex(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)
