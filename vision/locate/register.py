"""Register the board to the millimetre: refine the located homography on the printed face's detail.

Feature matching finds the board from a few hundred keypoints and is off by
up to several millimetres at the far end of a steep photo, enough to read a
cell's neighbour or a slot beside its line. Here the photo is warped to the
top-down view with the homography found, and square patches of it are matched
against the same patches of the face by phase correlation. Patches that
tokens, palisades or a hand cover match poorly or disagree with the rest and
are dropped by RANSAC; the others give the small correction, a homography in
the view's pixels, that is folded back into the board's homography.

Only the detail finer than a few millimetres is compared, so that shading,
glare and the light's colour do not pull the match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from engine.board import CELLS
from vision.colour import channel_mean
from vision.geometry import CANONICAL, PITCH_MM, FaceRaster, warp_terms
from vision.locate.features import to_grey
from vision.parallel import each
from vision.read.rectify import reduce_for_view, warp_to_view
from vision.texture import box_correlations, detail

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class RegisterParams:
    """The registration's hand-set numbers, in view pixels unless said."""

    #: Side of the square patches matched, and the step between them.
    patch_px: int = 64
    step_px: int = 40
    #: Shading and glare vary more slowly than this (a Gaussian's sigma); the art's detail does not.
    detail_sigma_px: float = 6.0
    #: A patch of the face flatter than this (standard deviation of its detail) has nothing to match.
    min_face_detail: float = 0.007
    #: A patch's match counts when the phase correlation's peak is at least this strong...
    min_response: float = 0.08
    #: ...and its shift no longer than this: further means it matched something else.
    max_shift_px: float = 12.0
    #: RANSAC's reprojection threshold for the correction.
    ransac_px: float = 1.5
    #: Fewer agreeing patches than this and the located homography is kept as it is.
    min_agreeing: int = 12
    #: Rounds of warping the photo and correcting the homography.
    rounds: int = 2
    #: What a homography leaves (a lens's distortion, a card not quite flat) is followed by a smooth
    #: warp of this order in the view's coordinates (:func:`residual_warp`), fitted where at least
    #: this many patches matched; patches further from it than this many times the median, and
    #: this many pixels, are left out, over these rounds.
    warp_order: int = 3
    least_warp_patches: int = 60
    warp_outlier: float = 3.0
    warp_floor_px: float = 1.0
    warp_rounds: int = 4
    #: The warp is kept only where it leaves the patches this much nearer than the homography alone
    #: did (median distance): on a blurred or crowded board the patches' shifts are noise.
    warp_gain: float = 0.6


REGISTER_PARAMS = RegisterParams()


@dataclass(frozen=True, eq=False)
class Registration:
    """The refined homography (board millimetres to photo pixels) and how many patches agreed on it."""

    homography: FloatArray
    patches: int
    agreeing: int
    #: The smooth warp the homography leaves (:func:`residual_warp`), if fitted.
    warp: FloatArray | None = None


def face_patches(
    face_grey: FloatImage, params: RegisterParams = REGISTER_PARAMS
) -> tuple[FloatImage, FloatArray]:
    """The face's detail, and the top-left corners of its patches with detail enough to match."""
    face_detail = detail(cast(FloatImage, cv2.GaussianBlur(face_grey, (0, 0), 0.8)), params.detail_sigma_px)
    height, width = face_grey.shape
    side = params.patch_px
    corners = [
        (x, y)
        for y in range(0, height - side + 1, params.step_px)
        for x in range(0, width - side + 1, params.step_px)
        if face_detail[y : y + side, x : x + side].std() >= params.min_face_detail
    ]
    return face_detail, np.array(corners, np.float64).reshape(-1, 2)


#: :func:`face_patches` of the last few faces registered against, by the face array itself (held, so
#: that its ``id`` stays its own): one face serves every photo read with its profile, and every
#: attempt at one photo.
_FACE_PATCHES: dict[tuple[int, RegisterParams], tuple[FloatImage, tuple[FloatImage, FloatArray]]] = {}
_FACE_PATCHES_KEPT = 8


def _patches_of_face(face: FloatImage, params: RegisterParams) -> tuple[FloatImage, FloatArray]:
    """:func:`face_patches` of the float BGR ``face``'s grey, made once per face and parameters.

    Each call gets its own copy of the detail: ``cv2.phaseCorrelate`` writes its window into the
    patches it is handed (:func:`patch_shifts`), and what a registration finds depends on that, so
    every registration starts from the detail as it was made."""
    key = (id(face), params)
    kept = _FACE_PATCHES.get(key)
    if kept is None or kept[0] is not face:
        made = face_patches(cast(FloatImage, channel_mean(np.asarray(face, np.float32))), params)
        if len(_FACE_PATCHES) >= _FACE_PATCHES_KEPT:
            del _FACE_PATCHES[next(iter(_FACE_PATCHES))]
        kept = _FACE_PATCHES[key] = (face, made)
    face_detail, corners = kept[1]
    return face_detail.copy(), corners


