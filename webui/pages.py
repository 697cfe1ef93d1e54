"""The phone pages: a new game, each link's game page, the review of a photo, values and the reveal.

Every game page is reached by a link token: the host's or a player's. A token
no game has is a 404. Form posts are checked for the CSRF token (:mod:`webui.csrf`).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import segno
from flask import (
    Blueprint,
    abort,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from flask.typing import ResponseReturnValue
from markupsafe import Markup

from engine.board import Cell
from engine.check import check
from engine.position import Position
from vision.looks import REFERENCE_COLOURS
from webui import calibrations, diagram, jobs, store, suggestions
from webui.corrections import place, tap
from webui.game_view import colours, table
from webui.limits import check_disk, check_rate
from webui.photos import (
    InputError,
    load_profile_text,
    photo_bytes,
    profile_text,
    scan_for_game,
)

bp = Blueprint("pages", __name__)

VARIANT_CHOICES = ("armadora", "nuggets")
#: What the values form takes, as typed (``str.isdigit`` also takes "²", which ``int`` refuses).
WARRIOR_VALUES = ("1", "2", "3", "4", "5")


def viewer_or_404(token: str) -> store.Viewer:
    viewer = store.find_viewer(token)
    if viewer is None:
        abort(404)
    return viewer


@bp.app_template_filter("sentence")
def sentence(text: str) -> str:
    """A message as a sentence: a capital first letter and a full stop.

    >>> sentence("no photo was sent: take one")
    'No photo was sent: take one.'
    """
    text = text.strip()
    if not text:
        return text
    return text[0].upper() + text[1:] + ("" if text[-1] in ".!?" else ".")


def wants_fragment() -> bool:
    """Whether the page's script sent the request, to get a piece of the page or JSON back."""
    return request.headers.get("X-Requested-With") == "fetch"


@bp.app_template_filter("when")
def when(stamp: str | None) -> str:
    """A stored UTC time as the server's local time of day."""
    if not stamp:
        return ""
    return datetime.fromisoformat(stamp).astimezone().strftime("%d %b %H:%M:%S")


# --------------------------------------------------------------------------- a new game


@bp.get("/")
def index() -> ResponseReturnValue:
    return new_game_form({})


def new_game_form(form: Any, error: str | None = None, status: int = 200) -> ResponseReturnValue:
    return (
        render_template(
            "index.html",
            form=form,
            error=error,
            colour_choices=tuple(REFERENCE_COLOURS),
            variants=VARIANT_CHOICES,
        ),
        status,
    )


def chosen_players() -> tuple[str, ...]:
    """The colours picked in turn order; InputError for a bad count, an unknown colour or a repeat."""
    try:
        count = int(request.form.get("count", ""))
    except ValueError:
        raise InputError("choose how many play: 2, 3 or 4") from None
    if count not in (2, 3, 4):
        raise InputError("Armadöra is played by 2, 3 or 4 players")
    players = tuple(request.form.get(f"colour{n}", "") for n in range(1, count + 1))
    for n, colour in enumerate(players, 1):
        if colour not in REFERENCE_COLOURS:
            raise InputError(f"player {n}: choose a colour ({', '.join(REFERENCE_COLOURS)})")
        if colour in players[: n - 1]:
            raise InputError(f"player {n}: {colour} is taken already; each player has a colour of their own")
    return players


def chosen_profile(players: tuple[str, ...]) -> str | None:
    """The game's calibration profile as JSON text: uploaded, learnt from a setup photo, or None."""
    text = profile_text(players)
    setup = request.files.get("setup_photo")
    if text is None and setup is not None and setup.filename:
        text = calibrations.learnt_profile(setup.read(), players)
    return text


@bp.post("/games")
def create_game() -> ResponseReturnValue:
    check_rate("games_per_address", request.remote_addr or "")
    try:
        players = chosen_players()
        variant = request.form.get("variant", "armadora")
        if variant not in VARIANT_CHOICES:
            raise InputError(f"choose a variant: {' or '.join(VARIANT_CHOICES)}")
        profile = chosen_profile(players)
    except InputError as error:
        return new_game_form(request.form, str(error), error.status)
    viewer = store.create_game(variant, players, profile)
    return redirect(url_for("pages.game", token=viewer.token), 303)


