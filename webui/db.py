"""The store's database: SQLite (embedded, a file in the data folder) or PostgreSQL (scaled), one data layer.

Every query is written once, in the SQL both speak (SQLite 3.35 and later, PostgreSQL 12 and
later): ``?`` placeholders, ``INSERT ... ON CONFLICT ... DO UPDATE``, ``RETURNING``. What differs
is kept here and only here: how to connect, how a write transaction takes the writers' lock, the
placeholder PostgreSQL's driver wants, and the types of the schema's integer keys.

One connection per request (or per job in a worker); writes in :func:`transaction`, which makes
writers take turns, as SQLite's ``BEGIN IMMEDIATE`` always did: a read-then-write (a check of what
is left in a supply, then the insert) cannot interleave with another writer's.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any, Protocol, cast

from flask import Flask, current_app, g

#: How long a writer waits for another writer's transaction to end before giving up.
BUSY_TIMEOUT_S = 30.0
#: The key of PostgreSQL's advisory lock that writers take in turn (any number; this one is the
#: issue that brought PostgreSQL in).
WRITERS_LOCK = 22


class Row(Protocol):
    """A result row, by column name or position (``sqlite3.Row`` and :class:`NamedRow` both)."""

    def __getitem__(self, key: int | str, /) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...

    def keys(self) -> list[str]: ...


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class NamedRow(tuple[Any, ...]):
    """A PostgreSQL row that reads like ``sqlite3.Row``: ``row["name"]``, ``row[0]``, ``tuple(row)``."""

    names: tuple[str, ...] = ()

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self.names.index(key))
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self.names)


class Database:
    """A connection in autocommit mode: transactions are opened by :meth:`begin` (see :func:`transaction`)."""

    dialect = "sqlite"

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        return cast(Cursor, self.raw.execute(self.sql(sql), params))

    def executemany(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        self.raw.executemany(self.sql(sql), params)

    def sql(self, sql: str) -> str:
        return sql

    def begin(self) -> None:
        self.raw.execute("BEGIN IMMEDIATE")

    def close(self) -> None:
        self.raw.close()


class PostgresDatabase(Database):
    dialect = "postgresql"

    def __init__(self, raw: Any, pool: Any = None) -> None:
        super().__init__(raw)
        self.pool = pool

    def close(self) -> None:
        if self.pool is None:
            self.raw.close()
        else:
            self.pool.putconn(self.raw)  # the pool rolls back what a failed request left open

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        cursor = self.raw.cursor()
        cursor.execute(self.sql(sql), params)
        return cast(Cursor, cursor)

    def executemany(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        self.raw.cursor().executemany(self.sql(sql), list(params))

    def sql(self, sql: str) -> str:
        return postgres_sql(sql)

    def begin(self) -> None:
        # Writers take turns, as under SQLite: one lock for the whole store, held to the commit.
        self.raw.execute("BEGIN")
        self.raw.execute("SELECT pg_advisory_xact_lock(%s)", (WRITERS_LOCK,))


@lru_cache(maxsize=512)
def postgres_sql(sql: str) -> str:
    """A query in ``?`` placeholders as psycopg takes it (``%s``).

    >>> postgres_sql("SELECT id FROM games WHERE host_token = ?")
    'SELECT id FROM games WHERE host_token = %s'
    """
    if "%" in sql:
        raise ValueError("a query must not hold '%': pass the value as a parameter")
    return sql.replace("?", "%s")


def is_postgres(url: str | None) -> bool:
    return url is not None and urlscheme(url) in ("postgresql", "postgres")


def urlscheme(url: str) -> str:
    return url.split(":", 1)[0].split("+", 1)[0].lower()


def check_url(url: str) -> str:
    """A database address ``armadora serve --database`` takes, or ValueError saying what it takes."""
    if is_postgres(url) or (urlscheme(url) == "sqlite" and url.startswith("sqlite:///")):
        return url
    raise ValueError(
        f"{url[:60]!r} is not a database address: give postgresql://USER@HOST[:PORT]/DB "
        "(or sqlite:///PATH for a file)"
    )


def sqlite_path(url: str) -> Path:
    """The file of a ``sqlite:///PATH`` address (``sqlite:////abs/path`` or ``sqlite:///rel/path``)."""
    return Path(url.removeprefix("sqlite:///"))


def connect_sqlite(path: Path) -> Database:
    raw = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    raw.row_factory = sqlite3.Row
    raw.execute("PRAGMA foreign_keys = ON")
    return Database(raw)


def named_rows(cursor: Any) -> Any:
    """psycopg's row factory for :class:`NamedRow`."""
    names = tuple(column.name for column in cursor.description or ())
    row_class = type("Row", (NamedRow,), {"names": names, "__slots__": ()})
    return lambda values: row_class(values)


def configure_postgres(raw: Any) -> None:
    raw.row_factory = named_rows
    raw.execute(f"SET lock_timeout = '{int(BUSY_TIMEOUT_S)}s'")


def connect_postgres(url: str) -> Database:
    """A connection of its own (the tables' creation, a command's one look)."""
    import psycopg  # the scaled mode's driver, installed with the ``scale`` extra

    raw = psycopg.connect(url, autocommit=True)
    configure_postgres(raw)
    return PostgresDatabase(raw)


#: Connections kept open for the requests and jobs of this process, by address: PostgreSQL starts
#: a process for each new connection, which a page polled every few seconds would pay each time.
_POOLS: dict[str, Any] = {}
_POOLS_LOCK = threading.Lock()
#: Connections a pool keeps at most: one per thread of a web process, and a few for the waits.
POOL_SIZE = 16


