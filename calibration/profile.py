"""A profile: one copy's looks (:class:`vision.looks.Looks`, what the scanner reads with) on disk.

The board's printed face (an image of the whole 400x265 mm face, the right way
up), the sRGB colour of each player's warrior backs, of the gold tokens and of
the palisades. The reference kit's profile ships with the project
(:func:`default_profile`); a setup photo of another copy makes another.

On disk a profile is one JSON document with its images inside as base64
JPEG, so that one file carries everything (``docs/profile-format.md``
documents it). Version 2 adds what a setup photo teaches beyond the face and
colours: each colour's warrior as seen from above (``tokens``) and the cells
whose art the setup's tokens hid (``hidden_cells``). Version 1 files still load. A profile
also says how its face was made (``kind``: ``reference``, ``learnt`` or
``improvised``); files written before it was said get it from what they hold,
as the readers did then.

>>> profile = default_profile()
>>> profile.name, profile.kind.value, sorted(profile.colours)
('reference', 'reference', ['blue', 'green', 'orange', 'purple'])
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
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.load import PhotoError, load_photo
from vision.locate.features import face_features
from vision.looks import REFERENCE_GOLD, REFERENCE_WOOD, RGB, Kind, Looks, reference_looks

FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
#: A profile file is kept under this size (the images' quality is lowered to fit).
MAX_BYTES = 2_000_000
#: The largest picture a profile may hold: a face is 2000 x 1325 pixels (5 a millimetre, 2.7 megapixels).
MAX_IMAGE_MEGAPIXELS = 8.0
#: The fewest features the scanner must find on a face to locate the board by it (a printed face
#: gives thousands; the scanner needs a few dozen matched in a photo).
MIN_FACE_FEATURES = 300
#: The smallest side of a picture in a profile: a token seen from above is about 100 pixels across.
MIN_IMAGE_SIDE = 16


class ProfileError(ValueError):
    """A profile file that cannot be used, with the reason in words."""


@dataclass(frozen=True, eq=False)
class Profile(Looks):
    """One copy's looks as its profile file holds them, with the file's keys this program does not
    know (``extra``), kept so that writing a profile again loses nothing."""

    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def warnings(self) -> tuple[str, ...]:
        """What learning this copy from its setup photo warned of (``extra["learnt"]["warnings"]``,
        :attr:`calibration.setup.Calibration.warnings`): none for a profile made otherwise.

        >>> Profile.from_json({**default_profile().to_json(), "learnt": {"warnings": ["retake"]}}).warnings
        ('retake',)
        >>> default_profile().warnings
        ()
        """
        learnt = self.extra.get("learnt")
        found = learnt.get("warnings", ()) if isinstance(learnt, dict) else ()
        return tuple(str(warning) for warning in found) if isinstance(found, list | tuple) else ()

    def to_json(self, quality: int = 90) -> dict[str, Any]:
        document = {
            "version": FORMAT_VERSION,
            "name": self.name,
            "face_jpeg": _jpeg(self.face, quality),
            "colours": {name: _hex(rgb) for name, rgb in self.colours.items()},
            "gold": _hex(self.gold),
            "wood": _hex(self.wood),
            "kind": self.kind.value,
        }
        if self.tokens:
            document["tokens"] = {name: _jpeg(image, quality) for name, image in self.tokens.items()}
        if self.hidden_cells:
            document["hidden_cells"] = list(self.hidden_cells)
        if not self.wood_seen:
            document["wood_seen"] = False
        return {**document, **self.extra}

    @classmethod
    def from_json(cls, document: Any) -> Profile:
        """A profile from its JSON document; :class:`ProfileError` names what is wrong."""
        if not isinstance(document, dict):
            raise ProfileError("a profile is a JSON object")
        if document.get("version") not in READABLE_VERSIONS:
            raise ProfileError(
                f"unsupported profile version {document.get('version')!r} "
                f"(this program reads versions {', '.join(map(str, READABLE_VERSIONS))})"
            )
        face = _image(document.get("face_jpeg"), "face_jpeg")
        colours = document.get("colours")
        if not isinstance(colours, dict) or not colours:
            raise ProfileError("colours: expected an object of colour names to #rrggbb")
        tokens = document.get("tokens", {})
        if not isinstance(tokens, dict) or not set(tokens) <= set(colours):
            raise ProfileError("tokens: expected an object of the colours' names to base64 JPEG images")
        hidden = document.get("hidden_cells", [])
        if not isinstance(hidden, list) or not all(isinstance(name, str) for name in hidden):
            raise ProfileError("hidden_cells: expected a list of cell names like 'a5'")
        wood_seen = document.get("wood_seen", True)
        if not isinstance(wood_seen, bool):
            raise ProfileError("wood_seen: expected true or false")
        kind = document.get("kind", _kind_before_it_was_said(document).value)
        if kind not in {k.value for k in Kind}:
            raise ProfileError(f"kind: expected one of {', '.join(k.value for k in Kind)}, got {kind!r}")
        known = {
            "version",
            "name",
            "face_jpeg",
            "colours",
            "gold",
            "wood",
            "tokens",
            "hidden_cells",
            "wood_seen",
            "kind",
        }
        return cls(
            name=str(document.get("name", "unnamed")),
            face=face,
            colours={str(name): _rgb(value, f"colours.{name}") for name, value in colours.items()},
            gold=_rgb(document.get("gold", _hex(REFERENCE_GOLD)), "gold"),
            wood=_rgb(document.get("wood", _hex(REFERENCE_WOOD)), "wood"),
            tokens={str(name): _image(value, f"tokens.{name}") for name, value in tokens.items()},
            hidden_cells=tuple(hidden),
            wood_seen=wood_seen,
            kind=Kind(kind),
            extra={key: value for key, value in document.items() if key not in known},
        )


def check_usable(profile: Looks, players: tuple[str, ...] = ()) -> None:
    """:class:`ProfileError` saying what ``profile`` lacks to read photos of a game of ``players``:
    a board face with enough detail for the scanner to find the board by, and each player's colour."""
    found = len(face_features(profile, "orb").descriptors)
    if found < MIN_FACE_FEATURES:
        raise ProfileError(
            f"its board face shows no detail the scanner can find the board by ({found} features, "
            f"at least {MIN_FACE_FEATURES} needed): make the profile again from a sharp setup photo"
        )
    missing = [colour for colour in players if colour not in profile.colours]
    if missing:
        raise ProfileError(f"it knows no {' or '.join(missing)} warriors")


