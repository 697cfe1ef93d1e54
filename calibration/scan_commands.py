"""The scanner's subcommands of ``armadora``: ``scan``, ``bench scan`` and ``bench fit``.

They live here rather than in :mod:`vision` because they read profile files (``--profile``) and
learn copies from setup photos (``--calibrate``, ``bench fit``), which the scanner knows nothing of:
they hand it the looks, and the bench the learner.

``scan`` exit codes: 0 read (even with warnings), 2 unreadable file or profile,
3 no board found in the photo.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.bench.accuracy import Learner

EXIT_OK, EXIT_UNREADABLE, EXIT_NO_BOARD = 0, 2, 3


def register(subparsers: Any) -> None:
    """Add ``scan`` to an ``argparse`` subparsers object."""
    summary = "read a photo of the board: the position, confidences and warnings"
    parser = subparsers.add_parser("scan", help=summary, description=summary)
    parser.add_argument("photo", metavar="PHOTO", help="JPEG, PNG, WebP or HEIC photo of the board")
    parser.add_argument("--profile", metavar="PROFILE", help="calibration profile of this copy (JSON)")
    parser.add_argument("--players", metavar="C1,C2", help="the colours in play, in turn order")
    parser.add_argument("--variant", default="armadora", choices=("armadora", "armadora-advanced", "nuggets"))
    parser.add_argument(
        "--json", action="store_true", help="one JSON object: position, confidence, warnings..."
    )
    parser.add_argument(
        "--debug-image", metavar="OUT.jpg", help="write the photo with the reading drawn on it"
    )
    parser.set_defaults(run=_run_scan)


def register_bench(bench_subparsers: Any) -> None:
    """Add ``scan`` to the subparsers of ``armadora bench``."""
    summary = "accuracy and speed of the scanner on a folder of photos with .json truths"
    parser = bench_subparsers.add_parser("scan", help=summary, description=summary)
    parser.add_argument("folder", metavar="DIR", type=Path)
    parser.add_argument("--profile", metavar="PROFILE", help="read every photo with this profile")
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="read each photo of another copy (truth key 'copy') with the profile learnt from "
        "setup-COPY.jpg beside it; without it such photos are read uncalibrated",
    )
    parser.add_argument(
        "--improvise",
        action="store_true",
        help="read every board as a copy without a profile is read, whatever its kit: found by its "
        "gold and grid, its looks improvised from the photo",
    )
    parser.add_argument(
        "--cut",
        metavar="SHARE",
        type=float,
        default=0.0,
        help="read every board cut off by this share of it (0 to 1) at one side of the photo, "
        "the sides in turn (needs the truth's render.corners_px)",
    )
    parser.add_argument(
        "--threads",
        metavar="N",
        type=int,
        help="read each photo on N threads (1: on one; default: $ARMADORA_SCAN_THREADS, else the "
        "cores, at most 4); the readings are the same whatever N",
    )
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(run=_run_bench)
    summary = (
        "fit the readers' weights on tuning folders (never a test set); write them with their provenance"
    )
    fit = bench_subparsers.add_parser("fit", help=summary, description=summary)
    fit.add_argument("folders", metavar="TUNING_DIR", type=Path, nargs="+")
    fit.add_argument(
        "--out",
        metavar="WEIGHTS_DIR",
        type=Path,
        help="write the weights here, not in vision/data/weights/ (ARMADORA_WEIGHTS=WEIGHTS_DIR reads them)",
    )
    fit.set_defaults(run=_run_fit)


def _profile(path: str | None) -> Any:
    from calibration.profile import load_profile

    return load_profile(path) if path else None


def fail(command: str, code: int, message: str, as_json: bool, error_code: str) -> int:
    """Say why ``armadora COMMAND`` failed (on standard error, and as JSON when asked); its exit code."""
    if as_json:
        print(json.dumps({"error": message, "error_code": error_code}))
    print(f"armadora {command}: {message}", file=sys.stderr)
    return code


def read_photo_file(path: str) -> bytes:
    """A photo file's bytes; :class:`OSError` rephrased as a sentence naming the file."""
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise OSError(f"{path}: cannot read it ({error.strerror})") from None


