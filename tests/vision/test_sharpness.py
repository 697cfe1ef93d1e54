"""The face blurred as the photo is: measured on the photo itself, place by place."""

from __future__ import annotations

import cv2
import numpy as np

from engine.board import CELLS
from vision.geometry import CANONICAL
from vision.looks import reference_looks
from vision.read.rectify import face_view
from vision.read.sharpness import blur_plane, cell_blurs, face_details, looks_details, matched_face
from vision.read.slots import line_signs


def _blurred_towards_the_right(face: np.ndarray, most_mm: float) -> np.ndarray:
    """``face`` blurred more and more from its left edge (sharp) to its right (``most_mm``), as a
    steep photo's depth of field blurs its far end."""
    width = face.shape[1]
    levels = np.linspace(0.0, most_mm, 6)
    blurred = [face if s == 0 else cv2.GaussianBlur(face, (0, 0), s * CANONICAL.px_per_mm) for s in levels]
    column = np.minimum((np.arange(width) / width * len(levels)).astype(int), len(levels) - 1)
    return np.stack([blurred[band][:, x] for x, band in enumerate(column)], axis=1)


def test_the_blur_is_read_cell_by_cell_and_grows_where_the_photo_is_softer() -> None:
    face = face_view(reference_looks())
    photo = _blurred_towards_the_right(face, 1.5)
    blurs, matches = cell_blurs(photo, face)
    left = [c.number for c in CELLS if c.col == 0]
    right = [c.number for c in CELLS if c.col == 7]
    assert blurs[left].max() <= 0.25 and blurs[right].min() >= 1.0
    _, b, c = blur_plane(blurs, matches)
    assert b > 0.003 and abs(c) < 0.002


def test_the_matched_face_is_nearer_a_soft_photo_than_the_sharp_face_and_a_sharp_photo_keeps_it() -> None:
    face = face_view(reference_looks())
    photo = _blurred_towards_the_right(face, 1.5)
    matched, _ = matched_face(photo, face)
    assert np.abs(matched - photo).mean() < 0.5 * np.abs(face - photo).mean()
    same, plane = matched_face(face, face)
    assert np.array_equal(same, face) and plane[0] < 0.1


def test_a_soft_photos_printed_lines_show_against_the_matched_face() -> None:
    # A blurred line no longer correlates with the face's sharp one, and reads as something covering
    # it; against the face blurred as the photo is, it shows again.
    face = face_view(reference_looks())
    photo = cv2.GaussianBlur(face, (0, 0), 2.0 * CANONICAL.px_per_mm)
    shows, narrow, *_ = line_signs(photo, face, CANONICAL)
    shows_matched, narrow_matched, *_ = line_signs(photo, matched_face(photo, face)[0], CANONICAL)
    assert shows_matched.mean() > 0.99 > 0.9 > shows.mean()
    assert narrow_matched.mean() > narrow.mean() + 0.3


def test_the_face_details_made_once_for_a_profile_match_as_those_made_for_each_photo() -> None:
    face = face_view(reference_looks())
    photo = _blurred_towards_the_right(face, 1.5)
    details = looks_details(reference_looks())
    assert looks_details(reference_looks()) is details
    once, plane_once = matched_face(photo, face, details=details)
    each, plane_each = matched_face(photo, face)
    assert plane_once == plane_each and np.array_equal(once, each)
    # What the cache holds is shared by every scan with the profile: it cannot be written to.
    assert not any(level.flags.writeable for level in details)


def test_the_face_details_fade_as_the_blur_grows() -> None:
    details = face_details(face_view(reference_looks()))
    spread = [float(np.abs(level).mean()) for level in details]
    assert len(details) == 7 and spread == sorted(spread, reverse=True)
