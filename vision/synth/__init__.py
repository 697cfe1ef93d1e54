"""Synthetic photos of the board with ground truth, for the scanner's tests and benchmark.

:func:`render_photo` paints one photo from a seed (a 3-D board seen by a
pinhole camera, with pieces, light, table and clutter) and encodes it as a
phone would; :func:`write_set` writes numbered photos and their truth JSON.

>>> photo = render_photo(7, size=(400, 300))
>>> photo.suffix, photo.truth["board"], len(photo.truth["render"]["corners_px"])
('.jpg', True, 4)
"""

from vision.synth.conditions import Conditions
from vision.synth.dataset import SAMPLE_SPECS, SET_SEEDS, render_in_set, render_sample, set_seed, write_set
from vision.synth.render import RenderedPhoto, render_photo

__all__ = [
    "SAMPLE_SPECS",
    "SET_SEEDS",
    "Conditions",
    "RenderedPhoto",
    "render_in_set",
    "render_photo",
    "render_sample",
    "set_seed",
    "write_set",
]
