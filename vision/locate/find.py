"""Find the board in a photo, the cheap ways first, and see it from above: by its art's
features, by its gold and grid, and for a copy without a profile with looks improvised from the
photo."""

from __future__ import annotations

from collections.abc import Collection
from contextlib import suppress
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from vision.colour import rgb_to_bgr_float
from vision.geometry import CANONICAL
from vision.learn.improvise import improvise
from vision.locate.features import SEARCH_ATTEMPTS, FoundBy, Located, NoBoardError, locate
from vision.locate.grid import (
    GRID_PARAMS,
    GRID_WAYS,
    GoldSearch,
    GridFit,
    GridParams,
    gold_search,
    locate_by_grid,
    refine_on_grid,
)
from vision.locate.lattice import gold_twins, nearby_moves
from vision.locate.register import Registration, art_match, art_matches, register
from vision.looks import REFERENCE_GOLD, Looks, reference_looks
from vision.parallel import each
from vision.params import SCAN_PARAMS, ScanParams
from vision.read.numerals import numerals_shown
from vision.read.rectify import face_view
from vision.read.view import BoardView, seen_from_above
from vision.timing import Timer

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]


def board_view(
    image: Image,
    profile: Looks,
    timer: Timer | None = None,
    found: Located | None = None,
    params: ScanParams = SCAN_PARAMS,
) -> BoardView:
    """Locate the board in an upright BGR photo (unless ``found`` says where it is), rectify it and
    balance its light."""
    timer = timer or Timer()
    face = face_view(profile, CANONICAL)
    if found is not None:
        return seen_from_above(image, profile, found, face, timer, params)
    found, registration = _found_by_features(image, profile, face, timer, params)
    return _registered_view(image, profile, found, registration, face, timer, params)


def _found_by_features(
    image: Image,
    profile: Looks,
    face: npt.NDArray[np.float32],
    timer: Timer,
    params: ScanParams,
    attempts: int = len(SEARCH_ATTEMPTS),
    first_attempt: int = 0,
) -> tuple[Located, Registration]:
    """The board found by the features of ``profile``'s art, by :data:`SEARCH_ATTEMPTS` from
    ``first_attempt`` to at most ``attempts``, and how the art registered there."""
    found = timer.run("locate", locate, image, profile, first_attempt, attempts=attempts)
    registration = timer.run("register", register, image, found.homography, face, CANONICAL, params.register)
    # Few patches of art agreeing on where the board is means the features matched badly (a hand,
    # a steep view of a finished game): the later, slower attempts may find it better.
    attempt = found.attempt
    while registration.agreeing < params.confident_patches and attempt + 1 < attempts:
        try:
            again = timer.run("locate", locate, image, profile, attempt + 1, attempts=attempts)
        except NoBoardError:
            break
        attempt = again.attempt
        second = timer.run("register", register, image, again.homography, face, CANONICAL, params.register)
        if second.agreeing > registration.agreeing:
            found, registration = again, second
    return found, registration


def _registered_view(
    image: Image,
    profile: Looks,
    found: Located,
    registration: Registration,
    face: npt.NDArray[np.float32],
    timer: Timer,
    params: ScanParams,
) -> BoardView:
    settled = replace(found, homography=registration.homography)
    seen = seen_from_above(image, profile, settled, face, timer, params, registration.warp)
    return replace(seen, agreeing=registration.agreeing)


def find_board(
    image: Image, profile: Looks | None, timer: Timer, params: ScanParams
) -> tuple[BoardView, Looks, bool]:
    """The board view, the profile it was seen with, and whether that was improvised.

    The cheap ways first: the art's fast features, else the gold laid on its first few layouts and
    confirmed by the grid (:func:`_cheap_look`), which find any copy's board, and whether the art
    lies there. Then the slow features; only where they too fail to place the board surely, the
    whole search of the gold and grid, its lines and the outline, which costs seconds where it
    finds nothing. With no profile given, the reference kit's is looked for; a board found by its
    gold and grid whose art is not the reference kit's is another copy, read with a profile
    improvised from the photo (:mod:`vision.learn.improvise`).
    """
    looks = profile or reference_looks()
    face = face_view(looks, CANONICAL)
    first_gold = replace(GRID_PARAMS, gold_tries=params.first_gold_tries)
    cheap = _cheap_look(image, looks, face, timer, params, first_gold, (FoundBy.GOLD,))
    seen = _seen_on_grid(image, profile, looks, cheap, face, timer, params)
    if seen is not None:
        return seen
    slow: tuple[Located, Registration] | None = None
    refusal: NoBoardError | None = None
    try:
        slow = _found_by_features(image, looks, face, timer, params, first_attempt=1)
    except NoBoardError as error:
        refusal = error
    if cheap.fit is None and (slow is None or slow[1].agreeing < params.confident_patches):
        cheap = _grid_look(image, cheap.placed, face, timer, params, GRID_PARAMS, GRID_WAYS, cheap.search)
        seen = _seen_on_grid(image, profile, looks, cheap, face, timer, params)
        if seen is not None:
            return seen
    # Nothing placed the board surely: the better placement of those made.
    found = max((f for f in (cheap.placed, slow) if f is not None), key=lambda f: f[1].agreeing, default=None)
    if found is None:
        raise refusal or NoBoardError("no_board", "no board found: nothing in the photo looks like the board")
    return _registered_view(image, looks, *found, face, timer, params), looks, False


