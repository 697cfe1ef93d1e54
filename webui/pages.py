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
from engine.position import CHARACTERS, Position
from engine.report import score_document
from engine.supply import supply_for
from vision.looks import REFERENCE_COLOURS
from webui import calibrations, diagram, jobs, store, suggestions
from webui.corrections import ADVANCED_TOOLS, place, tap
from webui.game_view import Table, colours, table
from webui.limits import check_disk, check_rate
from webui.photos import (
    InputError,
    load_profile_text,
    photo_bytes,
    profile_text,
    scan_for_game,
)
from webui.powers import (
    ADVANCED,
    KIT_CHARACTERS,
    POWER_WORDS,
    Use,
    chosen_characters,
    hands,
    partner,
    with_tokens,
)

bp = Blueprint("pages", __name__)

VARIANT_CHOICES = ("armadora", "armadora-advanced", "nuggets")
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
            characters=CHARACTERS,
            kit_characters=KIT_CHARACTERS,
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


def game_characters(variant: str, players: tuple[str, ...], *, reference_kit: bool) -> tuple[str, ...]:
    """The advanced game's characters in turn order, as the form chose them (none in another variant)."""
    if variant != ADVANCED:
        return ()
    picked = [request.form.get(f"character{n}", "") for n in range(1, len(players) + 1)]
    try:
        return chosen_characters(players, picked, reference_kit=reference_kit)
    except ValueError as error:
        raise InputError(str(error)) from None


@bp.post("/games")
def create_game() -> ResponseReturnValue:
    check_rate("games_per_address", request.remote_addr or "")
    try:
        players = chosen_players()
        variant = request.form.get("variant", "armadora")
        if variant not in VARIANT_CHOICES:
            raise InputError(f"choose a variant: {' or '.join(VARIANT_CHOICES)}")
        profile = chosen_profile(players)
        characters = game_characters(variant, players, reference_kit=profile is None)
    except InputError as error:
        return new_game_form(request.form, str(error), error.status)
    viewer = store.create_game(variant, players, profile, characters)
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
    seen = version(viewer)  # before what the page shows (:func:`version`)
    t = table(viewer)
    shown = shown_jobs(viewer)
    used = after_power(t)
    palette = colours(viewer.game)
    links = []
    if viewer.colour is None:  # only the host's page lists the players' links
        for colour, token in store.seat_tokens(viewer.game).items():
            url = public_url(url_for("pages.game", token=token))
            links.append({"colour": colour, "url": url, "qr": qr_svg(url)})
    suggestion = None
    if viewer.colour and t.current is not None and not t.ended:
        suggestion = store.cached_suggestion(t.current, viewer.colour, suggestions.key(t, used))
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
            adjustments=adjustments(t),
            peekable=peekable(t),
            power_words=POWER_WORDS,
            after_power=used,
            reading=[j for j in shown if j.kind == "scan"],
            reviewing=next((j for j in shown if j.kind == "review"), None),
            # The player's suggestion under way for what this page shows: the turn's, or the action's.
            searching=next(
                (j for j in shown if j.kind == "suggest" and bool(j.argument.get("after_power")) == used),
                None,
            ),
            version=seen,
        ),
        status,
    )


def adjustments(t: Table) -> list[list[str]]:
    """At the reveal, per territory, why warriors count other than their value ("c3: 4, -1 arrow"),
    as the score document explains it."""
    if t.result is None or t.report is None:
        return []
    document = score_document(t.result, t.report)
    return [[a["text"] for a in territory["adjustments"]] for territory in document["territories"]]


def peekable(t: Table) -> list[str]:
    """The cells a Mage may look at: opponents' face-down warriors (never a partner's) not looked at yet."""
    if t.hand is None or t.hand.character != "mage" or t.position is None:
        return []
    colour = t.viewer.colour
    friends = {colour, partner(t.game.players, colour or "")}
    seen = {u.cell for u in t.looks}
    return [
        w.cell.name
        for w in t.position.warriors
        if w.player not in friends and not w.face_up and w.cell not in seen
    ]


def teams(players: tuple[str, ...]) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """In a 4-player game the partners sitting opposite, who score together; None otherwise."""
    if len(players) != 4:
        return None
    return (players[0], players[2]), (players[1], players[3])


@bp.get("/g/<token>")
def game(token: str) -> ResponseReturnValue:
    return game_page(viewer_or_404(token))


def shown_jobs(viewer: store.Viewer) -> list[jobs.Job]:
    """The game's jobs this link's page shows: the photos being read, the player's own suggestion, and
    the game's review under way."""
    return [
        j
        for j in jobs.of_game(viewer.game)
        if j.kind in ("scan", "review") or (j.kind == "suggest" and j.argument.get("token") == viewer.token)
    ]


def version(viewer: store.Viewer) -> str:
    """The fingerprint of what this link's pages show: the game's, and where its jobs stand (a place in
    the queue that moves changes it, so the page updates).

    A page takes it before it reads what it shows: then what it shows is at least as new, and a change
    made while it was drawn (a job's progress) still differs from it and makes the page poll again.
    Taken after, it could name a change the page does not show, and the page would wait for ever."""
    progress = [(j.id, j.state, j.place, j.attempts, j.progress) for j in shown_jobs(viewer)]
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