# --------------------------------------------------------------------------- a game's page


def public_url(path: str) -> str:
    """The address of ``path`` as a phone should open it: under the configured public address
    (``armadora serve`` sets it to the one it prints), never the request's ``Host`` header."""
    return str(current_app.config["PUBLIC_URL"]).rstrip("/") + path


def qr_svg(url: str) -> Markup:
    """A QR code of the link, as inline SVG."""
    return Markup(
        segno.make(url, error="m").svg_inline(scale=4, border=2, omitsize=True, title="QR code of the link")
    )


def game_page(viewer: store.Viewer, *, error: str | None = None, status: int = 200) -> ResponseReturnValue:
    t = table(viewer)
    shown = shown_jobs(viewer)
    palette = colours(viewer.game)
    links = []
    if viewer.colour is None:  # only the host's page lists the players' links
        for colour, token in store.seat_tokens(viewer.game).items():
            url = public_url(url_for("pages.game", token=token))
            links.append({"colour": colour, "url": url, "qr": qr_svg(url)})
    suggestion = None
    if viewer.colour and t.current is not None and not t.ended:
        suggestion = store.cached_suggestion(t.current, viewer.colour, t.mine)
    board = None
    if t.position is not None and t.current is not None:
        board = diagram.build(
            t.position,
            palette,
            problems=() if t.report is None else t.report.problems,
            result=t.result,
            suggestion=None if suggestion is None else suggestion["moves"][0],
            turn=t.current.turn,
            viewer=viewer.colour,
        )
    profile = load_profile_text(viewer.game.profile) if viewer.game.profile else None
    return (
        render_template(
            "game.html",
            t=t,
            viewer=viewer,
            board=board,
            links=links,
            colours=palette,
            profile=profile,
            error=error,
            suggestion=suggestion,
            teams=teams(viewer.game.players),
            reading=[j for j in shown if j.kind == "scan"],
            searching=next((j for j in shown if j.kind == "suggest"), None),
            version=version(viewer),
        ),
        status,
    )


def teams(players: tuple[str, ...]) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """In a 4-player game the partners sitting opposite, who score together; None otherwise."""
    if len(players) != 4:
        return None
    return (players[0], players[2]), (players[1], players[3])


@bp.get("/g/<token>")
def game(token: str) -> ResponseReturnValue:
    return game_page(viewer_or_404(token))


def shown_jobs(viewer: store.Viewer) -> list[jobs.Job]:
    """The game's jobs this link's page shows: the photos being read, and the player's own suggestion."""
    return [
        j
        for j in jobs.of_game(viewer.game)
        if j.kind == "scan" or (j.kind == "suggest" and j.argument.get("token") == viewer.token)
    ]


def version(viewer: store.Viewer) -> str:
    """The fingerprint of what this link's pages show: the game's, and where its jobs stand (a place in
    the queue that moves changes it, so the page updates)."""
    progress = [(j.id, j.state, j.place, j.attempts) for j in shown_jobs(viewer)]
    return store.version(viewer, progress)


@bp.get("/g/<token>/live")
def live(token: str) -> ResponseReturnValue:
    """What the pages poll: a fingerprint of the game, which changes when anything they show does."""
    return jsonify(version=version(viewer_or_404(token)))


@bp.errorhandler(InputError)
@bp.errorhandler(store.GameError)
def refused(error: ValueError) -> ResponseReturnValue:
    """A refused action on a game: its page again, with the reason on top."""
    status = error.status if isinstance(error, InputError) else 409
    token = (request.view_args or {}).get("token")
    viewer = store.find_viewer(token) if token else None
    if wants_fragment():
        return jsonify(error=sentence(str(error))), status
    if viewer is None:
        return render_template("error.html", message=str(error), status=status), status
    return game_page(viewer, error=str(error), status=status)


