"""The search's subcommands of ``armadora``: suggest, engine, arena, and ``bench search``.

Each warms the kernel up before it reads its input. Bad input gets one line on
standard error (``error: ...``) and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from engine.arena import run, summarize
from engine.board import GOLD_VALUES, Cell
from engine.commands import EXIT_UNREADABLE, read_source
from engine.encoding import kernel_state
from engine.game import GameState
from engine.kernel import BACKENDS, load
from engine.kernel_core import SCRATCH_SIZE, STATE_SIZE
from engine.knowledge import Knowledge, KnowledgeError
from engine.players import PLAYERS
from engine.position import CHARACTERS, VARIANTS, Position, PositionError
from engine.protocol import Session
from engine.samples import sample_text
from engine.search import DEFAULT_SECONDS, Suggestion, prepare, suggest
from engine.workers import Workers, cores


def register(subparsers: Any) -> None:
    """Add suggest, engine and arena to an ``argparse`` subparsers object."""
    common = _common()
    searches = argparse.ArgumentParser(add_help=False)
    searches.add_argument(
        "--iterations",
        type=_positive,
        metavar="N",
        help="search N iterations a process instead of a time (reproducible)",
    )

    p = subparsers.add_parser(
        "suggest",
        parents=[common, searches],
        help="the best moves for a player, by ISMCTS",
        description="The top 3 moves for the player to move, with the share of the "
        "search each took and its estimated win probability. Only the player's own "
        "warrior values are read.",
    )
    p.add_argument("file", metavar="POSITION", help="position JSON file, - for standard input")
    p.add_argument("--player", required=True, metavar="COLOUR", help="the colour to move, who asks")
    p.add_argument("--passed", default="", metavar="C1,C2", help="colours who have passed")
    p.add_argument(
        "--seen",
        default="",
        metavar="C3,D4",
        help="advanced game: cells whose warrior the player's Mage has looked at (their values are read)",
    )
    p.add_argument(
        "--power-used", action="store_true", help="advanced game: the player has used a power this turn"
    )
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(run=_run_suggest)

    p = subparsers.add_parser(
        "engine",
        parents=[common, searches],
        help="play through a line protocol on stdin/stdout",
        description="A text protocol in the spirit of GTP: newgame, gold, play, "
        "genmove, time, quit. Answers start '= ' or '? '.",
    )
    p.set_defaults(run=_run_engine)

    p = subparsers.add_parser(
        "arena",
        parents=[common, searches],
        help="play two players against each other",
        description="Seat-swapped games on shared seeds, on every core; win rate "
        "with its 95 %% Wilson interval and an Elo estimate.",
    )
    p.add_argument("--players", required=True, metavar="A,B", help=f"two of {', '.join(PLAYERS)}")
    p.add_argument(
        "--seats",
        type=int,
        choices=(2, 3, 4),
        default=2,
        help="players at the table: A takes one seat (4: A's team against B's)",
    )
    p.add_argument("--games", type=_positive, default=20, metavar="N", help="games (whole seat groups)")
    p.add_argument(
        "--variant",
        choices=VARIANTS,
        default="armadora",
        help="the game (armadora-advanced: each seed deals the characters)",
    )
    p.add_argument(
        "--character",
        choices=CHARACTERS,
        help="2-player advanced game: only the games that deal A this character, one a seed "
        "(on the seeds that deal it, in the seat where A has it)",
    )
    p.add_argument("--progress", action="store_true", help="a line on stderr as each game ends")
    p.add_argument(
        "--record",
        type=Path,
        metavar="DIR",
        help="write each game's record to DIR (docs/record.md), one file a game: game-SEED-SEATS.txt",
    )
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(run=_run_arena)


def _common() -> argparse.ArgumentParser:
    """The options every search command shares: time, processes, seed, kernel."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--time",
        type=_seconds,
        default=DEFAULT_SECONDS,
        metavar="S",
        help=f"seconds of thought a move (default {DEFAULT_SECONDS})",
    )
    common.add_argument(
        "--processes",
        type=_positive,
        default=min(2, cores()),
        metavar="N",
        help="processes to search with (default: 2, or 1 on a single core)",
    )
    common.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    common.add_argument("--kernel", choices=BACKENDS, help="numba or python (default: numba if installed)")
    return common


