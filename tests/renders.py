"""Rendered photos cached for a whole test session (conftest.py's ``renders`` fixture).

The renderer is imported only when a photo is first asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from vision.load import Photo
    from vision.worlds.raster.render import RenderedPhoto

#: conftest.py's ``tuning_photo``: photo ``index`` of the tuning copies' set, loaded, with its true
#: homography from board millimetres to the loaded photo's pixels.
TuningPhoto = Callable[[int], "tuple[Photo, np.ndarray]"]


def _key(value: Any) -> Hashable:
    """A cache key for a renderer argument: a copy by its name, a list as a tuple."""
    if hasattr(value, "colours") and hasattr(value, "name"):  # a vision.worlds.raster.copies.Copy
        return ("copy", value.name)
    if isinstance(value, list | tuple):
        return tuple(_key(v) for v in value)
    return value


class Renders:
    """The renderer's functions, each photo rendered once: same arguments, same object."""

    def __init__(self) -> None:
        self._photos: dict[Hashable, RenderedPhoto] = {}

    def _once(self, render: Callable[..., RenderedPhoto], *args: Any, **options: Any) -> RenderedPhoto:
        key = (render.__name__, _key(args), tuple(sorted((k, _key(v)) for k, v in options.items())))
        if key not in self._photos:
            self._photos[key] = render(*args, **options)
        return self._photos[key]

    def photo(self, seed: int, **options: Any) -> RenderedPhoto:
        """:func:`vision.worlds.raster.render.render_photo`."""
        from vision.worlds.raster.render import render_photo

        return self._once(render_photo, seed, **options)

    def setup(self, seed: int, copy: Any, colours: Any = None, **options: Any) -> RenderedPhoto:
        """:func:`vision.worlds.raster.setup.render_setup`."""
        from vision.worlds.raster.setup import render_setup

        return self._once(render_setup, seed, copy, colours, **options)

    def in_set(self, set_name: str, index: int, **options: Any) -> RenderedPhoto:
        """:func:`vision.worlds.raster.dataset.render_in_set`."""
        from vision.worlds.raster.dataset import render_in_set

        return self._once(render_in_set, set_name, index, **options)
