"""``armadora calibrate``: learn a copy of the game from a setup photo and write its profile.

Exit codes: 0 learnt and written, 2 an unreadable photo or a profile that cannot be written,
3 a photo that is not a whole setup (the message says what is missing). Nothing is written
unless the whole profile is.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_UNREADABLE, EXIT_BAD_SETUP = 0, 2, 3


def register(subparsers: Any) -> None:
    """Add ``calibrate`` to an ``argparse`` subparsers object."""
    summary = "learn a copy of the game from one setup photo; write its profile for scan --profile"
    parser = subparsers.add_parser(
        "calibrate",
        help=summary,
        description=summary + ". The setup: the board, the 8 gold tokens on their cells, no palisade, "
        "and one face-down warrior of each colour in play on a5, h5, a1, h1 (in turn order).",
    )
    parser.add_argument("photo", metavar="SETUP_PHOTO", help="JPEG, PNG, WebP or HEIC photo of the setup")
    parser.add_argument("--out", required=True, metavar="PROFILE.json", help="where to write the profile")
    parser.add_argument(
        "--players",
        metavar="C1,C2",
        help="names of the corner colours in turn order (default: the nearest known colour's name)",
    )
    parser.add_argument("--name", help="the copy's name in the profile (default: the file's stem)")
    parser.add_argument("--json", action="store_true", help="print what was learnt as one JSON object")
    parser.set_defaults(run=_run)


def _fail(code: int, message: str, as_json: bool, error_code: str) -> int:
    from calibration.scan_commands import fail

    return fail("calibrate", code, message, as_json, error_code)


def _run(args: argparse.Namespace) -> int:
    from calibration.profile import ProfileError, save_profile
    from calibration.scan_commands import players_option, read_photo_file
    from calibration.setup import SetupError, calibrate
    from vision.load import PhotoError

    players = players_option(args.players)
    out = Path(args.out)
    try:
        data = read_photo_file(args.photo)
    except OSError as error:
        return _fail(EXIT_UNREADABLE, str(error), args.json, "unreadable")
    try:
        learnt = calibrate(data, players=players, name=args.name or out.stem)
    except PhotoError as error:
        return _fail(EXIT_UNREADABLE, f"{args.photo}: {error}", args.json, error.code)
    except SetupError as error:
        return _fail(EXIT_BAD_SETUP, f"{args.photo}: {error}; no profile written", args.json, error.code)
    try:
        size = save_profile(learnt.profile, out)
    except ProfileError as error:
        return _fail(EXIT_UNREADABLE, str(error), args.json, "unwritable")
    summary = {"file": args.photo, "profile": str(out), "bytes": size, **learnt.summary()}
    if args.json:
        print(json.dumps(summary))
        return EXIT_OK
    colours = ", ".join(f"{name} {hex_}" for name, hex_ in summary["colours"].items())
    print(f"learnt {summary['name']}: {len(summary['colours'])} colours in turn order: {colours}")
    print(
        f"gold {summary['gold']}; board found by {summary['gold_tokens_found']} gold tokens and "
        f"{summary['grid_crossings_found']} grid crossings; "
        f"{sum(summary['timing_ms'].values()) / 1000:.2f} s"
    )
    for warning in summary["warnings"]:
        print(f"warning: {warning}")
    print(f"wrote {out} ({size / 1e6:.2f} MB); read this copy's photos with:")
    print(f"  armadora scan PHOTO --profile {out}")
    return EXIT_OK
