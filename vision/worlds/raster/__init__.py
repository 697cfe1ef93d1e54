"""Synthetic photos of the board with ground truth, for the scanner's tests and benchmark.

:func:`render_photo` paints one photo from a seed (a 3-D board seen by a
pinhole camera, with pieces, light, table and clutter) and encodes it as a
phone would; :func:`write_set` writes numbered photos and their truth JSON.
A :class:`Copy` is one copy of the game's look (board art, token colours,
emblems): the reference kit by default, or one of :data:`TUNING_COPIES` and
:data:`TEST_COPIES`; :func:`render_setup` paints a copy's calibration setup.

>>> photo = render_photo(7, size=(400, 300))
>>> photo.suffix, photo.truth["board"], len(photo.truth["render"]["corners_px"])
('.jpg', True, 4)
"""

from vision.worlds.raster.conditions import Conditions
from vision.worlds.raster.copies import (
    REFERENCE_COPY,
    TEST_COPIES,
    TUNING_COPIES,
    Copy,
    copy_named,
    make_copy,
)
from vision.worlds.raster.dataset import (
    COPY_SETS,
    SAMPLE_SPECS,
    SET_SEEDS,
    render_in_set,
    render_sample,
    set_seed,
    setup_seed,
    write_set,
    write_setup,
)
from vision.worlds.raster.render import RenderedPhoto, render_photo
from vision.worlds.raster.setup import SETUP_CORNERS, render_setup

__all__ = [
    "COPY_SETS",
    "REFERENCE_COPY",
    "SAMPLE_SPECS",
    "SETUP_CORNERS",
    "SET_SEEDS",
    "TEST_COPIES",
    "TUNING_COPIES",
    "Conditions",
    "Copy",
    "RenderedPhoto",
    "copy_named",
    "make_copy",
    "render_in_set",
    "render_photo",
    "render_sample",
    "render_setup",
    "set_seed",
    "setup_seed",
    "write_set",
    "write_setup",
]
