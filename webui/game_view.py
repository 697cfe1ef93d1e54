"""A game as one link sees it: the page and the API's game document are both built from a :class:`Table`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.board import Cell
from engine.check import CheckReport, check
from engine.position import Position
from engine.report import score_document
from engine.scoring import Score, ScoringError, score
from vision.looks import REFERENCE_COLOURS
from webui import store
from webui.photos import load_profile_text
from webui.powers import Hand, Use, hands, with_tokens
from webui.visibility import missing_values, revealed, unused_values, visible_position


@dataclass(frozen=True)
class Table:
    """What a viewer's page shows. Holds no value the viewer may not see."""

    viewer: store.Viewer
    snapshots: tuple[store.Snapshot, ...]
    current: store.Snapshot | None
    position: Position | None  # the current position with the values this viewer may see
    report: CheckReport | None
    revealed: bool
    entered: dict[str, bool]  # whether each player has entered all their values (no value itself)
    mine: dict[Cell, int]  # the viewer's own values
    offered: tuple[int, ...]  # the values left in the viewer's supply
    result: Score | None
    score_error: str | None
    hand: Hand | None = None  # advanced game: the viewer's character and tokens left
    looks: tuple[Use, ...] = ()  # advanced game: what the viewer's Mage was shown, theirs alone
    power_told: bool = False  # the viewer told a power used on the current position: their turn goes on

    @property
    def game(self) -> store.Game:
        return self.viewer.game

    @property
    def ended(self) -> bool:
        return self.game.ended is not None

    @property
    def drafts(self) -> tuple[store.Snapshot, ...]:
        return tuple(s for s in self.snapshots if not s.confirmed)

    @property
    def timeline(self) -> tuple[store.Snapshot, ...]:
        return tuple(s for s in self.snapshots if s.confirmed)


def colours(game: store.Game) -> dict[str, str]:
    """Each colour's ``#rrggbb`` on the page: the game's calibration profile's, else the reference kit's."""
    rgb = dict(REFERENCE_COLOURS)
    if game.profile:
        rgb.update(load_profile_text(game.profile).colours)
    return {name: "#{:02x}{:02x}{:02x}".format(*value) for name, value in rgb.items()}


def table(viewer: store.Viewer) -> Table:
    game = viewer.game
    snaps = tuple(store.snapshots(game))
    current = store.current(game)
    if current is None:
        return Table(viewer, snaps, None, None, None, False, {}, {}, (), None, None)
    values = store.warrior_values(game)
    shown = revealed(game.ended is not None, current.position, values)
    uses = store.power_uses(game)
    position = with_tokens(
        visible_position(current.position, values, viewer.colour, shown), game.characters, uses
    )
    entered = {colour: not missing_values(current.position, colour, values) for colour in game.players}
    mine = dict(values.get(viewer.colour, {})) if viewer.colour else {}
    offered = unused_values(current.position, viewer.colour, mine) if viewer.colour else ()
    result, error = None, None
    if shown:
        try:
            result = score(position)
        except ScoringError as err:
            error = str(err)
    hand: Hand | None = None
    looks: tuple[Use, ...] = ()
    if viewer.colour and game.characters:
        hand = hands(position, game.characters, uses)[viewer.colour]
        # Only the viewer's own looks, values and all: nobody else's reach this table.
        looks = tuple(u for u in uses if u.colour == viewer.colour and u.cell is not None)
    told = any(u.colour == viewer.colour and u.position_id == current.id for u in uses)
    return Table(
        viewer, snaps, current, position, check(position), shown, entered, mine, offered, result, error,
        hand, looks, told,
    )  # fmt: skip


def game_state(viewer: store.Viewer) -> dict[str, Any]:
    """The API's game document for a link: the same things its page shows."""
    t = table(viewer)
    phase = "revealed" if t.revealed else "entering values" if t.ended else "playing"
    return {
        "players": list(t.game.players),
        "variant": t.game.variant,
        "you": viewer.colour,
        "phase": phase,
        "timeline": [{"number": s.number, "taken": s.created, "confirmed": s.confirmed} for s in t.snapshots],
        "position": None if t.position is None else t.position.to_json(),
        "check": None if t.report is None else t.report.to_json(),
        "entered": t.entered,
        "score": None
        if t.result is None or t.position is None or t.report is None
        else score_document(t.result, t.report),
        "score_error": t.score_error,
    }
