"""CSRF protection for the pages' form posts.

Every POST to a page carries the session's token, as the ``csrf_token`` form
field or, from the page's script, the ``X-CSRF-Token`` header. The JSON API
(``/api/...``) is exempt: it reads no cookie and no session and stores nothing,
each answer being a function of the request alone, so a forged cross-site
request can make it do nothing that its sender could not do directly.
"""

from __future__ import annotations

import secrets
from hmac import compare_digest

from flask import Flask, abort, request, session

SESSION_KEY = "csrf_token"


def csrf_token() -> str:
    """This session's token, made on first use."""
    if SESSION_KEY not in session:
        session[SESSION_KEY] = secrets.token_urlsafe(32)
    return str(session[SESSION_KEY])


def protect() -> None:
    if request.method != "POST" or request.blueprint == "api":
        return
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token", "")
    expected = session.get(SESSION_KEY)
    if not expected or not sent or not compare_digest(str(sent), str(expected)):
        abort(400, "this form has expired (or did not come from this site): reload the page and try again")


def init_app(app: Flask) -> None:
    app.before_request(protect)
    app.jinja_env.globals["csrf_token"] = csrf_token
