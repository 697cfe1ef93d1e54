"""Find the board in a photo: a homography from board millimetres to photo pixels.

Features of the photo are matched with features of the profile's printed face
(which is what survives tokens and palisades covering much of the grid), and a
homography is fitted with RANSAC. Matching against the upright face also tells
which way up the board is. A photo where no plausible board is found raises
:class:`NoBoardError` with the reason in words.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from vision.geometry import BOARD_H_MM, BOARD_W_MM, board_corners_mm
from vision.looks import Looks

FloatArray = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]
Descriptors = npt.NDArray[np.uint8] | npt.NDArray[np.float32]

#: The long side, in pixels, at which photos are searched for the board; then the fallbacks.
SEARCH_LONG_SIDE = 1024
SEARCH_ATTEMPTS = (("orb", SEARCH_LONG_SIDE), ("sift", SEARCH_LONG_SIDE), ("sift_tilted", 1280))


@dataclass(frozen=True)
class FeatureParams:
    """How the art's features are matched: the hand-set numbers."""

    #: ``sift_tilted`` also matches against the face as seen this foreshortened (a tilt of about 53
    #: degrees) along each of these directions: SIFT copes with scale and turn but not with a steep
    #: view of a mostly covered board.
    tilt_squash: float = 0.6
    tilt_directions_deg: tuple[float, ...] = (0.0, 45.0, 90.0, 135.0)
    #: Pixels a millimetre of the face image features are taken from.
    face_px_per_mm: float = 2.0
    #: A first homography needs this many matches passing the ratio test; the final one this many inliers.
    min_seed_inliers: int = 12
    min_inliers: int = 30
    ratio: float = 0.8
    guided_rounds: int = 2
    guided_k: int = 6
    guided_radius_px: float = 6.0
    guided_max_distance: int = 64
    min_area_fraction: float = 0.05
    max_tilt_deg: float = 62.0


FEATURE_PARAMS = FeatureParams()


class NoBoardError(ValueError):
    """No board in the photo. ``reason``: ``no_board``, ``too_small``, ``too_tilted`` or ``cut_off``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, eq=False)
class FaceFeatures:
    """Keypoints of a board face (found by ``kind``), in board millimetres, with their descriptors."""

    kind: str
    points_mm: npt.NDArray[np.float32]
    descriptors: Descriptors


class FoundBy(enum.StrEnum):
    """How the board was found in the photo."""

    #: The art's features matched with the face's (this module); :attr:`Located.attempt` says how.
    FEATURES = "features"
    #: The eight gold tokens laid on the fixed layout, confirmed by the grid's crossings
    #: (:func:`vision.locate.grid.locate_by_grid`, as each later way).
    GOLD = "gold"
    #: The printed grid's lines in perspective (:mod:`vision.locate.gridlines`).
    GRID_LINES = "grid lines"
    #: The board's outline.
    OUTLINE = "outline"
    #: A fit by the gold and grid moved whole cells to where the art inside the cells lies: a place
    #: the gold can hardly tell from the board's own (:func:`vision.locate.lattice.gold_twins`).
    ART_ON_GRID = "art on the grid"


@dataclass(frozen=True, eq=False)
class Located:
    """Where the board is: ``homography`` maps board millimetres to photo pixels.

    ``inliers`` of ``matches`` agreed on it: the features' matches, or the grid's crossings found
    of those looked for where it was found otherwise.
    """

    homography: FloatArray
    inliers: int
    matches: int
    #: Which of :data:`SEARCH_ATTEMPTS` found it, where the features did.
    attempt: int = 0
    found_by: FoundBy = FoundBy.FEATURES

    def corners_px(self) -> FloatArray:
        """The face's corners in photo pixels, clockwise from the board's top-left."""
        return project(self.homography, board_corners_mm())


def project(homography: FloatArray, points: npt.ArrayLike) -> FloatArray:
    """Apply a homography to an ``(N, 2)`` array of points.

    >>> project(np.diag([2.0, 3.0, 1.0]), [[1.0, 1.0]])
    array([[2., 3.]])
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
    return cast(FloatArray, cv2.perspectiveTransform(pts, homography)).reshape(-1, 2)


def _detector(kind: str) -> cv2.Feature2D:
    if kind == "orb":
        return cast(cv2.Feature2D, cv2.ORB_create(nfeatures=3000))  # type: ignore[attr-defined]
    return cast(cv2.Feature2D, cv2.SIFT_create(nfeatures=3000, contrastThreshold=0.02))  # type: ignore[attr-defined]


