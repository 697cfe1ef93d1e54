"""A photo's independent pieces of work (its cells, its warriors' pictures) spread over a few threads.

OpenCV and most of numpy's work on arrays let go of Python's lock, so the threads work at once:
a phone at the table waits for one photo, and the machine reading it has cores to spare. Each
piece is worked out as it would be alone, and the results come back in the order given, so the
reading is the same, to the bit, on one thread or many.

>>> each(lambda n: n * n, range(5), workers=2)
[0, 1, 4, 9, 16]
>>> both(lambda: "filled", lambda: "grouped", workers=2)
('filled', 'grouped')
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: The environment variable that sets how many threads a photo's reading uses (1: none beside
#: the caller's), as ``armadora bench scan --threads`` does.
THREADS_ENV = "ARMADORA_SCAN_THREADS"
#: At most this many threads by default: a photo's cells are few, and each thread costs a start.
MOST_THREADS = 4


def threads() -> int:
    """How many threads a photo's reading uses: ``ARMADORA_SCAN_THREADS`` (:func:`chosen_threads`),
    else the cores this process may use, at most :data:`MOST_THREADS`."""
    chosen = chosen_threads()
    if chosen is not None:
        return chosen
    from engine.workers import cores  # its pool's imports, only where the cores are asked

    return max(1, min(MOST_THREADS, cores()))


def chosen_threads() -> int | None:
    """The threads ``ARMADORA_SCAN_THREADS`` asks for, or None where it is not set.

    Raises ValueError, saying what it must be, where it holds anything but a whole number from 1 up.
    """
    chosen = os.environ.get(THREADS_ENV, "").strip()
    if not chosen:
        return None
    if not chosen.isdigit() or int(chosen) < 1:
        raise ValueError(f"{THREADS_ENV} must be a whole number of threads, 1 or more, not {chosen!r}")
    return int(chosen)


def each(fn: Callable[[T], R], items: Iterable[T], workers: int | None = None) -> list[R]:
    """``[fn(item) for item in items]``, worked out on ``workers`` threads (:func:`threads` if None).

    ``fn`` must not change anything the other items' work reads. An error raised by any item is
    raised here, as the loop would raise it.
    """
    work = list(items)
    count = min(threads() if workers is None else workers, len(work))
    if count <= 1:
        return [fn(item) for item in work]
    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(fn, work))


def both(first: Callable[[], T], second: Callable[[], R], workers: int | None = None) -> tuple[T, R]:
    """``(first(), second())``, ``first`` worked out on a thread of its own while ``second`` is on
    this one, unless :func:`threads` (or ``workers``) is 1.

    Neither may change anything the other reads. An error raised by either is raised here.
    """
    if (threads() if workers is None else workers) <= 1:
        return first(), second()
    with ThreadPoolExecutor(1) as pool:
        started = pool.submit(first)
        other = second()
        return started.result(), other