def _seen_on_grid(
    image: Image,
    profile: Looks | None,
    looks: Looks,
    cheap: _CheapLook,
    face: npt.NDArray[np.float32],
    timer: Timer,
    params: ScanParams,
) -> tuple[BoardView, Looks, bool] | None:
    """The board where ``cheap`` placed it with the looks' art lying there; or, with no profile
    given, where the gold and grid found another copy, read in its own colours; else None."""
    if cheap.art_matches and cheap.placed is not None:
        return _registered_view(image, looks, *cheap.placed, face, timer, params), looks, False
    if profile is None and cheap.fit is not None:
        # The reference art does not lie on this board: another copy, read in its own colours.
        seen = improvised_view(image, timer, params, cheap.fit)
        if seen is not None:
            return (*seen, True)
    return None


def improvised_only(image: Image, timer: Timer, params: ScanParams) -> tuple[BoardView, Looks]:
    """The board found by its gold and grid and seen with looks improvised from the photo, whatever
    its kit; :class:`NoBoardError` where the gold and grid find none."""
    seen = improvised_view(image, timer, params)
    if seen is None:
        raise NoBoardError("no_board", "no board found by its gold and grid")
    return seen


def reference_view(image: Image, params: ScanParams = SCAN_PARAMS) -> BoardView | None:
    """The board as :func:`vision.scan.scan_image` sees it in an upright BGR photo with no profile
    given, where it takes it for the reference kit; None where it takes it for another copy.

    The fit reads its tuning photos this way, so that the readers learn the views the scan gives
    them: found by the art's features, or by the gold and grid where those fail (glare, a steep view).
    Raises :class:`vision.locate.features.NoBoardError` where no board is found.
    """
    view, _, unknown = find_board(image, None, Timer(), params)
    return None if unknown else view


@dataclass(frozen=True, eq=False)
class _CheapLook:
    """What the quick ways of finding a board found: the best placement and how the art registered
    there, the gold-and-grid fit if one was made, and whether the looks' art lies there."""

    placed: tuple[Located, Registration] | None
    fit: GridFit | None
    art_matches: bool
    #: The search of the gold and grid, where one began: a wider one goes on from it.
    search: GoldSearch | None = None


def _cheap_look(
    image: Image,
    looks: Looks,
    face: npt.NDArray[np.float32],
    timer: Timer,
    params: ScanParams,
    grid: GridParams,
    ways: Collection[FoundBy],
) -> _CheapLook:
    """The fast features of ``looks``' art (:data:`SEARCH_ATTEMPTS`' first) and, unless they place
    the board surely, its gold and grid by ``ways`` (:func:`_grid_look`)."""
    quick: tuple[Located, Registration] | None = None
    with suppress(NoBoardError):
        quick = _found_by_features(image, looks, face, timer, params, attempts=1)
    if quick is not None and quick[1].agreeing >= params.confident_patches:
        return _CheapLook(quick, None, True)
    if quick is not None:
        confirmed = _confirmed_on_grid(image, quick, face, timer, params)
        if confirmed is not None:
            return _CheapLook(confirmed, None, True)
    return _grid_look(image, quick, face, timer, params, grid, ways)


def _grid_look(
    image: Image,
    placed: tuple[Located, Registration] | None,
    face: npt.NDArray[np.float32],
    timer: Timer,
    params: ScanParams,
    grid: GridParams,
    ways: Collection[FoundBy],
    search: GoldSearch | None = None,
) -> _CheapLook:
    """The board found by its gold and grid (:func:`vision.locate.grid.locate_by_grid` by
    ``ways``, going on from ``search`` where an earlier look began one), the better placed of that
    and ``placed``, and whether the face's art lies there (:func:`vision.locate.register.art_match`):
    a board found by the grid and not matching would not be found by the slower features either."""
    gold = rgb_to_bgr_float(REFERENCE_GOLD) * 255
    with timer.stage("locate"):
        search = search or gold_search(image, gold, grid)
        fit = locate_by_grid(image, gold, grid, ways, search)
    if fit is None:
        return _CheapLook(placed, None, False, search)
    best, art = _better_placed(image, placed, grid_located(fit), face, timer, params)
    twin = art_twin(image, fit, face, params, timer) if art < params.art_match_margin else None
    if twin is not None:
        fit = twin
        best, art = _better_placed(image, placed, grid_located(fit), face, timer, params)
    return _CheapLook(best, fit, art >= params.art_match_margin, search)