def to_grey(image: Image) -> Image:
    """``image`` in grey: a BGR photo converted, a grey one as it is.

    >>> to_grey(np.full((2, 3, 3), (0, 0, 255), np.uint8)).tolist()  # pure red
    [[76, 76, 76], [76, 76, 76]]
    >>> to_grey(np.zeros((2, 3), np.uint8)).shape
    (2, 3)
    """
    return cast(Image, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)) if image.ndim == 3 else image


@lru_cache(maxsize=8)
def face_features(profile: Looks, kind: str = "orb", params: FeatureParams = FEATURE_PARAMS) -> FaceFeatures:
    """The face's features, computed once per profile and process.

    ``kind``: ``"orb"``, ``"sift"``, or ``"sift_tilted"``: SIFT on the face
    and on the face squashed by :attr:`FeatureParams.tilt_squash` along each of
    :attr:`FeatureParams.tilt_directions_deg`, as a steep photo shows it.
    """
    size = (round(BOARD_W_MM * params.face_px_per_mm), round(BOARD_H_MM * params.face_px_per_mm))
    small = cast(Image, cv2.resize(to_grey(profile.face), size, interpolation=cv2.INTER_AREA))
    if kind != "sift_tilted":
        squashes = [np.eye(2)]
        points, descriptors = [], []
    else:
        # The face seen straight on is the plain SIFT set, already made for the attempt before.
        plain = face_features(profile, "sift", params=params)
        squashes = [_squash(params.tilt_squash, angle) for angle in params.tilt_directions_deg]
        points, descriptors = [plain.points_mm.astype(np.float64)], [plain.descriptors]
    for squash in squashes:
        found_px, found = _features_seen_squashed(small, squash, kind)
        # A pixel's centre lies half a pixel into it: pixel i of the small face spans i..i+1.
        points.append((found_px + 0.5) / params.face_px_per_mm)
        descriptors.append(found)
    return FaceFeatures(kind, np.vstack(points).astype(np.float32), cast(Descriptors, np.vstack(descriptors)))


def _squash(factor: float, angle_deg: float) -> FloatArray:
    """The 2x2 map that shrinks the plane by ``factor`` along the direction ``angle_deg``."""
    t = np.deg2rad(angle_deg)
    turn = np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])
    squash: FloatArray = turn.T @ np.diag([1.0, factor]) @ turn
    return squash


def _features_seen_squashed(face: Image, squash: FloatArray, kind: str) -> tuple[FloatArray, Descriptors]:
    """Features of ``face`` warped by ``squash``, with their places mapped back to ``face``'s pixels."""
    if np.array_equal(squash, np.eye(2)):
        keypoints, descriptors = _detector(kind).detectAndCompute(face, None)
        return np.array([kp.pt for kp in keypoints], np.float64).reshape(-1, 2), cast(
            Descriptors, descriptors
        )
    h, w = face.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) @ squash.T
    low, high = corners.min(axis=0), corners.max(axis=0)
    affine = np.c_[squash, -low]
    out = (int(np.ceil(high[0] - low[0])), int(np.ceil(high[1] - low[1])))
    warped = cv2.warpAffine(face, affine, out, flags=cv2.INTER_LINEAR)
    # Features on the warped face's edge would describe the blank around it.
    inside = cv2.warpAffine(np.full((h, w), 255, np.uint8), affine, out)
    inside = cv2.erode(inside, np.ones((3, 3), np.uint8), iterations=3)
    keypoints, descriptors = _detector(kind).detectAndCompute(warped, inside)
    found = np.array([kp.pt for kp in keypoints], np.float64).reshape(-1, 2) - affine[:, 2]
    unsquashed: FloatArray = found @ np.linalg.inv(squash).T
    return unsquashed, cast(Descriptors, descriptors)


