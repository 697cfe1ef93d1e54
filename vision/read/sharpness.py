"""Blur the face as the photo is blurred, so that the readers compare like with like.

A phone photo is softer than the printed face: its lens, its focus (a steep view leaves the far
end out of the depth of field), its denoising, and the warp to the top-down view. A printed line
blurred by the photo no longer matches the face's sharp line, and reads as something covering it.
How blurred the photo is where is read off the photo itself: in each cell, the blur of the face
whose fine detail correlates best with the photo's. Cells whose art tokens cover say nothing; the
blur of the others, fitted as a plane over the board (depth of field changes smoothly with the
distance to the camera), gives the blur everywhere.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from engine.board import CELLS
from vision.colour import channel_mean
from vision.geometry import CANONICAL, FaceRaster, cell_centre_mm
from vision.looks import Looks
from vision.parallel import each
from vision.read.rectify import face_view
from vision.texture import box_correlations, detail

FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class SharpnessParams:
    """How the photo's blur is measured: the hand-set numbers."""

    #: The blurs tried (a Gaussian's sigma, mm on the board).
    sigmas_mm: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
    #: Fine detail is what a Gaussian this wide (mm) does not hold: the light's slow changes go.
    detail_mm: float = 2.0
    #: Each cell is compared inside its lines, this far in (mm).
    cell_inset_mm: float = 3.0
    #: A cell tells the blur when its art correlates with some blur of the face at least this well:
    #: below, a token or a palisade covers it.
    min_correlation: float = 0.6
    #: With fewer such cells than this the plane is not fitted, and their median blur serves.
    min_cells_for_plane: int = 6
    #: A blur that changes less than this (mm) over the board is taken as the same everywhere.
    even_mm: float = 0.15


SHARPNESS_PARAMS = SharpnessParams()


def face_details(
    face: FloatImage, view: FaceRaster = CANONICAL, params: SharpnessParams = SHARPNESS_PARAMS
) -> tuple[FloatImage, ...]:
    """The fine detail of ``face``'s grey (float BGR in ``view``) blurred at each of
    :attr:`SharpnessParams.sigmas_mm`: what :func:`cell_blurs` compares the photo's with, the
    same for every photo of one face."""
    scale = view.px_per_mm
    # Blurring is linear: the grey of the blurred face is the blurred grey of the face.
    grey = cast(FloatImage, channel_mean(np.asarray(face, np.float32)))
    details = tuple(
        each(lambda sigma: detail(_blurred(grey, sigma * scale), params.detail_mm * scale), params.sigmas_mm)
    )
    for image in details:
        image.flags.writeable = False
    return details


@lru_cache(maxsize=4)
def looks_details(
    profile: Looks, view: FaceRaster = CANONICAL, params: SharpnessParams = SHARPNESS_PARAMS
) -> tuple[FloatImage, ...]:
    """:func:`face_details` of the profile's face (:func:`vision.read.rectify.face_view`), made once
    a profile: every scan with it needs the same (about 12 MB a profile)."""
    return face_details(face_view(profile, view), view, params)


