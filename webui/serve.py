"""Serving the app under waitress, and the address a phone should open."""

from __future__ import annotations

import logging
import socket
import sys
from pathlib import Path
from typing import Any

from waitress.server import create_server  # type: ignore[import-untyped]

from engine.search import prepare
from webui.backends import BackendError, Backends, make_app

#: Threads answering requests: scans are mostly OpenCV and numpy, which let other threads run.
THREADS = 4


def lan_address() -> str:
    """This machine's address on its local network (the one its default route leaves by).

    No packet is sent: connecting a UDP socket only picks the route.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere real
            return str(probe.getsockname()[0])
        except OSError:
            return socket.gethostbyname(socket.gethostname())


def address_to_open(host: str, port: int) -> str:
    """The address to type on a phone: the LAN address when listening on every interface."""
    shown = lan_address() if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def make_server(
    host: str,
    port: int,
    data: Path | None,
    threads: int = THREADS,
    public_url: str | None = None,
    backends: Backends | None = None,
    app: Any = None,
) -> Any:
    """A waitress server for the app, bound (port 0 picks a free one) but not yet running; on the
    embedded store in ``data`` unless ``backends`` say otherwise (or for ``app``, made already).

    Players' links are made from ``public_url``, by default the address a phone should open."""
    app = app or make_app(backends or Backends(data))
    # Flask refuses a body over MAX_CONTENT_LENGTH with a sentence; waitress's own, larger limit only
    # stops a body too large to be worth reading at all.
    server = create_server(
        app, host=host, port=port, threads=threads, max_request_body_size=4 * app.config["MAX_CONTENT_LENGTH"]
    )
    app.config["PUBLIC_URL"] = server.public_url = public_url or address_to_open(host, server.effective_port)
    return server


def serve(host: str, port: int, backends: Backends, public_url: str | None = None) -> int:
    """Run until interrupted, after printing the address to open."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        backends.check_queue()
        server = make_server(host, port, backends.data, public_url=public_url, backends=backends)
    except BackendError as error:
        print(f"armadora serve: {error}", file=sys.stderr)
        return 1
    prepare()  # compile the search's kernel now, not on the first suggestion
    if backends.scaled:
        print(f"Photos are read by the workers of the queue {backends.queue}", flush=True)
    print(f"Armadöra table companion: open {server.public_url}", flush=True)
    try:
        server.run()
    finally:
        server.close()
    return 0
