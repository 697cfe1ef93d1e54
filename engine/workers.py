"""Worker processes that outlive one request: root-parallel search and arena games on every core.

The pool forks after the kernel is compiled, so its workers start warm; where fork
is not available they warm up on start instead.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.pool import Pool
from types import TracebackType
from typing import Any, TypeVar

from engine.search import prepare

T = TypeVar("T")


def cores() -> int:
    """The cores this process may use.

    >>> cores() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Workers:
    """A pool of ``processes`` warm workers; ``with Workers(2) as w: w.starmap(f, jobs)``."""

    def __init__(self, processes: int, kernel: str | None = None) -> None:
        self.processes = processes
        prepare(kernel)
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self._pool: Pool = context.Pool(processes, initializer=prepare, initargs=(kernel,))

    def starmap(self, fn: Callable[..., T], jobs: Iterable[tuple[Any, ...]]) -> list[T]:
        return self._pool.starmap(fn, jobs)

    def imap_unordered(self, fn: Callable[[Any], T], jobs: Iterable[Any]) -> Iterator[T]:
        return self._pool.imap_unordered(fn, jobs)

    def close(self) -> None:
        self._pool.terminate()
        self._pool.join()

    def __enter__(self) -> Workers:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
