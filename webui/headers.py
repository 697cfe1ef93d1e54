"""What every answer says about itself: the security headers, and no caching of private pages.

No page holds inline script or style (the templates load ``static/app.js`` and
``static/style.css``), so the Content-Security-Policy allows this site's own
files only. A player's link is a secret: no page is framed, no Referer leaves it,
and nothing under a link (``/g/...``, ``/api/games/...``) is kept by a cache.
"""

from __future__ import annotations

from flask import Flask, Response, request

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
#: Where a link's token is in the path: everything under it is private to the link's holder.
PRIVATE_PREFIXES = ("/g/", "/api/games/")


def add_headers(response: Response) -> Response:
    response.headers.update(SECURITY_HEADERS)
    private = request.path.startswith(PRIVATE_PREFIXES)
    if private or response.mimetype in ("text/html", "application/json"):
        # Pages are never kept by the browser either: Back after a confirmation asks the server again.
        response.headers["Cache-Control"] = "no-store"
    return response


def init_app(app: Flask) -> None:
    app.after_request(add_headers)
