"""The app for a WSGI server of several processes: ``gunicorn -w 4 'webui.wsgi:create()'``.

Its backends come from the environment (:meth:`webui.backends.Backends.from_env`), and players'
links from ``ARMADORA_PUBLIC_URL``. Each process makes its own app; none keeps anything the others
need (the store has the games and the session key, the queue the jobs, the folder the photos).
"""

from __future__ import annotations

import os
from typing import Any

from webui.backends import Backends, make_app


def create() -> Any:
    """The app as the environment describes it (a factory: importing this module makes nothing)."""
    return make_app(
        Backends.from_env(), PUBLIC_URL=os.environ.get("ARMADORA_PUBLIC_URL", "http://localhost/")
    )