def locate(
    image: Image,
    profile: Looks,
    first_attempt: int = 0,
    params: FeatureParams = FEATURE_PARAMS,
    *,
    attempts: int = len(SEARCH_ATTEMPTS),
) -> Located:
    """The board in ``image`` (BGR), or :class:`NoBoardError` saying why there is none.

    ORB features at :data:`SEARCH_LONG_SIDE` pixels find most boards fast;
    where they find none (a finished game hides much of the face, blur, a
    steep angle), or a board that cannot be (cut off, too small, too
    tilted), SIFT tries, then SIFT on a larger image that also knows the face
    seen steeply, so that a board too small to read is still told apart from
    no board at all. The first attempt's objection is the one reported.
    ``first_attempt`` skips the attempts of :data:`SEARCH_ATTEMPTS` before it,
    to look again when a board found does not hold up; only the first ``attempts`` are tried.
    """
    grey = to_grey(image)
    refused: NoBoardError | None = None
    for attempt, (kind, long_side) in enumerate(SEARCH_ATTEMPTS[first_attempt:attempts], first_attempt):
        located = _match(grey, face_features(profile, kind, params=params), long_side, params=params)
        if located is None:
            continue
        try:
            _check_plausible(located, image.shape[1], image.shape[0], params=params)
        except NoBoardError as error:
            # A few wrong matches can put a corner out of frame: a finer attempt may still place it.
            refused = refused or error
            continue
        return replace(located, attempt=attempt)
    raise refused or NoBoardError("no_board", "no board found: nothing in the photo looks like the board")


def _match(
    grey: Image, features: FaceFeatures, long_side: int, params: FeatureParams = FEATURE_PARAMS
) -> Located | None:
    factor = min(1.0, long_side / max(grey.shape))
    if factor < 1.0:
        grey = cast(Image, cv2.resize(grey, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA))
    keypoints, descriptors = _detector(features.kind).detectAndCompute(grey, None)
    if descriptors is None or len(keypoints) < params.guided_k:
        return None
    photo_all = np.array([kp.pt for kp in keypoints], np.float32)
    norm = cv2.NORM_HAMMING if features.kind == "orb" else cv2.NORM_L2
    knn = cv2.BFMatcher(norm).knnMatch(descriptors, features.descriptors, k=params.guided_k)
    full = [row for row in knn if len(row) == params.guided_k]
    query = np.array([row[0].queryIdx for row in full], np.intp)
    train = np.array([[m.trainIdx for m in row] for row in full], np.intp).reshape(-1, params.guided_k)
    distance = np.array([[m.distance for m in row] for row in full], np.float32).reshape(-1, params.guided_k)
    seed = distance[:, 0] < params.ratio * distance[:, 1]
    if seed.sum() < params.min_seed_inliers:
        return None
    homography, mask = cv2.findHomography(
        features.points_mm[train[seed, 0]], photo_all[query[seed]], cv2.USAC_MAGSAC, 3.0, confidence=0.999
    )
    if homography is None or mask is None or int(mask.sum()) < params.min_seed_inliers:
        return None
    # Guided matching: once a first homography is known, a photo feature's match is whichever of
    # its nearest few in appearance lands near it, which finds many that the ratio test threw away.
    cap = params.guided_max_distance if features.kind == "orb" else np.inf
    for _ in range(params.guided_rounds):
        predicted = project(cast(FloatArray, homography), features.points_mm[train.ravel()]).reshape(
            -1, params.guided_k, 2
        )
        gap = np.linalg.norm(predicted - photo_all[query][:, None, :], axis=2)
        near = (gap < params.guided_radius_px) & (distance < cap)
        has = near.any(axis=1)
        if has.sum() < params.min_inliers:
            break
        pick = np.argmax(near, axis=1)[has]
        refined, refined_mask = cv2.findHomography(
            features.points_mm[train[has, pick]],
            photo_all[query[has]],
            cv2.USAC_MAGSAC,
            2.0,
            confidence=0.999,
        )
        if refined is None or refined_mask is None or refined_mask.sum() < mask.sum():
            break
        homography, mask = refined, refined_mask
    inliers = int(mask.sum())
    if inliers < params.min_inliers:
        return None
    to_full = np.diag([1 / factor, 1 / factor, 1.0])
    return Located((to_full @ homography).astype(np.float64), inliers, int(seed.sum()))


