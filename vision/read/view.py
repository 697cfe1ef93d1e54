"""The board seen from above in its own light: what every reader reads, and the looks' colours
as the readers compare with them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.board import SLOTS, Slot
from vision.colour import rgb_to_bgr_float
from vision.geometry import CANONICAL
from vision.locate.features import Camera, Located, camera_from_homography
from vision.looks import Kind, Looks
from vision.params import SCAN_PARAMS, ScanParams
from vision.read.cells import CellSigns, Discs, cell_signs
from vision.read.glare import clipped_mask, clipped_shares, on_card, stickless
from vision.read.rectify import balance, rectify, to_float
from vision.read.sharpness import looks_details, matched_face
from vision.read.slots import SlotSigns, estimate_wood, leans_mm, palisade_mask, slot_signs
from vision.texture import fine_detail
from vision.timing import Timer

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]


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


def seen_from_above(
    image: Image,
    profile: Looks,
    located: Located,
    face: npt.NDArray[np.float32],
    timer: Timer,
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
        clipped=clipped, card_glare=card_glare(clipped, camera, profile, params),
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
    clipped: npt.NDArray[np.bool_] | None, camera: Camera, profile: Looks, params: ScanParams = SCAN_PARAMS
) -> npt.NDArray[np.bool_] | None:
    """Where the photo ``clipped``, where that can only be the card (:func:`glare_is_card`), or None.

    A patch lying where a palisade could stand or lean as ``camera`` sees it may be a pale stick's
    lit face (:func:`vision.read.glare.on_card`): it is left to the readers."""
    if clipped is None or not glare_is_card(profile):
        return None
    return on_card(clipped, palisade_mask(SLOTS, camera), params.glare)


def view_slot_signs(view: BoardView, profile: Looks, params: ScanParams = SCAN_PARAMS) -> SlotSigns:
    """The slots' signs (:func:`vision.read.slots.slot_signs`) on a board seen with ``profile``;
    what clipped there is the card showing where it can be nothing else (:func:`glare_is_card`)."""
    return slot_signs(
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


def view_stickless(view: BoardView, params: ScanParams = SCAN_PARAMS) -> npt.NDArray[np.bool_]:
    """The slots where no stick can stand (:func:`vision.read.glare.stickless`), the photo clipped
    over so much of them: whatever the profile, a clipped patch reaching beyond where any palisade
    could stand or lean (:func:`vision.read.glare.on_card`) is no stick's lit face. A white warrior
    or white art that clips is no stick either."""
    if view.clipped is None:
        return np.zeros(len(SLOTS), bool)
    # The reference kit's card glare is that very mask, made already.
    card = view.card_glare
    if card is None:
        card = on_card(view.clipped, palisade_mask(SLOTS, view.camera), params.glare)
    return stickless(clipped_shares(card, params.glare)[1], params.glare)


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
