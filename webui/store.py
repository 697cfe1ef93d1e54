"""Games as the database keeps them: players' links, the photographed positions, the entered values.

Every write runs in one transaction that takes the writers' lock (:func:`webui.db.transaction`), so
that two players entering values at the same moment both land, and a check of
what is left of a supply cannot race the write it guards.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

from engine.board import Cell
from engine.position import Position
from engine.supply import supply_for
from webui.db import Database, Row, get_db, transaction
from webui.powers import Use
from webui.visibility import face_up, revealed, unused_values

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
    characters: tuple[str, ...] = ()  # advanced game: each player's character, in turn order

    @classmethod
    def from_row(cls, row: Row) -> Game:
        return cls(
            row["id"],
            row["host_token"],
            row["created"],
            row["variant"],
            tuple(json.loads(row["players"])),
            row["profile"],
            row["final_position"],
            row["ended"],
            tuple(json.loads(row["characters"] or "[]")),
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
    turn: int = 0  # quarter turns clockwise to draw the diagram as the photo shows the board
    outline: dict[str, Any] = field(default_factory=dict)  # cells' corners in the grid photo
    colours_seen: dict[str, int] = field(default_factory=dict)  # warriors of each colour in the photo
    undo_steps: int = 0
    redo_steps: int = 0
    fixing: str | None = None  # a confirmed photo opened to fix an irregularity's reading: since when

    @property
    def editable(self) -> bool:
        """Whether its reading may change (before the end, for a draft: see :func:`_draft_row`)."""
        return self.confirmed is None or self.fixing is not None

    @classmethod
    def from_row(cls, row: Row) -> Snapshot:
        history = json.loads(row["history"])
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
            row["turn"],
            json.loads(row["outline"]),
            json.loads(row["colours_seen"]),
            len(history["undo"]),
            len(history["redo"]),
            row["fixing"],
        )


@dataclass(frozen=True)
class Scanned:
    """What the page keeps of a scanned photo beside its position (:func:`add_snapshot`)."""

    upload: str
    grid_photo: str
    scan: dict[str, Any]
    position: Position
    digest: str = ""
    turn: int = 0
    outline: dict[str, Any] = field(default_factory=dict)
    colours_seen: dict[str, int] = field(default_factory=dict)


def create_game(
    variant: str, players: tuple[str, ...], profile: str | None, characters: tuple[str, ...] = ()
) -> Viewer:
    """A new game with a link for the host and one for each player; the host's viewer."""
    supply_for(len(players))  # 2 to 4 players, or ValueError
    host = new_token()
    with transaction() as db:
        game_id = db.execute(
            "INSERT INTO games (host_token, created, variant, players, profile, characters) "
            "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (
                host,
                now(),
                variant,
                json.dumps(list(players)),
                profile,
                json.dumps(list(characters)) if characters else None,
            ),
        ).fetchone()[0]
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


def find_game(game_id: int) -> Game | None:
    row = get_db().execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
    return None if row is None else Game.from_row(row)


def reload(game: Game) -> Game:
    return Game.from_row(get_db().execute("SELECT * FROM games WHERE id = ?", (game.id,)).fetchone())


def seat_tokens(game: Game) -> dict[str, str]:
    """Each player's link token, in turn order."""
    rows = get_db().execute("SELECT colour, token FROM seats WHERE game_id = ?", (game.id,)).fetchall()
    tokens = {row["colour"]: row["token"] for row in rows}
    return {colour: tokens[colour] for colour in game.players}


def draft_of_photo(game: Game, digest: str) -> int | None:
    """The number of a kept draft made from the same photo, if any: one photo makes one draft."""
    row = (
        get_db()
        .execute(
            "SELECT number FROM positions WHERE game_id = ? AND digest = ? AND confirmed IS NULL "
            "AND deleted IS NULL",
            (game.id, digest),
        )
        .fetchone()
    )
    return None if row is None else int(row["number"])


def add_snapshot(game: Game, scanned: Scanned) -> int:
    """Store a newly scanned position as a draft; its number in the game (an existing draft's
    for a photo sent twice)."""
    with transaction() as db:
        if _ended(db, game):
            raise GameError("the game has ended: no more photos")
        if scanned.digest:
            same = draft_of_photo(game, scanned.digest)
            if same is not None:
                return same
        number = db.execute(
            "SELECT COALESCE(MAX(number), 0) + 1 FROM positions WHERE game_id = ?", (game.id,)
        ).fetchone()[0]
        db.execute(
            "INSERT INTO positions (game_id, number, created, upload, grid_photo, scan, position, digest, "
            "turn, outline, colours_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                game.id,
                number,
                now(),
                scanned.upload,
                scanned.grid_photo,
                json.dumps(scanned.scan),
                scanned.position.dumps(),
                scanned.digest,
                scanned.turn,
                json.dumps(scanned.outline),
                json.dumps(scanned.colours_seen),
            ),
        )
    return int(number)


