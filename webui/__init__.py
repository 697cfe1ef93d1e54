"""The user-facing layer: the ``armadora`` command and the phone page, a Flask app
(:func:`webui.app.create_app`, served by ``armadora serve``).

It calls the engine, the scanner and calibration; nothing calls it. Data flows
one way: photo -> vision -> position -> engine -> page.
"""
