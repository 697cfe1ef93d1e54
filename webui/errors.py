"""Error answers: a plain sentence on a page, or ``{"error": ...}`` from the API; never a traceback.

Unexpected errors are logged with their traceback and answered with a 500 that
says only that something went wrong.
"""

from __future__ import annotations

import re

from flask import Flask, current_app, jsonify, render_template, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException, InternalServerError, RequestEntityTooLarge

from webui.photos import MAX_FORM_PARTS, MAX_UPLOAD_MB, InputError

MESSAGES = {
    404: "there is nothing here: check the link (a player's link must be copied whole)",
    405: "this address does not take that kind of request",
    413: f"the upload is too large: at most {MAX_UPLOAD_MB} MB (the page shrinks photos itself; "
    "try again from the page, or send a smaller photo)",
    500: "something went wrong on the server; it has been logged, and nothing saved was lost",
}


#: A link's token in a path, after ``/g/`` or ``/api/games/``: its first characters are kept.
TOKEN_IN_PATH = re.compile(r"(/g/|/api/games/)([\w-]{4})[\w-]*")


def redacted(path: str) -> str:
    """A path fit for a log: a link's token cut to its first 4 characters, enough to tell games apart.

    >>> redacted("/g/2rgl9uwFS4m8u9p2s1kliPWJOYL2seYB/photos/3.jpg")
    '/g/2rgl…/photos/3.jpg'
    """
    return TOKEN_IN_PATH.sub(r"\1\2…", path)


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


#: A 413 for a body within the size limit: the form's parts were too many, or a field too large.
FORM_TOO_LARGE = (
    f"the form has too many parts (at most {MAX_FORM_PARTS}) or a field too large: "
    "send the page's form as it is, one photo and its few fields"
)


def http_error(error: HTTPException) -> ResponseReturnValue:
    status = error.code or 500
    generic = error.description == type(error).description
    message = MESSAGES.get(status) if generic or status in (404, 413) else None
    length = request.content_length  # None for a chunked body: its size is unknown
    if (
        status == RequestEntityTooLarge.code
        and length is not None
        and length <= current_app.config["MAX_CONTENT_LENGTH"]
    ):
        message = FORM_TOO_LARGE
    return answer(message or str(error.description or error.name), status)


def input_error(error: InputError) -> ResponseReturnValue:
    return answer(str(error), error.status)


def unexpected(error: Exception) -> ResponseReturnValue:
    if isinstance(error, HTTPException):
        return http_error(error)
    current_app.logger.exception("error answering %s %s", request.method, redacted(request.path))
    return answer(MESSAGES[InternalServerError.code], InternalServerError.code)


def init_app(app: Flask) -> None:
    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(InputError, input_error)
    app.register_error_handler(Exception, unexpected)
