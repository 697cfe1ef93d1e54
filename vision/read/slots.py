"""Read each palisade slot of the balanced top-down view: palisade or not.

A palisade covers its grid line along its whole length, whatever the angle:
seen from the side its top leans away from the camera, but its near face
still hides the line. So each slot is read on a narrow band along its line,
and asks how much of the band's length looks like wood rather than the printed face.

Two things can cover part of a band without a palisade on it: a warrior's
corner, briefly, and a palisade at the slot's end leaning into it. The end the
camera makes things lean toward is left out, by the length of that lean.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import NamedTuple, TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from engine.board import SLOTS, Slot
from vision.colour import FACE_LIMIT, channel_sum, shaded_distance
from vision.geometry import (
    CANONICAL,
    PALISADE_HEIGHT_MM,
    PALISADE_LENGTH_MM,
    PALISADE_WIDTH_MM,
    PITCH_MM,
    FaceRaster,
    slot_segment_mm,
)
from vision.locate.features import Camera
from vision.logistic import fit_logistic, logistic, with_constant
from vision.texture import correlation, fine_detail, texture_match
from vision.weights import BARE_RELATIVE, fitted, load_weights, world_mean, world_models

FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]
Pixel = TypeVar("Pixel", bound=np.generic)


@dataclass(frozen=True)
class SlotParams:
    """The slot reader's hand-set numbers."""

    #: Half the width of the band read across a line: inside the palisade's 2.5 mm half-width.
    band_half_mm: float = 1.5
    #: Positions read along each slot.
    steps: int = 36
    #: Gap at each end of a slot that a palisade (40 mm on a 45 mm pitch) never reaches, plus blur.
    end_gap_mm: float = 4.0
    #: A pixel is wood when it is nearer the palisades' colour than the face under it, and this near.
    wood_limit: float = 0.2
    #: A palisade's side faces can turn well away from the light: wood is allowed to be this dark.
    wood_min_shade: float = 0.25
    #: ...and nearer wood than the face by at least this.
    wood_margin: float = 0.0
    #: The printed line shows where the profile across it matches the face's this well (correlation),
    #: read over this half-width.
    line_match: float = 0.6
    profile_half_mm: float = 3.0
    #: The line shows narrowly where the photo rises from its core on both sides, between
    #: ``LINE_CORE_MM`` + 0.5 and + 1.5 mm out: on one side by at least this share of how much the
    #: face's art stands above its line (a hazy photo's line is faint), on the other by at least this
    #: share of that (a palisade's shaded side rises on one side only); and where its dark reaches no
    #: more than this much (mm) wider than the face's.
    narrow_rise: float = 0.2
    narrow_balance: float = 0.5
    narrow_excess_mm: float = 1.5
    #: The art's texture is matched over a band this half-wide (mm) at the foot, leaving out the
    #: printed line's core.
    texture_half_mm: float = 3.5
    line_core_mm: float = 1.0
    #: Art with this much detail there (root mean square, grey 0..1) fully counts when its texture fails to
    #: show; most slots have 0.03 to 0.07.
    full_detail: float = 0.06
    #: The profile across a slot (:func:`across_profiles`) reaches this far either side of its line (mm):
    #: past where a palisade's top lands seen from a phone's usual angles...
    profile_span_mm: float = 8.0
    #: The profile's light level is that of its outer parts, this wide at each end (mm).
    profile_outer_mm: float = 1.5
    #: An edge's strength is weighed against the face's, this much added to both (grey 0..3) so that
    #: flat art on both sides weighs as no change.
    edge_floor: float = 0.05
    #: The palisades' colour is read off the photo from slots whose printed line hides along this share
    #: of their length at least...
    hidden_line: float = 0.7
    #: ...when there are at least this many such slots.
    min_wood_slots: int = 2
    #: The wood's brightness is that of its lit faces: this percentile of those slots' pixels. Its
    #: shaded side and foot are darker, which the comparison allows (:attr:`SlotParams.wood_min_shade`),
    #: but not
    #: lighter; at the 80th percentile a palisade's lit face read too light to be wood.
    wood_lit_percentile: int = 90
    #: A slot whose printed line shows narrowly along this share of its length is bare, whatever
    #: else it looks like (about 1 % of palisades do, in both worlds' tuning photos): the photo's
    #: own bare slots (:func:`bare_by_line`), when it has at least this many.
    bare_line: float = 0.8
    least_bare: int = 8
    #: The profile's signs are measured against how much they vary over the photo's own bare slots,
    #: never less than this (:func:`relative_to_bare`).
    spread_floor: float = 0.2


SLOT_PARAMS = SlotParams()

#: The columns :func:`relative_to_bare` leaves as they are: the line's own signs, which say which
#: slots are bare, and how far things lean, which is the camera's.
ABSOLUTE_FEATURES = ("line_shows", "line_narrow", "lean")


