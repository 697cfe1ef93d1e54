"""How long each stage of a scan took."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")


class Timer:
    """Milliseconds spent in each named stage, added up over the stage's runs (stages on several
    threads at once each count their own time)."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self._adding = threading.Lock()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            with self._adding:
                self.ms[name] = self.ms.get(name, 0.0) + 1000 * (time.perf_counter() - start)

    def run(self, name: str, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        with self.stage(name):
            return function(*args, **kwargs)