def snapshots(game: Game) -> list[Snapshot]:
    rows = get_db().execute(
        "SELECT * FROM positions WHERE game_id = ? AND deleted IS NULL ORDER BY number", (game.id,)
    )
    return [Snapshot.from_row(row) for row in rows]


def snapshot(game: Game, number: int) -> Snapshot | None:
    row = (
        get_db()
        .execute(
            "SELECT * FROM positions WHERE game_id = ? AND number = ? AND deleted IS NULL", (game.id, number)
        )
        .fetchone()
    )
    return None if row is None else Snapshot.from_row(row)


def current(game: Game) -> Snapshot | None:
    """The position the game stands on: the one it ended on, else the latest confirmed one."""
    confirmed = [s for s in snapshots(game) if s.confirmed]
    if game.final_position is not None:
        return next(s for s in confirmed if s.id == game.final_position)
    return confirmed[-1] if confirmed else None


def _draft_row(db: Database, game: Game, number: int) -> Row:
    """A draft's row, to change it, or a confirmed photo's opened to fix its reading (:func:`open_fix`,
    even after the end); GameError when it is gone or in the timeline already."""
    row = db.execute(
        "SELECT * FROM positions WHERE game_id = ? AND number = ? AND deleted IS NULL", (game.id, number)
    ).fetchone()
    if row is None:
        raise GameError(f"there is no photo {number} in this game (it may have been deleted)")
    if row["fixing"]:
        return cast(Row, row)
    if row["confirmed"]:
        raise GameError(
            "this position is in the timeline already and can no longer change (but to fix the reading "
            "of a photo that shows an irregularity, from the game's review)"
        )
    if _ended(db, game):
        raise GameError("the game has ended: its photos can no longer change")
    return cast(Row, row)


def open_fix(game: Game, number: int) -> None:
    """Open a confirmed photo to fix its reading, even after the end: the caller has checked that it
    shows an irregularity (:func:`webui.game_record.photographed`), the one reason it may change."""
    with transaction() as db:
        cursor = db.execute(
            "UPDATE positions SET fixing = COALESCE(fixing, ?) WHERE game_id = ? AND number = ? "
            "AND confirmed IS NOT NULL AND deleted IS NULL",
            (now(), game.id, number),
        )
        if cursor.rowcount == 0:
            raise GameError(f"there is no photo {number} in the timeline of this game")


def kept_irregularities(game: Game) -> frozenset[tuple[int, str, str]]:
    """The irregularities the players kept: (photo, kind, cells by name space-separated)."""
    rows = get_db().execute(
        "SELECT photo, kind, cells FROM kept_irregularities WHERE game_id = ?", (game.id,)
    )
    return frozenset((int(row["photo"]), row["kind"], row["cells"]) for row in rows)


def keep_irregularity(game: Game, key: tuple[int, str, str]) -> None:
    """Keep an irregularity (the caller has checked the photos show it): the record notes it kept."""
    photo, kind, cells = key
    with transaction() as db:
        db.execute(
            "INSERT INTO kept_irregularities (game_id, photo, kind, cells, created) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (game_id, photo, kind, cells) DO NOTHING",
            (game.id, photo, kind, cells, now()),
        )


def save_correction(game: Game, number: int, position: Position, touched: str) -> None:
    """Replace a draft's position after a player corrected the cell or slot named ``touched``;
    the position before it can be brought back by :func:`step_history`."""
    with transaction() as db:
        row = _draft_row(db, game, number)
        history = json.loads(row["history"])
        history["undo"].append({"position": row["position"], "touched": json.loads(row["touched"])})
        history["redo"] = []
        names = sorted({*json.loads(row["touched"]), touched})
        db.execute(
            "UPDATE positions SET position = ?, touched = ?, history = ? WHERE id = ?",
            (position.dumps(), json.dumps(names), json.dumps(history), row["id"]),
        )


def step_history(game: Game, number: int, direction: str) -> None:
    """Undo (``direction`` "undo") the draft's last correction, or redo (``"redo"``) the last undone one."""
    back = {"undo": "redo", "redo": "undo"}[direction]
    with transaction() as db:
        row = _draft_row(db, game, number)
        history = json.loads(row["history"])
        if not history[direction]:
            raise GameError(f"there is nothing to {direction} on this photo")
        state = history[direction].pop()
        history[back].append({"position": row["position"], "touched": json.loads(row["touched"])})
        db.execute(
            "UPDATE positions SET position = ?, touched = ?, history = ? WHERE id = ?",
            (state["position"], json.dumps(state["touched"]), json.dumps(history), row["id"]),
        )


