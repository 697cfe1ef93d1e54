"""The game's record as a download (``docs/record.md``), from any of the game's links.

The record comes from the confirmed positions (:mod:`webui.game_record`): the values of face-down
warriors only after the reveal, so any player's link may download it at any time.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort

from webui import store
from webui.game_record import file_name, record_text

bp = Blueprint("records", __name__)


@bp.get("/g/<token>/record.txt")
def download(token: str) -> Response:
    """The record of the link's game, as a text file to keep; 404 for a link no game has, 409 while
    no position is confirmed."""
    viewer = store.find_viewer(token)
    if viewer is None:
        abort(404)
    try:
        text = record_text(viewer.game)
    except store.GameError as error:
        return Response(f"{error}\n", status=409, mimetype="text/plain")
    response = Response(text, mimetype="text/plain")
    response.headers["Content-Disposition"] = f'attachment; filename="{file_name(viewer.game)}"'
    return response
