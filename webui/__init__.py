"""The user-facing layer: the ``armadora`` command (and, to come, the Flask app).

It calls the engine, the scanner and calibration; nothing calls it. Data flows
one way: photo -> vision -> position -> engine -> page.
"""
