"""The ``armadora`` command: one entry point whose subcommands come from each package.

Each package's ``commands`` module adds its subcommands to the parser. Only the module of the
subcommand being run is imported (every module for ``armadora --help`` or a command it does not
know), and a module imports what its subcommands need only when they run: ``armadora check``
loads neither OpenCV nor numpy.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

#: The module that adds each subcommand (``register``), and each subcommand of ``armadora bench``
#: (``register_bench``). tests/webui/test_cli.py checks that the modules add exactly these.
COMMANDS: dict[str, str] = {
    "check": "engine.commands",
    "score": "engine.commands",
    "show": "engine.commands",
    "suggest": "engine.search_commands",
    "engine": "engine.search_commands",
    "arena": "engine.search_commands",
    "scan": "calibration.scan_commands",
    "calibrate": "calibration.commands",
    "render": "vision.worlds.raster.commands",
    "serve": "webui.commands",
    "worker": "webui.commands",
    "admin": "webui.commands",
    "record": "webui.record_commands",
    "review": "engine.review_commands",
}
BENCH_COMMANDS: dict[str, str] = {
    "search": "engine.search_commands",
    "scan": "calibration.scan_commands",
    "fit": "calibration.scan_commands",
    "serve": "webui.commands",
    "review": "engine.review_commands",
}


class _Version(argparse.Action):
    """``--version``: the installed package's version, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit", **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("armadora")
        except PackageNotFoundError:  # a source tree that was never installed
            text = "unknown (not installed)"
        parser.exit(message=f"armadora {text}\n")


def _modules(name: str | None, table: dict[str, str]) -> list[str]:
    """The modules to import for subcommand ``name``: its own, or every module of ``table`` when
    ``name`` is not one of its subcommands (top-level help, or a mistyped name to list the others)."""
    if name is not None and name in table:
        return [table[name]]
    return list(dict.fromkeys(table.values()))


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser for ``argv``, with the subcommands of the modules it needs (all for ``()``)."""
    parser = argparse.ArgumentParser(
        prog="armadora",
        description="Armadöra table companion: read photos of the board; check, score and draw positions; "
        "suggest moves and play.",
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # The top-level parser and ``bench`` take no option with a value: the first two words that are
    # not options are the subcommand and, after ``bench``, what it measures.
    words: list[str | None] = [word for word in argv if not word.startswith("-")]
    words += [None, None]
    command, what = words[0], words[1] if words[0] == "bench" else None
    for module in [] if command == "bench" else _modules(command, COMMANDS):
        importlib.import_module(module).register(subparsers)
    if command not in COMMANDS:
        bench = subparsers.add_parser(
            "bench", help="measure accuracy and speed", description="measure accuracy and speed"
        )
        bench_subparsers = bench.add_subparsers(dest="bench", required=True, metavar="WHAT")
        for module in _modules(what, BENCH_COMMANDS):
            importlib.import_module(module).register_bench(bench_subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
    if os.environ.get("ARMADORA_SCAN_THREADS", "").strip():
        # Checked before any command runs (a scan would meet it half way through a photo), and
        # only where it is set: the engine's commands load nothing of the scanner.
        from vision.parallel import chosen_threads

        try:
            chosen_threads()
        except ValueError as error:
            print(f"armadora: {error}", file=sys.stderr)
            return 2
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``armadora score ... | head``): nothing left to say.
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