@dataclass(frozen=True, eq=False)
class SlotReading:
    """Per slot (67, in slot number order): probability of a palisade, and the features it came from.

    ``second`` is the plain reader's probability (:func:`plain_probability`), where it has weights
    for these looks: a second opinion from the direct signs alone. A reading is only as sure as the
    less sure of the two (:func:`vision.read.assemble.choose_slots`).
    """

    probabilities: FloatArray
    features: FloatArray
    second: FloatArray | None = None
    #: The share of each slot's length whose foot looks like wood with no glare allowed on the wood
    #: (:attr:`SlotSigns.matte_foot`), where measured: beside ``features``' ``wood_foot``, which allows it.
    matte_foot: FloatArray | None = None
    #: The share of each slot's length that looks like wood but nearer a warrior's colour
    #: (:attr:`SlotSigns.claimed`), where measured.
    claimed: FloatArray | None = None
    #: The share of each slot's length where its printed line shows narrowly between the art on
    #: both sides (:attr:`SlotSigns.line_bare`), where measured: beside ``features``' ``line_narrow``,
    #: which a stick's far edge against the card can pass, dark between its lit top and the card.
    line_bare: FloatArray | None = None

    def sign(self, name: str) -> FloatArray:
        """The sign ``name`` of :data:`FEATURES`, slot by slot.

        >>> features = np.zeros((67, len(FEATURES))); features[5, FEATURES.index("lean")] = 0.4
        >>> SlotReading(np.zeros(67), features).sign("lean")[4:6].tolist()
        [0.0, 0.4]
        """
        column: FloatArray = self.features[:, FEATURES.index(name)]
        return column

    def ruling_out(self, impossible: npt.NDArray[np.bool_]) -> SlotReading:
        """This reading with no palisade, by every reader, on the slots ``impossible`` marks (where
        no stick can stand: :func:`vision.read.glare.stickless`), and no wood claimed there
        (:attr:`claimed`); the signs are kept.

        >>> reading = SlotReading(np.full(67, 0.9), np.zeros((67, len(FEATURES))), np.full(67, 0.8))
        >>> ruled = replace(reading, claimed=np.full(67, 0.6)).ruling_out(np.arange(67) < 2)
        >>> ruled.probabilities[:3].tolist(), ruled.second[:3].tolist(), ruled.claimed[:3].tolist()
        ([0.0, 0.0, 0.9], [0.0, 0.0, 0.8], [0.0, 0.0, 0.6])
        """

        def none_on(values: FloatArray | None) -> FloatArray | None:
            return None if values is None else np.where(impossible, 0.0, values)

        return replace(
            self,
            probabilities=np.where(impossible, 0.0, self.probabilities),
            second=none_on(self.second),
            claimed=none_on(self.claimed),
        )


#: ...and is weighed in this many bands, each a little over 2 mm wide.
PROFILE_BANDS = 8
#: The signs :func:`profile_signs` gives, each once per band across the slot.
PROFILE_SIGNS = ("lighter", "light_change", "colour_change", "edge_change")

#: The columns of :attr:`SlotSigns.features`.
FEATURES = (
    "wood_foot", "differs_foot", "wood_side", "differs_side", "wood_top", "line_shows", "line_narrow",
    "lean", "art_hidden",
    *(f"{sign}_{band}" for sign in PROFILE_SIGNS for band in range(PROFILE_BANDS)),
)  # fmt: skip

#: Logistic weights over :func:`model_inputs` (one row for the shares of :data:`FEATURES`' first
#: nine signs, one for each of :data:`PROFILE_SIGNS` band by band, and the constant), fitted on the
#: tuning sets only, once per world the reference kit was rendered in, each on that world's photos
#: alone (``vision/data/weights/slots-reference*.json`` say on which photos; ``armadora bench fit
#: TUNING_DIR`` writes them again): the reader averages their log odds (:func:`vision.weights.world_mean`).
WORLD_MODELS = world_models("slots-reference")
WEIGHTS = world_mean("slots-reference")
#: The same, for a face learnt from a setup photo and for one improvised from the photo being read,
#: fitted on each world's tuning copies (``armadora bench fit COPIES_TUNING_DIR``).
LEARNT_WEIGHTS = world_mean("slots-learnt")
IMPROVISED_WEIGHTS = world_mean("slots-improvised")

#: The plain reader's signs: the first of :data:`FEATURES`, each a direct sign of a stick (wood,
#: the line hidden, the art's texture hidden) or how far things lean, without the profile's band by
#: band shape. Fitted on one world and read in another, the plain reader makes other mistakes than
#: the whole one, and fewer: it is the second opinion that says where the whole one may be wrong.
PLAIN_FEATURES = FEATURES[: FEATURES.index("art_hidden") + 1]
#: Its weights, fitted with the whole reader's (``armadora bench fit TUNING_DIR``), and for the
#: faces learnt and improvised (``armadora bench fit COPIES_TUNING_DIR``).
PLAIN_WEIGHTS = load_weights("slots-plain-reference")
PLAIN_LEARNT_WEIGHTS = world_mean("slots-plain-learnt")
PLAIN_IMPROVISED_WEIGHTS = world_mean("slots-plain-improvised")


def reads_relative(model: str) -> bool:
    """Whether slot model ``model``'s weights read :func:`relative_to_bare`'s signs rather than
    :attr:`SlotSigns.features`' (its weights file says which; every world's fit of a reader reads the
    same signs, :func:`vision.weights.world_mean` sees to it)."""
    return fitted(model).inputs == BARE_RELATIVE


