"""The web page's subcommands of ``armadora``: ``serve``, ``worker``, ``admin`` and ``bench serve``."""

from __future__ import annotations

import argparse
import os
import sys
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
    add_backends(parser)
    parser.set_defaults(run=_run_serve)

    summary = "run the scaled server's scans on this machine (a Celery worker on the --queue)"
    worker = subparsers.add_parser("worker", help=summary, description=summary)
    worker.add_argument(
        "--data",
        type=Path,
        metavar="DIR",
        default=from_env("ARMADORA_DATA"),
        help="the data folder, for a SQLite store on this machine (default: $ARMADORA_DATA, else the "
        "Flask instance folder)",
    )
    worker.add_argument(
        "--processes",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="jobs run at once, one process each (default: one per core)",
    )
    add_backends(worker)
    worker.set_defaults(run=_run_worker)

    register_admin(subparsers)


def from_env(name: str) -> str | None:
    """An option's default from the environment (a container sets ``ARMADORA_...``), else None."""
    return os.environ.get(name) or None


def add_backends(parser: argparse.ArgumentParser, queue: bool = True) -> None:
    """The scaled server's options, each defaulting to its ``ARMADORA_`` variable: without them, the
    embedded server."""
    parser.add_argument(
        "--database",
        metavar="URL",
        default=from_env("ARMADORA_DATABASE"),
        help="the store: postgresql://USER@HOST[:PORT]/DB (default: $ARMADORA_DATABASE, else a SQLite "
        "file in the data folder)",
    )
    parser.add_argument(
        "--photos",
        type=Path,
        metavar="DIR",
        default=from_env("ARMADORA_PHOTOS"),
        help="the photos' folder, shared by every server and worker (default: $ARMADORA_PHOTOS, else "
        "uploads/ in the data folder)",
    )
    if not queue:
        parser.set_defaults(queue=None)
        return
    parser.add_argument(
        "--queue",
        metavar="URL",
        default=from_env("ARMADORA_QUEUE"),
        help="the job queue, redis://HOST:PORT/N: photos are read by `armadora worker`s on it "
        "(default: $ARMADORA_QUEUE, else by the server itself)",
    )


def register_admin(subparsers: Any) -> None:
    """Add ``admin usage``, ``admin prune`` and ``admin requeue``."""
    summary = "look after a server's store: what it holds, removing what was abandoned, lost jobs"
    admin = subparsers.add_parser("admin", help=summary, description=summary)
    what = admin.add_subparsers(dest="admin", required=True, metavar="WHAT")
    data_help = "the server's data folder (default: the Flask instance folder)"
    usage = what.add_parser("usage", help="games, drafts and bytes on disk, as JSON")
    usage.add_argument("--data", type=Path, metavar="DIR", help=data_help)
    add_backends(usage, queue=False)
    usage.set_defaults(run=_run_admin)
    prune = what.add_parser("prune", help="set aside old drafts and remove idle games, with their photos")
    prune.add_argument("--data", type=Path, metavar="DIR", help=data_help)
    prune.add_argument("--drafts-days", type=float, metavar="N", help="drafts not confirmed in N days go")
    prune.add_argument("--games-days", type=float, metavar="N", help="games idle for N days go, whole")
    add_backends(prune, queue=False)
    requeue = what.add_parser(
        "requeue", help="give the queue again the jobs waiting longer than they should (a lost message)"
    )
    requeue.add_argument("--data", type=Path, metavar="DIR", help=data_help)
    requeue.add_argument(
        "--older-than",
        type=float,
        default=600.0,
        metavar="S",
        help="jobs queued or running for more than S seconds (default 600)",
    )
    add_backends(requeue)
    requeue.set_defaults(run=_run_admin)
    prune.set_defaults(run=_run_admin)


def register_bench(bench_subparsers: Any) -> None:
    """Add ``serve`` to the subparsers of ``armadora bench``."""
    summary = "load run: a server, concurrent clients each uploading a 12-megapixel photo to /api/scan"
    parser = bench_subparsers.add_parser("serve", help=summary, description=summary)
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients (default 20)")
    parser.add_argument(
        "--tables",
        type=int,
        metavar="N",
        help="instead: N tables at once on the scaled server (a game each: a photo, its review, a "
        "confirm), against each count of --workers; needs --database and --queue",
    )
    parser.add_argument(
        "--workers",
        default="1,2,4",
        metavar="N,N,...",
        help="with --tables: the counts of worker processes to run against, in turn (default 1,2,4)",
    )
    parser.add_argument("--database", metavar="URL", help="with --tables: the store (postgresql://...)")
    parser.add_argument("--queue", metavar="URL", help="with --tables: the queue (redis://...)")
    parser.add_argument(
        "--photo",
        type=Path,
        help="photo to send, scaled to 12 megapixels (default: the first sample photo)",
    )
    parser.set_defaults(run=_run_bench)


def _backends(args: argparse.Namespace, command: str) -> Any:
    from webui.backends import BackendError, Backends

    try:
        return Backends(args.data, args.database, args.queue, args.photos)
    except BackendError as error:
        print(f"armadora {command}: {error}", file=sys.stderr)
        return None


def _run_serve(args: argparse.Namespace) -> int:
    from webui.serve import serve  # Flask and waitress only for this command

    backends = _backends(args, "serve")
    return 2 if backends is None else serve(args.host, args.port, backends, args.public_url)


def _run_worker(args: argparse.Namespace) -> int:
    from webui.worker import main

    backends = _backends(args, "worker")
    return 2 if backends is None else main(backends, args.processes)


def _run_admin(args: argparse.Namespace) -> int:
    import json

    from webui import jobs, upkeep
    from webui.backends import BackendError, make_app

    backends = _backends(args, "admin")
    if backends is None:
        return 2
    try:
        app = make_app(backends)
    except BackendError as error:
        print(f"armadora admin: {error}", file=sys.stderr)
        return 1
    with app.app_context():
        if args.admin == "usage":
            result = upkeep.usage()
        elif args.admin == "requeue":
            if not args.queue:
                print("armadora admin requeue: give the queue (--queue redis://HOST:PORT/N)", file=sys.stderr)
                return 2
            result = {"requeued": jobs.requeue(args.older_than)}
        else:
            if args.drafts_days is None and args.games_days is None:
                print("armadora admin prune: say what goes: --drafts-days N, --games-days N or both")
                return 2
            result = upkeep.prune(args.drafts_days, args.games_days)
    print(json.dumps(result, indent=2))
    return 0


def _run_bench(args: argparse.Namespace) -> int:
    if args.tables is not None:
        from webui import tablerun

        try:
            workers = [int(n) for n in args.workers.split(",")]
        except ValueError:
            print(
                f"armadora bench serve: --workers takes counts like 1,2,4, not {args.workers!r}",
                file=sys.stderr,
            )
            return 2
        return tablerun.main(args.tables, workers, args.database, args.queue, args.photo)
    from webui.loadrun import main

    return main(args.clients, args.photo)
