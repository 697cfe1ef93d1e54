"""Work the locating stages share is done once, and what they find is what they found doing it twice."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from faces import photo_of_face
from renders import TuningPhoto

from calibration.profile import REFERENCE_GOLD, default_profile
from vision.geometry import CANONICAL, board_corners_mm
from vision.learn.improvise import improvise
from vision.learn.pieces import FACE_VIEW, TOKEN_TURNS_DEG, _outline
from vision.locate.features import FoundBy, project
from vision.locate.grid import (
    CROSSING_ARMS,
    CROSSINGS_MM,
    GOLD_MM,
    GRID_PARAMS,
    GRID_VIEW,
    GRID_WAYS,
    MAX_CANDIDATES,
    _cross_template,
    _grid_template,
    _onto_crossings,
    _same,
    circle_candidates,
    gold_candidates,
    gold_homographies,
    gold_map,
    gold_search,
    locate_by_grid,
    refine_on_grid,
    view_lines,
)
from vision.locate.register import face_patches, register
from vision.read.rectify import face_view

GOLD_BGR = np.array(REFERENCE_GOLD[::-1], float)


def _nudged(homography: np.ndarray, dx_px: float = 6.0, dy_px: float = -4.0) -> np.ndarray:
    return np.array([[1, 0, dx_px], [0, 1, dy_px], [0, 0, 1]], np.float64) @ homography


def test_the_crossings_from_lines_already_made_end_where_they_end_made_afresh(
    tuning_photo: TuningPhoto,
) -> None:
    photo, truth = tuning_photo(4)
    grey = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)
    start = _nudged(truth)
    given, given_count = _onto_crossings(grey, start, GRID_VIEW, lines=view_lines(grey, start, GRID_VIEW))
    fresh, fresh_count = _onto_crossings(grey, start, GRID_VIEW)
    assert given_count == fresh_count > 0
    assert np.array_equal(given, fresh)
    # And the refinement that hands its lines on still pulls a nudged board onto the grid.
    refined, crossings, _ = refine_on_grid(photo.image, start)
    assert crossings > 0
    corners = np.array([[0.0, 0.0], [200.0, 0.0], [200.0, 200.0]])
    gap = cv2.perspectiveTransform(corners[None], refined) - cv2.perspectiveTransform(corners[None], truth)
    assert np.abs(gap).max() < 3.0


def test_the_roundest_blobs_are_the_head_of_the_longer_list(tuning_photo: TuningPhoto) -> None:
    photo, _ = tuning_photo(4)
    seen = gold_map(photo.image, GOLD_BGR)
    few, few_scores = gold_candidates(seen)
    more, more_scores = gold_candidates(seen, keep=GRID_PARAMS.more_candidates)
    assert GRID_PARAMS.more_candidates >= MAX_CANDIDATES
    assert np.array_equal(few, more[:MAX_CANDIDATES])
    assert np.array_equal(few_scores, more_scores[:MAX_CANDIDATES])


def test_a_board_whose_blobs_are_searched_once_is_found_by_them(
    monkeypatch: pytest.MonkeyPatch, tuning_photo: TuningPhoto
) -> None:
    photo, truth = tuning_photo(4)
    searches: list[int] = []
    real = gold_candidates

    def counted(seen: object, keep: int = MAX_CANDIDATES) -> tuple[np.ndarray, np.ndarray]:
        searches.append(keep)
        return real(seen, keep=keep)  # type: ignore[arg-type]

    monkeypatch.setattr("vision.locate.grid.gold_candidates", counted)
    fit = locate_by_grid(photo.image, GOLD_BGR)
    assert fit is not None
    assert len(searches) == 1
    corners = np.array([[0.0, 0.0], [200.0, 0.0], [200.0, 200.0]])
    gap = cv2.perspectiveTransform(corners[None], fit.homography) - cv2.perspectiveTransform(
        corners[None], truth
    )
    assert np.abs(gap).max() < 5.0


def test_shared_templates_are_read_only_and_unchanged_by_use(tuning_photo: TuningPhoto) -> None:
    photo, _ = tuning_photo(4)
    assert locate_by_grid(photo.image, GOLD_BGR) is not None
    improvise(photo.image)
    for arms in set(CROSSING_ARMS):
        template = _cross_template(arms, GRID_VIEW)
        assert not template.flags.writeable
        assert np.array_equal(template, _cross_template.__wrapped__(arms, GRID_VIEW))
    assert np.array_equal(_grid_template(GRID_VIEW), _grid_template.__wrapped__(GRID_VIEW))
    for angle in TOKEN_TURNS_DEG:
        outline = _outline(angle, FACE_VIEW.px_per_mm)
        assert not outline.flags.writeable
        assert np.array_equal(outline, _outline.__wrapped__(angle, FACE_VIEW.px_per_mm))


def test_registering_again_against_the_same_face_registers_alike() -> None:
    profile = default_profile()
    face = face_view(profile, CANONICAL)
    truth = np.array([[8.0, 0.5, 180.0], [-0.4, 7.6, 140.0], [0.0002, 0.0004, 1.0]])
    image, truth = photo_of_face(truth)
    start = _nudged(truth, 3.0, 2.0)
    first = register(image, start, face)
    again = register(image, start, face)
    assert first.agreeing == again.agreeing > 0
    assert np.array_equal(first.homography, again.homography)
    # A copy of the face (another array, the same art) gives what the cached patches gave.
    copied = register(image, start, face.copy())
    assert np.array_equal(copied.homography, first.homography)
    detail, corners = face_patches(face.mean(axis=-1, dtype=np.float32))
    assert len(corners) > 0 and detail.shape == face.shape[:2]


@pytest.mark.parametrize(
    ("confirming_gold", "patience"),
    [(GRID_PARAMS.confirming_gold, GRID_PARAMS.patience), (9, GRID_PARAMS.patience), (9, 100)],
)
def test_a_crowded_board_with_its_gold_where_the_fit_puts_it_is_not_searched_further(
    monkeypatch: pytest.MonkeyPatch, tuning_photo: TuningPhoto, confirming_gold: int, patience: int
) -> None:
    photo, truth = tuning_photo(4)
    pulls: list[int] = []

    def crowded(image: np.ndarray, homography: np.ndarray, **options: object) -> tuple[np.ndarray, int, int]:
        refined, crossings, looked_for = refine_on_grid(image, homography, **options)  # type: ignore[arg-type]
        pulls.append(crossings)
        # Warriors and palisades hide the crossings: fewer show than would settle it alone.
        return refined, min(crossings, GRID_PARAMS.confirming_crossings - 1), looked_for

    monkeypatch.setattr("vision.locate.grid.refine_on_grid", crowded)
    params = replace(GRID_PARAMS, confirming_gold=confirming_gold, patience=patience)
    fit = locate_by_grid(photo.image, GOLD_BGR, params)
    assert fit is not None
    corners = np.array([[0.0, 0.0], [400.0, 0.0], [400.0, 265.0]])
    found, true = (cv2.perspectiveTransform(corners[None], h) for h in (fit.homography, truth))
    assert np.abs(found - true).max() < 5.0
    if confirming_gold <= 8:
        # Seven gold cells or more on tokens, and the grid agreeing: the first start settles it.
        assert fit.gold_hits >= confirming_gold and len(pulls) <= 2
    elif patience == GRID_PARAMS.patience:
        # Asking for more gold than there is, the next ways of laying it are tried, until a few
        # of them do no better than the first.
        assert 2 < len(pulls) <= 2 + patience
    else:
        # ...and without patience, every way is.
        assert len(pulls) > 2 + GRID_PARAMS.patience


def _gold_without_board() -> np.ndarray:
    """Gold tokens where a board's lie, and no board under them: every way of laying the gold is tried."""
    corners = np.array([[300.0, 250.0], [1300.0, 220.0], [1350.0, 900.0], [260.0, 930.0]])
    to_photo = cv2.getPerspectiveTransform(
        board_corners_mm().astype(np.float32), corners.astype(np.float32)
    ).astype(np.float64)
    image = np.full((1200, 1600, 3), 90, np.uint8)
    for centre in project(to_photo, GOLD_MM):
        cv2.circle(image, (round(centre[0]), round(centre[1])), 36, GOLD_BGR.tolist(), -1)
    return image


