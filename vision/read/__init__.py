"""Reading the pieces on a located board.

:mod:`~vision.read.rectify` warps the board to a top-down view and balances its light against the
face; :mod:`~vision.read.slots` reads the palisades, :mod:`~vision.read.cells` the cells' tokens and
colours, :mod:`~vision.read.tokens` what the warriors' learnt pictures add, :mod:`~vision.read.numerals`
the gold values; :mod:`~vision.read.assemble` turns the readings into a position with its doubts.
"""