def art_twin(
    image: Image,
    fit: GridFit,
    face: npt.NDArray[np.float32],
    params: ScanParams = SCAN_PARAMS,
    timer: Timer | None = None,
) -> GridFit | None:
    """The grid fit moved to the place its gold can hardly tell from its own
    (:func:`vision.locate.lattice.gold_twins`) where the looks' art lies, or None.

    Where the grid's lines hardly show (a late game, glare), a board turned half round and two
    columns along still has six of its eight gold cells on gold: the art inside the cells is the
    one sign left, and without this the board would be taken for another copy.
    """
    with (timer or Timer()).stage("register"):
        moved = [fit.homography @ move for move in gold_twins()]
        arts = art_matches(image, moved, face, CANONICAL, params.art, params.register)
    best = int(np.argmax(arts))
    if arts[best] < params.art_match_margin:
        return None
    return replace(fit, homography=moved[best], found_by=FoundBy.ART_ON_GRID)


def _better_placed(
    image: Image,
    quick: tuple[Located, Registration] | None,
    other: Located,
    face: npt.NDArray[np.float32],
    timer: Timer,
    params: ScanParams,
) -> tuple[tuple[Located, Registration], float]:
    """``other`` registered on the face, or the fast features' placement ``quick`` where more of
    its patches agree; and how well the looks' art lies there
    (:func:`vision.locate.register.art_match`)."""
    on_other = timer.run("register", register, image, other.homography, face, CANONICAL, params.register)
    best = (other, on_other)
    if quick is not None and quick[1].agreeing > on_other.agreeing:
        best = quick
    with timer.stage("register"):
        art = art_match(image, best[1].homography, face, CANONICAL, params.art, params.register)
    return best, art


def _confirmed_on_grid(
    image: Image,
    quick: tuple[Located, Registration],
    face: npt.NDArray[np.float32],
    timer: Timer,
    params: ScanParams,
) -> tuple[Located, Registration] | None:
    """The fast features' placement pulled onto the printed grid's crossings, where the grid
    confirms it and the looks' art lies there (:func:`vision.locate.register.art_match`), or None.

    One pull onto the grid costs what one of the gold search's many starts does: where the
    features placed the board roughly but not surely (glare, blur, a steep view), it saves the
    search. A placement a whole cell off can lock onto the grid too, but not onto the art.
    """
    refined, crossings, _ = timer.run("locate", refine_on_grid, image, quick[0].homography)
    if crossings < GRID_PARAMS.confirming_crossings:
        return None
    best, art = _better_placed(image, quick, replace(quick[0], homography=refined), face, timer, params)
    return best if art >= params.art_match_margin else None


def improvised_view(
    image: Image, timer: Timer | None = None, params: ScanParams = SCAN_PARAMS, fit: GridFit | None = None
) -> tuple[BoardView, Looks] | None:
    """The board found by its gold and grid (``fit``, where found already), seen with a profile
    improvised from the photo (:func:`vision.learn.improvise.improvise`), or None."""
    timer = timer or Timer()
    improvised = timer.run("locate", improvise, image, params=params.improvise, fit=fit)
    if improvised is None:
        return None
    view = board_view(image, improvised.profile, timer, grid_located(improvised.fit), params)
    return view, improvised.profile


def placed_by_numerals(
    image: Image, located: Located, gold_sure: float, timer: Timer, params: ScanParams = SCAN_PARAMS
) -> tuple[BoardView, Looks] | None:
    """The board found without a profile where ``located`` put it, seen again a few whole cells along
    or turned half round (:func:`vision.locate.lattice.nearby_moves`) where the gold's numerals read
    far more surely there (:func:`vision.read.numerals.numerals_shown`), with looks improvised anew;
    None where its place stands.

    ``gold_sure`` is how surely the gold's values read where it lies (their mean confidence): at
    :attr:`vision.learn.improvise.ImproviseParams.placed_surely` or more, the place stands unlooked.
    A copy's art with round shapes of the gold's colour can hold the gold search a half turn or
    cells off, every grid line on a line; only the gold's numerals tell the board's own place.
    """
    placing = params.improvise
    if gold_sure >= placing.placed_surely:
        return None
    # Where it lies first, on the threads with the others.
    places = [located.homography, *(located.homography @ move for move in nearby_moves())]
    with timer.stage("numerals"):
        shown = each(lambda homography: numerals_shown(image, homography, params.numerals), places)
    best = 1 + int(np.argmax(shown[1:]))
    if shown[best] < shown[0] + placing.better_placed:
        return None
    # The improvised looks are read off the board where it lies: made again there.
    fit = GridFit(
        places[best], 0, np.empty((0, 2)), np.empty(0), located.inliers, located.matches, located.found_by
    )
    return improvised_view(image, timer, params, fit)


def grid_located(fit: GridFit) -> Located:
    """A board found by its gold and grid (:func:`vision.locate.grid.locate_by_grid`), as the locate stage
    reports one: its crossings agreeing out of those looked for."""
    return Located(fit.homography, fit.crossings, fit.looked_for, found_by=fit.found_by)
