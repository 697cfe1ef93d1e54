"""Finding the board: where the board's face lies in the photo, as a homography from millimetres.

:mod:`~vision.locate.features` matches the art's features with the profile's face (the usual way);
:mod:`~vision.locate.register` then settles it to the millimetre on patches of the art. Where the
art is not the profile's (another copy) or its features fail, :mod:`~vision.locate.grid` finds the
board by its eight gold tokens and its grid's crossings, helped by :mod:`~vision.locate.gridlines`
(the grid's lines in perspective) and :mod:`~vision.locate.lattice` (which cells the grid fits).
"""