def patch_shifts(
    photo_detail: FloatImage,
    face_detail: FloatImage,
    corners: FloatArray,
    params: RegisterParams = REGISTER_PARAMS,
) -> tuple[FloatArray, FloatArray]:
    """Where each face patch (top-left ``corners``) lies in the photo's view: centres, and shifted centres.

    Only the patches that match clearly, and not too far away, are returned.
    """
    side = params.patch_px
    window = cv2.createHanningWindow((side, side), cv2.CV_32F)
    sources, targets = [], []
    for x, y in corners.astype(int):
        face_patch = face_detail[y : y + side, x : x + side]
        photo_patch = photo_detail[y : y + side, x : x + side]
        (dx, dy), response = cv2.phaseCorrelate(face_patch, photo_patch, window)
        if response < params.min_response or max(abs(dx), abs(dy)) > params.max_shift_px:
            continue
        centre = (x + side / 2, y + side / 2)
        sources.append(centre)
        targets.append((centre[0] + dx, centre[1] + dy))
    return np.array(sources, np.float64).reshape(-1, 2), np.array(targets, np.float64).reshape(-1, 2)


def register(
    image: Image,
    homography: FloatArray,
    face: FloatImage,
    view: FaceRaster = CANONICAL,
    params: RegisterParams = REGISTER_PARAMS,
) -> Registration:
    """Refine ``homography`` (board millimetres to ``image`` pixels) so the photo's detail lies on the face's.

    ``face`` is the profile's face in ``view`` (float BGR, as
    :func:`vision.read.rectify.face_view` gives). Each round warps the photo with
    the current homography and corrects it; where too few patches agree, the
    homography is returned unchanged.
    """
    face_detail, corners = _patches_of_face(face, params)
    grey = to_grey(image)
    reduced, to_reduced = reduce_for_view(grey, homography, view)
    scale = view.from_mm()
    patches = agreeing = 0
    warp = None
    for _ in range(params.rounds):
        warped = cast(
            FloatImage, warp_to_view(reduced, to_reduced @ homography, view).astype(np.float32) / 255
        )
        sources, targets = patch_shifts(detail(warped, params.detail_sigma_px), face_detail, corners, params)
        patches = len(sources)
        if patches < params.min_agreeing:
            break
        correction, mask = cv2.findHomography(sources, targets, cv2.RANSAC, params.ransac_px)
        if correction is None or mask is None or int(mask.sum()) < params.min_agreeing:
            break
        agreeing = int(mask.sum())
        # The face's pixel x shows in the warped photo at correction @ x: fold that into millimetres.
        homography = homography @ np.linalg.inv(scale) @ correction @ scale
        # What the correction leaves, where the corrected homography puts the face's pixels.
        corrected = cv2.perspectiveTransform(sources.reshape(-1, 1, 2), correction).reshape(-1, 2)
        warp = residual_warp(sources, targets - corrected, view, params)
    return Registration(homography, patches, agreeing, warp)


def residual_warp(
    points: FloatArray,
    shifts: FloatArray,
    view: FaceRaster = CANONICAL,
    params: RegisterParams = REGISTER_PARAMS,
) -> FloatArray | None:
    """A smooth warp (polynomial coefficients, shape (terms, 2)) taking view pixels ``points`` by
    ``shifts``, fitted robustly; None where too few points tell it.

    A homography is exact for a flat card seen through a perfect lens; a phone's lens bends
    straight lines toward the corners, and the far corners of a board can lie several millimetres
    from where the best homography puts them. The photo's own art says where.

    >>> ys, xs = np.mgrid[20:520:40, 20:780:40]
    >>> points = np.c_[xs.ravel(), ys.ravel()].astype(np.float64)
    >>> bent = 3.0 * ((points - (400, 265)) / 400) ** 3
    >>> coefficients = residual_warp(points, bent)
    >>> from vision.geometry import warp_shifts
    >>> bool(np.abs(warp_shifts(coefficients, points) - bent).max() < 0.05)
    True
    >>> residual_warp(points[:10], bent[:10]) is None
    True
    >>> noise = np.random.default_rng(0).normal(0.0, 1.0, points.shape)
    >>> residual_warp(points, noise) is None
    True
    """
    if len(points) < params.least_warp_patches:
        return None
    terms = warp_terms(points, view, params.warp_order)
    kept = np.ones(len(points), bool)
    coefficients: FloatArray = np.zeros((terms.shape[1], 2))
    for _ in range(params.warp_rounds):
        if kept.sum() < params.least_warp_patches:
            return None
        coefficients = np.linalg.lstsq(terms[kept], shifts[kept], rcond=None)[0].astype(np.float64)
        misfit = np.linalg.norm(terms @ coefficients - shifts, axis=1)
        kept = misfit < max(params.warp_outlier * float(np.median(misfit)), params.warp_floor_px)
    left = float(np.median(np.linalg.norm(shifts, axis=1)))
    if float(np.median(misfit)) > params.warp_gain * left:
        return None
    return coefficients