def review_context(viewer: store.Viewer, number: int) -> dict[str, Any]:
    """What the review of photo ``number`` shows: the diagram with doubtful readings and rule breaks,
    and the problems."""
    seen = version(viewer)  # before what the page shows (:func:`version`)
    snap = snapshot_or_404(viewer, number)
    # A draft holds no values; a confirmed position is shown with what this link may see.
    t = table(viewer)
    position: Position = snap.position
    if t.current is not None and t.current.id == snap.id and t.position is not None:
        position = t.position
    position = with_tokens(position, viewer.game.characters)
    report = check(position)
    # A draft until the end; a photo of the timeline opened to fix an irregularity's reading, always.
    editable = snap.fixing is not None or (snap.confirmed is None and not t.ended)
    palette = colours(viewer.game)
    draft = editable and snap.confirmed is None
    foreign = foreign_colours(viewer.game.players, snap.colours_seen) if draft else {}
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
        "advanced_tools": ADVANCED_TOOLS if viewer.game.variant == ADVANCED else (),
        "version": seen,
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
        return render_template("_review_body.html", **review_context(viewer, number))
    return redirect(url_for("pages.review", token=viewer.token, number=number), 303)


@bp.get("/g/<token>/positions/<number:number>")
def review(token: str, number: int) -> ResponseReturnValue:
    viewer = viewer_or_404(token)
    return render_template("review.html", **review_context(viewer, number))


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
    """Put a draft into the timeline; or, for a photo opened to fix its reading, close the fix and go
    back to the game's review (the record is made again from the photos)."""
    viewer = viewer_or_404(token)
    fixing = snapshot_or_404(viewer, number).fixing is not None
    store.confirm(viewer.game, number)
    if fixing and table(viewer).revealed:
        return redirect(url_for("game_review.show", token=token) + "#irregularities", 303)
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
    """The search's best moves for this link's player, from the position with their own values (and
    their Mage's looks): found in the request, or by a worker while the page says it is under way."""
    asked = suggestions.ask(viewer_or_404(token), said_power=request.values.get("after_power") == "1")
    url = url_for("pages.game", token=token)
    if asked.power_used and not asked.power_told:  # the page shows the action's suggestion, not the turn's
        url += "?after_power=1"
    return redirect(url + "#suggestion", 303)


def after_power(t: Table) -> bool:
    """Whether the viewer has used a power this turn (:func:`webui.suggestions.power_used`): told on
    this position, or said in the request (the page's ``?after_power=1``, the form's box)."""
    return suggestions.power_used(t, request.values.get("after_power") == "1")


@bp.post("/g/<token>/powers")
def tell_power(token: str) -> ResponseReturnValue:
    """A power used that leaves nothing on the board: the Mage's look (the cell, and the value its
    owner showed), the Orc's extra palisade. Kept for this player alone."""
    viewer = viewer_or_404(token)
    colour = viewer.colour
    if colour is None:
        raise InputError("powers are told on a player's own link")
    character = dict(zip(viewer.game.players, viewer.game.characters, strict=False)).get(colour)
    if character is None:
        raise InputError("powers are for the advanced game's characters: this game has none")
    power = request.form.get("power", "")
    if power != character:
        raise InputError(f"you play the {character}: your power is the {character}'s, not {power[:12]!r}")
    if power == "mage":
        use = mage_look(colour)
    elif power == "orc":
        use = Use(colour, "orc", 0)
    else:
        raise InputError(f"the {power}'s power shows on the board: photograph it and confirm the photo")
    store.tell_power(viewer, lambda snap, told: check_use(viewer.game, snap, told, use))
    return redirect(url_for("pages.game", token=token) + "#powers", 303)


def mage_look(colour: str) -> Use:
    """The look the form names: a cell and the value the owner showed; InputError for a bad one."""
    try:
        cell = Cell.parse(request.form.get("cell", ""))
    except ValueError as error:
        raise InputError(str(error)) from None
    text = request.form.get("value", "")
    if text not in WARRIOR_VALUES:
        raise InputError(f"a warrior's value is 1 to 5, not {text[:10]!r}: type the value you were shown")
    return Use(colour, "mage", 0, cell, None, int(text))


def check_use(game: store.Game, snap: store.Snapshot, told: list[Use], use: Use) -> Use:
    """The use to keep, GameError unless it may be told on this position: a token left, and for a
    look an opponent's face-down warrior not looked at yet (whose owner the use then names)."""
    position = snap.position
    hand = hands(position, game.characters, told)[use.colour]
    if hand.powers == 0:
        raise store.GameError(f"your {hand.character} has no power token left")
    if use.cell is None:
        return use
    return use._replace(owner=looked_at(game, position, told, use))  # a later correction drops a stale look


def looked_at(game: store.Game, position: Position, told: list[Use], use: Use) -> str:
    """Whose warrior a look is at; GameError (InputError for a value that cannot be) unless it is
    an opponent's face-down warrior the player has not seen yet."""
    assert use.cell is not None and use.value is not None
    warrior = position.warrior_at(use.cell)
    if warrior is None:
        raise store.GameError(f"there is no warrior on {use.cell.name} to look at")
    if warrior.player in (use.colour, partner(game.players, use.colour)):
        raise store.GameError(f"the warrior on {use.cell.name} is {warrior.player}'s: look at an opponent's")
    if warrior.face_up:
        raise store.GameError(f"the warrior on {use.cell.name} lies face up: its value shows already")
    if any(u.colour == use.colour and u.cell == use.cell and u.owner == warrior.player for u in told):
        raise store.GameError(f"you have looked at {use.cell.name} already")
    # The values the player knows of the owner's (looks, face-up warriors) must fit one supply:
    # a mistyped value is refused now, rather than every suggestion after it.
    known = [u.value for u in told if u.colour == use.colour and u.owner == warrior.player]
    known += [w.value for w in position.warriors if w.player == warrior.player and w.face_up]
    held = supply_for(len(game.players))[use.value - 1]
    if known.count(use.value) >= held:
        raise InputError(
            f"{warrior.player} has {held or 'no'} warrior{'s' if held != 1 else ''} of value {use.value}, "
            "and you know of as many already: check the value you were shown"
        )
    return warrior.player
