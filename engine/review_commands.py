"""``armadora review`` and ``armadora bench review``: a game's record reviewed turn by turn, and the
review's speed and its eye for a planted blunder measured.

Bad input is one line on standard error (``armadora review: ...``) and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

EXIT_BAD_INPUT = 2


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"a positive number expected, not {text}")
    return value


def _budget_options(parser: argparse.ArgumentParser) -> None:
    from engine.review import Budget

    default = Budget()
    parser.add_argument(
        "--playouts", type=_positive, default=default.playouts, metavar="N",
        help=f"playouts for each chance (default {default.playouts})",
    )  # fmt: skip
    parser.add_argument(
        "--iterations", type=_positive, default=default.iterations, metavar="N",
        help=f"search iterations a turn for the moves the engine prefers (default {default.iterations})",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=int, default=0, help="random seed (default 0): the same review each time"
    )


def register(subparsers: Any) -> None:
    """Add ``review``."""
    summary = "review a finished game's record: each turn's chance of winning, the move preferred, the marks"
    p = subparsers.add_parser("review", help=summary, description=summary + " (docs/record.md, Review)")
    p.add_argument(
        "file", metavar="RECORD", help="a record file with every value revealed, - for standard input"
    )
    p.add_argument("--json", action="store_true", help="one JSON object")
    _budget_options(p)
    p.set_defaults(run=_run_review)


def register_bench(bench_subparsers: Any) -> None:
    """Add ``review`` to the subparsers of ``armadora bench``."""
    from engine.blunders import PLAY_ITERATIONS

    p = bench_subparsers.add_parser(
        "review",
        help="the review's time on records, and whether it finds planted blunders",
        description="Reviews each record --repeat times: the median time and its range. With --planted N, "
        "plants a blunder in N games (docs/record.md, Review) and counts those whose planted turn the "
        "review marks worst.",
    )
    p.add_argument("records", nargs="*", metavar="RECORD", help="record files to time the review on")
    p.add_argument(
        "--repeat", type=_positive, default=5, metavar="N", help="reviews of each record (default 5)"
    )
    p.add_argument("--planted", type=int, default=0, metavar="N", help="planted games to review (default 0)")
    p.add_argument(
        "--play-iterations", type=_positive, default=PLAY_ITERATIONS, metavar="N",
        help=f"search iterations a move of the players of the planted games (default {PLAY_ITERATIONS}: "
        "the games depend on the seed alone)",
    )  # fmt: skip
    p.add_argument(
        "--players", default="ismcts,ismcts", metavar="A,B",
        help="the two players of the planted games (default ismcts,ismcts)",
    )  # fmt: skip
    _budget_options(p)
    p.set_defaults(run=_run_bench)


def _error(message: str) -> int:
    print(f"armadora review: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _read(path: str) -> Any:
    from engine.commands import read_source
    from engine.record import parse

    return parse(read_source(path))


def _run_review(args: argparse.Namespace) -> int:
    from engine.position import PositionError
    from engine.record import RecordError
    from engine.review import Budget, review, table
    from engine.search import prepare

    prepare()
    name = "<stdin>" if args.file == "-" else args.file
    try:
        record = _read(args.file)
        found = review(record, Budget(args.playouts, args.iterations, seed=args.seed))
    except (PositionError, RecordError) as error:
        return _error(f"{name}: {error}")
    print(json.dumps(found.to_json()) if args.json else table(found))
    return 0


def _run_bench(args: argparse.Namespace) -> int:
    from engine.position import PositionError
    from engine.record import RecordError
    from engine.review import Budget, review
    from engine.search import prepare

    k = prepare()
    budget = Budget(args.playouts, args.iterations, seed=args.seed)
    print(f"kernel: {k.name}; {budget.playouts} playouts a chance, {budget.iterations} iterations a turn")
    for path in args.records:
        try:
            record = _read(path)
        except (PositionError, RecordError) as error:
            return _error(f"{path}: {error}")
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            try:
                review(record, budget)
            except RecordError as error:
                return _error(f"{path}: {error}")
            times.append(time.perf_counter() - start)
        print(
            f"{Path(path).name}: {len(record.players)} players, {len(record.turns)} turns: review median "
            f"{statistics.median(times):.1f} s (range {min(times):.1f}-{max(times):.1f} s) over {args.repeat}"
        )
    if args.planted:
        return _bench_planted(args, budget)
    return 0


def _bench_planted(args: argparse.Namespace, budget: Any) -> int:
    from engine.blunders import planted_games
    from engine.review import review

    seats = tuple(name.strip() for name in args.players.split(","))
    if len(seats) != 2:
        return _error(f"--players takes two players, not {args.players!r}")
    hits = found = 0
    start = time.perf_counter()
    tried = [0]

    def progress(_found: int, games: int) -> None:
        tried[0] = games

    for plant in planted_games(args.planted, seats, args.play_iterations, budget, progress=progress):
        found += 1
        worst = review(plant.record, budget).worst
        hit = worst is not None and worst.index == plant.index
        hits += hit
        said = "none" if worst is None else f"turn {worst.index} ({100 * worst.loss:.0f} points)"
        print(
            f"planted game {found} (seed {plant.seed}, {'-'.join(plant.seats)}): turn {plant.index} "
            f"{plant.build}, {100 * plant.chance_before:.0f} % -> {100 * plant.chance_after:.0f} %; "
            f"marked worst: {said}{'' if hit else '  MISSED'}",
            flush=True,
        )
    print(
        f"planted blunders marked worst: {hits} of {found} ({tried[0]} games played to find them, "
        f"{time.perf_counter() - start:.0f} s)"
    )
    return 0
