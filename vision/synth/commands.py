"""The ``armadora render`` subcommand: write a set of synthetic photos and their truth to a folder.

armadora render --set {tuning,test,samples} --count N --out DIR [--start I] [--size WxH] [--quality Q]
"""

from __future__ import annotations

import argparse
import re
import time
from functools import partial
from pathlib import Path
from typing import Any

from vision.synth.dataset import SAMPLE_SPECS, SET_SEEDS, write_set

_SIZE = re.compile(r"^(\d{2,5})[xX](\d{2,5})$")


def register(subparsers: Any) -> None:
    """Add ``render`` to an ``argparse`` subparsers object."""
    summary = "render synthetic board photos with their ground truth"
    parser = subparsers.add_parser("render", help=summary, description=summary)
    parser.add_argument(
        "--set",
        dest="set_name",
        choices=sorted(SET_SEEDS),
        required=True,
        help=f"which set; each has its own seeds (samples: its {len(SAMPLE_SPECS)} chosen photos)",
    )
    parser.add_argument("--count", type=int, default=10, help="how many photos (ignored by samples)")
    parser.add_argument(
        "--out", type=Path, required=True, help="folder to write NAME.jpg/.heic + NAME.json to"
    )
    parser.add_argument("--start", type=int, default=0, help="index of the first photo in the set")
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


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.count < 0 or args.start < 0:
        parser.error("--count and --start must not be negative")
    if args.quality is not None and not 1 <= args.quality <= 100:
        parser.error("--quality must be 1..100")
    began = time.monotonic()

    def report(path: Path) -> None:
        print(path, flush=True)

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
