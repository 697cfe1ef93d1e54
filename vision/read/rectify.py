"""Warp the photo to the canonical top-down view, and undo the light's colour.

The printed face is known, so wherever it shows, the photo's pixels divided by
the face's give the light falling there: its colour temperature, vignetting,
broad shadows. A smooth estimate of that gain, taken only where the two agree
(tokens and palisades do not), is divided out, so that what remains can be
compared with the face and with the tokens' printed colours directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from vision.colour import channel_dot, channel_sum
from vision.geometry import CANONICAL, FaceRaster, warp_shifts
from vision.looks import Looks

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class RectifyParams:
    """How the light is balanced: the hand-set numbers, in board millimetres unless said."""

    #: Light varies over a few centimetres at most (vignetting, broad shadows), so the gain is smooth.
    gain_block_mm: float = 10.0
    gain_sigma_blocks: float = 2.0
    #: The light is fitted on pixels this many millimetres across.
    light_mm: float = 2.0
    #: A pixel shows the face when brightness and glare explain it to within this (relative).
    face_residual: float = 0.12
    #: How much the whole photo's light counts in each window, against the window's own face pixels.
    light_prior: float = 0.15
    glare_floor: float = 0.0


RECTIFY_PARAMS = RectifyParams()


def rectify(
    image: Image, homography: FloatArray, view: FaceRaster = CANONICAL, warp: FloatArray | None = None
) -> Image:
    """The board face seen straight from above, ``view.px_per_mm`` pixels a millimetre.

    ``homography`` maps board millimetres to ``image`` pixels; ``warp``, where given, is what it
    leaves (:func:`vision.locate.register.residual_warp`), followed too. Images much finer than the
    view are halved first, so the warp does not alias.
    """
    reduced, to_reduced = reduce_for_view(image, homography, view)
    if warp is None:
        return warp_to_view(reduced, to_reduced @ homography, view)
    return _warped_to_view(reduced, to_reduced @ homography, warp, view)


#: A smooth warp moves a view pixel no further than this: more is not a lens's bend but a bad fit.
_WARP_MAX_PX = 12.0
#: ...and is worked out on view pixels this far apart, interpolated between (it is smooth).
_WARP_STEP_PX = 8


def _warped_to_view(image: Image, homography: FloatArray, warp: FloatArray, view: FaceRaster) -> Image:
    """:func:`warp_to_view`, each view pixel taken where ``warp`` moves it before ``homography``."""
    width, height = view.size
    step = _WARP_STEP_PX
    coarse_y, coarse_x = np.mgrid[0 : height + step : step, 0 : width + step : step]
    knots = np.c_[coarse_x.ravel(), coarse_y.ravel()].astype(np.float64)
    shifts = np.clip(warp_shifts(warp, knots, view), -_WARP_MAX_PX, _WARP_MAX_PX)
    coarse = shifts.reshape(*coarse_x.shape, 2).astype(np.float32)
    # Bilinear between the knots: view pixel (x, y) lies at (x, y) / step among them.
    at_x = np.broadcast_to(np.arange(width, dtype=np.float32) / step, (height, width))
    at_y = np.broadcast_to(np.arange(height, dtype=np.float32)[:, None] / step, (height, width))
    moved = cv2.remap(coarse, np.ascontiguousarray(at_x), np.ascontiguousarray(at_y), cv2.INTER_LINEAR)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    moved[..., 0] += xs
    moved[..., 1] += ys
    to_image = homography @ np.linalg.inv(view.from_mm())
    seen = cv2.perspectiveTransform(moved.reshape(-1, 1, 2), to_image).reshape(height, width, 2)
    return cast(
        Image,
        cv2.remap(image, seen[..., 0], seen[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
    )


def reduce_for_view(
    image: Image, homography: FloatArray, view: FaceRaster = CANONICAL
) -> tuple[Image, FloatArray]:
    """``image`` halved until it is at most 2.5 times finer than ``view`` where the board is.

    Returns the halved image and the matrix taking ``image``'s pixels to its.
    """
    to_image = homography @ np.linalg.inv(view.from_mm())
    scale = _pixels_per_view_pixel(to_image, view)
    to_reduced = np.eye(3)
    while scale > 2.5:
        image = cast(Image, cv2.pyrDown(image))
        to_reduced = np.diag([0.5, 0.5, 1.0]) @ to_reduced
        scale /= 2
    return image, to_reduced


def warp_to_view(image: Image, homography: FloatArray, view: FaceRaster = CANONICAL) -> Image:
    """The board in ``image`` (``homography`` maps millimetres to its pixels) warped to ``view``."""
    return cast(
        Image,
        cv2.warpPerspective(
            image,
            homography @ np.linalg.inv(view.from_mm()),
            view.size,
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        ),
    )


def _pixels_per_view_pixel(to_image: FloatArray, view: FaceRaster) -> float:
    w, h = view.size
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2)
    quad = cv2.perspectiveTransform(corners, to_image).reshape(-1, 2)
    return float(np.sqrt(cv2.contourArea(quad.astype(np.float32)) / (w * h)))


@lru_cache(maxsize=8)
def face_view(profile: Looks, view: FaceRaster = CANONICAL) -> FloatImage:
    """The profile's face in ``view``, as float BGR in 0..1 (computed once per profile and view).

    Pixel ``i`` shows the face at ``i / view.px_per_mm`` millimetres, as :func:`rectify`'s pixels do.
    """
    small = cv2.resize(profile.face, view.size, interpolation=cv2.INTER_AREA)
    # A resized pixel i averages the face over view pixels i..i+1: half a pixel over centres it on i.
    half_pixel = np.array([[1, 0, 0.5], [0, 1, 0.5]], np.float64)
    centred = cv2.warpAffine(
        small, half_pixel, view.size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return to_float(cast(Image, centred))


def to_float(image: Image) -> FloatImage:
    """BGR ``uint8`` to ``float32`` in 0..1."""
    return image.astype(np.float32) * np.float32(1 / 255)


def _affine_fit(p: FloatImage, f: FloatImage, white: FloatImage) -> FloatImage:
    """Per pixel, how badly ``p ~ b * f + o * white`` (o >= 0) fits over the 3 channels, relative to ``f``.

    ``b`` is held to plausible light (0.3..2), so that a colour does not
    explain a pixel merely by being scaled into it.
    """
    ff, fw, ww = channel_dot(f, f), channel_dot(f, white), float(white @ white)
    pf, pw = channel_dot(p, f), p @ white
    det = ww * ff - fw * fw
    safe = np.abs(det) > 1e-5
    o = np.where(safe, (ff * pw - fw * pf) / np.where(safe, det, 1), 0.0)
    b = np.where(safe, (ww * pf - fw * pw) / np.where(safe, det, 1), pf / np.maximum(ff, 1e-4))
    negative = o < 0
    o = np.where(negative, 0.0, o)
    b = np.where(negative, pf / np.maximum(ff, 1e-4), b)
    b = np.clip(b, 0.3, 2.0)
    misfit = p - (b[..., None] * f + o[..., None] * white)
    distance = np.sqrt(channel_dot(misfit, misfit)) / np.sqrt(np.maximum(ff, 0.03))
    residual: FloatImage = distance.astype(np.float32)
    return residual


def light_model(
    photo: FloatImage,
    face: FloatImage,
    view: FaceRaster = CANONICAL,
    tokens: tuple[FloatImage, ...] = (),
    params: RectifyParams = RECTIFY_PARAMS,
) -> tuple[FloatImage, FloatImage, FloatArray]:
    """The light at each pixel of ``photo``: its brightness and an offset of white glare (one channel
    each), and the light's colour (3 channels): the gain at a pixel is its brightness times the colour.

    Both images are float BGR of the same size. Where the face shows, the
    photo is ``brightness * colour * face + glare * white``: the light's
    ``colour`` is one for the whole photo; ``brightness`` (vignetting, broad
    shadows) and ``glare`` vary smoothly. A pixel shows the face when some
    brightness and glare explain it; those pixels are pooled over windows of a
    few centimetres for a least-squares fit. Where tokens cover the face (a
    finished game), a pixel may show one of the ``tokens`` colours instead,
    whichever fits best. The work is done on pixels :attr:`RectifyParams.light_mm` across.
    """
    step = view.px_per_mm * params.light_mm
    coarse = (round(photo.shape[1] / step), round(photo.shape[0] / step))
    p = cast(FloatImage, cv2.resize(photo, coarse, interpolation=cv2.INTER_AREA))
    f = cast(FloatImage, cv2.resize(face, coarse, interpolation=cv2.INTER_AREA))
    colour = np.median((p / np.maximum(f, 0.02)).reshape(-1, 3)[::7], axis=0).astype(np.float32)
    # Work in the face's light: there, white glare has the colour 1 / colour.
    p = p / colour
    white = (1.0 / colour).astype(np.float32)
    residual = _affine_fit(p, f, white)
    shows_face = residual < params.face_residual
    for token in tokens:
        flat = np.broadcast_to(token, f.shape)
        fits = _affine_fit(p, flat, white)
        better = ~shows_face & (fits < residual)
        f = np.where(better[..., None], flat, f)
        residual = np.where(better, fits, residual)
    weight = (residual < params.face_residual).astype(np.float32)
    blocks = (
        max(1, round(coarse[0] * params.light_mm / params.gain_block_mm)),
        max(1, round(coarse[1] * params.light_mm / params.gain_block_mm)),
    )

    def local_sum(x: FloatImage) -> FloatImage:
        small = cv2.resize(weight * x, blocks, interpolation=cv2.INTER_AREA)
        return cast(
            FloatImage,
            cv2.GaussianBlur(small, (0, 0), params.gain_sigma_blocks, borderType=cv2.BORDER_REFLECT),
        )

    ww = float((white * white).sum())
    n = local_sum(np.ones_like(weight)) * ww
    sf, sff = local_sum(channel_sum(f * white)), local_sum(channel_sum(f * f))
    sp, spf = local_sum(channel_sum(p * white)), local_sum(channel_sum(p * f))
    # Priors: where few pixels show the face, fall back on the whole photo's light and no glare.
    prior_b = params.light_prior * sff / np.maximum(n / ww, 1e-6) + params.light_prior * 0.05
    prior_o = params.light_prior * ww
    a11, a12, a22 = sff + prior_b, sf, n + prior_o
    r1, r2 = spf + prior_b, sp
    det = a11 * a22 - a12 * a12
    o = np.clip((a11 * r2 - a12 * r1) / det, 0.0, 0.9)
    b = np.clip((r1 - a12 * o) / a11, 0.05, 5.0)
    size = (photo.shape[1], photo.shape[0])
    brightness = cv2.resize(b.astype(np.float32), size, interpolation=cv2.INTER_LINEAR)
    glare = cv2.resize(o.astype(np.float32), size, interpolation=cv2.INTER_LINEAR)
    return brightness, glare, colour.astype(np.float64)


@dataclass(frozen=True, eq=False)
class Balanced:
    """A photo under the face's own light, with the glare taken off.

    ``glare`` is how much glare there was at each pixel (in ``image``'s units):
    where colours may still be washed out by what the smooth fit missed.
    ``white`` is the colour that glare has in ``image`` (3 channels, mean 1):
    glare is white in the photo, so under the face's light it takes the
    inverse of the light's colour.
    """

    image: FloatImage
    glare: FloatImage
    white: FloatArray


def balance(
    photo: FloatImage,
    face: FloatImage,
    view: FaceRaster = CANONICAL,
    tokens: tuple[FloatImage, ...] = (),
    params: RectifyParams = RECTIFY_PARAMS,
) -> Balanced:
    """The photo under the face's own light with the glare taken off, how much glare, and its colour."""
    brightness, offset, colour = light_model(photo, face, view, tokens, params=params)
    gain = brightness[..., None] * colour.astype(np.float32)
    balanced = np.clip((photo - offset[..., None]) / gain, 0, 1.5).astype(np.float32)
    inverse = 1.0 / colour
    # Glare the smooth fit missed (it is sharper than the fit, or over hidden face) may remain anywhere.
    glare = (offset / (brightness * np.float32(colour.mean())) + params.glare_floor).astype(np.float32)
    return Balanced(balanced, glare, (inverse / inverse.mean()).astype(np.float64))
