"""The scanner: a photo in, a position with confidences out, as plain array-to-array stages.

:mod:`vision.scan` runs the stages: :mod:`vision.locate` finds the board, :mod:`vision.read` reads
the pieces, with the copy's :mod:`vision.looks`, which :mod:`vision.learn` makes up where no
profile says them. Apart from the product's path: :mod:`vision.bench`, :mod:`vision.train`,
:mod:`vision.worlds`. ``docs/scanner.md`` is the map. May use :mod:`engine`; nothing else of the
project.
"""