def _kind_before_it_was_said(document: dict[str, Any]) -> Kind:
    """The kind of a file written before profiles said it: the readers then took a face with cells
    it never saw for a setup photo's, and one marked ``improvised`` for the photo's own."""
    if document.get("improvised"):
        return Kind.IMPROVISED
    return Kind.LEARNT if document.get("hidden_cells") else Kind.REFERENCE


def _jpeg(image: npt.NDArray[np.uint8], quality: int) -> str:
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ProfileError("could not encode an image of the profile as JPEG")
    return base64.b64encode(jpeg.tobytes()).decode("ascii")


def _image(text: Any, where: str) -> npt.NDArray[np.uint8]:
    """A picture of the profile, decoded as a photo is (:func:`vision.load.load_photo`): its size is
    checked from its header first, so a file of a few bytes cannot ask for gigabytes of pixels."""
    try:
        jpeg = base64.b64decode(text, validate=True)
    except (TypeError, ValueError, binascii.Error) as error:
        raise ProfileError(f"{where}: missing or not base64") from error
    try:
        photo = load_photo(
            jpeg, min_long_side=1 << 30, max_megapixels=MAX_IMAGE_MEGAPIXELS, min_side=MIN_IMAGE_SIDE
        )
    except PhotoError as error:
        # A profile's pictures are JPEGs it wrote itself: say so, not which bytes came instead.
        reason = "not a JPEG image" if error.code == "not_an_image" else str(error)
        raise ProfileError(f"{where}: {reason}") from None
    return photo.image


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
    """The reference kit of the board specification (:func:`vision.looks.reference_looks`) as a profile."""
    looks = reference_looks()
    return Profile(name=looks.name, face=looks.face, colours=dict(looks.colours), kind=looks.kind)


def save_profile(profile: Profile, path: str | os.PathLike[str], max_bytes: int = MAX_BYTES) -> int:
    """Write ``profile`` as JSON to ``path`` whole or not at all; its size in bytes.

    The images' JPEG quality is lowered until the file fits in ``max_bytes``.
    """
    for quality in (90, 85, 80, 75, 70, 60):
        text = json.dumps(profile.to_json(quality))
        if len(text) <= max_bytes:
            break
    else:
        raise ProfileError(f"the profile does not fit in {max_bytes} bytes")
    target = Path(path)
    temporary = target.with_name(f".{target.name}.part")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, target)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise ProfileError(f"cannot write profile {os.fspath(path)}: {error.strerror or error}") from error
    return len(text)


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
