"""Error answers: a plain sentence on a page, or ``{"error": ...}`` from the API; never a traceback.

Unexpected errors are logged with their traceback and answered with a 500 that
says only that something went wrong.
"""

from __future__ import annotations

from flask import Flask, current_app, jsonify, render_template, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException, InternalServerError

from webui.photos import MAX_UPLOAD_MB, InputError

MESSAGES = {
    404: "there is nothing here: check the link (a player's link must be copied whole)",
    405: "this address does not take that kind of request",
    413: f"the upload is too large: at most {MAX_UPLOAD_MB} MB (the page shrinks photos itself; "
    "try again from the page, or send a smaller photo)",
    500: "something went wrong on the server; it has been logged, and nothing saved was lost",
}


def wants_json() -> bool:
    """The API's requests, and the pages' own script's (which shows the sentence in place)."""
    return (
        request.blueprint == "api"
        or request.path.startswith("/api/")
        or request.headers.get("X-Requested-With") == "fetch"
    )


def answer(message: str, status: int) -> ResponseReturnValue:
    if wants_json():
        return jsonify(error=message), status
    return render_template("error.html", message=message, status=status), status


def http_error(error: HTTPException) -> ResponseReturnValue:
    status = error.code or 500
    generic = error.description == type(error).description
    message = MESSAGES.get(status) if generic or status in (404, 413) else None
    return answer(message or str(error.description or error.name), status)


def input_error(error: InputError) -> ResponseReturnValue:
    return answer(str(error), error.status)


def unexpected(error: Exception) -> ResponseReturnValue:
    if isinstance(error, HTTPException):
        return http_error(error)
    current_app.logger.exception("error answering %s %s", request.method, request.path)
    return answer(MESSAGES[InternalServerError.code], InternalServerError.code)


def init_app(app: Flask) -> None:
    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(InputError, input_error)
    app.register_error_handler(Exception, unexpected)
