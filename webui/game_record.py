"""A stored game's record (``docs/record.md``): its confirmed positions explained as turns.

The turns come from :func:`engine.turns.infer`; the values of the face-down warriors join the
record only once the reveal has shown them to everyone (:mod:`webui.visibility`), so a record
downloaded during the game tells nobody anything the board does not.
"""

from __future__ import annotations

from engine.record import Record, dumps
from engine.turns import infer
from webui import store
from webui.powers import with_tokens
from webui.visibility import revealed


def game_record(game: store.Game) -> Record:
    """The record of a game from its timeline; GameError while no position is confirmed."""
    confirmed = [s for s in store.snapshots(game) if s.confirmed]
    if game.final_position is not None:
        last = next(n for n, s in enumerate(confirmed) if s.id == game.final_position)
        confirmed = confirmed[: last + 1]
    if not confirmed:
        raise store.GameError("no confirmed position yet: the record starts with the first one")
    positions = [with_tokens(s.position, game.characters) for s in confirmed]
    values = store.warrior_values(game)
    shown = revealed(game.ended is not None, positions[-1], values)
    inference = infer(positions, finished=game.ended is not None)
    reveal = {cell: value for mine in values.values() for cell, value in mine.items()} if shown else None
    return inference.record(date=game.created, reveal=reveal)


def record_text(game: store.Game) -> str:
    return dumps(game_record(game))


def file_name(game: store.Game) -> str:
    """The name the record downloads under: the game's date and number."""
    return f"armadora-{game.created[:10]}-game-{game.id}.txt"