def set_turn(game: Game, number: int, turn: int) -> None:
    """Draw a photo's diagram with ``turn`` quarter turns clockwise (any photo in the timeline; a draft
    only before the end, like any change to it)."""
    with transaction() as db:
        row = db.execute(
            "SELECT confirmed FROM positions WHERE game_id = ? AND number = ? AND deleted IS NULL",
            (game.id, number),
        ).fetchone()
        if row is not None and not row["confirmed"]:
            _draft_row(db, game, number)  # GameError after the end
        db.execute(
            "UPDATE positions SET turn = ? WHERE game_id = ? AND number = ? AND deleted IS NULL",
            (turn % 4, game.id, number),
        )


def delete_draft(game: Game, number: int) -> None:
    """Set a draft aside: it leaves the list to review; its number is not given again."""
    with transaction() as db:
        row = db.execute(
            "SELECT id, confirmed FROM positions WHERE game_id = ? AND number = ? AND deleted IS NULL",
            (game.id, number),
        ).fetchone()
        if row is None:
            return  # deleted already: a second tap changes nothing
        if row["confirmed"]:
            raise GameError("this photo is in the timeline: only photos still to review can be deleted")
        if _ended(db, game):
            raise GameError("the game has ended: its photos can no longer change")
        db.execute("UPDATE positions SET deleted = ? WHERE id = ?", (now(), row["id"]))


def rescan_draft(game: Game, number: int, scanned: Scanned) -> None:
    """Replace a draft's reading by a new scan of its photo (after the game's colours changed)."""
    with transaction() as db:
        row = _draft_row(db, game, number)
        db.execute(
            "UPDATE positions SET scan = ?, position = ?, touched = '[]', colours_seen = ?, "
            """history = '{"undo": [], "redo": []}' WHERE id = ?""",
            (
                json.dumps(scanned.scan),
                scanned.position.dumps(),
                json.dumps(scanned.colours_seen),
                row["id"],
            ),
        )


def recolour(game: Game, renames: dict[str, str]) -> Game:
    """Give the game other colours (``renames`` old to new, same turn order) before it ends:
    its players, their links, the positions and the values entered follow."""
    if not renames:
        return game
    with transaction() as db:
        if _ended(db, game):
            raise GameError("the game has ended: its colours can no longer change")
        players = tuple(renames.get(c, c) for c in game.players)
        if len(set(players)) != len(players):
            raise GameError("each player needs a colour of their own")
        db.execute("UPDATE games SET players = ? WHERE id = ?", (json.dumps(list(players)), game.id))
        for old, new in renames.items():
            db.execute("UPDATE seats SET colour = ? WHERE game_id = ? AND colour = ?", (new, game.id, old))
            db.execute(
                "UPDATE warrior_values SET colour = ? WHERE game_id = ? AND colour = ?", (new, game.id, old)
            )
            for column in ("colour", "owner"):  # the powers told follow their players
                db.execute(
                    f"UPDATE power_uses SET {column} = ? WHERE game_id = ? AND {column} = ?",
                    (new, game.id, old),
                )
        rows = db.execute("SELECT id, position FROM positions WHERE game_id = ?", (game.id,)).fetchall()
        for row in rows:
            document = json.loads(row["position"])
            document["players"] = [renames.get(c, c) for c in document["players"]]
            for warrior in document["warriors"]:
                warrior["player"] = renames.get(warrior["player"], warrior["player"])
            db.execute("UPDATE positions SET position = ? WHERE id = ?", (json.dumps(document), row["id"]))
        db.execute(
            "DELETE FROM suggestions WHERE position_id IN (SELECT id FROM positions WHERE game_id = ?)",
            (game.id,),
        )
    return reload(game)


def cached_suggestion(snap: Snapshot, colour: str, hand: str) -> dict[str, Any] | None:
    """The suggestion found before for this player on this position with this hand (:func:`hand_key`)."""
    row = (
        get_db()
        .execute(
            "SELECT document FROM suggestions WHERE position_id = ? AND colour = ? AND hand = ?",
            (snap.id, colour, hand),
        )
        .fetchone()
    )
    return None if row is None else dict(json.loads(row["document"]))


def keep_suggestion(snap: Snapshot, colour: str, hand: str, document: dict[str, Any]) -> None:
    with transaction() as db:
        db.execute(
            "INSERT INTO suggestions (position_id, colour, hand, document) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (position_id, colour, hand) DO UPDATE SET document = excluded.document",
            (snap.id, colour, hand, json.dumps(document)),
        )


