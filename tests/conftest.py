"""Shared test set-up: the session's rendered photos, and the ``slow`` marker.

Its folder goes on sys.path, so tests in subfolders import the helpers here (console.py,
faces.py, positions.py, reference.py) as plain modules.

The renderer takes seconds for a full-size photo, and several test files use the same ones:
the fixtures below render each photo once a session and hand every test the same object
(treat it as read-only). The renderer is imported only when a test first asks for a photo,
so the engine's tests never load numpy or OpenCV.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from renders import Renders, TuningPhoto

from engine.kernel import BACKENDS, Kernel, load

if TYPE_CHECKING:
    import numpy as np

    from vision.load import Photo

ROOT = Path(__file__).resolve().parent.parent
# Files that take their time as a whole but are not ours to edit; marked here instead.
SLOW_FILES = {"tests/webui/test_web_browser.py"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.relative_to(ROOT).as_posix() in SLOW_FILES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def renders() -> Renders:
    return Renders()


@pytest.fixture(scope="session")
def tuning_photo(renders: Renders) -> TuningPhoto:
    """Photo ``index`` of the tuning copies' set at 3200 x 2400, loaded, and its true homography
    from board millimetres to the loaded photo's pixels."""
    import cv2
    import numpy as np

    from vision.geometry import board_corners_mm
    from vision.load import load_photo

    loaded: dict[int, tuple[Photo, np.ndarray]] = {}

    def photo(index: int) -> tuple[Photo, np.ndarray]:
        if index not in loaded:
            rendered = renders.in_set("copies-tuning", index, size=(3200, 2400))
            image = load_photo(rendered.data)
            corners = np.array(rendered.truth["render"]["corners_px"]) * image.scale
            truth, _ = cv2.findHomography(board_corners_mm(), corners)
            loaded[index] = image, np.asarray(truth, np.float64)
        return loaded[index]

    return photo


@pytest.fixture(params=BACKENDS)
def kernel(request: pytest.FixtureRequest) -> Kernel:
    """Each backend of the search kernel in turn (numba skipped where it is not installed)."""
    if request.param == "numba":
        pytest.importorskip("numba")
    return load(request.param)
