"""What a photo teaches about its copy of the game.

:mod:`~vision.learn.pieces` holds what any photo of a board shows of its copy (the gold's colour,
where a warrior lies and its picture, the face with the tokens filled in): the setup photo's
learning (:mod:`calibration.setup`) and :mod:`~vision.learn.improvise` (the looks made up from the
game photo itself, for a copy without a profile) both build on it.
"""
