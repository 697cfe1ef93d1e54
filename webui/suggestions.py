"""A player's suggestion, searched as a job (:mod:`webui.jobs`) and kept in the store.

The search takes both cores for a second: in the scaled server a worker runs it, and the
player's page says it is under way until the answer is kept, then shows it. The job names the
player's link, so the worker searches the position as that player sees it, with their own values
and, in the advanced game, what their Mage was shown (theirs alone); and whether they have used a
power this turn, which the request knows and the worker cannot (a power told is in the store, one
said when asking only in the form).
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

from flask import current_app

from engine.knowledge import Knowledge, KnowledgeError
from engine.search import suggest
from webui import jobs, store
from webui.game_view import Table, table
from webui.photos import InputError
from webui.powers import with_seen

# The search's arrays are shared by the threads of one process: one search at a time (a suggestion, or
# a turn of a review: webui.game_review).
SEARCH_LOCK = threading.Lock()


def power_used(t: Table, said: bool) -> bool:
    """Whether the viewer has used a power this turn, so that only the action is left to suggest:
    they told one on this position, or ``said`` so when asking (the board shows an arrow or a
    face-up warrior only once photographed). Never in a game without characters."""
    if t.hand is None:
        return False
    return t.power_told or said


def key(t: Table, used: bool) -> str:
    """What a suggestion was searched with, besides the position: the player's values, what their
    Mage was shown and whether a power was used this turn (:func:`webui.store.hand_key`)."""
    return store.hand_key(t.mine, {u.cell: u.value for u in t.looks if u.cell and u.value}, used)


def knowledge(viewer: store.Viewer, said_power: bool = False) -> tuple[Table, Knowledge, bool]:
    """The position as this player knows it, and whether they have used a power this turn
    (:func:`power_used`); InputError when there is nothing to suggest on."""
    if viewer.colour is None:
        raise InputError("suggestions are for players, on their own link")
    t = table(viewer)
    if t.position is None or t.current is None:
        raise InputError("confirm a photographed position first")
    if t.ended:
        raise InputError("the game has ended")
    used = power_used(t, said_power)
    # The player's own looks join their values here, for their search alone; t.position has none.
    position, seen = with_seen(t.position, t.looks)
    try:
        return t, Knowledge.from_position(position, viewer.colour, seen=seen, power_used=used), used
    except KnowledgeError as error:
        raise InputError(f"no suggestion: {error}") from None


class Asked(NamedTuple):
    job: jobs.Job | None  # None: the answer was kept already
    power_used: bool  # the suggestion is for the action left after a power (:func:`power_used`)
    power_told: bool  # ... because the player told one on this position (the store knows it)


def ask(viewer: store.Viewer, said_power: bool = False) -> Asked:
    """Search a suggestion for this link's player, unless one is kept for their position and hand: the
    job (over already in the embedded server), or None when the answer is kept."""
    t, _, used = knowledge(viewer, said_power)  # refused now, not on a worker
    assert t.current is not None and viewer.colour is not None
    if store.cached_suggestion(t.current, viewer.colour, key(t, used)) is not None:
        return Asked(None, used, t.power_told)
    job = jobs.submit("suggest", viewer.game, argument={"token": viewer.token, "after_power": used})
    job = jobs.wait(job, current_app.config["JOB_WAIT_S"])
    jobs.raise_failure(job)
    return Asked(job, used, t.power_told)


def search(job: jobs.Job) -> jobs.Outcome:
    """Run a suggestion job: the search's answer kept for the player's position and hand."""
    viewer = store.find_viewer(str(job.argument["token"]))
    if viewer is None:
        raise store.GameError("this game is gone (it was removed as abandoned)")
    t, view, used = knowledge(viewer, bool(job.argument.get("after_power", False)))
    assert t.current is not None and viewer.colour is not None
    hand = key(t, used)
    if store.cached_suggestion(t.current, viewer.colour, hand) is None:
        with SEARCH_LOCK:
            found = suggest(view, current_app.config["SUGGEST_SECONDS"])
        store.keep_suggestion(t.current, viewer.colour, hand, ranked(found.to_json()))
    return jobs.Outcome()


def ranked(found: dict[str, Any]) -> dict[str, Any]:
    """The search's answer with its moves best chance first, the first being the one drawn.

    >>> [m["win"] for m in ranked({"moves": [{"win": 0.6}, {"win": 0.7}]})["moves"]]
    [0.7, 0.6]
    """
    return {**found, "moves": sorted(found["moves"], key=lambda m: -float(m["win"]))}