def hand_key(hand: dict[Cell, int], seen: dict[Cell, int] | None = None, power_used: bool = False) -> str:
    """What a suggestion is searched with besides the position, as the key it is kept under: the
    player's values and, in the advanced game, what their Mage was shown and whether a power was
    used this turn (a base game's key is the values alone, as kept before)."""
    values = sorted((cell.name, value) for cell, value in hand.items())
    if not seen and not power_used:
        return json.dumps(values)
    looks = sorted((cell.name, value) for cell, value in (seen or {}).items())
    return json.dumps({"hand": values, "seen": looks, "power_used": power_used})


def version(viewer: Viewer, also: Any = ()) -> str:
    """A fingerprint of everything this link's pages show: it changes when any of it changes.

    Of the values it takes only how many each player has entered, and the viewer's own; ``also`` is
    more of what the pages show (JSON), from outside the store's game tables."""
    db = get_db()
    game = reload(viewer.game)
    rows = db.execute(
        "SELECT number, confirmed, position, turn, touched, history, fixing FROM positions "
        "WHERE game_id = ? AND deleted IS NULL ORDER BY number",
        (game.id,),
    ).fetchall()
    counts = db.execute(
        "SELECT colour, COUNT(*) FROM warrior_values WHERE game_id = ? GROUP BY colour", (game.id,)
    ).fetchall()
    mine = sorted((c.name, v) for c, v in warrior_values(game).get(viewer.colour or "", {}).items())
    # Of the powers told, everyone's count changes every page (tokens left); a look's value only its own.
    told = [(u.colour, u.power, u.position_id) for u in power_uses(game)]
    looks = [(u.cell.name, u.value) for u in power_uses(game, viewer.colour or "") if u.cell is not None]
    kept = sorted(kept_irregularities(game))
    state = [
        game.players,
        game.ended,
        kept,
        [tuple(row) for row in rows],
        sorted(tuple(row) for row in counts),
        mine,
        told,
        looks,
        also,
    ]
    return hashlib.sha256(json.dumps(state).encode()).hexdigest()[:16]


def confirm(game: Game, number: int) -> None:
    """Put a draft into the timeline, or close the fix of a confirmed photo (even after the end)."""
    with transaction() as db:
        closed = db.execute(
            "UPDATE positions SET fixing = NULL WHERE game_id = ? AND number = ? AND fixing IS NOT NULL "
            "AND deleted IS NULL",
            (game.id, number),
        )
        if closed.rowcount:
            return
        if _ended(db, game):
            raise GameError("the game has ended: its timeline is closed")
        cursor = db.execute(
            "UPDATE positions SET confirmed = ? WHERE game_id = ? AND number = ? AND confirmed IS NULL "
            "AND deleted IS NULL",
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
        if face_up(warrior):
            raise GameError(f"{cell.name} lies face up: its value, {warrior.value}, shows on the board")
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
            "INSERT INTO warrior_values (game_id, colour, cell, value) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (game_id, colour, cell) DO UPDATE SET value = excluded.value",
            (game.id, colour, cell.name, value),
        )


def _ended(db: Database, game: Game) -> bool:
    return db.execute("SELECT ended FROM games WHERE id = ?", (game.id,)).fetchone()["ended"] is not None


def power_uses(game: Game, colour: str | None = None) -> list[Use]:
    """The powers told so far (only ``colour``'s, if given), oldest first. A look's value is its
    player's secret: whoever reads another colour's uses here must drop their cells and values."""
    # Two queries rather than ``? IS NULL OR colour = ?``: PostgreSQL cannot type a parameter only
    # compared with NULL.
    if colour is None:
        rows = get_db().execute("SELECT * FROM power_uses WHERE game_id = ? ORDER BY id", (game.id,))
    else:
        rows = get_db().execute(
            "SELECT * FROM power_uses WHERE game_id = ? AND colour = ? ORDER BY id", (game.id, colour)
        )
    return [
        Use(
            row["colour"],
            row["power"],
            row["position_id"],
            None if row["cell"] is None else Cell.parse(row["cell"]),
            row["owner"],
            row["value"],
        )
        for row in rows
    ]


def tell_power(viewer: Viewer, check_use: Callable[[Snapshot, list[Use]], Use]) -> None:
    """Keep a power the viewer's player says they used on the current position: the use that
    ``check_use`` (given that position and the powers told before) makes of it, unless it raises;
    in one transaction, so that two taps cannot both spend the last token."""
    with transaction() as db:
        game = reload(viewer.game)
        if game.ended is not None:
            raise GameError("the game has ended: no more powers")
        snap = current(game)
        if snap is None:
            raise GameError("no confirmed position yet: confirm a photo first")
        use = check_use(snap, power_uses(game))
        db.execute(
            "INSERT INTO power_uses (game_id, colour, power, position_id, cell, owner, value, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                game.id,
                use.colour,
                use.power,
                snap.id,
                None if use.cell is None else use.cell.name,
                use.owner,
                use.value,
                now(),
            ),
        )
