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

from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from vision.geometry import CANONICAL, FaceRaster
from vision.read.rectify import reduce_for_view, warp_to_view
from vision.texture import detail

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]

#: Side of the square patches matched, and the step between them, in view pixels.
PATCH_PX = 64
STEP_PX = 40
#: Shading and glare vary more slowly than this (a Gaussian's sigma, in view pixels); the art's
#: detail does not.
DETAIL_SIGMA_PX = 6.0
#: A patch of the face flatter than this (standard deviation of its detail) has nothing to match.
MIN_FACE_DETAIL = 0.007
#: A patch's match counts when the phase correlation's peak is at least this strong...
MIN_RESPONSE = 0.08
#: ...and its shift no longer than this (view pixels): further means it matched something else.
MAX_SHIFT_PX = 12.0
#: RANSAC's reprojection threshold for the correction, in view pixels.
RANSAC_PX = 1.5
#: Fewer agreeing patches than this and the located homography is kept as it is.
MIN_AGREEING = 12


@dataclass(frozen=True, eq=False)
class Registration:
    """The refined homography (board millimetres to photo pixels) and how many patches agreed on it."""

    homography: FloatArray
    patches: int
    agreeing: int


def face_patches(face_grey: FloatImage) -> tuple[FloatImage, FloatArray]:
    """The face's detail, and the top-left corners of its patches with detail enough to match."""
    face_detail = detail(cast(FloatImage, cv2.GaussianBlur(face_grey, (0, 0), 0.8)), DETAIL_SIGMA_PX)
    height, width = face_grey.shape
    corners = [
        (x, y)
        for y in range(0, height - PATCH_PX + 1, STEP_PX)
        for x in range(0, width - PATCH_PX + 1, STEP_PX)
        if face_detail[y : y + PATCH_PX, x : x + PATCH_PX].std() >= MIN_FACE_DETAIL
    ]
    return face_detail, np.array(corners, np.float64).reshape(-1, 2)


def patch_shifts(
    photo_detail: FloatImage, face_detail: FloatImage, corners: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Where each face patch (top-left ``corners``) lies in the photo's view: centres, and shifted centres.

    Only the patches that match clearly, and not too far away, are returned.
    """
    window = cv2.createHanningWindow((PATCH_PX, PATCH_PX), cv2.CV_32F)
    sources, targets = [], []
    for x, y in corners.astype(int):
        face_patch = face_detail[y : y + PATCH_PX, x : x + PATCH_PX]
        photo_patch = photo_detail[y : y + PATCH_PX, x : x + PATCH_PX]
        (dx, dy), response = cv2.phaseCorrelate(face_patch, photo_patch, window)
        if response < MIN_RESPONSE or max(abs(dx), abs(dy)) > MAX_SHIFT_PX:
            continue
        centre = (x + PATCH_PX / 2, y + PATCH_PX / 2)
        sources.append(centre)
        targets.append((centre[0] + dx, centre[1] + dy))
    return np.array(sources, np.float64).reshape(-1, 2), np.array(targets, np.float64).reshape(-1, 2)


def register(
    image: Image, homography: FloatArray, face: FloatImage, view: FaceRaster = CANONICAL, rounds: int = 2
) -> Registration:
    """Refine ``homography`` (board millimetres to ``image`` pixels) so the photo's detail lies on the face's.

    ``face`` is the profile's face in ``view`` (float BGR, as
    :func:`vision.read.rectify.face_view` gives). Each round warps the photo with
    the current homography and corrects it; where too few patches agree, the
    homography is returned unchanged.
    """
    face_detail, corners = face_patches(cast(FloatImage, face.mean(axis=-1, dtype=np.float32)))
    grey = image if image.ndim == 2 else cast(Image, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    reduced, to_reduced = reduce_for_view(grey, homography, view)
    scale = view.from_mm()
    patches = agreeing = 0
    for _ in range(rounds):
        warped = cast(
            FloatImage, warp_to_view(reduced, to_reduced @ homography, view).astype(np.float32) / 255
        )
        sources, targets = patch_shifts(detail(warped, DETAIL_SIGMA_PX), face_detail, corners)
        patches = len(sources)
        if patches < MIN_AGREEING:
            break
        correction, mask = cv2.findHomography(sources, targets, cv2.RANSAC, RANSAC_PX)
        if correction is None or mask is None or int(mask.sum()) < MIN_AGREEING:
            break
        agreeing = int(mask.sum())
        # The face's pixel x shows in the warped photo at correction @ x: fold that into millimetres.
        homography = homography @ np.linalg.inv(scale) @ correction @ scale
    return Registration(homography, patches, agreeing)
