"""The scanner: a photo in, a position with confidences out, as plain array-to-array stages.

Not built yet: see the scanner issue. May use :mod:`engine`; nothing else of the project.
"""