def cell_blurs(
    photo: FloatImage,
    face: FloatImage,
    view: FaceRaster = CANONICAL,
    params: SharpnessParams = SHARPNESS_PARAMS,
    details: tuple[FloatImage, ...] | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Per cell, the blur (mm) of the face that best matches the photo, and how well it matches.

    ``details`` is :func:`face_details` of ``face``, where already made.

    >>> rng = np.random.default_rng(0)
    >>> face = cv2.GaussianBlur(rng.random((530, 800, 3)).astype(np.float32), (0, 0), 1.0)
    >>> soft = cv2.GaussianBlur(face, (0, 0), 2.0)
    >>> sharp_blur, _ = cell_blurs(face, face)
    >>> soft_blur, _ = cell_blurs(soft, face)
    >>> float(np.median(sharp_blur)), float(np.median(soft_blur))
    (0.0, 1.0)
    """
    scale = view.px_per_mm
    grey = cast(FloatImage, channel_mean(np.asarray(photo, np.float32)))
    photo_detail = detail(grey, params.detail_mm * scale)
    faces = details or face_details(face, view, params)
    boxes = [view.cell_box(cell, params.cell_inset_mm) for cell in CELLS]
    # One row a blur, one column a cell (CELLS run in their numbers' order).
    scores = np.stack(each(lambda face_detail: box_correlations(photo_detail, face_detail, boxes), faces))
    best = np.argmax(scores, axis=0)
    blurs = np.asarray(params.sigmas_mm, np.float64)[best]
    matches = scores[best, np.arange(len(CELLS))]
    return blurs, matches


def blur_plane(
    blurs: FloatArray, matches: FloatArray, params: SharpnessParams = SHARPNESS_PARAMS
) -> tuple[float, float, float]:
    """The blur over the board as ``a + b x + c y`` (mm, board millimetres), from the cells that tell it.

    >>> xs = np.array([cell_centre_mm(cell)[0] for cell in CELLS])
    >>> a, b, c = blur_plane(0.5 + 0.002 * xs, np.ones(len(CELLS)))
    >>> round(a, 3), round(b, 4), abs(round(c, 4))
    (0.5, 0.002, 0.0)
    >>> blur_plane(np.ones(len(CELLS)), np.zeros(len(CELLS)))
    (0.0, 0.0, 0.0)
    """
    told = matches >= params.min_correlation
    if not told.any():
        return 0.0, 0.0, 0.0
    if told.sum() < params.min_cells_for_plane:
        return float(np.median(blurs[told])), 0.0, 0.0
    centres = np.array([cell_centre_mm(cell) for cell in CELLS])[told]
    design = np.c_[np.ones(len(centres)), centres]
    (a, b, c), *_ = np.linalg.lstsq(design, blurs[told], rcond=None)
    return float(a), float(b), float(c)


def matched_face(
    photo: FloatImage,
    face: FloatImage,
    view: FaceRaster = CANONICAL,
    params: SharpnessParams = SHARPNESS_PARAMS,
    details: tuple[FloatImage, ...] | None = None,
) -> tuple[FloatImage, tuple[float, float, float]]:
    """``face`` blurred as ``photo`` is, place by place, and the blur's plane (:func:`blur_plane`).

    Each pixel takes the face at the two tried blurs either side of the plane's there, mixed.
    A photo as sharp as the face gets the face back unchanged. ``details`` is :func:`face_details`
    of ``face``, where already made.
    """
    plane = blur_plane(*cell_blurs(photo, face, view, params, details), params)
    height, width = face.shape[:2]
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32) / np.float32(view.px_per_mm)
    wanted = np.clip(plane[0] + plane[1] * xs + plane[2] * ys, 0.0, max(params.sigmas_mm))
    if float(wanted.max()) <= 0.0:
        return face, plane
    if float(wanted.max() - wanted.min()) < params.even_mm:
        return _blurred(face, float(wanted.mean()) * view.px_per_mm), plane
    levels = np.array(params.sigmas_mm, np.float32)
    spans = [
        (low, high, inside)
        for low, high in itertools.pairwise(levels)
        if (inside := (wanted > low) & (wanted <= high)).any()
    ]
    # Two neighbouring spans share a level: each level is blurred once, the levels at once.
    needed = sorted({float(level) for low, high, _ in spans for level in (low, high)})
    faces = each(lambda level: _blurred(face, level * view.px_per_mm), needed)
    blurred = dict(zip(needed, faces, strict=True))
    out = face.copy()
    for low, high, inside in spans:
        share = ((wanted[inside] - low) / (high - low))[:, None]
        out[inside] = blurred[float(low)][inside] * (1 - share) + blurred[float(high)][inside] * share
    return out, plane


def _blurred(image: FloatImage, sigma_px: float) -> FloatImage:
    if sigma_px <= 0:
        return image
    return cast(FloatImage, cv2.GaussianBlur(image, (0, 0), sigma_px))
