"""The engine's subcommands of ``armadora``: check, score and show.

Each reads position files (``-`` for standard input) or a bundled sample, and
prints a text report, or with ``--json`` one JSON object per file and line.
Exit codes: 0 fine, 1 an illegal position (check), 2 unreadable input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

from engine.check import check
from engine.drawing import draw
from engine.position import Position, PositionError
from engine.report import check_text, score_text
from engine.samples import sample_names, sample_text
from engine.scoring import ScoringError, score

EXIT_OK, EXIT_ILLEGAL, EXIT_UNREADABLE = 0, 1, 2


def register(subparsers: Any) -> None:
    """Add check, score and show to an ``argparse`` subparsers object."""
    for name, run, summary in (
        ("check", _run_check, "is the position possible in a real game? (exit 0 legal, 1 illegal)"),
        ("score", _run_score, "score a finished position, territory by territory"),
        ("show", _run_show, "draw the position as text"),
    ):
        parser = subparsers.add_parser(name, help=summary, description=summary)
        parser.add_argument("files", nargs="*", metavar="POSITION.json", help="position files, - for stdin")
        parser.add_argument(
            "--sample",
            nargs="?",
            const="endgame-2p",
            metavar="NAME",
            help=f"use a bundled sample position (default endgame-2p; one of {', '.join(sample_names())})",
        )
        if name != "show":
            parser.add_argument("--json", action="store_true", help="one JSON object per file and line")
        parser.set_defaults(run=run)


def _sources(args: argparse.Namespace) -> Iterator[tuple[str, Callable[[], str]]]:
    if args.sample:
        yield f"sample {args.sample}", lambda: sample_text(args.sample)
    for path in args.files:
        yield path, lambda path=path: _read(path)
    if not args.sample and not args.files:
        raise SystemExit("armadora: give position files (or - for stdin), or --sample")


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        raise PositionError("no such file") from None
    except IsADirectoryError:
        raise PositionError("a folder, not a position file") from None
    except UnicodeDecodeError:
        raise PositionError("not a text file (not UTF-8)") from None
    except OSError as err:
        raise PositionError(err.strerror or str(err)) from None


def _each(args: argparse.Namespace, handle: Callable[[Position], tuple[int, str, dict[str, Any]]]) -> int:
    """Run ``handle`` on every source; print its text or JSON; the worst exit code."""
    worst = EXIT_OK
    sources = list(_sources(args))
    for name, read in sources:
        try:
            position = Position.loads(read())
            code, text, doc = handle(position)
        except (PositionError, ScoringError) as err:
            code, text, doc = EXIT_UNREADABLE, f"error: {err}", {"error": str(err)}
            print(f"{name}: {text}", file=sys.stderr)
            text = ""
        if getattr(args, "json", False):
            print(json.dumps({"file": name, **doc}))
        elif text:
            print(f"{name}: {text}" if len(sources) > 1 else text)
        worst = max(worst, code)
    return worst


def _run_check(args: argparse.Namespace) -> int:
    def handle(position: Position) -> tuple[int, str, dict[str, Any]]:
        report = check(position)
        return (EXIT_OK if report.legal else EXIT_ILLEGAL), check_text(report), report.to_json()

    return _each(args, handle)


def _run_score(args: argparse.Namespace) -> int:
    def handle(position: Position) -> tuple[int, str, dict[str, Any]]:
        result = score(position)
        report = check(position)
        text = score_text(result)
        if not report.legal:
            text = f"warning: this position cannot occur in a real game\n{check_text(report)}\n\n{text}"
        return EXIT_OK, text, {**result.to_json(), "check": report.to_json()}

    return _each(args, handle)


def _run_show(args: argparse.Namespace) -> int:
    return _each(args, lambda position: (EXIT_OK, draw(position), {}))
