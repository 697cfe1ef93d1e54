"""Games as the database keeps them: players' links, the photographed positions, the entered values.

Every write runs in one immediate transaction (:func:`webui.db.transaction`), so
that two players entering values at the same moment both land, and a check of
what is left of a supply cannot race the write it guards.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from engine.board import Cell
from engine.position import Position
from engine.supply import supply_for
from webui.db import get_db, transaction
from webui.visibility import revealed, unused_values

#: Bytes of randomness in a link: 24 bytes are 192 bits, well over the 128 asked for.
TOKEN_BYTES = 24


class GameError(ValueError):
    """Something a player asked for that the game cannot do now; the message says why."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


@dataclass(frozen=True)
class Game:
    id: int
    host_token: str
    created: str
    variant: str
    players: tuple[str, ...]
    profile: str | None
    final_position: int | None
    ended: str | None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Game:
        return cls(
            row["id"],
            row["host_token"],
            row["created"],
            row["variant"],
            tuple(json.loads(row["players"])),
            row["profile"],
            row["final_position"],
            row["ended"],
        )


@dataclass(frozen=True)
class Viewer:
    """Who opened a page: the host (``colour`` None) or the player of ``colour``, by their link."""

    game: Game
    token: str
    colour: str | None


@dataclass(frozen=True)
class Snapshot:
    """One photographed position: a draft under review, or confirmed into the timeline."""

    id: int
    number: int
    created: str
    upload: str
    grid_photo: str
    scan: dict[str, Any]
    position: Position
    touched: frozenset[str]
    confirmed: str | None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Snapshot:
        return cls(
            row["id"],
            row["number"],
            row["created"],
            row["upload"],
            row["grid_photo"],
            json.loads(row["scan"]),
            Position.loads(row["position"]),
            frozenset(json.loads(row["touched"])),
            row["confirmed"],
        )


def create_game(variant: str, players: tuple[str, ...], profile: str | None) -> Viewer:
    """A new game with a link for the host and one for each player; the host's viewer."""
    supply_for(len(players))  # 2 to 4 players, or ValueError
    host = new_token()
    with transaction() as db:
        cursor = db.execute(
            "INSERT INTO games (host_token, created, variant, players, profile) VALUES (?, ?, ?, ?, ?)",
            (host, now(), variant, json.dumps(list(players)), profile),
        )
        game_id = cursor.lastrowid
        db.executemany(
            "INSERT INTO seats (token, game_id, colour) VALUES (?, ?, ?)",
            [(new_token(), game_id, colour) for colour in players],
        )
    viewer = find_viewer(host)
    assert viewer is not None
    return viewer


def find_viewer(token: str) -> Viewer | None:
    """Whose link this is, or None for a link no game has."""
    db = get_db()
    row = db.execute("SELECT * FROM games WHERE host_token = ?", (token,)).fetchone()
    if row is not None:
        return Viewer(Game.from_row(row), token, None)
    seat = db.execute("SELECT game_id, colour FROM seats WHERE token = ?", (token,)).fetchone()
    if seat is None:
        return None
    row = db.execute("SELECT * FROM games WHERE id = ?", (seat["game_id"],)).fetchone()
    return Viewer(Game.from_row(row), token, seat["colour"])


def reload(game: Game) -> Game:
    return Game.from_row(get_db().execute("SELECT * FROM games WHERE id = ?", (game.id,)).fetchone())


def seat_tokens(game: Game) -> dict[str, str]:
    """Each player's link token, in turn order."""
    rows = get_db().execute("SELECT colour, token FROM seats WHERE game_id = ?", (game.id,)).fetchall()
    tokens = {row["colour"]: row["token"] for row in rows}
    return {colour: tokens[colour] for colour in game.players}


def add_snapshot(game: Game, upload: str, grid_photo: str, scan: dict[str, Any], position: Position) -> int:
    """Store a newly scanned position as a draft; its number in the game."""
    with transaction() as db:
        if _ended(db, game):
            raise GameError("the game has ended: no more photos")
        number = db.execute(
            "SELECT COALESCE(MAX(number), 0) + 1 FROM positions WHERE game_id = ?", (game.id,)
        ).fetchone()[0]
        db.execute(
            "INSERT INTO positions (game_id, number, created, upload, grid_photo, scan, position) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game.id, number, now(), upload, grid_photo, json.dumps(scan), position.dumps()),
        )
    return int(number)


def snapshots(game: Game) -> list[Snapshot]:
    rows = get_db().execute("SELECT * FROM positions WHERE game_id = ? ORDER BY number", (game.id,))
    return [Snapshot.from_row(row) for row in rows]


