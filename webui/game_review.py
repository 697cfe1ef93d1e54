"""The review of a finished game (``docs/record.md``, "Review"): a job, then its page.

After the reveal any of the game's links may ask for the review: a job of kind ``review``
(:mod:`webui.jobs`) takes the game's record (:mod:`webui.game_record`), with every value now
known, and reviews it turn by turn (:func:`engine.review.review`), saying in the job's row how
far it has come. The embedded server runs it in a thread of its own, the scaled one on a worker.
The page shows that progress while it runs, then a chart of the win probability across the
game (SVG drawn here), the turns with their marks, each a link to the board after it, and the
irregularities the photos showed, with a link to the photo that shows each.
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
from webui.db import get_db
from webui.game_record import photographed
from webui.game_view import colours, table
from webui.pages import version, viewer_or_404
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
    row = (
        get_db()
        .execute("SELECT id FROM jobs WHERE game_id = ? AND kind = 'review' ORDER BY id DESC", (game.id,))
        .fetchone()
    )
    return None if row is None else jobs.find(int(row["id"]))


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
        "irregularities": [
            {"text": str(i), "kind": i.kind, "message": i.message, "photo": photo,
             "cells": [c.name for c in i.cells] + [s.name for s in i.slots]}
            for i, photo in zip(shown.record.irregularities, shown.irregularity_photos, strict=True)
        ],
    }  # fmt: skip
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


CHART_W, CHART_H = 360, 170
LEFT, RIGHT, TOP, BOTTOM = 36, 10, 10, 26


def chart(doc: dict[str, Any], palette: dict[str, str], selected: int | None = None) -> Chart:
    """The win probability of each side across the game: after each turn, from the start. With two
    sides (two players, or two teams) both lines are known at every turn (they add up to 1); with
    three players each line has the points of its own player's turns."""
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
    return Chart(CHART_W, CHART_H, LEFT, TOP, plot_w, plot_h, lines, dots, ticks, turn_ticks, shown)


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


def page(viewer: store.Viewer, status: int = 200, error: str | None = None) -> ResponseReturnValue:
    game = viewer.game
    palette = colours(game)
    job = latest(game)
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
            version=version(viewer),
        ),
        status,
    )


@bp.get("/g/<token>/review")
def show(token: str) -> ResponseReturnValue:
    """The game's review: the button to start it, its progress, or the review itself."""
    viewer = viewer_or_404(token)
    if not is_revealed(viewer.game):
        return render_template("error.html", message=NOT_YET, status=409), 409
    return page(viewer)


@bp.post("/g/<token>/review")
def start(token: str) -> ResponseReturnValue:
    """Start the game's review (unless one is under way or done already), then show its page."""
    viewer = viewer_or_404(token)
    if not is_revealed(viewer.game):
        return render_template("error.html", message=NOT_YET, status=409), 409
    job = latest(viewer.game)
    if job is None or job.state == "failed":
        jobs.submit("review", viewer.game)
    return redirect(url_for("game_review.show", token=token), 303)
