"""A player's suggestion, searched as a job (:mod:`webui.jobs`) and kept in the store.

The search takes both cores for a second: in the scaled server a worker runs it, and the
player's page says it is under way until the answer is kept, then shows it. The job names the
player's link, so the worker searches the position as that player sees it, with their own values.
"""

from __future__ import annotations

import threading
from typing import Any

from flask import current_app

from engine.knowledge import Knowledge, KnowledgeError
from engine.search import suggest
from webui import jobs, store
from webui.game_view import Table, table
from webui.photos import InputError

# The search's arrays are shared by the threads of one process: one suggestion at a time.
_SEARCH_LOCK = threading.Lock()


def knowledge(viewer: store.Viewer) -> tuple[Table, Knowledge]:
    """The position as this player knows it; InputError when there is nothing to suggest on."""
    if viewer.colour is None:
        raise InputError("suggestions are for players, on their own link")
    t = table(viewer)
    if t.position is None or t.current is None:
        raise InputError("confirm a photographed position first")
    if t.ended:
        raise InputError("the game has ended")
    try:
        return t, Knowledge.from_position(t.position, viewer.colour)
    except KnowledgeError as error:
        raise InputError(f"no suggestion: {error}") from None


def ask(viewer: store.Viewer) -> jobs.Job | None:
    """Search a suggestion for this link's player, unless one is kept for their position and hand: the
    job (over already in the embedded server), or None when the answer is kept."""
    t, _ = knowledge(viewer)  # refused now, not on a worker
    assert t.current is not None and viewer.colour is not None
    if store.cached_suggestion(t.current, viewer.colour, t.mine) is not None:
        return None
    job = jobs.submit("suggest", viewer.game, argument={"token": viewer.token})
    job = jobs.wait(job, current_app.config["JOB_WAIT_S"])
    jobs.raise_failure(job)
    return job


def search(job: jobs.Job) -> jobs.Outcome:
    """Run a suggestion job: the search's answer kept for the player's position and hand."""
    viewer = store.find_viewer(str(job.argument["token"]))
    if viewer is None:
        raise store.GameError("this game is gone (it was removed as abandoned)")
    t, view = knowledge(viewer)
    assert t.current is not None and viewer.colour is not None
    if store.cached_suggestion(t.current, viewer.colour, t.mine) is None:
        with _SEARCH_LOCK:
            found = suggest(view, current_app.config["SUGGEST_SECONDS"])
        store.keep_suggestion(t.current, viewer.colour, t.mine, ranked(found.to_json()))
    return jobs.Outcome()


def ranked(found: dict[str, Any]) -> dict[str, Any]:
    """The search's answer with its moves best chance first, the first being the one drawn.

    >>> [m["win"] for m in ranked({"moves": [{"win": 0.6}, {"win": 0.7}]})["moves"]]
    [0.7, 0.6]
    """
    return {**found, "moves": sorted(found["moves"], key=lambda m: -float(m["win"]))}
