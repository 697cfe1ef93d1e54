"""``armadora record``: a game's record out of the page's store, and a record file read back.

- ``armadora record export GAME`` prints the record of a stored game (its link, a link's token, or
  its number), from the same data folder or database as ``armadora serve``; ``--out FILE`` writes it.
- ``armadora record import FILE`` reads a record, checks every line and prints what it holds; it
  stores nothing (a record holds turns, not the photos a game on the page is made of).

Every bad input is one line on standard error and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from webui.commands import add_backends

EXIT_BAD_INPUT = 2


def register(subparsers: Any) -> None:
    """Add ``record export`` and ``record import``."""
    summary = "a game's record, a line a turn (docs/record.md): export one from the store, read one back"
    record = subparsers.add_parser("record", help=summary, description=summary)
    what = record.add_subparsers(dest="record", required=True, metavar="WHAT")
    export = what.add_parser("export", help="print the record of a game on the page")
    export.add_argument(
        "game", metavar="GAME", help="the game's link (host's or a player's), its token or its number"
    )
    export.add_argument(
        "--out", type=Path, metavar="FILE", help="write the record to FILE instead of printing it"
    )
    export.add_argument(
        "--data",
        type=Path,
        metavar="DIR",
        help="the server's data folder (default: the Flask instance folder)",
    )
    add_backends(export, queue=False)
    export.set_defaults(run=_run_export)
    read = what.add_parser("import", help="check a record file and say what it holds (it stores nothing)")
    read.add_argument("file", metavar="FILE", help="a record file, - for standard input")
    read.set_defaults(run=_run_import)


def _error(message: str) -> int:
    print(f"armadora record: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _run_export(args: argparse.Namespace) -> int:
    from webui import store
    from webui.backends import BackendError, Backends, make_app
    from webui.game_record import record_text

    if args.database is None and args.data is not None and not (args.data / "armadora.sqlite3").exists():
        return _error(f"no store in {args.data}: give the data folder that armadora serve uses (--data DIR)")
    try:
        app = make_app(Backends(args.data, args.database, None, args.photos))
    except BackendError as error:
        return _error(str(error))
    with app.app_context():
        game = _find(args.game)
        if game is None:
            return _error(f"no game {args.game!r} in this store: give a game's link, its token or its number")
        try:
            text = record_text(game)
        except store.GameError as error:
            return _error(f"game {game.id}: {error}")
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.write_text(text, encoding="utf-8")
    except OSError as error:
        return _error(f"cannot write {args.out}: {error.strerror or error}")
    print(f"game {game.id}: record written to {args.out}", file=sys.stderr)
    return 0


def _find(what: str) -> Any:
    """The game a link, a token or a number names, or None."""
    from webui import store

    word = what.strip().rstrip("/").rsplit("/", 1)[-1]
    if word.isdigit():
        return store.find_game(int(word))
    viewer = store.find_viewer(word) if word else None
    return None if viewer is None else viewer.game


def _run_import(args: argparse.Namespace) -> int:
    from engine.commands import read_source
    from engine.position import PositionError
    from engine.record import RecordError, parse

    name = "<stdin>" if args.file == "-" else args.file
    try:
        record = parse(read_source(args.file))
    except PositionError as error:  # the file cannot be read
        return _error(f"{name}: {error}")
    except RecordError as error:
        return _error(f"{name}: {error}")
    print(summary(name, record))
    return 0


def summary(name: str, record: Any) -> str:
    """What a record holds, in a line or two: the game, its turns, its end."""
    players = ", ".join(
        f"{p} ({c})" for p, c in zip(record.players, record.characters, strict=True)
    ) if record.characters else ", ".join(record.players)  # fmt: skip
    turns = len(record.turns)
    lines = [f"{name}: a valid record: {record.variant}, {players}; {turns} turn{'s' if turns != 1 else ''}"]
    if record.irregularities:
        kinds = ", ".join(sorted({i.kind for i in record.irregularities}))
        kept = sum(i.kept for i in record.irregularities)
        lines.append(
            f"{len(record.irregularities)} irregularities noted ({kinds}; {kept} kept, the rest to settle): "
            "not a legal game"
        )
    if record.result is not None:
        lines.append(str(record.result))
    else:
        lines.append("no result: the game is not over, or some values are not revealed")
    lines.append("nothing stored: a record is read, not added to the page's games")
    return "\n".join(lines)
