"""Bounds on what one client address or one game may ask of the server, and on its disk.

Each limit is a number of requests in a window of seconds, counted per key (a
client's address, a game), in this process's memory, or in Redis (the queue's) for a
scaled server, whose web processes count together (:class:`RedisCounter`): set where no real table
reaches them (a table makes one game an evening and a photo a minute at most),
well under a burst of 200 new games from one address. ``RATE_LIMITS`` in the
configuration changes them (a name mapped to ``None`` turns one off).

The disk budget (``DISK_BUDGET_MB``) bounds the data folder: a photo that would
take it past the budget is refused with a sentence, and nothing is written.
"""

from __future__ import annotations

import logging
import math
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from flask import current_app

from webui.photos import InputError


@dataclass(frozen=True)
class Limit:
    count: int
    seconds: float
    what: str  # what is counted, for the sentence: "new games from this address"


#: The default limits, by name.
RATE_LIMITS: dict[str, Limit | None] = {
    "games_per_address": Limit(30, 3600, "new games from this address"),
    "scans_per_address": Limit(300, 600, "photos sent from this address"),
    "photos_per_game": Limit(60, 600, "photos sent to this game"),
}
#: The data folder's default size limit, database and photos together.
DISK_BUDGET_MB = 5_000


class TooMany(InputError):
    """A limit reached: a 429, with how long to wait (``retry_after`` seconds)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message, 429)
        self.retry_after = retry_after


log = logging.getLogger(__name__)


class Counts(Protocol):
    def clock(self) -> float: ...

    def hit(self, name: str, key: str, limit: Limit, now: float) -> float: ...


class Counter:
    """The times of the requests each key made within its limit's window (thread-safe)."""

    clock = staticmethod(time.monotonic)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, str], deque[float]] = {}

    def hit(self, name: str, key: str, limit: Limit, now: float) -> float:
        """Count one request; 0 when it is within the limit, else the seconds until it would be."""
        with self._lock:
            times = self._seen.setdefault((name, key), deque())
            while times and times[0] <= now - limit.seconds:
                times.popleft()
            if len(times) >= limit.count:
                return times[0] + limit.seconds - now
            times.append(now)
            if len(self._seen) > 100_000:  # forget keys whose window is empty
                self._seen = {k: v for k, v in self._seen.items() if v}
            return 0.0


#: One request counted in Redis, at once for every web process: the window's old times dropped, the
#: count compared, this time added; the seconds to wait, or "0".
_HIT_SCRIPT = """
local key, now, window, count = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if redis.call('ZCARD', key) >= count then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return tostring(tonumber(oldest[2]) + window - now)
end
redis.call('ZADD', key, now, ARGV[4])
redis.call('EXPIRE', key, math.ceil(window))
return '0'
"""


class RedisCounter:
    """The same counts in Redis, shared by the web processes of a scaled server (on every machine:
    the clock is the wall's)."""

    clock = staticmethod(time.time)

    def __init__(self, url: str) -> None:
        import redis  # with the ``scale`` extra, as Celery's Redis transport

        self.client: Any = redis.Redis.from_url(url, socket_timeout=2)
        self.script = self.client.register_script(_HIT_SCRIPT)

    def hit(self, name: str, key: str, limit: Limit, now: float) -> float:
        try:
            wait = self.script(
                keys=[f"armadora:rate:{name}:{key}"],
                args=[now, limit.seconds, limit.count, secrets.token_hex(8)],
            )
        except Exception as error:  # redis's errors: a limit unknown for a moment lets the request by
            log.warning("rate limit %s not counted: Redis: %s", name, error)
            return 0.0
        return float(wait)


def counter() -> Counts:
    """This app's counts: in Redis when it has a queue there, else in this process."""
    found: Counts | None = current_app.extensions.get("armadora_rates")
    if found is None:
        url = current_app.config.get("QUEUE_URL")
        found = RedisCounter(url) if url else Counter()
        current_app.extensions["armadora_rates"] = found
    return found


def check_rate(name: str, key: str) -> None:
    """Count a request of kind ``name`` from ``key``; :class:`TooMany` past its limit."""
    limits = {**RATE_LIMITS, **current_app.config.get("RATE_LIMITS", {})}
    limit = limits.get(name)
    if limit is None:
        return
    counts = counter()
    wait = counts.hit(name, key, limit, counts.clock())
    if wait:
        minutes = max(1, math.ceil(wait / 60))
        raise TooMany(
            f"too many {limit.what}: at most {limit.count} in {format_window(limit.seconds)}; "
            f"try again in {minutes} minute{'s' if minutes > 1 else ''}",
            math.ceil(wait),
        )


def format_window(seconds: float) -> str:
    """A window of time as the sentences say it.

    >>> format_window(3600), format_window(600)
    ('an hour', '10 minutes')
    """
    return "an hour" if seconds == 3600 else f"{round(seconds / 60)} minutes"


def folder_bytes(folder: Path) -> int:
    """The bytes of the files under ``folder``."""
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def check_disk(incoming: int) -> None:
    """InputError (507) when ``incoming`` more bytes would take the data folder and the photos' folder
    past their budget."""
    budget_mb = current_app.config.get("DISK_BUDGET_MB", DISK_BUDGET_MB)
    if budget_mb is None:
        return
    data, uploads = Path(current_app.config["DATA_DIR"]), Path(current_app.config["UPLOADS"])
    used = folder_bytes(data)
    if not uploads.resolve().is_relative_to(data.resolve()):
        used += folder_bytes(uploads)  # a shared photos' folder (--photos) counts as well
    if used + incoming > budget_mb * 1024 * 1024:
        raise InputError(
            f"the server's storage is full (its budget is {budget_mb} MB): no more photos can be kept "
            "until whoever runs it removes old games (armadora admin prune)",
            507,
        )
