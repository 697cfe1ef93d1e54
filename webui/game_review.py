"""The review of a finished game (``docs/record.md``, "Review"): a job, then its page.

After the reveal any of the game's links may ask for the review: a job of kind ``review``
(:mod:`webui.jobs`) takes the game's record (:mod:`webui.game_record`), with every value now
known, and reviews it turn by turn (:func:`engine.review.review`), saying in the job's row how
far it has come. The embedded server runs it in a thread of its own, the scaled one on a worker.
The page shows that progress while it runs, then a chart of the win probability across the
game (SVG drawn here), the turns with their marks, each a link to the board after it, and the
irregularities the photos showed, with a link to the photo that shows each.

Each irregularity is settled here: *Keep it* (the players accept it: :func:`webui.store.keep_irregularity`;
the record notes it kept, and the review goes on past it where the record can say the board after
it), or *Fix the reading*, which opens its photo's correction even after the end (only a photo that
shows an irregularity: the others stay locked). Either changes the record, made again from the
photos; a review of another record than the game's now is out of date, and offered again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from engine.position import sides_of
from engine.record import RecordError, dumps, parse
from engine.review import Budget, review, steps
from webui import diagram, jobs, store
from webui.game_record import Photographed, key, photographed
from webui.game_view import colours, table
from webui.pages import version, viewer_or_404, wants_fragment
from webui.photos import InputError
from webui.suggestions import SEARCH_LOCK
from webui.visibility import revealed

bp = Blueprint("game_review", __name__)

#: What a review spends on a turn unless the app's configuration says otherwise.
DEFAULT_BUDGET = Budget()
NOT_YET = "the review opens after the reveal, once every player has entered their warriors' values"


def budget() -> Budget:
    config = current_app.config
    return Budget(
        playouts=int(config.get("REVIEW_PLAYOUTS", DEFAULT_BUDGET.playouts)),
        iterations=int(config.get("REVIEW_ITERATIONS", DEFAULT_BUDGET.iterations)),
    )


def is_revealed(game: store.Game) -> bool:
    snap = store.current(game)
    return snap is not None and revealed(game.ended is not None, snap.position, store.warrior_values(game))


def latest(game: store.Game) -> jobs.Job | None:
    """The game's latest review job, whatever its state."""
    return jobs.latest(game, "review")


def current_record(game: store.Game) -> Photographed | None:
    """The game's record as its photos give it now; None while no position is confirmed."""
    try:
        return photographed(game)
    except store.GameError:
        return None


def noted(shown: Photographed | None) -> list[dict[str, Any]]:
    """The record's irregularities as the page lists them: each with its photo, its key and whether
    it was kept."""
    if shown is None:
        return []
    return [
        {"text": str(i), "kind": i.kind, "message": i.message, "photo": photo, "cells": list(i.names),
         "kept": i.kept, "key": " ".join(key(i, photo)[1:])}
        for i, photo in shown.noted
    ]  # fmt: skip


# --------------------------------------------------------------------------- the job


def review_game(job: jobs.Job) -> jobs.Outcome:
    """Run a review job: the review of the game's record, with where its photos show each turn."""
    game = jobs.game_of(job)
    if not is_revealed(game):
        raise store.GameError(NOT_YET)
    shown = photographed(game)

    def progress(done: int, total: int) -> None:
        jobs.set_progress(job.id, f"turn {done} of {total}")

    try:
        found = review(shown.record, budget(), progress=progress, lock=SEARCH_LOCK)
    except RecordError as error:
        raise store.GameError(f"this game cannot be reviewed: {error}") from None
    document = {
        "review": found.to_json(),
        "record": dumps(shown.record),
        "turn_photos": list(shown.turn_photos),
        "irregularities": noted(shown),
    }
    return jobs.Outcome(result=json.dumps(document))


# --------------------------------------------------------------------------- the chart


@dataclass(frozen=True)
class Line:
    side: str
    colour: str
    points: str  # an SVG polyline's points


@dataclass(frozen=True)
class Dot:
    index: int
    x: float
    y: float
    mark: str
    title: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    top: int
    plot_w: int
    plot_h: int
    lines: tuple[Line, ...]
    dots: tuple[Dot, ...]
    ticks: tuple[tuple[float, str], ...]  # y, label
    turn_ticks: tuple[tuple[float, str], ...]  # x, label
    selected: float | None  # x of the turn shown on the board
    kept: tuple[
        tuple[float, str], ...
    ] = ()  # x of each irregularity kept that the review went past, what it was