def _check_plausible(
    located: Located, width: int, height: int, params: FeatureParams = FEATURE_PARAMS
) -> None:
    corners = located.corners_px()
    area = cv2.contourArea(corners.astype(np.float32))
    if not cv2.isContourConvex(corners.astype(np.float32)) or area <= 0:
        raise NoBoardError("no_board", "no board found: the matches do not make a board shape")
    if area < params.min_area_fraction * width * height:
        raise NoBoardError(
            "too_small",
            f"the board is too small in the photo ({100 * area / (width * height):.0f} % of it); "
            "come closer so that it fills at least a quarter of the frame",
        )
    outside = sides_beyond(corners, width, height, margin=0.01 * max(width, height))
    if outside:
        raise cut_off(outside)
    tilt = tilt_degrees(located.homography, width, height)
    if tilt > params.max_tilt_deg:
        raise NoBoardError(
            "too_tilted",
            f"the board is seen too much from the side (about {tilt:.0f} degrees); "
            "hold the phone more above it",
        )


def sides_beyond(points: FloatArray, width: int, height: int, margin: float = 0.0) -> list[str]:
    """The sides of a ``width`` x ``height`` photo beyond which any of ``points`` (photo pixels,
    ``(N, 2)``) lies by more than ``margin`` pixels.

    >>> sides_beyond(np.array([[-5.0, 10.0], [50.0, 130.0]]), 100, 120)
    ['left', 'bottom']
    """
    return [
        side
        for side, gone in (
            ("left", points[:, 0].min() < -margin),
            ("right", points[:, 0].max() > width + margin),
            ("top", points[:, 1].min() < -margin),
            ("bottom", points[:, 1].max() > height + margin),
        )
        if gone
    ]


def cut_off(sides: list[str]) -> NoBoardError:
    """The refusal of a photo that cuts the board off at ``sides`` (:func:`sides_beyond`)."""
    return NoBoardError(
        "cut_off", f"the board is cut off at the {' and '.join(sides)} of the photo; keep all of it in frame"
    )


def focal_length(homography: FloatArray, width: int, height: int) -> float:
    """The camera's focal length in pixels, from the board's perspective where it tells.

    A plane's homography ``K [r1 r2 t]`` has orthogonal first two columns once
    ``K`` is undone; with square pixels and the principal point at the centre
    that fixes ``f``. Seen nearly straight from above it is ill-conditioned, so
    a phone's usual 26 mm-equivalent lens stands in.
    """
    default = 0.8 * max(width, height)
    shift = np.array([[1, 0, -width / 2], [0, 1, -height / 2], [0, 0, 1]], dtype=np.float64)
    h = shift @ homography
    h = h / np.linalg.norm(h[:, 0])
    denominator = h[2, 0] * h[2, 1]
    if abs(denominator) < 1e-12:
        return default
    f2 = -(h[0, 0] * h[0, 1] + h[1, 0] * h[1, 1]) / denominator
    if not 0.25 * default**2 < f2 < 4 * default**2:
        return default
    return float(np.sqrt(f2))


@dataclass(frozen=True, eq=False)
class Camera:
    """A pinhole camera over the board.

    ``intrinsics`` is ``K``; ``rotation`` has the camera-space directions of the
    board's x, y and up as columns; ``translation`` is the face origin in camera space.
    """

    intrinsics: FloatArray
    rotation: FloatArray
    translation: FloatArray

    def project(self, points_mm: npt.ArrayLike) -> FloatArray:
        """Pixels of ``(N, 3)`` board points ``(x, y, height)``."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
        camera_space = pts @ self.rotation.T + self.translation
        pixels = camera_space @ self.intrinsics.T
        return pixels[:, :2] / pixels[:, 2:3]

    @property
    def tilt_degrees(self) -> float:
        """How far from straight above the board is seen."""
        up = self.rotation[:, 2]
        return float(np.degrees(np.arccos(min(1.0, abs(up[2]) / np.linalg.norm(up)))))


def camera_from_homography(homography: FloatArray, width: int, height: int) -> Camera:
    """The camera that sees the board face through ``homography`` (board mm to pixels)."""
    f = focal_length(homography, width, height)
    k = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]], dtype=np.float64)
    m = np.linalg.inv(k) @ homography
    scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    if m[2, 2] * scale < 0:  # the board lies in front of the camera
        scale = -scale
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    # Board y runs down the face, so "up" off the face is -(r1 x r2) in camera space.
    up = -np.cross(r1, r2)
    return Camera(k, np.c_[r1, r2, up / np.linalg.norm(up)], t)


def tilt_degrees(homography: FloatArray, width: int, height: int) -> float:
    """How far from straight above the board is seen, in degrees."""
    return camera_from_homography(homography, width, height).tilt_degrees
