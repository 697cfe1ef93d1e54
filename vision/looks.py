"""What a reader needs to know of a copy of the game: its looks.

The board's printed face (an image of the whole 400x265 mm face, the right way up), the sRGB colour
of each player's warrior backs, of the gold tokens and of the palisades, and what a setup photo
taught beyond them. The scanner reads with a :class:`Looks`; where they come from (a profile file,
a setup photo) is :mod:`calibration`'s business, which builds on this module. The reference kit's
looks ship with the scanner (:func:`reference_looks`): they are what it reads when told nothing.

>>> looks = reference_looks()
>>> looks.name, looks.kind, sorted(looks.colours)
('reference', <Kind.REFERENCE: 'reference'>, ['blue', 'green', 'orange', 'purple'])
>>> looks.face.shape
(1325, 2000, 3)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

RGB = tuple[int, int, int]

#: The reference kit's colours, sRGB, from the board specification.
REFERENCE_COLOURS: dict[str, RGB] = {
    "orange": (0xE0, 0x7B, 0x24),
    "green": (0x3E, 0x8E, 0x41),
    "blue": (0x2F, 0x6D, 0xB5),
    "purple": (0x7B, 0x4A, 0xA0),
}
REFERENCE_GOLD: RGB = (0xD4, 0xA6, 0x2A)
REFERENCE_WOOD: RGB = (0xB5, 0x83, 0x5A)
#: The reference kit's printed face, in ``vision/data/``.
REFERENCE_FACE = "reference-board.jpg"


class Kind(enum.StrEnum):
    """How the looks' face was made, which the readers weigh their signs by."""

    #: The printed art itself (the reference kit).
    REFERENCE = "reference"
    #: A setup photo of the copy: the cells its tokens hid are unseen.
    LEARNT = "learnt"
    #: The photo being read, for a copy without a profile.
    IMPROVISED = "improvised"


@dataclass(frozen=True, eq=False)
class Looks:
    """One copy's look: its board face (BGR, upright) and its token colours (sRGB)."""

    name: str
    face: npt.NDArray[np.uint8]
    colours: dict[str, RGB]
    gold: RGB = REFERENCE_GOLD
    wood: RGB = REFERENCE_WOOD
    #: Each colour's warrior back, upright, as BGR images of the whole token (setup photos teach them).
    tokens: dict[str, npt.NDArray[np.uint8]] = field(default_factory=dict)
    #: Cells whose art the face does not show (a token hid it in the setup photo), by name ("a5").
    hidden_cells: tuple[str, ...] = ()
    #: False where ``wood`` is a guess (a setup photo shows no palisade): the scanner reads it off
    #: each photo instead.
    wood_seen: bool = True
    kind: Kind = Kind.REFERENCE
    #: Colours whose warriors the looks could not surely tell from another colour's, each with
    #: that colour: (``"orange-2"``, ``"orange"``). An improvised profile's colours come from the
    #: photo itself, where one player's warriors under two lights can look like two players'
    #: (:func:`vision.learn.improvise.alike_groups`).
    alike: tuple[tuple[str, str], ...] = ()


def reference_face() -> npt.NDArray[np.uint8]:
    """The reference kit's printed face, BGR (a fresh array: the caller may draw on it)."""
    data = resources.files("vision").joinpath("data", REFERENCE_FACE).read_bytes()
    face = cast(npt.NDArray[np.uint8] | None, cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR))
    if face is None:
        raise FileNotFoundError(f"vision/data/{REFERENCE_FACE} could not be decoded")
    return face


@cache
def reference_looks() -> Looks:
    """The reference kit of the board specification, loaded once."""
    return Looks(name="reference", face=reference_face(), colours=dict(REFERENCE_COLOURS))
