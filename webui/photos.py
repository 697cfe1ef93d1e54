"""Uploaded photos and profiles: read from the request, scanned, kept on disk.

The scanner decides what a file is from its content (:mod:`vision.load`): the
name and the header the browser sent play no part, and a photo over 60
megapixels is refused from its header, before it is decoded.
"""

from __future__ import annotations

import json
import secrets
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from flask import current_app, request

from calibration.profile import Profile, ProfileError
from vision.debug import debug_image
from vision.load import PhotoError
from vision.locate.features import NoBoardError
from vision.scan import Scan, scan

#: The largest request accepted: a phone photo as the camera writes it, with room to spare.
MAX_UPLOAD_MB = 25
#: The photo with the grid drawn over it is shrunk to this long side: enough for a phone's screen.
GRID_PHOTO_PX = 1600


class InputError(ValueError):
    """Input a person sent that cannot be used: ``status`` is the HTTP status, the message says why."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def uploaded_bytes(field: str) -> bytes | None:
    """The bytes of an uploaded file, or None when the form sent none (a file input left empty).

    A chosen file with no data gives ``b""``, for the scanner to call it empty.
    """
    upload = request.files.get(field)
    if upload is None:
        return None
    data = upload.read()
    return data if data or upload.filename else None


def photo_bytes(field: str = "photo") -> bytes:
    """The uploaded photo's bytes; InputError when there is none."""
    data = uploaded_bytes(field)
    if data is None:
        raise InputError("no photo was sent: take or choose a photo of the board")
    return data


def profile_text(field: str = "profile") -> str | None:
    """A calibration profile from an uploaded file or a form field, checked, as JSON text; None for none."""
    data = uploaded_bytes(field)
    text = request.form.get(field) if data is None else None
    if data is not None:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError("the profile is not a text file: choose a profile .json file") from None
    if not text or not text.strip():
        return None
    try:
        load_profile_text(text)
    except ProfileError as error:
        raise InputError(f"that calibration profile cannot be used: {error}") from None
    return text


@lru_cache(maxsize=8)
def load_profile_text(text: str) -> Profile:
    """A profile from its JSON text; kept, so a game's photos share one profile (and its cached views)."""
    try:
        document = json.loads(text)
    except ValueError as error:
        raise ProfileError(f"not JSON: {error}") from None
    return Profile.from_json(document)


def read_photo(
    data: bytes, profile: str | None, players: tuple[str, ...] | None, variant: str = "armadora"
) -> Scan:
    """Scan a photo; InputError with the scanner's own words when it is not a readable photo of the board."""
    try:
        return scan(
            data,
            profile=None if profile is None else load_profile_text(profile),
            players=players,
            variant=variant,
        )
    except PhotoError as error:
        raise InputError(f"that file cannot be read as a photo: {error}") from None
    except NoBoardError as error:
        raise InputError(f"no board found in the photo: {error}", 422) from None


def keep_photos(game_id: int, data: bytes, result: Scan) -> tuple[str, str]:
    """Write the photo as sent and the photo with the found grid; their names under the uploads folder."""
    folder = Path(current_app.config["UPLOADS"]) / str(game_id)
    folder.mkdir(parents=True, exist_ok=True)
    stem = secrets.token_hex(8)
    upload = f"{game_id}/{stem}.upload"
    grid = f"{game_id}/{stem}-grid.jpg"
    (folder / f"{stem}.upload").write_bytes(data)
    drawn = shrink(debug_image(result), GRID_PHOTO_PX)
    ok, jpeg = cv2.imencode(".jpg", drawn, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise OSError("could not encode the photo with its grid")
    (folder / f"{stem}-grid.jpg").write_bytes(jpeg.tobytes())
    return upload, grid


def shrink(image: npt.NDArray[np.uint8], long_side: int) -> npt.NDArray[np.uint8]:
    """The image scaled down to ``long_side`` pixels on its long side (never up)."""
    scale = long_side / max(image.shape[:2])
    if scale >= 1:
        return image
    size = (round(image.shape[1] * scale), round(image.shape[0] * scale))
    return np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
