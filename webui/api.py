"""The JSON API: scan a photo, check and score a position, and a game as one link sees it.

``/api/scan``, ``/api/check`` and ``/api/score`` answer with what ``armadora scan
--json``, ``armadora check --json`` and ``armadora score --json`` print (without
the ``file`` key). Errors are ``{"error": "..."}`` with a 4xx status.

The scaled server scans ``/api/scan``'s photo on a worker, as a job the request waits for
(:mod:`webui.apiscans`): the same document, the same refusals.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, current_app, jsonify, request
from flask.typing import ResponseReturnValue

from engine.check import check
from engine.position import VARIANTS, Position, PositionError
from engine.report import score_document
from engine.scoring import ScoringError, score
from webui import apiscans, store
from webui.game_view import game_state
from webui.limits import check_rate
from webui.photos import InputError, photo_bytes, profile_text, read_photo

bp = Blueprint("api", __name__, url_prefix="/api")


def posted_position() -> Position:
    """The position JSON in the request's body; InputError naming what is wrong with it."""
    body = request.get_data(cache=False)
    if not body:
        raise InputError("send a position JSON document as the request body")
    try:
        return Position.loads(body)
    except RecursionError:
        raise InputError("not a usable position: it is nested too deep to be a position") from None
    except PositionError as error:
        raise InputError(f"not a usable position: {error}") from None


def posted_players() -> tuple[str, ...] | None:
    """The ``players`` field (``c1,c2``, in turn order) as the position check takes them, or None for
    none; InputError with the check's reason (a count, a repeat, a name that is no colour key)."""
    text = request.form.get("players", "").strip()
    if not text:
        return None
    players = [p.strip() for p in text.split(",")]
    try:
        return Position.from_json({"players": players}).players
    except PositionError as error:
        raise InputError(f"{error}; send players as colour keys in turn order, like orange,blue") from None


@bp.post("/scan")
def scan() -> ResponseReturnValue:
    """Multipart ``photo`` (and optionally ``profile``, ``players`` as ``c1,c2``, ``variant``)."""
    variant = request.form.get("variant", "armadora")
    if variant not in VARIANTS:
        raise InputError(f"variant: {variant[:30]!r} is not one of {', '.join(VARIANTS)}")
    players = posted_players()
    check_rate("scans_per_address", request.remote_addr or "")
    data = photo_bytes()
    profile = profile_text(players)
    if current_app.config["QUEUE_URL"]:
        # The scaled server: a worker scans, this request waits for its document.
        return jsonify(apiscans.scanned_document(data, profile, players, variant))
    return jsonify(read_photo(data, profile, players, variant).to_json())


@bp.post("/check")
def check_position() -> ResponseReturnValue:
    return jsonify(check(posted_position()).to_json())


@bp.post("/score")
def score_position() -> ResponseReturnValue:
    position = posted_position()
    try:
        result = score(position)
    except ScoringError as error:
        raise InputError(f"this position cannot be scored: {error}", 422) from None
    return jsonify(score_document(result, check(position)))


@bp.get("/games/<token>")
def game(token: str) -> ResponseReturnValue:
    """The game as the link's holder may see it: their own warriors' values only, until the reveal."""
    viewer = store.find_viewer(token)
    if viewer is None:
        abort(404)
    state: dict[str, Any] = game_state(viewer)
    return jsonify(state)
