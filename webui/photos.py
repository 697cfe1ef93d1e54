"""Uploaded photos and profiles: read from the request, scanned, kept on disk.

The scanner decides what a file is from its content (:mod:`vision.load`): the
name and the header the browser sent play no part, and a photo over 60
megapixels is refused from its header, before it is decoded.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from flask import current_app, request

from calibration.profile import Profile, ProfileError, check_usable
from engine.board import CELLS, Cell
from vision.debug import debug_image
from vision.geometry import PITCH_MM, cell_centre_mm, cell_origin_mm
from vision.load import PhotoError
from vision.locate.features import NoBoardError, project
from vision.scan import Scan, reassemble, scan
from webui.store import Scanned

#: The largest request accepted: a phone photo as the camera writes it, with room to spare.
MAX_UPLOAD_MB = 25
#: The most parts a form may have: the pages' largest form has a handful.
MAX_FORM_PARTS = 100
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


def profile_text(players: tuple[str, ...] | None = None, field: str = "profile") -> str | None:
    """A calibration profile from an uploaded file or a form field, checked (:func:`checked_profile`),
    as JSON text; None for none."""
    data = uploaded_bytes(field)
    text = request.form.get(field) if data is None else None
    if data is not None:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError("the profile is not a text file: choose a profile .json file") from None
    if not text or not text.strip():
        return None
    return checked_profile(text, players)


def checked_profile(text: str, players: tuple[str, ...] | None) -> str:
    """A profile's text once it is known usable for ``players`` (:func:`calibration.profile.check_usable`);
    InputError saying what it lacks."""
    try:
        check_usable(load_profile_text(text), players or ())
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
    except RecursionError:
        raise ProfileError(
            "it is nested too deep to be a profile (a profile is a flat JSON object)"
        ) from None
    return Profile.from_json(document)


#: What to say of a file the scanner cannot load, by :attr:`vision.load.PhotoError.code`.
UNREADABLE = {
    "empty": "it is empty",
    "not_an_image": "it is not an image",
    "truncated": "it is cut short (truncated: the upload may have broken off)",
    "corrupt": "its data is damaged",
    "unsupported": "its format is not one the server reads",
}
RETAKE = "take the photo again with the camera, or choose a JPEG, PNG, WebP or HEIC photo"


def read_photo(
    data: bytes, profile: str | None, players: tuple[str, ...] | None, variant: str = "armadora"
) -> Scan:
    """Scan a photo; InputError with a sentence saying what to do when it is not a readable photo
    of the board (the scanner's own words when they say it already, never the file's bytes)."""
    try:
        return scan(
            data,
            profile=None if profile is None else load_profile_text(profile),
            players=players,
            variant=variant,
        )
    except PhotoError as error:
        if error.code in ("too_large", "too_small"):
            raise InputError(f"that photo cannot be used: {error}") from None
        reason = UNREADABLE.get(error.code, "it cannot be decoded")
        raise InputError(f"that file cannot be read as a photo: {reason}; {RETAKE}") from None
    except NoBoardError as error:
        if error.reason == "no_board":
            raise InputError(
                "no board found in the photo: take it again from above, with the whole board in the "
                "frame and in good light",
                422,
            ) from None
        raise InputError(str(error), 422) from None


def quarter_turns(result: Scan) -> int:
    """How many quarter turns clockwise the photo shows the board with: the diagram drawn so matches it.

    The board's files (a to h) run along its x axis; where that axis points in the photo says."""
    centre, right = project(
        result.located.homography, [cell_centre_mm(Cell(2, 3)), cell_centre_mm(Cell(2, 4))]
    )
    dx, dy = right - centre
    return round(math.atan2(dy, dx) / (math.pi / 2)) % 4


def cell_outlines(result: Scan, scale: float) -> dict[str, Any]:
    """Each cell's corners in the grid photo's pixels (``scale`` times the photo's)."""
    corners = {}
    for cell in CELLS:
        x, y = cell_origin_mm(cell)
        square = [(x, y), (x + PITCH_MM, y), (x + PITCH_MM, y + PITCH_MM), (x, y + PITCH_MM)]
        points = project(result.located.homography, square) * scale
        corners[cell.name] = [[round(float(px), 1), round(float(py), 1)] for px, py in points]
    height, width = result.image.shape[:2]
    return {"size": [round(width * scale), round(height * scale)], "cells": corners}