#: Whether :data:`WEIGHTS` read the signs told against the photo's bare slots.
RELATIVE = reads_relative("slots-reference")


def leans_mm(camera: Camera | None, height_mm: float = PALISADE_HEIGHT_MM) -> FloatArray:
    """Where the top of something ``height_mm`` tall at each slot's middle lands on the face.

    As a displacement in board millimetres, shape (67, 2): zero seen from straight above.
    """
    middles: FloatArray = np.array([np.mean(slot_segment_mm(slot), axis=0) for slot in SLOTS])
    if camera is None:
        return np.zeros_like(middles)
    tops = camera.project(np.c_[middles, np.full(len(middles), height_mm)])
    return _unproject(camera, tops) - middles


def _unproject(camera: Camera, pixels: FloatArray) -> FloatArray:
    """Board millimetres (on the face) seen at ``pixels``."""
    homography = camera.intrinsics @ np.c_[camera.rotation[:, :2], camera.translation]
    points: FloatArray = np.c_[pixels, np.ones(len(pixels))] @ np.linalg.inv(homography).T
    return points[:, :2] / points[:, 2:3]


def _band_samples(
    view: FaceRaster,
    leans: FloatArray,
    shift: float = 0.0,
    half_mm: float | None = None,
    params: SlotParams = SLOT_PARAMS,
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    """Pixel coordinates of each slot's band, shape (67, STEPS, across), and which steps to read.

    The band runs along the slot's line, moved across it by ``shift`` times the
    lean: 0 reads the palisade's foot, 1 where its top lands.
    """
    across = _across(view, params.band_half_mm if half_mm is None else half_mm)
    along = np.linspace(0.0, PITCH_MM, params.steps)
    xs = np.empty((len(SLOTS), params.steps, len(across)))
    ys = np.empty_like(xs)
    keep = np.ones((len(SLOTS), params.steps), bool)
    for number, slot in enumerate(SLOTS):
        (x0, y0), (x1, y1) = slot_segment_mm(slot)
        direction = np.array([x1 - x0, y1 - y0]) / PITCH_MM
        normal = np.array([-direction[1], direction[0]])
        offset = shift * float(leans[number] @ normal) * normal
        px = x0 + offset[0] + direction[0] * along[:, None] + normal[0] * across[None, :]
        py = y0 + offset[1] + direction[1] * along[:, None] + normal[1] * across[None, :]
        xs[number], ys[number] = px * view.px_per_mm, py * view.px_per_mm
        reach = float(leans[number] @ direction)
        start_gap = params.end_gap_mm + max(0.0, reach)
        end_gap = params.end_gap_mm + max(0.0, -reach)
        keep[number] = (along >= start_gap) & (along <= PITCH_MM - end_gap)
    return xs, ys, keep


def _pixel_indices(
    image: npt.NDArray[np.generic], xs: FloatArray, ys: FloatArray
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The rows and columns of ``image``'s pixels nearest the points (``xs``, ``ys``)."""
    yi = np.clip(np.round(ys).astype(np.intp), 0, image.shape[0] - 1)
    xi = np.clip(np.round(xs).astype(np.intp), 0, image.shape[1] - 1)
    return yi, xi


def _sample(image: npt.NDArray[Pixel], xs: FloatArray, ys: FloatArray) -> npt.NDArray[Pixel]:
    return image[_pixel_indices(image, xs, ys)]


def _wood_pixels(
    balanced: FloatImage,
    face: FloatImage,
    wood: FloatImage,
    tokens: tuple[FloatImage, ...],
    xs: FloatArray,
    ys: FloatArray,
    glare: FloatImage | None = None,
    clipped: npt.NDArray[np.bool_] | None = None,
    params: SlotParams = SLOT_PARAMS,
    matte: bool = False,
) -> tuple[npt.NDArray[np.bool_], FloatImage, npt.NDArray[np.bool_], npt.NDArray[np.bool_] | None]:
    """Per slot, step and pixel across a band: is it wood (rather than the face or a token), how far
    it is from the face, is it wood against the face alone but nearer a token (claimed), and, where
    ``matte`` asks, is it wood as a matte stick shows, which no glare washes (else None).

    A pixel ``clipped`` marks is the glossy card mirroring a lamp (:func:`line_signs`): neither wood
    nor anything but the face. ``glare`` may wash out the card's, the tokens' and the wood's colours.
    """
    pixels = _sample(balanced, xs, ys)  # (67, STEPS, across, 3)
    printed = _sample(face, xs, ys)
    washed = None if glare is None else _sample(glare, xs, ys)
    to_face = shaded_distance(pixels, printed, glare=washed)
    to_other = to_face
    for colour in tokens:
        to_other = np.minimum(to_other, shaded_distance(pixels, colour, glare=washed))
    card = None if clipped is None else _sample(clipped, xs, ys)

    def wood_nearer(to_wood: FloatImage, than: FloatImage) -> npt.NDArray[np.bool_]:
        found = (to_wood + params.wood_margin < than) & (to_wood < params.wood_limit)
        return found if card is None else found & ~card

    to_wood = shaded_distance(pixels, wood, min_shade=params.wood_min_shade, glare=washed)
    wood_px, alone = wood_nearer(to_wood, to_other), wood_nearer(to_wood, to_face)
    if card is not None:
        to_face = np.where(card, 0.0, to_face)
    matte_px = None
    if matte:
        # A matte stick is not washed out by the glare that washes the card.
        unwashed = to_wood if washed is None else shaded_distance(pixels, wood, params.wood_min_shade)
        matte_px = wood_nearer(unwashed, to_other)
    return wood_px, to_face, alone & ~wood_px, matte_px


class LineMatch(NamedTuple):
    """What :func:`line_signs` found of the printed line, per slot and step."""

    visible: npt.NDArray[np.bool_]
    narrow: npt.NDArray[np.bool_]
    #: The pixels across each step's profile (shape (67, STEPS, across)) and the index of the
    #: middle of the window that matched the face's line best.
    xs: FloatArray
    ys: FloatArray
    centre: npt.NDArray[np.intp]
    #: The indices, from a window's middle, of the art rising on either side of the line's core.
    flank: npt.NDArray[np.intp]


def line_signs(
    balanced: FloatImage,
    face: FloatImage,
    view: FaceRaster,
    clipped: npt.NDArray[np.bool_] | None = None,
    params: SlotParams = SLOT_PARAMS,
) -> LineMatch:
    """Per slot and step, whether the printed grid line shows (its profile across matches the
    face's), and whether it shows as a narrow line: no wider than the face's, with the art rising
    from its core on both sides; and where across each step it matched best (:class:`LineMatch`).

    A palisade's shaded side along the line draws a dark band whose edge matches the line's
    profile well enough, but a band wider than the line and bright on one side only.

    Where ``clipped`` (:func:`vision.read.glare.clipped_mask`) marks the line's core, the lamp's
    reflection on the glossy card hides the printed line, but it is the card that shows there:
    the wooden sticks are matte and do not mirror the lamp. Such a step counts as the line
    showing, narrowly, rather than as something covering it.
    """
    grey_photo = channel_sum(balanced)
    grey_face = channel_sum(face)
    half = round(params.profile_half_mm * view.px_per_mm)
    xs, ys, _ = _band_samples(
        view, np.zeros((len(SLOTS), 2)), 0.0, half_mm=params.profile_half_mm + 1.0, params=params
    )
    photo = _sample(grey_photo, xs, ys)
    printed = _sample(grey_face, xs, ys)
    extra = (photo.shape[2] - (2 * half + 1)) // 2
    reference = printed[..., extra : extra + 2 * half + 1]
    centred_reference = reference - reference.mean(axis=2, keepdims=True)
    best = np.full(photo.shape[:2], -1.0)
    best_shift = np.zeros(photo.shape[:2], np.intp)
    matched = np.zeros_like(reference)
    for shift in range(-extra, extra + 1):
        window = photo[..., extra + shift : extra + shift + 2 * half + 1]
        match = correlation(window - window.mean(axis=2, keepdims=True), centred_reference, axis=2)
        better = match > best
        matched = np.where(better[..., None], window, matched)
        best_shift = np.where(better, shift, best_shift)
        best = np.maximum(best, match)
    visible = best > params.line_match
    # How dark the face's line is against the art beside it, and how far that darkness reaches.
    core = _px_range(view, -params.line_core_mm / 2, params.line_core_mm / 2, half)
    beside = _px_range(view, params.profile_half_mm - 1.0, params.profile_half_mm, half)
    flank = _px_range(view, params.line_core_mm + 0.5, params.line_core_mm + 1.5, half)
    line_level = reference[..., core].min(axis=2)
    art_level = np.median(reference[..., np.r_[beside, 2 * half - beside]], axis=2)
    depth = np.maximum(art_level - line_level, 1e-3)
    sides = np.stack([matched[..., flank].max(axis=2), matched[..., 2 * half - flank].max(axis=2)])
    rises = sides - matched[..., core].min(axis=2)
    greater, lesser = rises.max(axis=0), rises.min(axis=0)
    flanked = (greater > params.narrow_rise * depth) & (lesser > params.narrow_balance * greater)
    dark = ((line_level + art_level) / 2)[..., None]
    wider = (photo < dark).sum(axis=2) - (printed < dark).sum(axis=2)
    narrow = visible & flanked & (wider < params.narrow_excess_mm * view.px_per_mm)
    if clipped is not None:
        card = _sample(clipped.astype(np.float32), xs, ys)[..., core].mean(axis=2) > 0.5
        visible, narrow = visible | card, narrow | card
    return LineMatch(visible, narrow, xs, ys, extra + half + best_shift, flank - half)


def wood_beside_line(
    match: LineMatch,
    balanced: FloatImage,
    face: FloatImage,
    wood: FloatImage,
    tokens: tuple[FloatImage, ...] = (),
) -> npt.NDArray[np.bool_]:
    """Per slot and step, whether the art rising on one side of the line matched there looks like
    wood (:func:`_wood_pixels`) over most of its width: the seam between a stick's far edge and
    the card, dark between two lighter sides, matches a printed line's profile, but a printed line
    has the art on both sides."""
    steps = np.arange(match.xs.shape[1])[None, :, None]
    slots = np.arange(match.xs.shape[0])[:, None, None]
    sides = []
    for flank in (match.flank, -match.flank):
        across = match.centre[..., None] + flank[None, None, :]
        xs, ys = match.xs[slots, steps, across], match.ys[slots, steps, across]
        sides.append(_wood_pixels(balanced, face, wood, tokens, xs, ys)[0].mean(axis=2) > 0.5)
    beside: npt.NDArray[np.bool_] = sides[0] | sides[1]
    return beside


def across_profiles(
    balanced: FloatImage,
    face: FloatImage,
    view: FaceRaster,
    leans: FloatArray,
    clipped: npt.NDArray[np.bool_] | None = None,
    params: SlotParams = SLOT_PARAMS,
) -> tuple[FloatArray, FloatArray]:
    """The photo's and the face's colour across each slot's line, shape (67, across, 3) each.

    Each position across is the median along the slot's readable length
    (:func:`_band_samples`), from :attr:`SlotParams.profile_span_mm` on one side to as
    far on the other, turned so that it runs toward where tall things lean
    (``leans``, from :func:`leans_mm`): a palisade's top and shaded side then
    fall on the same side of every profile.

    Steps where ``clipped`` marks any of the profile are left out, as glare hides what the photo
    shows there; a slot with no other step shows the face's own profile, no sign of anything.
    """
    # Which steps along a slot are readable does not depend on how wide the band is.
    xs, ys, keep = _band_samples(view, leans, 0.0, half_mm=params.profile_span_mm, params=params)
    photo, printed = _sample(balanced, xs, ys), _sample(face, xs, ys)
    backward = _lean_across(leans) < 0
    profiles = []
    # A camera low enough to leave nothing of a slot readable still gives it a profile: the whole length.
    keep[~keep.any(axis=1)] = True
    if clipped is not None:
        glared: npt.NDArray[np.bool_] = np.any(_sample(clipped, xs, ys), axis=2)
        photo = np.where(glared[..., None, None], printed, photo)
    for image in (photo, printed):
        middle = np.array([np.median(image[n][keep[n]], axis=0) for n in range(len(SLOTS))])
        middle[backward] = middle[backward, ::-1]
        profiles.append(middle.astype(np.float64))
    return profiles[0], profiles[1]


def profile_signs(
    photo: FloatArray, printed: FloatArray, view: FaceRaster = CANONICAL, params: SlotParams = SLOT_PARAMS
) -> FloatArray:
    """How a slot's profile across its line (:func:`across_profiles`) differs from the face's, in
    :data:`PROFILE_BANDS` bands across: shape (67, 4 * bands), the signs :data:`PROFILE_SIGNS`
    names, band by band.

    A palisade changes the profile in a shape of its own: its foot hides the
    line, its lit top and shaded side land on the side it leans to, and its
    long edges draw steps the face does not have. The shares of the other
    signs count how much of a slot looks unlike the face; these say where
    across it, and how. Per band: how much lighter than the face (log ratio,
    less that of the profile's outer parts, for the light's level), how much
    lighter or darker whichever way, how far its colour (chromaticity) is from
    the face's, and how much stronger its steps are than the face's.

    >>> flat = np.full((67, 33, 3), 0.5)
    >>> bool(np.allclose(profile_signs(flat, flat), 0.0))
    True
    >>> stick = flat.copy(); stick[:, 14:20] = (0.2, 0.4, 0.6)
    >>> signs = profile_signs(stick, flat).reshape(67, 4, PROFILE_BANDS)
    >>> bool((signs[:, 3, 3:5] > 1).all() and (signs[:, 3, [0, 7]] == 0).all())
    True
    """
    grey_photo, grey_face = channel_sum(photo), channel_sum(printed)
    across = grey_photo.shape[1]
    outer = max(1, round(params.profile_outer_mm * view.px_per_mm))
    ratio = np.log(np.maximum(grey_photo, 1e-3) / np.maximum(grey_face, 1e-3))
    ratio -= np.median(np.c_[ratio[:, :outer], ratio[:, -outer:]], axis=1, keepdims=True)
    chroma = np.linalg.norm(
        photo / np.maximum(grey_photo, 1e-3)[..., None] - printed / np.maximum(grey_face, 1e-3)[..., None],
        axis=-1,
    )
    steps_photo = np.abs(np.diff(grey_photo, axis=1))
    steps_face = np.abs(np.diff(grey_face, axis=1))
    bands = np.array_split(np.arange(across), PROFILE_BANDS)
    lighter = [ratio[:, band].mean(axis=1) for band in bands]
    light_change = [np.abs(ratio[:, band]).mean(axis=1) for band in bands]
    colour_change = [chroma[:, band].mean(axis=1) for band in bands]
    # The steps between a band's own samples: a band of one sample has none.
    edge_change = [
        np.log(
            (steps_photo[:, band[:-1]].sum(axis=1) + params.edge_floor)
            / (steps_face[:, band[:-1]].sum(axis=1) + params.edge_floor)
        )
        for band in bands
    ]
    return np.column_stack([*lighter, *light_change, *colour_change, *edge_change])


def _px_range(view: FaceRaster, start_mm: float, stop_mm: float, middle: int) -> npt.NDArray[np.intp]:
    """The indices of a profile's samples from ``start_mm`` to ``stop_mm`` across the line, its
    middle sample being ``middle``."""
    return np.arange(middle + round(start_mm * view.px_per_mm), middle + round(stop_mm * view.px_per_mm) + 1)


def estimate_wood(
    balanced: FloatImage,
    face: FloatImage,
    fallback: FloatImage,
    view: FaceRaster = CANONICAL,
    leans: FloatArray | None = None,
    params: SlotParams = SLOT_PARAMS,
) -> FloatImage:
    """The palisades' colour as the photo shows it, for a copy whose wood was never seen.

    A palisade hides its grid line along its whole length: the middle colour of the slots whose
    line hides most, at the palisade's foot and where its top lands (``leans``, from
    :func:`leans_mm`; none, seen from straight above), or ``fallback`` when too few hide.
    """
    visible = line_signs(balanced, face, view, params=params).visible
    _, _, keep = _band_samples(view, np.zeros((len(SLOTS), 2)), 0.0, params=params)
    hidden = np.flatnonzero((~visible & keep).sum(axis=1) >= params.hidden_line * keep.sum(axis=1))
    if len(hidden) < params.min_wood_slots:
        return fallback
    leans = np.zeros((len(SLOTS), 2)) if leans is None else leans
    # Seen from the side, the band at a palisade's foot may hold only its shaded side: its lit top
    # lands as far away as it leans.
    bands = []
    for shift in (0.0, 1.0):
        xs, ys, keep = _band_samples(view, leans, shift, params=params)
        pixels = _sample(balanced, xs, ys)
        bands += [pixels[n][keep[n]].reshape(-1, 3) for n in hidden if keep[n].any()]
    if not bands:
        return fallback
    colour = np.median(np.array([np.median(band, axis=0) for band in bands]), axis=0)
    # A stick's sides turn from the light and its foot lies in its own shadow: its colour is their
    # middle, its brightness that of its lit faces.
    lit = float(np.percentile(np.concatenate(bands).sum(axis=1), params.wood_lit_percentile))
    wood: FloatImage = (colour * lit / max(float(colour.sum()), 1e-6)).astype(np.float32)
    return wood


class SlotSigns(NamedTuple):
    """What :func:`slot_signs` measures of each slot (67 rows, in slot number order)."""

    #: The share of its length showing each sign, a column per :data:`FEATURES` name.
    features: FloatArray
    #: The share of its length whose foot looks like wood with no glare allowed on the wood
    #: (:attr:`SlotReading.matte_foot`).
    matte_foot: FloatArray
    #: The share of its length, at its foot or where a palisade's top lands (the more of the two),
    #: that would be wood against the face alone but lies nearer one of the warriors' colours
    #: (:attr:`SlotReading.claimed`).
    claimed: FloatArray
    #: The share of its length where the printed line shows narrowly with the art, not wood, on
    #: both sides (:attr:`SlotReading.line_bare`).
    line_bare: FloatArray


def slot_signs(
    balanced: FloatImage,
    face: FloatImage,
    wood: FloatImage,
    camera: Camera | None,
    view: FaceRaster = CANONICAL,
    tokens: tuple[FloatImage, ...] = (),
    glare: FloatImage | None = None,
    details: tuple[FloatImage, FloatImage] | None = None,
    clipped: npt.NDArray[np.bool_] | None = None,
    params: SlotParams = SLOT_PARAMS,
) -> SlotSigns:
    """What each slot looks like (:class:`SlotSigns`), each band along it sampled once.

    ``details`` is :func:`vision.texture.fine_detail` of ``balanced`` and ``face``, if already made;
    ``clipped`` where the photo clipped under glare (:func:`line_signs`).

    The features' columns, as :data:`FEATURES` names them: wood at the palisade's foot,
    halfway to where its top lands, and there; the foot and the halfway band
    differing from the face; the printed line still showing, and showing as narrowly as the face's
    (:func:`line_signs`); how far
    tall things lean across the slot here (in palisade heights); and how much
    of the art's texture beside the line at the foot fails to show, weighed
    by how much texture the art has there (:func:`vision.texture.texture_match`); then how the
    profile across the slot differs from the face's, band by band (:func:`profile_signs`).

    The sticks are matte: a lamp's reflection that the light model left on the glossy card does not
    lie on them. A pale patch along a line that is wood only if glare washes it is likelier that
    reflection's edge than a stick (the matte foot, beside ``wood_foot``, which allows it).

    A warrior reaching over its cell's edge claims the wood signs it shows, rightly. Where no warrior
    stands beside the slot, what a warrior's colour ``tokens`` claims there is a stick of a copy
    whose warriors' colour is near its wood's (brick, tan), read as no palisade by readers that gave
    its pixels to the warriors.
    """
    leans = leans_mm(camera)
    shifts = (0.0, 0.5, 1.0)
    bands = [_band_samples(view, leans, shift, params=params) for shift in shifts]
    keep, columns, claimed, matte_px = bands[0][2], [], [], None
    for shift, (xs, ys, keep_here) in zip(shifts, bands, strict=True):
        wood_px, to_face, claimed_px, matte_here = _wood_pixels(
            balanced, face, wood, tokens, xs, ys, glare, clipped, params=params, matte=shift == 0.0
        )
        matte_px = matte_here if matte_px is None else matte_px
        columns.append(wood_px.mean(axis=2) > 0.5)
        if shift < 1.0:
            # A band differs from the face when its median pixel does.
            columns.append(np.median(to_face, axis=2) > FACE_LIMIT)
        if shift != 0.5:
            claimed.append(_share_along(claimed_px, keep_here))
    assert matte_px is not None  # the foot's band, the first, measures it
    line = line_signs(balanced, face, view, clipped, params)
    columns.extend((line.visible, line.narrow))
    columns.append(line.narrow & ~wood_beside_line(line, balanced, face, wood, tokens))
    shares = [(column & keep).sum(axis=1) / np.maximum(keep.sum(axis=1), 1) for column in columns]
    bare_line = shares.pop()
    lean_across = np.abs(_lean_across(leans)) / PALISADE_HEIGHT_MM
    # The art beside the line, where a palisade's foot covers it; the line itself is left out, as a
    # palisade's edge or shadow along it looks much like it.
    xs, ys, _ = _band_samples(view, leans, 0.0, params.texture_half_mm, params=params)
    rows, columns_px = _pixel_indices(face, xs, ys)
    beside_line = np.abs(_across(view, params.texture_half_mm)) >= params.line_core_mm
    counted = keep[..., None] & beside_line
    if clipped is not None:
        counted &= ~clipped[rows, columns_px]
    counted = counted.reshape(len(SLOTS), -1)
    match, amount = texture_match(
        *(details or fine_detail(balanced, face)),
        rows.reshape(len(SLOTS), -1),
        columns_px.reshape(len(SLOTS), -1),
        counted,
    )
    profiles = profile_signs(
        *across_profiles(balanced, face, view, leans, clipped, params=params), view, params=params
    )
    # Texture that fails to match says something covers the art only where the art has texture.
    hidden_art = (1.0 - match) * np.minimum(amount / params.full_detail, 1.0)
    features = np.column_stack([*shares, lean_across, hidden_art, profiles])
    return SlotSigns(features, _share_along(matte_px, keep), np.maximum(*claimed), bare_line)


def _share_along(pixels: npt.NDArray[np.bool_], keep: npt.NDArray[np.bool_]) -> FloatArray:
    """Per slot, the share of the steps read along it (``keep``) where most of the band's ``pixels``
    across the slot are marked (shape (67, steps, across))."""
    marked = (pixels.mean(axis=2) > 0.5) & keep
    share: FloatArray = marked.sum(axis=1) / np.maximum(keep.sum(axis=1), 1)
    return share


def _across(view: FaceRaster, half_mm: float) -> FloatArray:
    """Where a band's pixels lie across its line (mm), a band ``half_mm`` either side of it."""
    across: FloatArray = np.arange(-half_mm, half_mm + 1e-9, 1.0 / view.px_per_mm)
    return across


def _lean_across(leans: FloatArray) -> FloatArray:
    """How far (mm) tall things lean across each slot's line, toward its normal's side or, negative,
    away from it."""
    normals = np.array([_normal(slot) for slot in SLOTS])
    across: FloatArray = (leans * normals).sum(axis=1)
    return across


def _normal(slot: Slot) -> FloatArray:
    (x0, y0), (x1, y1) = slot_segment_mm(slot)
    return np.array([-(y1 - y0), x1 - x0]) / PITCH_MM


def bare_by_line(features: FloatArray, params: SlotParams = SLOT_PARAMS) -> npt.NDArray[np.bool_]:
    """The slots of one photo's :attr:`SlotSigns.features` that its printed line says are bare: the line
    shows narrowly along :attr:`SlotParams.bare_line` of their length. None, where fewer than
    :attr:`SlotParams.least_bare` do: too few to tell what this photo's bare card looks like."""
    bare: npt.NDArray[np.bool_] = features[:, FEATURES.index("line_narrow")] >= params.bare_line
    return bare if bare.sum() >= params.least_bare else np.zeros_like(bare)


def relative_to_bare(features: FloatArray, params: SlotParams = SLOT_PARAMS) -> FloatArray:
    """One photo's :attr:`SlotSigns.features` told against its own bare slots (:func:`bare_by_line`).

    The photo's light, its phone and its world move every sign of the bare card at once: a warm
    sheen makes the face look like wood, a denoiser smooths the art's steps. Each sign but
    :data:`ABSOLUTE_FEATURES` is given less its median over the bare slots, and the profile's band
    by band signs are then divided by how much they vary there (median absolute deviation, at least
    :attr:`SlotParams.spread_floor`). With fewer than :attr:`SlotParams.least_bare` bare slots, the
    signs are given as they are.

    >>> features = np.zeros((67, len(FEATURES)))
    >>> features[:, FEATURES.index("line_narrow")] = 1.0
    >>> features[:, FEATURES.index("wood_foot")] = 0.5
    >>> features[0, FEATURES.index("wood_foot")] = 1.0
    >>> relative = relative_to_bare(features)
    >>> float(relative[0, FEATURES.index("wood_foot")]), float(relative[1, FEATURES.index("wood_foot")])
    (0.5, 0.0)
    >>> bool((relative[:, FEATURES.index("line_narrow")] == 1.0).all())
    True
    """
    bare = bare_by_line(features, params)
    if not bare.any():
        return features
    base = np.median(features[bare], axis=0)
    told = np.array([name not in ABSOLUTE_FEATURES for name in FEATURES])
    relative = features.copy()
    relative[:, told] -= base[told]
    profile = slice(len(PLAIN_FEATURES), len(FEATURES))
    spread = np.median(np.abs(features[bare][:, profile] - base[profile]), axis=0)
    relative[:, profile] /= spread + params.spread_floor
    return relative


def read_slots(
    features: FloatArray,
    weights: npt.ArrayLike = WEIGHTS,
    plain_weights: npt.ArrayLike | None = None,
    relative: bool = RELATIVE,
    params: SlotParams = SLOT_PARAMS,
) -> SlotReading:
    """Palisade probabilities for one photo's 67 slots from their :attr:`SlotSigns.features`, through
    ``weights`` (over :func:`relative_to_bare`'s signs where ``relative``), and the plain reader's
    through ``plain_weights`` (none without them)."""
    second = None if plain_weights is None else plain_probability(features, plain_weights)
    signs = relative_to_bare(features, params) if relative else features
    return SlotReading(palisade_probability(signs, weights), features, second)


def model_inputs(features: FloatArray) -> FloatArray:
    """The logistic model's inputs: the features and a constant.

    The lean is one of the features, so how far things lean moves the
    balance; scaling every sign by the lean as well did worse when fitted on
    one half of the tuning photos and tried on the other.
    """
    return with_constant(features)


def palisade_probability(features: FloatArray, weights: npt.ArrayLike = WEIGHTS) -> FloatArray:
    """P(palisade) for each row of :attr:`SlotSigns.features`."""
    return logistic(model_inputs(features), weights)


def plain_inputs(features: FloatArray) -> FloatArray:
    """The plain reader's inputs: the :data:`PLAIN_FEATURES` of :attr:`SlotSigns.features` and a constant."""
    return with_constant(features[:, : len(PLAIN_FEATURES)])


def plain_probability(features: FloatArray, weights: npt.ArrayLike = PLAIN_WEIGHTS) -> FloatArray:
    """P(palisade) for each row of :attr:`SlotSigns.features` by the plain reader: its
    :data:`PLAIN_FEATURES` alone."""
    return logistic(plain_inputs(features), weights)


def fit_plain_weights(
    features: FloatArray, labels: npt.NDArray[np.bool_], example_weights: FloatArray | None = None
) -> FloatArray:
    """Weights for :func:`plain_probability`, fitted to slots whose truth is known, with the whole
    reader's ridge (:data:`RIDGE`).

    >>> rng = np.random.default_rng(1)
    >>> truth = rng.random(400) < 0.3
    >>> features = rng.random((400, len(FEATURES)))
    >>> features[:, 0] = truth * 0.8 + 0.2 * rng.random(400)  # wood at the foot
    >>> w = fit_plain_weights(features, truth)
    >>> right = (plain_probability(features, w) > 0.5) == truth
    >>> len(w) == len(PLAIN_FEATURES) + 1, bool(right.mean() > 0.95)
    (True, True)
    """
    return fit_logistic(plain_inputs(features), labels, RIDGE, example_weights)


#: The ridge the slot model is fitted with: with the profile's many signs, a fit with a lighter
#: one trusts one copy's quirks. Fitted on five tuning copies and tried on the sixth, in turn, a
#: ridge of 1 made 44 mistakes on faces learnt from setup photos (69 at
#: :data:`vision.logistic.RIDGE`, 38 at 10) and 53 on improvised faces (54 and 70).
RIDGE = 1.0


def fit_weights(
    features: FloatArray, labels: npt.NDArray[np.bool_], example_weights: FloatArray | None = None
) -> FloatArray:
    """Weights for :func:`palisade_probability`, fitted to slots whose truth is known.

    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random(400) < 0.3
    >>> features = np.column_stack([truth[:, None] * 0.8 + 0.2 * rng.random((400, 6)), rng.random(400)])
    >>> w = fit_weights(features, truth)
    >>> bool(((palisade_probability(features, w) > 0.5) == truth).mean() > 0.95)
    True
    """
    return fit_logistic(model_inputs(features), labels, RIDGE, example_weights)


def palisade_mask(
    slots: Iterable[Slot], camera: Camera | None, view: FaceRaster = CANONICAL
) -> npt.NDArray[np.bool_]:
    """Where the given palisades hide the board in ``view``: each one's foot, top and what lies between."""
    mask = np.zeros((view.size[1], view.size[0]), np.uint8)
    leans = leans_mm(camera)
    for slot in slots:
        (x0, y0), (x1, y1) = slot_segment_mm(slot)
        middle = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        along = np.array([x1 - x0, y1 - y0]) / PITCH_MM * (PALISADE_LENGTH_MM / 2)
        across = _normal(slot) * (PALISADE_WIDTH_MM / 2 + 0.5)
        foot = np.array([middle + sa * along + sc * across for sa in (-1, 1) for sc in (-1, 1)])
        outline = np.vstack([foot, foot + leans[slot.number]]) * view.px_per_mm
        hull = cv2.convexHull(np.round(outline).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 1)
    return mask.astype(bool)
