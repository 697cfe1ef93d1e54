"""The SQLite database: one connection per request, WAL mode, writes in immediate transactions."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import cast

from flask import Flask, current_app, g

#: How long a writer waits for another writer's transaction to end before giving up.
BUSY_TIMEOUT_S = 30.0


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode: transactions are opened explicitly by :func:`transaction`."""
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA foreign_keys = ON")
    return db


def init_db(path: Path) -> None:
    """Create the tables if they are missing and switch the file to WAL (a setting the file keeps).

    The file is readable by this user only (SQLite gives its ``-wal`` and ``-shm`` files the same mode)."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    os.chmod(path, 0o600)
    db = connect(path)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        db.executescript(files("webui").joinpath("schema.sql").read_text(encoding="utf-8"))
        add_missing_columns(db)
    finally:
        db.close()


#: Columns added to tables after their first release, with their definitions in ``schema.sql``:
#: a data folder made before them gets them on the next start.
ADDED_COLUMNS = {
    "games": {"characters": "TEXT"},
    "positions": {
        "deleted": "TEXT",
        "digest": "TEXT NOT NULL DEFAULT ''",
        "turn": "INTEGER NOT NULL DEFAULT 0",
        "outline": "TEXT NOT NULL DEFAULT '{}'",
        "colours_seen": "TEXT NOT NULL DEFAULT '{}'",
        "history": """TEXT NOT NULL DEFAULT '{"undo": [], "redo": []}'""",
    },
}


def add_missing_columns(db: sqlite3.Connection) -> None:
    """Bring an older database's tables up to the schema's columns."""
    for table, columns in ADDED_COLUMNS.items():
        have = {row["name"] for row in db.execute(f'PRAGMA table_info("{table}")')}
        for name, definition in columns.items():
            if name not in have:
                db.execute(f'ALTER TABLE "{table}" ADD COLUMN "{name}" {definition}')


def get_db() -> sqlite3.Connection:
    """This request's connection, opened on first use."""
    if "db" not in g:
        g.db = connect(Path(current_app.config["DATABASE"]))
    return cast(sqlite3.Connection, g.db)


def close_db(_error: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()


@contextmanager
def transaction() -> Iterator[sqlite3.Connection]:
    """A write transaction that takes the write lock at once, so that a read-then-write
    (a check of what is left in a supply, then the insert) cannot interleave with another writer's."""
    db = get_db()
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def init_app(app: Flask) -> None:
    init_db(Path(app.config["DATABASE"]))
    app.teardown_appcontext(close_db)