@dataclass(frozen=True)
class ArtMatchParams:
    """How the photo's art is told to be the face's own, or another copy's on the same grid."""

    #: Each cell is compared inside its lines, this far in (mm): every copy prints the same grid.
    cell_inset_mm: float = 4.0
    #: The cells' correlations are summed up as the mean of this many best cells: warriors and
    #: palisades cover many of a crowded board's cells, and glare or blur a whole region of them,
    #: but the face's own art still matches well in its few clearest cells, another copy's in none.
    best_cells: int = 4


ART_MATCH_PARAMS = ArtMatchParams()


def art_match(
    image: Image,
    homography: FloatArray,
    face: FloatImage,
    view: FaceRaster = CANONICAL,
    params: ArtMatchParams = ART_MATCH_PARAMS,
    register_params: RegisterParams = REGISTER_PARAMS,
) -> float:
    """How much better the photo's art inside the cells matches ``face`` than chance does.

    The fine detail of each cell's inside, in the photo seen through ``homography`` and in the face,
    correlated, averaged over the :attr:`ArtMatchParams.best_cells` cells that match best; less the
    same against the face moved by half a cell, which is what this photo's detail matches by
    chance. Patches across the grid lines (:func:`register`) agree on any copy printed on the same
    grid; the art inside the cells does not. Near 0 for another copy's art; well above for the face's own.

    >>> face = np.random.default_rng(0).random((530, 800, 3)).astype(np.float32)
    >>> photo = (face * 255).astype(np.uint8)
    >>> other = np.random.default_rng(1).integers(0, 255, (530, 800, 3), dtype=np.uint8)
    >>> straight = CANONICAL.from_mm()
    >>> same, different = art_match(photo, straight, face), art_match(other, straight, face)
    >>> bool(same > 0.5 > 0.1 > abs(different))
    True
    """
    return art_matches(image, [homography], face, view, params, register_params)[0]


def art_matches(
    image: Image,
    homographies: Sequence[FloatArray],
    face: FloatImage,
    view: FaceRaster = CANONICAL,
    params: ArtMatchParams = ART_MATCH_PARAMS,
    register_params: RegisterParams = REGISTER_PARAMS,
) -> list[float]:
    """:func:`art_match` of each of ``homographies``: the face's detail worked out once for all.

    >>> face = np.random.default_rng(0).random((530, 800, 3)).astype(np.float32)
    >>> photo = (face * 255).astype(np.uint8)
    >>> straight = CANONICAL.from_mm()
    >>> along = straight @ np.array([[1.0, 0.0, PITCH_MM], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    >>> [round(score, 6) for score in art_matches(photo, [straight, along], face)] == [
    ...     round(art_match(photo, straight, face), 6), round(art_match(photo, along, face), 6)]
    True
    """
    sigma = register_params.detail_sigma_px
    face_detail = detail(cast(FloatImage, channel_mean(np.asarray(face, np.float32))), sigma)
    half_cell = round(PITCH_MM / 2 * view.px_per_mm)
    moved = np.roll(face_detail, (half_cell, half_cell), axis=(0, 1))
    boxes = [view.cell_box(cell, params.cell_inset_mm) for cell in CELLS]

    def matched(seen: FloatImage, against: FloatImage) -> float:
        scores = np.sort(box_correlations(seen, against, boxes))
        return float(scores[-params.best_cells :].mean())

    def score(homography: FloatArray) -> float:
        reduced, to_reduced = reduce_for_view(image, homography, view)
        top = warp_to_view(reduced, to_reduced @ homography, view).astype(np.float32)
        photo_detail = detail(cast(FloatImage, channel_mean(top) / 255), sigma)
        return matched(photo_detail, face_detail) - matched(photo_detail, moved)

    return each(score, homographies)