@bp.post("/g/<token>/photos")
def upload(token: str) -> ResponseReturnValue:
    """A photo of the board: scanned into a draft to review (the same photo twice makes one), by the
    request itself or by a worker (:mod:`webui.taskqueue`)."""
    viewer = viewer_or_404(token)
    game = viewer.game
    if game.ended:
        raise store.GameError("the game has ended: no more photos")
    check_rate("scans_per_address", request.remote_addr or "")
    check_rate("photos_per_game", str(game.id))
    data = photo_bytes()
    check_disk(len(data))
    job = jobs.wait(jobs.submit_scan(game, data), current_app.config["JOB_WAIT_S"])
    if job.state == "failed":
        jobs.forget(job)  # its sender reads the sentence now: the page need not show it as well
        raise InputError(job.message or jobs.SERVER_FAULT, job.status or 500)
    if job.state == "done":
        url = url_for("pages.review", token=token, number=job.number)
    else:  # still queued or running: the game's page shows where it stands, and updates itself
        url = url_for("pages.game", token=token)
    if wants_fragment():
        return jsonify(url=url)
    return redirect(url, 303)


@bp.get("/g/<token>/photos/<number:number>.jpg")
def grid_photo(token: str, number: int) -> ResponseReturnValue:
    snap = store.snapshot(viewer_or_404(token).game, number)
    if snap is None:
        abort(404)
    return send_file(Path(current_app.config["UPLOADS"]) / snap.grid_photo, mimetype="image/jpeg")


# --------------------------------------------------------------------------- reviewing a photo


def snapshot_or_404(viewer: store.Viewer, number: int) -> store.Snapshot:
    snap = store.snapshot(viewer.game, number)
    if snap is None:
        abort(404)
    return snap


def review_context(viewer: store.Viewer, snap: store.Snapshot) -> dict[str, Any]:
    """What the review shows: the diagram with doubtful readings and rule breaks, and the problems."""
    # A draft holds no values; a confirmed position is shown with what this link may see.
    t = table(viewer)
    position: Position = snap.position
    if t.current is not None and t.current.id == snap.id and t.position is not None:
        position = t.position
    report = check(position)
    editable = snap.confirmed is None and not t.ended
    palette = colours(viewer.game)
    foreign = foreign_colours(viewer.game.players, snap.colours_seen) if editable else {}
    changes = recolouring(viewer.game.players, snap.colours_seen) if foreign else {}
    board = diagram.build(
        position,
        palette,
        confidence=snap.scan.get("confidence"),
        touched=snap.touched,
        problems=report.problems,
        editable=editable,
        turn=snap.turn,
    )
    return {
        "viewer": viewer,
        "snap": snap,
        "board": board,
        "report": report,
        "editable": editable,
        "colours": palette,
        "foreign": foreign,
        "recolouring": changes,
        "new_players": tuple(changes.get(c, c) for c in viewer.game.players),
        "version": version(viewer),
    }


def recolouring(players: tuple[str, ...], seen: dict[str, int]) -> dict[str, str]:
    """How the game's colours would change to the photo's: each colour the photo shows that the game
    lacks (the most warriors first) takes the place of a game colour the photo does not show.

    >>> recolouring(("orange", "green"), {"green": 6, "blue": 5})
    {'orange': 'blue'}
    """
    incoming = sorted((c for c in seen if c not in players), key=lambda c: -seen[c])
    return dict(zip((p for p in players if p not in seen), incoming, strict=False))


def foreign_colours(players: tuple[str, ...], seen: dict[str, int]) -> dict[str, int]:
    """The colours the photo shows that the game does not have, with how many warriors of each."""
    return {c: n for c, n in seen.items() if c not in players}


def review_answer(viewer: store.Viewer, number: int) -> ResponseReturnValue:
    """After a change to a draft: the redrawn review for the page's script, a redirect for a plain form."""
    if wants_fragment():
        return render_template("_review_body.html", **review_context(viewer, snapshot_or_404(viewer, number)))
    return redirect(url_for("pages.review", token=viewer.token, number=number), 303)


@bp.get("/g/<token>/positions/<number:number>")
def review(token: str, number: int) -> ResponseReturnValue:
    viewer = viewer_or_404(token)
    return render_template("review.html", **review_context(viewer, snapshot_or_404(viewer, number)))


