"""``python -m vision.worlds.cycles render OUT_DIR --set SET --start N --count K ...``.

SET is reference, copies (the test copies), tuning-copies or more-tuning-copies (other copies,
which a fit may see).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vision.worlds.cycles.sets import SETS, SETUP_SEED, render_set


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.worlds.cycles", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("render", help="render the photos of a seed range into a set folder")
    r.add_argument("out_dir", type=Path)
    r.add_argument("--set", dest="set_name", choices=SETS, required=True)
    r.add_argument("--start", type=int, default=0, help="the first seed")
    r.add_argument("--count", type=int, default=1, help="how many seeds")
    r.add_argument("--width", type=int, default=1600, help="the longer side, pixels")
    r.add_argument("--height", type=int, default=1200, help="the shorter side, pixels")
    r.add_argument("--samples", type=int, default=8, help="Cycles samples a pixel (denoised)")
    r.add_argument("--threads", type=int, default=1, help="CPU threads for Cycles")
    r.add_argument("--hard-share", type=float, default=0.0, help="share of photos made hard (0..1)")
    r.add_argument(
        "--setup-seed",
        type=int,
        default=SETUP_SEED,
        help="sets of copies: the first copy's setup seed "
        "(another gives a tuning set setup photos no test set has)",
    )
    args = parser.parse_args(argv)
    if not 0.0 <= args.hard_share <= 1.0:
        parser.error("--hard-share must be within 0..1")
    n = render_set(
        args.out_dir,
        args.set_name,
        args.start,
        args.count,
        width=args.width,
        height=args.height,
        samples=args.samples,
        threads=args.threads,
        hard_share=args.hard_share,
        setup_seed=args.setup_seed,
        log=lambda line: print(line, flush=True),
    )
    print(f"rendered {n} photo(s) into {args.out_dir}", file=sys.stderr)
    return 0