def colours_seen(free: Scan) -> dict[str, int]:
    """How many warriors of each colour a photo read without the game's colours shows."""
    seen: dict[str, int] = {}
    for warrior in free.position.warriors:
        seen[warrior.player] = seen.get(warrior.player, 0) + 1
    return seen


def scan_for_game(
    data: bytes,
    game_id: int,
    profile: str | None,
    players: tuple[str, ...],
    variant: str,
    upload: str | None = None,
) -> Scanned:
    """Scan a photo sent to a game and keep it: the draft's reading, its diagram's turn, where its cells
    are in the grid photo, and the colours it shows, to compare with the game's.

    ``upload`` names the photo when it is kept already (:func:`keep_upload`, a job's photo): only its
    grid photo is written then, beside it, under the same name each time the job runs."""
    # Read once without the game's colours, to compare them with the photo's; only the rules'
    # last step depends on who plays, so the game's reading is that step again.
    free = read_photo(data, profile, None, variant)
    result = reassemble(free, players, variant)
    upload = upload or keep_upload(game_id, data)
    grid, scale = keep_grid(upload, result)
    seen = colours_seen(free)
    return Scanned(
        upload,
        grid,
        result.to_json(),
        result.position,
        digest=hashlib.sha256(data).hexdigest(),
        turn=quarter_turns(result),
        outline=cell_outlines(result, scale),
        colours_seen=seen,
    )


def uploads_folder() -> Path:
    return Path(current_app.config["UPLOADS"])


def keep_upload(game_id: int | str, data: bytes) -> str:
    """Write the photo as sent (without a JPEG's padding) under a new name in the folder of its game
    (or of setup photos); its name under the uploads folder."""
    folder = uploads_folder() / str(game_id)
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{game_id}/{secrets.token_hex(8)}.upload"
    write_whole(uploads_folder() / name, without_padding(data))
    return name


def grid_name(upload: str) -> str:
    """The name of the photo with its grid drawn, beside the photo as sent."""
    return upload.removesuffix(".upload") + "-grid.jpg"


def keep_grid(upload: str, result: Scan) -> tuple[str, float]:
    """Write the photo with the found grid: its name, and its scale to the photo."""
    drawn = shrink(debug_image(result), GRID_PHOTO_PX)
    scale = drawn.shape[1] / result.image.shape[1]
    ok, jpeg = cv2.imencode(".jpg", drawn, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise OSError("could not encode the photo with its grid")
    grid = grid_name(upload)
    write_whole(uploads_folder() / grid, jpeg.tobytes())
    return grid, scale


def write_whole(path: Path, data: bytes) -> None:
    """Write a file under a temporary name, then rename it: a reader on another machine (or a job run
    twice after a worker died) never sees half a file."""
    part = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
    part.write_bytes(data)
    os.replace(part, path)


def without_padding(data: bytes) -> bytes:
    r"""A JPEG without the zero bytes after its end marker (a photo padded to 24 MB is kept at its
    size); any other file as it is.

    >>> without_padding(b"\xff\xd8 image \xff\xd9" + bytes(9))
    b'\xff\xd8 image \xff\xd9'
    """
    if data.startswith(b"\xff\xd8"):
        end = data.rstrip(b"\0")
        if end.endswith(b"\xff\xd9"):
            return end
    return data


def discard_photos(scanned: Scanned) -> None:
    """Remove the files :func:`scan_for_game` wrote for a scan no row keeps."""
    discard_upload(scanned.upload)


def profile_name(upload: str) -> str:
    """The name of the profile a job reads its photo with (the scaled ``/api/scan``), beside the photo."""
    return upload.removesuffix(".upload") + "-profile.json"


def discard_upload(upload: str) -> None:
    """Remove a photo as sent and its grid photo and profile, if written."""
    for name in (upload, grid_name(upload), profile_name(upload)):
        (uploads_folder() / name).unlink(missing_ok=True)


def shrink(image: npt.NDArray[np.uint8], long_side: int) -> npt.NDArray[np.uint8]:
    """The image scaled down to ``long_side`` pixels on its long side (never up)."""
    scale = long_side / max(image.shape[:2])
    if scale >= 1:
        return image
    size = (round(image.shape[1] * scale), round(image.shape[0] * scale))
    return np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
