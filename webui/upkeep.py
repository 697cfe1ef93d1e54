"""What the data folder holds, and the removal of what was abandoned: ``armadora admin usage|prune``.

A draft not confirmed within ``EXPIRE_DRAFTS_DAYS`` is set aside and its photo
files removed; a game untouched for ``EXPIRE_GAMES_DAYS`` (no photo, no end) is
removed whole, rows and files, and so is a job of no game (a calibration, the
scaled server's ``/api/scan``) older than that whose request never removed it.
Both are off (None) by default: an embedded server at home keeps everything
until told. When set, the app prunes at most
once an hour, on a request; ``armadora admin prune`` does it at once.
"""

from __future__ import annotations

import shutil
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from flask import Flask, current_app

from webui.db import database_bytes, get_db, transaction
from webui.limits import folder_bytes
from webui.photos import discard_upload

#: How often the app prunes by itself when expiry is configured.
PRUNE_EVERY_S = 3600


def usage() -> dict[str, Any]:
    """Counts of what the store keeps, and the bytes on disk."""
    db = get_db()

    def count(sql: str) -> int:
        return int(db.execute(sql).fetchone()[0])

    return {
        "games": count("SELECT COUNT(*) FROM games"),
        "games_ended": count("SELECT COUNT(*) FROM games WHERE ended IS NOT NULL"),
        "positions_confirmed": count("SELECT COUNT(*) FROM positions WHERE confirmed IS NOT NULL"),
        "drafts": count("SELECT COUNT(*) FROM positions WHERE confirmed IS NULL AND deleted IS NULL"),
        "photos_bytes": folder_bytes(Path(current_app.config["UPLOADS"])),
        "database_bytes": database_bytes(db, current_app.config),
    }


def cutoff(days: float | None, now: datetime) -> str | None:
    return None if days is None else (now - timedelta(days=days)).isoformat(timespec="seconds")


def prune(drafts_days: float | None, games_days: float | None, now: datetime | None = None) -> dict[str, int]:
    """Set aside drafts older than ``drafts_days`` and remove games idle for ``games_days`` (None: keep).

    Returns how many drafts and games went."""
    now = now or datetime.now(UTC)
    uploads = Path(current_app.config["UPLOADS"])
    drafts = games = 0
    before = cutoff(drafts_days, now)
    if before is not None:
        with transaction() as db:
            rows = db.execute(
                "SELECT id, upload, grid_photo FROM positions WHERE confirmed IS NULL AND deleted IS NULL "
                "AND created < ?",
                (before,),
            ).fetchall()
            stamp = now.isoformat(timespec="seconds")
            db.executemany("UPDATE positions SET deleted = ? WHERE id = ?", [(stamp, r["id"]) for r in rows])
        for row in rows:
            for name in (row["upload"], row["grid_photo"]):
                (uploads / name).unlink(missing_ok=True)
        drafts = len(rows)
    idle = cutoff(games_days, now)
    if idle is not None:
        with transaction() as db:
            ids = [
                row["id"]
                for row in db.execute(
                    # Nothing in the game newer than the cut: its creation, its end, its photos.
                    "SELECT g.id FROM games g WHERE g.created < ? AND COALESCE(g.ended, '') < ? "
                    "AND NOT EXISTS (SELECT 1 FROM positions p WHERE p.game_id = g.id AND p.created >= ?)",
                    (idle, idle, idle),
                )
            ]
            for game_id in ids:
                db.execute(
                    "DELETE FROM suggestions WHERE position_id IN "
                    "(SELECT id FROM positions WHERE game_id = ?)",
                    (game_id,),
                )
                for table in (
                    "jobs",
                    "warrior_values",
                    "power_uses",
                    "kept_irregularities",
                    "positions",
                    "seats",
                ):
                    db.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
                db.execute("DELETE FROM games WHERE id = ?", (game_id,))
        for game_id in ids:
            shutil.rmtree(uploads / str(game_id), ignore_errors=True)
        games = len(ids)
        prune_gameless_jobs(idle)
    return {"drafts": drafts, "games": games}


def prune_gameless_jobs(before: str) -> None:
    """Remove the jobs of no game (calibrations, the scaled server's ``/api/scan``) made before
    ``before`` and their photos: those their request never forgot (a web process stopped while it
    waited)."""
    with transaction() as db:
        rows = db.execute(
            "SELECT id, photo FROM jobs WHERE game_id IS NULL AND created < ?", (before,)
        ).fetchall()
        db.executemany("DELETE FROM jobs WHERE id = ?", [(row["id"],) for row in rows])
    for row in rows:
        if row["photo"]:
            discard_upload(row["photo"])


def prune_now_and_then() -> None:
    """Prune by the configured expiry, at most every :data:`PRUNE_EVERY_S` seconds (a before_request)."""
    drafts_days = current_app.config.get("EXPIRE_DRAFTS_DAYS")
    games_days = current_app.config.get("EXPIRE_GAMES_DAYS")
    if drafts_days is None and games_days is None:
        return
    state = current_app.extensions.setdefault("armadora_pruned", {"at": None})
    if state["at"] is not None and time.monotonic() - state["at"] < PRUNE_EVERY_S:
        return
    state["at"] = time.monotonic()
    prune(drafts_days, games_days)


def init_app(app: Flask) -> None:
    app.before_request(prune_now_and_then)