def pooled_postgres(url: str) -> Database:
    """A connection from this process's pool for ``url``, made on first use (after any fork: a worker's
    processes each have their own)."""
    from psycopg_pool import ConnectionPool

    key = f"{os.getpid()}:{url}"
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            pool = ConnectionPool(
                url,
                min_size=1,
                max_size=POOL_SIZE,
                kwargs={"autocommit": True},
                configure=configure_postgres,
                open=True,
                timeout=BUSY_TIMEOUT_S,
            )
            _POOLS[key] = pool
    return PostgresDatabase(pool.getconn(), pool)


def connect(config: Any, pooled: bool = False) -> Database:
    """A connection to the store the app's configuration names: ``DATABASE_URL``, else the SQLite file
    ``DATABASE`` (whose connections cost nothing to open: never pooled)."""
    url = config.get("DATABASE_URL")
    if is_postgres(url):
        return pooled_postgres(url) if pooled else connect_postgres(url)
    return connect_sqlite(Path(config["DATABASE"]))


#: Columns added to tables after their first release, with their definitions in ``schema.sql``:
#: a data folder made before them gets them on the next start (a table added later, such as
#: ``kept_irregularities``, is made by the schema's ``CREATE TABLE IF NOT EXISTS``, in both stores).
ADDED_COLUMNS = {
    "games": {"characters": "TEXT"},
    "positions": {
        "deleted": "TEXT",
        "digest": "TEXT NOT NULL DEFAULT ''",
        "turn": "INTEGER NOT NULL DEFAULT 0",
        "outline": "TEXT NOT NULL DEFAULT '{}'",
        "colours_seen": "TEXT NOT NULL DEFAULT '{}'",
        "history": """TEXT NOT NULL DEFAULT '{"undo": [], "redo": []}'""",
        "fixing": "TEXT",
    },
    "jobs": {"progress": "TEXT NOT NULL DEFAULT ''"},
}


def postgres_types(sql: str) -> str:
    """A definition in ``schema.sql``'s types as PostgreSQL gets them: an ``INTEGER PRIMARY KEY`` an
    identity column (SQLite makes one count by itself), every other integer 64-bit like SQLite's.

    >>> postgres_types("id INTEGER PRIMARY KEY, turn INTEGER NOT NULL DEFAULT 0")
    'id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, turn BIGINT NOT NULL DEFAULT 0'
    """
    sql = sql.replace("INTEGER PRIMARY KEY", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
    return re.sub(r"\bINTEGER\b", "BIGINT", sql)


def schema(dialect: str) -> list[str]:
    """The statements of ``schema.sql``, with PostgreSQL's types for it (:func:`postgres_types`)."""
    text = files("webui").joinpath("schema.sql").read_text(encoding="utf-8")
    text = re.sub(r"--[^\n]*", "", text)
    if dialect == "postgresql":
        text = postgres_types(text)
    return [statement.strip() for statement in text.split(";") if statement.strip()]


def init_db(config: Any) -> None:
    """Create the tables if they are missing. A SQLite file is made readable by this user only
    (SQLite gives its ``-wal`` and ``-shm`` files the same mode) and switched to WAL (a setting the
    file keeps)."""
    if not is_postgres(config.get("DATABASE_URL")):
        path = Path(config["DATABASE"])
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        os.chmod(path, 0o600)
    db = connect(config)
    try:
        if db.dialect == "sqlite":
            db.execute("PRAGMA journal_mode = WAL")
        # In one write transaction: web processes and workers starting together create the tables once.
        db.begin()
        for statement in schema(db.dialect):
            db.execute(statement)
        add_missing_columns(db)
        db.execute("COMMIT")
    finally:
        db.close()


def table_columns(db: Database, table: str) -> set[str]:
    if db.dialect == "postgresql":
        rows = db.execute(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = ?",
            (table,),
        )
        return {row[0] for row in rows}
    return {row["name"] for row in db.execute(f'PRAGMA table_info("{table}")')}


def add_missing_columns(db: Database) -> None:
    """Bring an older store's tables up to the schema's columns: a SQLite data folder made before
    any of them, or a PostgreSQL store made before ``games.characters`` or ``jobs.progress``."""
    for table, columns in ADDED_COLUMNS.items():
        have = table_columns(db, table)
        for name, definition in columns.items():
            if name not in have:
                if db.dialect == "postgresql":
                    definition = postgres_types(definition)
                db.execute(f'ALTER TABLE "{table}" ADD COLUMN "{name}" {definition}')


def database_bytes(db: Database, config: Any) -> int:
    """What the store takes on disk: the SQLite file with its WAL, or the PostgreSQL database."""
    if db.dialect == "postgresql":
        return int(db.execute("SELECT pg_database_size(current_database())").fetchone()[0])
    path = Path(config["DATABASE"])
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def shared_setting(config: Any, name: str, make: Any) -> str:
    """The store's setting ``name``, set to ``make()`` by whichever process asks first."""
    db = connect(config)
    try:
        db.execute(
            "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", (name, make())
        )
        return str(db.execute("SELECT value FROM settings WHERE name = ?", (name,)).fetchone()[0])
    finally:
        db.close()


def get_db() -> Database:
    """This request's (or job's) connection, opened on first use."""
    if "db" not in g:
        g.db = connect(current_app.config, pooled=True)
    return cast(Database, g.db)


def close_db(_error: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()


@contextmanager
def transaction() -> Iterator[Database]:
    """A write transaction that takes the writers' lock at once (see the module's docstring)."""
    db = get_db()
    db.begin()
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def init_app(app: Flask) -> None:
    init_db(app.config)
    app.teardown_appcontext(close_db)
