"""A profile: how one copy of the game looks, as the scanner needs to know it.

The board's printed face (an image of the whole 400x265 mm face, the right way
up), the sRGB colour of each player's warrior backs, of the gold tokens and of
the palisades. The reference kit's profile ships with the project
(:func:`default_profile`); a setup photo of another copy makes another.

On disk a profile is one JSON document (``version`` 1) with the face as a
base64 JPEG inside, so that one file carries everything.

>>> profile = default_profile()
>>> profile.name, sorted(profile.colours)
('reference', ['blue', 'green', 'orange', 'purple'])
>>> profile.face.shape
(1325, 2000, 3)
>>> profile.colours["orange"]
(224, 123, 36)
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np
import numpy.typing as npt

FORMAT_VERSION = 1
REFERENCE_DIR = Path(__file__).resolve().parent / "reference"

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


class ProfileError(ValueError):
    """A profile file that cannot be used, with the reason in words."""


@dataclass(frozen=True, eq=False)
class Profile:
    """One copy's look: its board face (BGR, upright) and its token colours (sRGB)."""

    name: str
    face: npt.NDArray[np.uint8]
    colours: dict[str, RGB]
    gold: RGB = REFERENCE_GOLD
    wood: RGB = REFERENCE_WOOD
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self, quality: int = 90) -> dict[str, Any]:
        ok, jpeg = cv2.imencode(".jpg", self.face, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            raise ProfileError("could not encode the board face as JPEG")
        return {
            "version": FORMAT_VERSION,
            "name": self.name,
            "face_jpeg": base64.b64encode(jpeg.tobytes()).decode("ascii"),
            "colours": {name: _hex(rgb) for name, rgb in self.colours.items()},
            "gold": _hex(self.gold),
            "wood": _hex(self.wood),
            **self.extra,
        }

    @classmethod
    def from_json(cls, document: Any) -> Profile:
        """A profile from its JSON document; :class:`ProfileError` names what is wrong."""
        if not isinstance(document, dict):
            raise ProfileError("a profile is a JSON object")
        if document.get("version") != FORMAT_VERSION:
            raise ProfileError(f"unsupported profile version {document.get('version')!r} (expected 1)")
        try:
            jpeg = base64.b64decode(document["face_jpeg"], validate=True)
        except (KeyError, TypeError, binascii.Error) as error:
            raise ProfileError("face_jpeg: missing or not base64") from error
        face = cast(
            npt.NDArray[np.uint8] | None, cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        )
        if face is None:
            raise ProfileError("face_jpeg: not a JPEG image")
        colours = document.get("colours")
        if not isinstance(colours, dict) or not colours:
            raise ProfileError("colours: expected an object of colour names to #rrggbb")
        known = {"version", "name", "face_jpeg", "colours", "gold", "wood"}
        return cls(
            name=str(document.get("name", "unnamed")),
            face=face,
            colours={str(name): _rgb(value, f"colours.{name}") for name, value in colours.items()},
            gold=_rgb(document.get("gold", _hex(REFERENCE_GOLD)), "gold"),
            wood=_rgb(document.get("wood", _hex(REFERENCE_WOOD)), "wood"),
            extra={key: value for key, value in document.items() if key not in known},
        )


def _hex(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _rgb(text: Any, where: str) -> RGB:
    if not (isinstance(text, str) and len(text) == 7 and text[0] == "#"):
        raise ProfileError(f"{where}: expected a colour like '#e07b24', got {text!r}")
    try:
        value = int(text[1:], 16)
    except ValueError as error:
        raise ProfileError(f"{where}: expected a colour like '#e07b24', got {text!r}") from error
    return (value >> 16 & 255, value >> 8 & 255, value & 255)


@cache
def default_profile() -> Profile:
    """The reference kit of the board specification."""
    face = cast(npt.NDArray[np.uint8] | None, cv2.imread(str(REFERENCE_DIR / "board.jpg"), cv2.IMREAD_COLOR))
    if face is None:
        raise ProfileError(f"the reference board art is missing from {REFERENCE_DIR}")
    return Profile(name="reference", face=face, colours=dict(REFERENCE_COLOURS))


def load_profile(path: str | os.PathLike[str]) -> Profile:
    """A profile from a JSON file; :class:`ProfileError` says why one cannot be used."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ProfileError(f"cannot read profile {os.fspath(path)}: {error}") from error
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ProfileError(f"profile {os.fspath(path)} is not JSON: {error}") from error
    return Profile.from_json(document)