CHART_W, CHART_H = 360, 170
LEFT, RIGHT, TOP, BOTTOM = 36, 10, 10, 26


def chart(doc: dict[str, Any], palette: dict[str, str], selected: int | None = None) -> Chart:
    """The win probability of each side across the game: after each turn, from the start. With two
    sides (two players, or two teams) both lines are known at every turn (they add up to 1); with
    three players each line has the points of its own player's turns. An irregularity kept that the
    review went past is a dashed line between the turns it came between."""
    turns = doc["turns"]
    players = tuple(doc["players"])
    sides = sides_of(players) if players else ()
    plot_w, plot_h = CHART_W - LEFT - RIGHT, CHART_H - TOP - BOTTOM
    n = max(len(turns), 1)

    def x(k: int) -> float:
        return round(LEFT + plot_w * k / n, 1)

    def y(chance: float) -> float:
        return round(TOP + plot_h * (1 - chance), 1)

    def side_of(colour: str) -> str:
        return sides[players.index(colour) % len(sides)]

    series: dict[str, list[tuple[float, float]]] = {side: [] for side in sides}
    for k, t in enumerate(turns, 1):
        mover = side_of(t["mover"])
        for side in sides:
            if side == mover:
                if k == 1 or len(sides) != 2:
                    series[side].append((x(k - 1), y(t["chance_before"])))
                series[side].append((x(k), y(t["chance_after"])))
            elif len(sides) == 2:
                if k == 1:
                    series[side].append((x(0), y(1 - t["chance_before"])))
                series[side].append((x(k), y(1 - t["chance_after"])))
    lines = tuple(
        Line(side, diagram.side_colour(side, palette), " ".join(f"{px},{py}" for px, py in points))
        for side, points in series.items()
        if points
    )
    dots = tuple(
        Dot(k, x(k), y(t["chance_after"]), t["mark"], f"turn {k}, {t['mover']}: {t['move']}, {t['mark']}")
        for k, t in enumerate(turns, 1)
        if t["mark"]
    )
    ticks = tuple((y(c), f"{round(100 * c)} %") for c in (0.0, 0.5, 1.0))
    step = max(1, -(-n // 6 // 10) * 10) if n > 12 else 2
    turn_ticks = tuple((x(k), str(k)) for k in range(0, len(turns) + 1, step))
    shown = x(selected) if selected is not None and 1 <= selected <= len(turns) else None
    kept = tuple((x(k["after"]), f"after turn {k['after']}, kept: {k['text']}") for k in doc.get("kept", []))
    return Chart(CHART_W, CHART_H, LEFT, TOP, plot_w, plot_h, lines, dots, ticks, turn_ticks, shown, kept)


# --------------------------------------------------------------------------- the page


def board_at(doc: dict[str, Any], palette: dict[str, str], number: int) -> diagram.Diagram | None:
    """The board after turn ``number`` of the reviewed record, values and all; None for no such turn."""
    try:
        record = parse(doc["record"])
        todo, _ = steps(record)
    except RecordError:
        return None
    if not 1 <= number <= len(todo):
        return None
    return diagram.build(todo[number - 1].after.to_position(), palette)


def out_of_date(job: jobs.Job | None, shown: Photographed | None) -> bool:
    """Whether a review done is of another record than the game's photos give now (a reading fixed,
    an irregularity kept since)."""
    if job is None or job.state != "done" or not job.result or shown is None:
        return False
    return bool(json.loads(job.result)["record"] != dumps(shown.record))


def page(viewer: store.Viewer, status: int = 200, error: str | None = None) -> ResponseReturnValue:
    seen = version(viewer)  # before what the page shows (:func:`webui.pages.version`)
    game = viewer.game
    palette = colours(game)
    job = latest(game)
    shown = current_record(game)
    doc: dict[str, Any] | None = None
    if job is not None and job.state == "done" and job.result:
        doc = json.loads(job.result)
    selected: int | None = None
    board, picked, photo = None, None, None
    asked = request.args.get("turn", "")
    if doc is not None and asked:
        turns = doc["review"]["turns"]
        if asked.isdigit() and 1 <= int(asked) <= len(turns):
            selected = int(asked)
            board = board_at(doc, palette, selected)
        if board is None or selected is None:
            error = f"there is no turn {asked[:10]!r} in this review: pick one of turns 1 to {len(turns)}"
            status = 404
            selected = None
        else:
            picked = turns[selected - 1]
            photo = doc["turn_photos"][selected - 1] if selected <= len(doc["turn_photos"]) else None
    kept_before = {} if doc is None else {k["after"]: k for k in doc["review"].get("kept", [])}
    return (
        render_template(
            "game_review.html",
            viewer=viewer,
            t=table(viewer),
            job=job,
            doc=doc,
            chart=None if doc is None else chart(doc["review"], palette, selected),
            board=board,
            picked=picked,
            photo=photo,
            colours=palette,
            error=error,
            irregularities=noted(shown),
            stale=out_of_date(job, shown),
            kept_before=kept_before,
            version=seen,
        ),
        status,
    )


def revealed_viewer(token: str) -> store.Viewer:
    """The viewer of a link whose game is revealed; GameError (the review's refusal) before that."""
    viewer = viewer_or_404(token)
    if not is_revealed(viewer.game):
        raise store.GameError(NOT_YET)
    return viewer


@bp.errorhandler(InputError)
@bp.errorhandler(store.GameError)
def refused(error: ValueError) -> ResponseReturnValue:
    """A refused action: the review's page again with the reason on top (before the reveal, the
    reason alone)."""
    status = error.status if isinstance(error, InputError) else 409
    token = (request.view_args or {}).get("token")
    viewer = store.find_viewer(token) if token else None
    if viewer is None or not is_revealed(viewer.game) or wants_fragment():
        return render_template("error.html", message=str(error), status=status), status
    return page(viewer, status, str(error))


@bp.get("/g/<token>/review")
def show(token: str) -> ResponseReturnValue:
    """The game's review: the button to start it, its progress, or the review itself."""
    return page(revealed_viewer(token))


@bp.post("/g/<token>/review")
def start(token: str) -> ResponseReturnValue:
    """Start the game's review (unless one is under way, or done of the record the photos give now),
    then show its page."""
    viewer = revealed_viewer(token)
    job = latest(viewer.game)
    if job is None or job.state == "failed" or out_of_date(job, current_record(viewer.game)):
        jobs.submit("review", viewer.game)
    return redirect(url_for("game_review.show", token=token), 303)


def noted_one(viewer: store.Viewer, photo: str, what: str) -> tuple[int, str, str]:
    """The key of the irregularity a form names (its photo, then its kind and cells), which the
    record must show now; InputError otherwise."""
    shown = current_record(viewer.game)
    keys = {key(i, n) for i, n in shown.noted} if shown is not None else set()
    kind, _, cells = what.strip().partition(" ")
    asked = (int(photo), kind, cells) if photo.isdigit() else None
    if asked not in keys:
        raise InputError(
            f"the record notes no irregularity {what[:40]!r} in photo {photo[:10]!r} now (a reading "
            "fixed meanwhile may have explained it): reload the page",
            409,
        )
    assert asked is not None
    return asked


@bp.post("/g/<token>/irregularities/keep")
def keep(token: str) -> ResponseReturnValue:
    """Keep an irregularity: the players accept it, and the record notes it kept."""
    viewer = revealed_viewer(token)
    store.keep_irregularity(
        viewer.game, noted_one(viewer, request.form.get("photo", ""), request.form.get("irregularity", ""))
    )
    return redirect(url_for("game_review.show", token=token) + "#irregularities", 303)


@bp.post("/g/<token>/positions/<number:number>/fix")
def fix(token: str, number: int) -> ResponseReturnValue:
    """Open a confirmed photo that shows an irregularity to fix its reading, even after the end; the
    other photos of the timeline stay as they are."""
    viewer = revealed_viewer(token)
    snap = store.snapshot(viewer.game, number)
    if snap is None or snap.confirmed is None:
        raise InputError(f"there is no photo {number} in the timeline of this game", 404)
    shown = current_record(viewer.game)
    if shown is None or not shown.shows_irregularity(number):
        raise InputError(
            f"photo {number} shows no irregularity: a photo in the timeline changes only to fix the "
            "reading of one",
            409,
        )
    store.open_fix(viewer.game, number)
    return redirect(url_for("pages.review", token=token, number=number), 303)