def test_a_start_is_pulled_onto_the_grid_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every way of laying the gold cells on the tokens is tried, and several ways find the same
    # layout on the same tokens.
    image = _gold_without_board()
    starts: list[np.ndarray] = []

    def failing(image: np.ndarray, homography: np.ndarray, **options: object) -> tuple[np.ndarray, int, int]:
        starts.append(homography)
        return homography, 0, len(CROSSINGS_MM)

    monkeypatch.setattr("vision.locate.grid.refine_on_grid", failing)
    assert locate_by_grid(image, GOLD_BGR) is None
    assert len(starts) > 1
    repeats = [
        (i, j)
        for i in range(len(starts))
        for j in range(i)
        if _same(starts[i], [starts[j]], GRID_PARAMS, within=GRID_PARAMS.same_start)[0]
    ]
    assert repeats == []


def test_a_wider_search_going_on_from_a_first_redoes_none_of_its_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A scan tries the gold's first layouts, and later, where nothing else placed the board, the
    # whole search of the same photo: that one finds the tokens, lays the gold and pulls the
    # first starts onto the grid once, and ends where a whole search alone ends.
    image = _gold_without_board()
    calls: list[str] = []
    real_circles, real_laying, real_refine = circle_candidates, gold_homographies, refine_on_grid

    def circles(seen: object) -> tuple[np.ndarray, np.ndarray]:
        calls.append("circles")
        return real_circles(seen)  # type: ignore[arg-type]

    def laying(candidates: np.ndarray, **options: object) -> list[tuple[np.ndarray, int]]:
        calls.append("lay")
        return real_laying(candidates, **options)  # type: ignore[arg-type]

    def pulling(image: np.ndarray, homography: np.ndarray, **options: object) -> tuple[np.ndarray, int, int]:
        calls.append("pull")
        return real_refine(image, homography, **options)  # type: ignore[arg-type]

    monkeypatch.setattr("vision.locate.grid.circle_candidates", circles)
    monkeypatch.setattr("vision.locate.grid.gold_homographies", laying)
    monkeypatch.setattr("vision.locate.grid.refine_on_grid", pulling)
    alone = locate_by_grid(image, GOLD_BGR)
    whole = list(calls)
    calls.clear()
    search = gold_search(image, GOLD_BGR)
    first = replace(GRID_PARAMS, gold_tries=3)
    assert locate_by_grid(image, GOLD_BGR, first, (FoundBy.GOLD,), search) is None
    assert 0 < calls.count("pull") <= 3 and "circles" in calls
    assert locate_by_grid(image, GOLD_BGR, GRID_PARAMS, GRID_WAYS, search) is alone is None
    assert sorted(calls) == sorted(whole)
    for laid in search.laid.values():
        with pytest.raises(ValueError, match="read-only"):
            laid[0][0][0, 0] = 0.0


def test_a_search_goes_on_only_where_it_began() -> None:
    image = _gold_without_board()
    search = gold_search(image, GOLD_BGR)
    with pytest.raises(ValueError, match="began"):
        locate_by_grid(image.copy(), GOLD_BGR, search=search)
    with pytest.raises(ValueError, match="began"):
        locate_by_grid(image, GOLD_BGR * 0.5, search=search)
    with pytest.raises(ValueError, match="began"):
        locate_by_grid(image, GOLD_BGR, replace(GRID_PARAMS, hit_radius=0.5), search=search)
