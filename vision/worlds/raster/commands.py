"""The ``armadora render`` subcommand: write a set of synthetic photos, or one setup photo, with their truth.

armadora render --set {tuning,test,samples,copies-tuning,copies-test} --count N --out DIR [--start I]
                [--size WxH] [--quality Q]
armadora render --setup COPY --out DIR [--seed N] [--colours C,C,C,C] [--size WxH] [--quality Q]
"""

from __future__ import annotations

import argparse
import re
import time
from functools import partial
from pathlib import Path
from typing import Any

from vision.worlds.raster.copies import copy_named, copy_names
from vision.worlds.raster.dataset import SAMPLE_SPECS, SET_SEEDS, write_set, write_setup

_SIZE = re.compile(r"^(\d{2,5})[xX](\d{2,5})$")
_EPILOG = """\
copy sets: photo i of copies-tuning / copies-test shows copy i % 6 of that side; each copy's setup
photo setup-COPY.jpg (+ .json) is written into DIR before its first photo.
--setup writes one setup photo: the board, its 8 gold tokens, one face-down warrior per colour
on the corners [0,0] [0,7] [4,0] [4,7] (the copy's colours in its order, or --colours, where '-'
leaves a corner empty and a colour may repeat, for a bad setup). Without --seed its seed is the
one the copy sets use."""


def register(subparsers: Any) -> None:
    """Add ``render`` to an ``argparse`` subparsers object."""
    summary = "render synthetic board photos with their ground truth"
    parser = subparsers.add_parser(
        "render",
        help=summary,
        description=summary,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--set",
        dest="set_name",
        choices=sorted(SET_SEEDS),
        help=f"which set; each has its own seeds (samples: its {len(SAMPLE_SPECS)} chosen photos)",
    )
    what.add_argument(
        "--setup",
        metavar="COPY",
        choices=copy_names(),
        help=f"one setup photo of a copy: {', '.join(copy_names())}",
    )
    parser.add_argument("--count", type=int, default=10, help="how many photos (ignored by samples)")
    parser.add_argument(
        "--out", type=Path, required=True, help="folder to write NAME.jpg/.heic + NAME.json to"
    )
    parser.add_argument("--start", type=int, default=0, help="index of the first photo in the set")
    parser.add_argument("--seed", type=int, default=None, help="--setup only: the photo's seed")
    parser.add_argument(
        "--colours",
        type=_colours,
        default=None,
        metavar="C,C,C,C",
        help="--setup only: the corner warriors' colours in order, '-' for none",
    )
    parser.add_argument(
        "--size",
        type=_size,
        default=None,
        metavar="WxH",
        help="sensor size in pixels (default 4000x3000; samples 3264x2448)",
    )
    parser.add_argument(
        "--quality", type=int, default=None, help="JPEG/HEIC quality (default: varied 70..95)"
    )
    parser.set_defaults(run=partial(_run, parser=parser))


def _size(text: str) -> tuple[int, int]:
    match = _SIZE.match(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"size must look like 4000x3000, not {text!r}")
    return int(match.group(1)), int(match.group(2))


def _colours(text: str) -> tuple[str | None, ...]:
    parts = [p.strip() for p in text.split(",")]
    if not 1 <= len(parts) <= 4:
        raise argparse.ArgumentTypeError(f"1 to 4 colours separated by commas, not {text!r}")
    return tuple(None if p in ("", "-") else p for p in parts)


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.count < 0 or args.start < 0:
        parser.error("--count and --start must not be negative")
    if args.quality is not None and not 1 <= args.quality <= 100:
        parser.error("--quality must be 1..100")
    if args.setup is None and (args.seed is not None or args.colours is not None):
        parser.error("--seed and --colours go with --setup")
    began = time.monotonic()

    def report(path: Path) -> None:
        print(path, flush=True)

    if args.setup is not None:
        copy = copy_named(args.setup)
        unknown = [c for c in args.colours or () if c is not None and c not in copy.colours]
        if unknown:
            parser.error(
                f"copy {copy.name} has no colour {unknown[0]!r}; its colours: {', '.join(copy.keys)}"
            )
        report(
            write_setup(
                args.out, copy, seed=args.seed, colours=args.colours, size=args.size, quality=args.quality
            )
        )
        return 0
    written = write_set(
        args.out,
        set_name=args.set_name,
        count=args.count,
        start=args.start,
        size=args.size,
        quality=args.quality,
        on_write=report,
    )
    seconds = time.monotonic() - began
    print(f"{len(written)} photo(s) in {seconds:.1f} s", flush=True)
    return 0