@bp.post("/g/<token>/positions/<number:number>/tap")
def correct(token: str, number: int) -> ResponseReturnValue:
    """One tap on the diagram, with the tool picked from the palette (without one, a cell cycles)."""
    viewer = viewer_or_404(token)
    snap = snapshot_or_404(viewer, number)
    name = request.form.get("target", "")
    tool = request.form.get("tool", "")
    try:
        position = place(snap.position, name, tool) if tool else tap(snap.position, name)
    except ValueError as error:
        raise InputError(str(error)) from None
    store.save_correction(viewer.game, number, position, name)
    return review_answer(viewer, number)


@bp.post("/g/<token>/positions/<number:number>/<any(undo, redo):direction>")
def history(token: str, number: int, direction: str) -> ResponseReturnValue:
    viewer = viewer_or_404(token)
    store.step_history(viewer.game, number, direction)
    return review_answer(viewer, number)


@bp.post("/g/<token>/positions/<number:number>/turn")
def turn(token: str, number: int) -> ResponseReturnValue:
    """A quarter turn clockwise of the photo's diagram, for every link."""
    viewer = viewer_or_404(token)
    snap = snapshot_or_404(viewer, number)
    store.set_turn(viewer.game, number, snap.turn + 1)
    return review_answer(viewer, number)


@bp.post("/g/<token>/positions/<number:number>/delete")
def delete(token: str, number: int) -> ResponseReturnValue:
    viewer = viewer_or_404(token)
    store.delete_draft(viewer.game, number)
    return redirect(url_for("pages.game", token=token), 303)


@bp.post("/g/<token>/positions/<number:number>/colours")
def take_colours(token: str, number: int) -> ResponseReturnValue:
    """Give the game the colours this photo shows, and read the photo again with them."""
    viewer = viewer_or_404(token)
    snap = snapshot_or_404(viewer, number)
    game = store.recolour(viewer.game, recolouring(viewer.game.players, snap.colours_seen))
    data = (Path(current_app.config["UPLOADS"]) / snap.upload).read_bytes()
    scanned = scan_for_game(data, game.id, game.profile, game.players, game.variant, upload=snap.upload)
    store.rescan_draft(game, number, scanned)
    return redirect(url_for("pages.review", token=token, number=number), 303)


@bp.post("/g/<token>/positions/<number:number>/confirm")
def confirm(token: str, number: int) -> ResponseReturnValue:
    viewer = viewer_or_404(token)
    snapshot_or_404(viewer, number)
    store.confirm(viewer.game, number)
    return redirect(url_for("pages.game", token=token), 303)


# --------------------------------------------------------------------------- the end


@bp.post("/g/<token>/end")
def end(token: str) -> ResponseReturnValue:
    """End the game: the host's link only (the one who set the table up and photographs it), so that
    no player can end it on a position that suits them while the others are still playing."""
    viewer = viewer_or_404(token)
    if viewer.colour is not None:
        raise InputError("only the host's page can end the game: ask the host to end it", 403)
    store.end_game(viewer.game)
    return redirect(url_for("pages.game", token=token), 303)


@bp.post("/g/<token>/values")
def enter_value(token: str) -> ResponseReturnValue:
    """A player's value for one of their warriors (an empty value takes it back)."""
    viewer = viewer_or_404(token)
    try:
        cell = Cell.parse(request.form.get("cell", ""))
    except ValueError as error:
        raise InputError(str(error)) from None
    text = request.form.get("value", "")
    if text and text not in WARRIOR_VALUES:
        raise InputError(f"a warrior's value is 1 to 5, not {text[:10]!r}")
    store.set_value(viewer, cell, int(text) if text else None)
    if wants_fragment():
        return jsonify(version=version(viewer))
    return redirect(url_for("pages.game", token=token) + "#values", 303)


@bp.post("/g/<token>/suggest")
def suggestion(token: str) -> ResponseReturnValue:
    """The search's best moves for this link's player, from the position with their own values: found
    in the request, or by a worker while the page says it is under way."""
    suggestions.ask(viewer_or_404(token))
    return redirect(url_for("pages.game", token=token) + "#suggestion", 303)