def register_bench(bench_subparsers: Any) -> None:
    """Add ``search`` to the subparsers of ``armadora bench``."""
    p = bench_subparsers.add_parser(
        "search",
        parents=[_common()],
        help="playouts a second, ISMCTS iterations a move",
        description="Random-start playouts a second on one core, then suggestions "
        "of --time seconds on --processes processes from the start and a sample.",
    )
    p.add_argument("--repeat", type=_positive, default=10, metavar="N", help="suggestions per position")
    p.set_defaults(run=_run_bench)


def _seconds(text: str) -> float:
    value = float(text)
    if not 0 < value <= 600:
        raise argparse.ArgumentTypeError(f"a time between 0 and 600 seconds, not {text}")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"a positive number expected, not {text}")
    return value


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_UNREADABLE


def suggestion_text(colour: str, s: Suggestion, timed: bool = True) -> str:
    """The text report of a suggestion (with the time it took if ``timed``)."""
    took = f" in {s.seconds:.2f} s" if timed else ""
    plural = "es" if s.processes > 1 else ""
    lines = [f"{colour} to move: {s.iterations} iterations{took} on {s.processes} process{plural}"]
    lines += [
        f"{n}. {c.move!s:<22} visits {100 * c.share:4.1f} %  win {100 * c.win:5.1f} %"
        for n, c in enumerate(s.candidates, 1)
    ]
    return "\n".join(lines)


def _run_suggest(args: argparse.Namespace) -> int:
    prepare(args.kernel)
    try:
        position = Position.loads(read_source(args.file))
        passed = [c.strip() for c in args.passed.split(",") if c.strip()]
        seen = [Cell.parse(c) for c in args.seen.split(",") if c.strip()]
        view = Knowledge.from_position(position, args.player, passed, seen=seen, power_used=args.power_used)
    except (PositionError, KnowledgeError, ValueError) as err:
        return _error(str(err))
    budget: dict[str, Any] = {"seconds": args.time, "iterations": args.iterations, "seed": args.seed}
    if args.processes > 1:
        with Workers(args.processes, args.kernel) as workers:
            result = suggest(
                view, **budget, processes=args.processes, starmap=workers.starmap, kernel=args.kernel
            )
    else:
        result = suggest(view, **budget, kernel=args.kernel)
    if args.json:
        print(json.dumps({"player": args.player, **result.to_json()}))
    else:
        print(suggestion_text(args.player, result, timed=args.iterations is None))
    return 0


def _run_engine(args: argparse.Namespace) -> int:
    with Workers(args.processes, args.kernel) as workers:
        session = Session(
            seconds=args.time,
            processes=args.processes,
            starmap=workers.starmap,
            seed=args.seed,
            kernel=args.kernel,
            iterations=args.iterations,
        )
        for line in sys.stdin:
            answer = session.handle(line)
            if answer is not None:
                print(answer, flush=True)
            if session.finished:
                break
    return 0


