"""The engine's subcommands of ``armadora``: check, score and show.

Each reads position files (``-`` for standard input) or bundled samples, and
prints a text report, or with ``--json`` one JSON object per position and line.
Exit codes: 0 fine, 1 an illegal position (check), 2 unreadable input or a
position that cannot be scored, and a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

from engine.check import check
from engine.drawing import draw
from engine.position import Position, PositionError
from engine.report import check_text, score_document, score_text
from engine.samples import sample_names, sample_text
from engine.scoring import ScoringError, score

EXIT_OK, EXIT_ILLEGAL, EXIT_UNREADABLE = 0, 1, 2
DEFAULT_SAMPLE = "endgame-2p"

Outcome = tuple[int, str, dict[str, Any]]


def register(subparsers: Any) -> None:
    """Add check, score and show to an ``argparse`` subparsers object."""
    for name, run, summary in (
        ("check", _run_check, "is the position possible in a real game? (exit 0 legal, 1 illegal)"),
        ("score", _run_score, "score a finished position, territory by territory"),
        ("show", _run_show, "draw the position as text"),
    ):
        parser = subparsers.add_parser(name, help=summary, description=summary)
        parser.add_argument(
            "files", nargs="*", metavar="POSITION", help="position JSON files, - for standard input"
        )
        parser.add_argument(
            "--sample",
            action="store_true",
            help=f"read bundled samples named instead of files (default {DEFAULT_SAMPLE}; "
            f"samples: {', '.join(sample_names())})",
        )
        if name != "show":
            parser.add_argument("--json", action="store_true", help="one JSON object per position and line")
        parser.set_defaults(run=partial(run, parser=parser))


def _sources(
    args: argparse.Namespace, parser: argparse.ArgumentParser
) -> list[tuple[str, Callable[[], str]]]:
    """Each position to read: its name for messages and how to read its text."""
    if args.sample:
        return [(f"sample {name}", partial(sample_text, name)) for name in args.files or [DEFAULT_SAMPLE]]
    if not args.files:
        parser.error("give position files (- for standard input), or --sample")
    if args.files.count("-") > 1:
        parser.error("standard input (-) can be read only once")
    return [("<stdin>" if path == "-" else path, partial(read_source, path)) for path in args.files]


def read_source(path: str) -> str:
    """The text of a file or of standard input; PositionError saying why it cannot be read."""
    try:
        if path == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                raw = handle.read()
    except FileNotFoundError:
        raise PositionError("no such file") from None
    except IsADirectoryError:
        raise PositionError("a folder, not a position file") from None
    except OSError as err:
        raise PositionError(err.strerror or str(err)) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PositionError("not a text file (not UTF-8)") from None


def _each(
    args: argparse.Namespace, parser: argparse.ArgumentParser, handle: Callable[[Position], Outcome]
) -> int:
    """Run ``handle`` on every source; print its text or JSON; the worst exit code."""
    worst = EXIT_OK
    sources = _sources(args, parser)
    for n, (name, read) in enumerate(sources):
        try:
            code, text, doc = handle(Position.loads(read()))
        except PositionError as err:
            code, text, doc = EXIT_UNREADABLE, "", {"error": str(err), "error_code": "unreadable"}
        except ScoringError as err:
            code, text, doc = EXIT_UNREADABLE, "", {"error": str(err), "error_code": "not_scorable"}
        if "error" in doc:
            print(f"{name}: error: {doc['error']}", file=sys.stderr)
        if getattr(args, "json", False):
            print(json.dumps({"file": name, **doc}))
        elif text and len(sources) == 1:
            print(text)
        elif text and "\n" not in text:
            print(f"{name}: {text}")
        elif text:
            if n:
                print()  # a blank line between multi-line reports
            print(f"{name}:\n{text}")
        worst = max(worst, code)
    return worst


def _run_check(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    def handle(position: Position) -> Outcome:
        report = check(position)
        return (EXIT_OK if report.legal else EXIT_ILLEGAL), check_text(report), report.to_json()

    return _each(args, parser, handle)


def _run_score(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    def handle(position: Position) -> Outcome:
        result = score(position)
        report = check(position)
        text = score_text(result)
        if not report.legal:
            text = f"warning: this position cannot occur in a real game\n{check_text(report)}\n\n{text}"
        return EXIT_OK, text, score_document(result, report)

    return _each(args, parser, handle)


def _run_show(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    return _each(args, parser, lambda position: (EXIT_OK, draw(position), {}))
