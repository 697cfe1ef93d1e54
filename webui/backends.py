"""What a server stands on: its store, its queue and its photos' folder, from options or the environment.

``armadora serve`` and ``armadora worker`` take ``--database``, ``--queue`` and ``--photos``; a WSGI
server (gunicorn, several processes: :mod:`webui.wsgi`) takes the same from ``ARMADORA_DATABASE``,
``ARMADORA_QUEUE`` and ``ARMADORA_PHOTOS``. None of them given: the embedded server, a SQLite file
in the data folder and jobs run in the request.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webui import db, taskqueue


class BackendError(Exception):
    """A store or queue that cannot be used: the message says which and why."""


@dataclass(frozen=True)
class Backends:
    data: Path | None = None
    database: str | None = None
    queue: str | None = None
    photos: Path | None = None

    def __post_init__(self) -> None:
        try:
            if self.database:
                db.check_url(self.database)
            if self.queue:
                taskqueue.check_url(self.queue)
        except ValueError as error:
            raise BackendError(str(error)) from None

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Backends:
        def path(name: str) -> Path | None:
            return Path(env[name]) if env.get(name) else None

        return cls(
            path("ARMADORA_DATA"),
            env.get("ARMADORA_DATABASE") or None,
            env.get("ARMADORA_QUEUE") or None,
            path("ARMADORA_PHOTOS"),
        )

    @property
    def scaled(self) -> bool:
        return bool(self.queue)

    def config(self) -> dict[str, Any]:
        """The app's configuration for these backends (:func:`webui.app.create_app`)."""
        config: dict[str, Any] = {}
        if self.data is not None:
            config["DATA_DIR"] = str(self.data)
        if self.database:
            config["DATABASE_URL"] = self.database
        if self.queue:
            config["QUEUE_URL"] = self.queue
        if self.photos is not None:
            config["UPLOADS"] = str(self.photos)
        return config

    def check_queue(self) -> None:
        """Reach the queue once, so that a wrong address is said at start rather than on the first photo."""
        if not self.queue:
            return
        celery = taskqueue.make_celery(self.queue)
        try:
            with celery.connection_for_write() as connection:
                connection.ensure_connection(max_retries=1, timeout=5)
        except Exception as error:
            raise BackendError(f"the queue at {self.queue} cannot be reached: {error}") from None


def make_app(backends: Backends, **more: Any) -> Any:
    """The app on these backends; BackendError when the store cannot be reached or made."""
    from webui.app import create_app

    try:
        return create_app({**backends.config(), **more})
    except Exception as error:
        if type(error).__module__.startswith("psycopg"):
            raise BackendError(f"the database at {backends.database} cannot be used: {error}") from None
        raise