def snapshot(game: Game, number: int) -> Snapshot | None:
    row = (
        get_db()
        .execute("SELECT * FROM positions WHERE game_id = ? AND number = ?", (game.id, number))
        .fetchone()
    )
    return None if row is None else Snapshot.from_row(row)


def current(game: Game) -> Snapshot | None:
    """The position the game stands on: the one it ended on, else the latest confirmed one."""
    confirmed = [s for s in snapshots(game) if s.confirmed]
    if game.final_position is not None:
        return next(s for s in confirmed if s.id == game.final_position)
    return confirmed[-1] if confirmed else None


def save_correction(game: Game, number: int, position: Position, touched: str) -> None:
    """Replace a draft's position after a player corrected the cell or slot named ``touched``."""
    with transaction() as db:
        row = db.execute(
            "SELECT confirmed, touched FROM positions WHERE game_id = ? AND number = ?", (game.id, number)
        ).fetchone()
        if row is None:
            raise GameError(f"there is no position {number} in this game")
        if row["confirmed"]:
            raise GameError("this position is in the timeline already and can no longer change")
        names = sorted({*json.loads(row["touched"]), touched})
        db.execute(
            "UPDATE positions SET position = ?, touched = ? WHERE game_id = ? AND number = ?",
            (position.dumps(), json.dumps(names), game.id, number),
        )


def confirm(game: Game, number: int) -> None:
    """Put a draft into the timeline."""
    with transaction() as db:
        if _ended(db, game):
            raise GameError("the game has ended: its timeline is closed")
        cursor = db.execute(
            "UPDATE positions SET confirmed = ? WHERE game_id = ? AND number = ? AND confirmed IS NULL",
            (now(), game.id, number),
        )
        if cursor.rowcount == 0 and snapshot(game, number) is None:
            raise GameError(f"there is no position {number} in this game")


def end_game(game: Game) -> None:
    """End the game on its latest confirmed position: the players now enter their values."""
    with transaction() as db:
        if _ended(db, game):
            return  # a second tap on the button changes nothing
        row = db.execute(
            "SELECT id FROM positions WHERE game_id = ? AND confirmed IS NOT NULL ORDER BY number DESC",
            (game.id,),
        ).fetchone()
        if row is None:
            raise GameError("confirm a photographed position first: the game ends on the latest one")
        db.execute("UPDATE games SET final_position = ?, ended = ? WHERE id = ?", (row["id"], now(), game.id))


def warrior_values(game: Game) -> dict[str, dict[Cell, int]]:
    """Every value entered so far, by colour and cell. Not for anyone's eyes: see :mod:`webui.visibility`."""
    values: dict[str, dict[Cell, int]] = {colour: {} for colour in game.players}
    rows = get_db().execute("SELECT colour, cell, value FROM warrior_values WHERE game_id = ?", (game.id,))
    for row in rows:
        values.setdefault(row["colour"], {})[Cell.parse(row["cell"])] = row["value"]
    return values


def set_value(viewer: Viewer, cell: Cell, value: int | None) -> None:
    """The player's value for their warrior on ``cell`` (None takes it back), if their supply has it left."""
    colour = viewer.colour
    if colour is None:
        raise GameError("only a player, on their own link, enters their warriors' values")
    with transaction():
        game = reload(viewer.game)
        snap = current(game)
        if snap is None:
            raise GameError("no confirmed position yet: confirm a photo first")
        values = warrior_values(game)
        if revealed(game.ended is not None, snap.position, values):
            raise GameError("the scores are out: values can no longer change")
        warrior = snap.position.warrior_at(cell)
        if warrior is None or warrior.player != colour:
            raise GameError(f"{cell.name} holds no {colour} warrior")
        db = get_db()
        if value is None:
            db.execute(
                "DELETE FROM warrior_values WHERE game_id = ? AND colour = ? AND cell = ?",
                (game.id, colour, cell.name),
            )
            return
        mine = {c: v for c, v in values[colour].items() if c != cell}
        if value not in unused_values(snap.position, colour, mine):
            raise GameError(f"your supply has no warrior of value {value} left")
        db.execute(
            "INSERT OR REPLACE INTO warrior_values (game_id, colour, cell, value) VALUES (?, ?, ?, ?)",
            (game.id, colour, cell.name, value),
        )


def _ended(db: sqlite3.Connection, game: Game) -> bool:
    return db.execute("SELECT ended FROM games WHERE id = ?", (game.id,)).fetchone()["ended"] is not None