def players_option(text: str | None) -> tuple[str, ...] | None:
    """The colours of ``--players orange,blue``, in turn order."""
    return tuple(p.strip() for p in text.split(",")) if text else None


def _fail(code: int, message: str, as_json: bool, error_code: str) -> int:
    return fail("scan", code, message, as_json, error_code)


def _run_scan(args: argparse.Namespace) -> int:
    # Imported here, not at the top: ``armadora check`` should not pay for OpenCV's start-up.
    import cv2

    from calibration.profile import ProfileError
    from engine.drawing import draw
    from vision.debug import debug_image
    from vision.load import PhotoError
    from vision.locate.features import NoBoardError
    from vision.scan import scan

    players = players_option(args.players)
    try:
        profile = _profile(args.profile)
    except ProfileError as error:
        return _fail(EXIT_UNREADABLE, str(error), args.json, "bad_profile")
    try:
        data = read_photo_file(args.photo)
    except OSError as error:
        return _fail(EXIT_UNREADABLE, str(error), args.json, "unreadable")
    try:
        result = scan(data, profile=profile, players=players, variant=args.variant)
    except PhotoError as error:
        return _fail(EXIT_UNREADABLE, f"{args.photo}: {error}", args.json, error.code)
    except NoBoardError as error:
        return _fail(EXIT_NO_BOARD, f"{args.photo}: {error}", args.json, error.reason)
    if args.debug_image and not cv2.imwrite(args.debug_image, debug_image(result)):
        print(f"armadora scan: could not write the debug image {args.debug_image}", file=sys.stderr)
    if args.json:
        print(json.dumps({"file": args.photo, **result.to_json()}))
        return EXIT_OK
    print(draw(result.position))
    for warning in result.warnings:
        print(f"warning: {warning.message}")
    return EXIT_OK


def _run_bench(args: argparse.Namespace) -> int:
    from calibration.profile import ProfileError
    from vision.bench.accuracy import main_scan
    from vision.parallel import THREADS_ENV

    try:
        profile = _profile(args.profile)
    except ProfileError as error:
        print(f"armadora bench scan: {error}", file=sys.stderr)
        return 2
    if not args.folder.is_dir():
        print(f"armadora bench scan: {args.folder} is not a folder", file=sys.stderr)
        return 2
    if args.improvise and (profile is not None or args.calibrate):
        print(
            "armadora bench scan: --improvise reads every board without a profile; "
            "leave out --profile and --calibrate",
            file=sys.stderr,
        )
        return 2
    if not 0.0 <= args.cut < 1.0:
        print(
            f"armadora bench scan: --cut takes a share of the board from 0 to 1, not {args.cut}",
            file=sys.stderr,
        )
        return 2
    if args.threads is not None:
        if args.threads < 1:
            print(f"armadora bench scan: --threads takes 1 or more, not {args.threads}", file=sys.stderr)
            return 2
        os.environ[THREADS_ENV] = str(args.threads)
    learn = _learner() if args.calibrate else None
    return main_scan(args.folder, profile, args.json, learn, args.improvise, args.cut)


def _learner() -> Learner:
    """The bench's way of learning a copy: :func:`calibration.setup.calibrate`, its profile as its
    file gives it back.

    The page and ``armadora scan --profile`` read a profile from its JSON, whose face is a JPEG:
    the bench reads with what they read. (Read with the face still in memory, one path-traced
    photo's board was placed by the art's features 186 px off; read with the same face from its
    file, right.)
    """
    from calibration.profile import Profile
    from calibration.setup import calibrate

    return lambda data, name: Profile.from_json(calibrate(data, name=name).profile.to_json())


def _run_fit(args: argparse.Namespace) -> int:
    from vision.train.fit import main_fit

    for folder in args.folders:
        if not folder.is_dir():
            print(f"armadora bench fit: {folder} is not a folder", file=sys.stderr)
            return 2
    return main_fit(args.folders, _learner(), args.out)
