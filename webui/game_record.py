"""A stored game's record (``docs/record.md``): its confirmed positions explained as turns.

The turns come from :func:`engine.turns.infer`; the values of the face-down warriors join the
record only once the reveal has shown them to everyone (:mod:`webui.visibility`), so a record
downloaded during the game tells nobody anything the board does not. The record is made again
from the photos whenever it is asked for: a reading fixed changes it at once. An irregularity
the players kept (:func:`webui.store.keep_irregularity`, known by :func:`key`) is noted kept,
the others to settle.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.record import Event, Irregularity, Record, dumps
from engine.turns import infer
from webui import store
from webui.powers import with_tokens
from webui.visibility import revealed


@dataclass(frozen=True)
class Photographed:
    """A game's record with, for each of its turns and each of its irregularities, the number of the
    photo that first shows it."""

    record: Record
    turn_photos: tuple[int, ...]
    irregularity_photos: tuple[int, ...]

    @property
    def noted(self) -> tuple[tuple[Irregularity, int], ...]:
        """Each irregularity of the record with the photo that shows it."""
        return tuple(zip(self.record.irregularities, self.irregularity_photos, strict=True))

    def shows_irregularity(self, photo: int) -> bool:
        """Whether the photo of this number shows an irregularity: the one reason a confirmed photo
        may still change (its reading fixed)."""
        return photo in self.irregularity_photos


def key(irregularity: Irregularity, photo: int) -> tuple[int, str, str]:
    """What tells an irregularity of a game apart, and keeps it known while the photos show it: the
    photo, the kind and the cells by name.

    >>> from engine.board import Cell
    >>> key(Irregularity("warrior_moved", (Cell(2, 2), Cell(2, 3))), 4)
    (4, 'warrior_moved', 'c3 d3')
    """
    return photo, irregularity.kind, " ".join(irregularity.names)


def _with_kept(record: Record, photos: tuple[int, ...], kept: frozenset[tuple[int, str, str]]) -> Record:
    """The record with the irregularities the players kept noted so."""
    shown = iter(photos)
    events: list[Event] = [
        replace(e, kept=key(e, next(shown)) in kept) if isinstance(e, Irregularity) else e
        for e in record.events
    ]
    return replace(record, events=tuple(events))


def game_record(game: store.Game) -> Record:
    """The record of a game from its timeline; GameError while no position is confirmed."""
    return photographed(game).record


def photographed(game: store.Game) -> Photographed:
    """The record of a game from its timeline, and where its photos show each turn; GameError while
    no position is confirmed."""
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
    # Gap n leads to the n-th confirmed photo; the passes that end the game come after the last one.
    shows = [confirmed[min(gap.number, len(confirmed)) - 1].number for gap in inference.gaps]
    turns = tuple(n for n, gap in zip(shows, inference.gaps, strict=True) for _ in gap.turns)
    irregular = tuple(n for n, gap in zip(shows, inference.gaps, strict=True) for _ in gap.irregularities)
    record = _with_kept(
        inference.record(date=game.created, reveal=reveal), irregular, store.kept_irregularities(game)
    )
    return Photographed(record, turns, irregular)


def record_text(game: store.Game) -> str:
    return dumps(game_record(game))


def file_name(game: store.Game) -> str:
    """The name the record downloads under: the game's date and number."""
    return f"armadora-{game.created[:10]}-game-{game.id}.txt"
