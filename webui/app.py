"""The Flask application factory: configuration, the database, CSRF, error pages, the blueprints.

Data (the SQLite database, the uploaded photos, the session key) lives in one
folder: ``DATA_DIR`` in the configuration, by default Flask's instance folder.

Scaled (docs/server.md): ``DATABASE_URL`` names a PostgreSQL store, which also keeps the session
key, ``QUEUE_URL`` the Redis queue the jobs go to, and ``UPLOADS`` the photos' folder every web
process and worker shares; the web process then keeps nothing of its own.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask
from werkzeug.routing import IntegerConverter

from webui import api, csrf, db, errors, game_review, headers, pages, records, taskqueue, upkeep
from webui.limits import DISK_BUDGET_MB
from webui.photos import MAX_FORM_PARTS, MAX_UPLOAD_MB


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """A configured app; ``config`` overrides the defaults (tests pass ``DATA_DIR``)."""
    app = Flask("webui")  # the package: its templates, static files and instance folder
    app.config.from_mapping(
        DATA_DIR=app.instance_path,
        MAX_CONTENT_LENGTH=MAX_UPLOAD_MB * 1024 * 1024,
        # Larger than any form field, below the whole: a form of text fields may use most of it.
        MAX_FORM_MEMORY_SIZE=MAX_UPLOAD_MB * 1024 * 1024,
        MAX_FORM_PARTS=MAX_FORM_PARTS,
        SUGGEST_SECONDS=1.0,
        # A game's review (webui.game_review): playouts for each chance, search iterations a turn.
        REVIEW_PLAYOUTS=3000,
        REVIEW_ITERATIONS=4000,
        SESSION_COOKIE_SAMESITE="Lax",
        # The address players' links are made from (``armadora serve`` sets the one it prints).
        PUBLIC_URL="http://localhost/",
        # Bounds (webui.limits, webui.upkeep): the rate limits' overrides, the data folder's budget,
        # and the days after which abandoned drafts and games go (None: kept).
        RATE_LIMITS={},
        DISK_BUDGET_MB=DISK_BUDGET_MB,
        EXPIRE_DRAFTS_DAYS=None,
        EXPIRE_GAMES_DAYS=None,
        # The scaled server's store and queue (None: the SQLite file DATABASE, and jobs run in the
        # request), and how long a request waits for its photo's job before the page shows it queued.
        DATABASE_URL=None,
        QUEUE_URL=None,
        JOB_WAIT_S=0.0,
        # How long the scaled server's /api/scan waits for a worker's scan before it answers 503.
        API_SCAN_WAIT_S=60.0,
    )
    if config:
        app.config.from_mapping(config)
    data = Path(app.config["DATA_DIR"])
    url = app.config["DATABASE_URL"]
    if url:
        db.check_url(url)
        if not db.is_postgres(url):
            app.config["DATABASE"] = str(db.sqlite_path(url))
    app.config.setdefault("DATABASE", str(data / "armadora.sqlite3"))
    app.config.setdefault("UPLOADS", str(data / "uploads"))
    private_folder(data)
    private_folder(Path(app.config["UPLOADS"]))
    db.init_app(app)
    if not app.config.get("SECRET_KEY"):
        # Every web process of a scaled server signs sessions with one key: the store's.
        app.config["SECRET_KEY"] = (
            db.shared_setting(app.config, "secret_key", lambda: secrets.token_hex(32))
            if db.is_postgres(url)
            else secret_key(data / "secret_key")
        )
    app.json.sort_keys = False  # type: ignore[attr-defined]  # the documents' keys in the CLI's order
    app.url_map.converters["number"] = NumberConverter
    taskqueue.init_app(app)
    csrf.init_app(app)
    errors.init_app(app)
    headers.init_app(app)
    upkeep.init_app(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(records.bp)
    app.register_blueprint(game_review.bp)
    return app


class NumberConverter(IntegerConverter):
    """A photo's number in a link: 1 and up, and no larger than the database's integers hold, so a
    link with a number past them is a 404 like any other number no photo has."""

    def __init__(self, map: Any) -> None:  # werkzeug's name
        super().__init__(map, min=1, max=2**63 - 1)


def private_folder(path: Path) -> None:
    """Make ``path`` (and its parents) if missing, readable by this user only: it holds the games."""
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, 0o700)


def secret_key(path: Path) -> str:
    """The session key kept in the data folder, made on first start, so a restart keeps sessions."""
    if not path.exists():
        path.write_text(secrets.token_hex(32), encoding="ascii")
        os.chmod(path, 0o600)
    return path.read_text(encoding="ascii").strip()
