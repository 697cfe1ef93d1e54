"""The web page's subcommands of ``armadora``: ``serve`` and ``bench serve``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    """Add ``serve`` to an ``argparse`` subparsers object."""
    summary = "serve the phone page (waitress): new game, photos, review, values, score"
    parser = subparsers.add_parser("serve", help=summary, description=summary)
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on; 0.0.0.0 lets phones on the network join"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument(
        "--data",
        type=Path,
        metavar="DIR",
        help="folder for the database and the photos (default: the Flask instance folder)",
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        help="the address players' links start with, as phones reach the server (behind a proxy, say); "
        "default: the address printed at start",
    )
    parser.set_defaults(run=_run_serve)


def register_bench(bench_subparsers: Any) -> None:
    """Add ``serve`` to the subparsers of ``armadora bench``."""
    summary = "load run: a server, concurrent clients each uploading a 12-megapixel photo to /api/scan"
    parser = bench_subparsers.add_parser("serve", help=summary, description=summary)
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients (default 20)")
    parser.add_argument(
        "--photo",
        type=Path,
        help="photo to send, scaled to 12 megapixels (default: the first sample photo)",
    )
    parser.set_defaults(run=_run_bench)


def _run_serve(args: argparse.Namespace) -> int:
    from webui.serve import serve  # Flask and waitress only for this command

    return serve(args.host, args.port, args.data, args.public_url)


def _run_bench(args: argparse.Namespace) -> int:
    from webui.loadrun import main

    return main(args.clients, args.photo)
