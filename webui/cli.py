"""The ``armadora`` command: one entry point whose subcommands come from each package."""

from __future__ import annotations

import argparse
import sys
from contextlib import suppress
from importlib.metadata import PackageNotFoundError, version

import calibration.commands
import calibration.scan_commands
import engine.commands
import engine.search_commands
import vision.worlds.raster.commands
import webui.commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="armadora",
        description="Armadöra table companion: read photos of the board; check, score and draw positions; "
        "suggest moves and play.",
    )
    with suppress(PackageNotFoundError):  # a source tree that was never installed has no version
        parser.add_argument("--version", action="version", version=version("armadora"))
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    engine.commands.register(subparsers)
    engine.search_commands.register(subparsers)
    calibration.scan_commands.register(subparsers)
    calibration.commands.register(subparsers)
    vision.worlds.raster.commands.register(subparsers)
    webui.commands.register(subparsers)
    bench = subparsers.add_parser(
        "bench", help="measure accuracy and speed", description="measure accuracy and speed"
    )
    bench_subparsers = bench.add_subparsers(dest="bench", required=True, metavar="WHAT")
    engine.search_commands.register_bench(bench_subparsers)
    calibration.scan_commands.register_bench(bench_subparsers)
    webui.commands.register_bench(bench_subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