def _run_arena(args: argparse.Namespace) -> int:
    names = tuple(n.strip() for n in args.players.split(","))
    if len(names) != 2 or names[0] == names[1] or not set(names) <= set(PLAYERS):
        return _error(f"--players takes two different players of {', '.join(PLAYERS)}, not {args.players!r}")

    if args.character is not None and (args.variant != "armadora-advanced" or args.seats != 2):
        return _error("--character screens the 2-player advanced game: add --variant armadora-advanced")

    if args.record is not None:
        try:
            args.record.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            return _error(f"--record: cannot make the folder {args.record}: {err.strerror or err}")
        if not os.access(args.record, os.W_OK):
            return _error(f"--record: the folder {args.record} cannot be written to")

    def progress(done: int, total: int, r: Any) -> None:
        shares = " ".join(f"{name}:{share:g}" for name, share in zip(r.seats, r.shares, strict=True))
        print(f"game {done}/{total} seed {r.seed}: {shares} ({r.turns} turns)", file=sys.stderr, flush=True)

    start = time.perf_counter()
    with Workers(min(args.processes, args.games), args.kernel) as workers:
        results = run(
            names,
            args.seats,
            args.games,
            args.time,
            kernel=args.kernel,
            imap=workers.imap_unordered,
            first_seed=args.seed + 1,
            progress=progress if args.progress else None,
            variant=args.variant,
            record=args.record is not None,
            iterations=args.iterations,
            character=args.character,
        )
    if args.record is not None:
        for r in results:
            (args.record / record_name(r)).write_text(r.record, encoding="utf-8")
    summary = summarize(names, args.seats, results)
    elapsed = time.perf_counter() - start
    if args.json:
        print(json.dumps({**summary.to_json(), "seconds": round(elapsed, 1)}))
    else:
        print(summary.text())
    return 0


def record_name(result: Any) -> str:
    """The file a game's record goes to: its seed and who sat where.

    >>> from engine.arena import GameResult
    >>> record_name(GameResult(("ismcts", "greedy"), 3, (1.0, 0.0), 30, (0.1, 0.1)))
    'game-3-ismcts-greedy.txt'
    """
    return f"game-{result.seed}-{'-'.join(result.seats)}.txt"


def _run_bench(args: argparse.Namespace) -> int:
    k = prepare(args.kernel)
    print(f"kernel: {k.name}")
    rate = _playouts_per_second(args.kernel)
    print(f"playouts from the start, one core: {rate:,.0f} a second")
    rate = _playouts_per_second(args.kernel, ADVANCED_START)
    print(f"playouts from the advanced start (goblin, elf), one core: {rate:,.0f} a second")
    views = {
        "start": START,
        "midgame-2p": Knowledge.from_position(Position.loads(sample_text("midgame-2p")), "orange"),
        "advanced-start": ADVANCED_START,
    }
    with Workers(args.processes, args.kernel) as workers:
        for name, view in views.items():
            iterations, latency = [], []
            for n in range(args.repeat):
                t = time.perf_counter()
                s = suggest(
                    view,
                    args.time,
                    seed=args.seed + n,
                    processes=args.processes,
                    starmap=workers.starmap,
                    kernel=args.kernel,
                )
                latency.append(time.perf_counter() - t)
                iterations.append(s.iterations)
            print(
                f"{name}: {args.repeat} suggestions of {args.time} s on {args.processes} processes: "
                f"iterations min {min(iterations)}, median {statistics.median(iterations):.0f}, "
                f"max {max(iterations)}; latency max {max(latency):.3f} s"
            )
    return 0


START = Knowledge.of(GameState.new(("orange", "blue"), GOLD_VALUES), "orange")
ADVANCED_START = Knowledge.of(
    GameState.new(("orange", "blue"), GOLD_VALUES, "armadora-advanced", ("goblin", "elf")), "orange"
)


def _playouts_per_second(kernel: str | None, view: Knowledge = START, seconds: float = 1.0) -> float:
    """Determinized playouts from a view (the start) a second, in this process."""
    k = load(kernel)
    root = kernel_state(k, view)
    work, rng, values, sc, rew = k.ints(STATE_SIZE), k.ints(1), k.ints(16), k.ints(SCRATCH_SIZE), k.floats(4)
    k.core.seed_rng(rng, 1)
    done = 0
    batch = 100
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        k.core.playouts(root, work, rng, values, sc, rew, batch)
        done += batch
    return done / (time.perf_counter() - start)
