"""Photo loading: the bytes of a phone photo in, an upright BGR image out, decoded once.

The format is told from the content (its magic bytes), never from a file name.
JPEG, PNG, WebP and HEIF/HEIC are supported; other image formats (GIF, BMP,
TIFF, AVIF, JPEG XL, ...) are refused with ``"unsupported"`` rather than decoded,
so every photo goes through one of the four paths below and comes out the same way.

The header is read first (size, EXIF orientation) and a photo larger than
``max_megapixels`` is refused before any pixel is decoded. The file's structure
is then checked (cheap scans, no decoding) so that a cut-off upload is reported
as ``"truncated"`` instead of decoding to a half-grey picture. Then:

* JPEG is decoded by libjpeg (``cv2.imdecode``) directly at 1/k size, where k in
  {1, 2, 4, 8} is the largest factor that keeps the long side at least
  ``min_long_side``: the DCT scaling makes this about twice as fast as a full
  decode. OpenCV is told to ignore the EXIF orientation, applied here afterwards.
* PNG and WebP are decoded at full size by ``cv2.imdecode`` and reduced by k with
  an area filter: for them OpenCV's ``IMREAD_REDUCED_*`` is not cheaper (it too
  decodes everything, then resizes with a bilinear filter that aliases at k >= 4).
* HEIF is decoded by libheif through :mod:`pillow_heif`, which applies the
  ``irot``/``imir`` transforms itself: its pixels are already upright and are not
  rotated again (the EXIF orientation is reported, not applied). Then reduced by k.

Every result is 3-channel 8-bit BGR (grey and alpha inputs included, alpha is
dropped, 16-bit samples keep their high byte), C-contiguous and writeable.

Errors are :class:`PhotoError` (a ``ValueError``) with a machine ``code`` and a
sentence for people:

>>> try:
...     load_photo(b"hello world")
... except PhotoError as err:
...     print(err.code, "-", err)
not_an_image - not an image: the file starts with b'hello wo' (expected JPEG, PNG, WebP or HEIC)

Known limits: damage *inside* the compressed data of a JPEG, a lossy WebP or a
HEIF cannot be seen without decoding, and the decoders conceal it: the photo
comes out with smeared blocks and no error. For JPEG, libjpeg then prints
``Corrupt JPEG data: ...`` on the process's stderr; OpenCV does not route these
lines through its logger (``cv2.utils.logging.setLogLevel`` does not silence
them) and this module does not redirect file descriptor 2 to hide them. PNG
chunks carry checksums, verified here, so damaged PNG data is ``"corrupt"``.
Truncation is caught for every format before decoding, silently.
"""

from __future__ import annotations

import io
import os
import re
import warnings
import zlib
from dataclasses import dataclass
from typing import Final, Literal, cast

import cv2
import numpy as np
import pillow_heif
from numpy.typing import NDArray
from PIL import Image

__all__ = [
    "Photo",
    "PhotoError",
    "PhotoErrorCode",
    "apply_orientation",
    "check_size",
    "load_photo",
    "read_photo",
    "reduction_factor",
]

PhotoErrorCode = Literal[
    "empty", "not_an_image", "truncated", "corrupt", "unsupported", "too_large", "too_small", "unreadable"
]

MIN_SIDE_PX: Final = 64
"""The shortest side a photo of the board may have (the scanner's ``min_side``): below it no board
can be read, and some of the scanner's steps cannot even run."""

EXPECTED: Final = "JPEG, PNG, WebP or HEIC"
"""The formats a photo may be in, as messages name them."""

REDUCTION_FACTORS: Final = (8, 4, 2, 1)
"""The decode reductions tried, largest first: the ones libjpeg's DCT scaling offers cheaply."""

ORIENTATION_TAG: Final = 0x0112

_IGNORE: Final = cv2.IMREAD_IGNORE_ORIENTATION
_JPEG_FLAGS: Final = {
    1: cv2.IMREAD_COLOR | _IGNORE,
    2: cv2.IMREAD_REDUCED_COLOR_2 | _IGNORE,
    4: cv2.IMREAD_REDUCED_COLOR_4 | _IGNORE,
    8: cv2.IMREAD_REDUCED_COLOR_8 | _IGNORE,
}
_FULL_FLAGS: Final = cv2.IMREAD_COLOR | _IGNORE

# The names messages use for each format, and the ``Photo.format`` values.
_LABEL: Final = {"JPEG": "JPEG", "PNG": "PNG", "WEBP": "WebP", "HEIF": "HEIF"}

# ISO base media (``ftyp``) brands: HEVC-coded HEIF (what phones write), the generic
# image-file brands (let libheif judge), and AVIF (AV1 in the same container).
_HEIC_BRANDS: Final = frozenset({b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"hevm", b"hevs"})
_MIF_BRANDS: Final = frozenset({b"mif1", b"msf1", b"mif2"})
_AVIF_BRANDS: Final = frozenset({b"avif", b"avis"})

Image8 = NDArray[np.uint8]


@dataclass(frozen=True, eq=False)
class Photo:
    """A decoded photo, upright, possibly reduced.

    ``image`` pixel ``(x, y)`` covers the full-size upright photo's pixels from
    ``(x / scale, y / scale)`` to ``((x + 1) / scale, (y + 1) / scale)``.
    Compared by identity (``eq=False``): its array has no single truth value.
    """

    image: Image8
    """BGR, ``uint8``, shape ``(height, width, 3)``, upright (EXIF orientation applied)."""
    scale: float
    """Pixels of ``image`` per pixel of the upright full-size photo: 1, 0.5, 0.25 or 0.125."""
    full_size: tuple[int, int]
    """``(width, height)`` of the upright full-size photo."""
    orientation: int
    """The EXIF orientation tag found, 1 to 8 (1 when none)."""
    format: str
    """``"JPEG"``, ``"PNG"``, ``"WEBP"`` or ``"HEIF"``, told from the content."""


class PhotoError(ValueError):
    """A photo that cannot be loaded: ``code`` for programs, ``str(err)`` a sentence for people.

    Codes: ``"empty"``, ``"not_an_image"``, ``"truncated"``, ``"corrupt"``,
    ``"unsupported"``, ``"too_large"``, and ``"unreadable"`` (:func:`read_photo`
    could not read the file).

    >>> err = PhotoError("truncated", "truncated JPEG: the data ends before the image does")
    >>> err.code, str(err)
    ('truncated', 'truncated JPEG: the data ends before the image does')
    """

    code: PhotoErrorCode

    def __init__(self, code: PhotoErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code

    def __reduce__(self) -> tuple[type[PhotoError], tuple[PhotoErrorCode, str]]:
        """Pickle as ``(code, message)``, so the error crosses process boundaries intact."""
        return (type(self), (self.code, str(self)))


# --------------------------------------------------------------------------- public API


def load_photo(
    data: bytes, *, min_long_side: int = 1600, max_megapixels: float = 60.0, min_side: int = 1
) -> Photo:
    """Decode a photo's bytes into an upright BGR :class:`Photo`, reduced when it is large.

    The reduction is the largest factor k of :func:`reduction_factor`: the
    photo's upright long side over k stays at least ``min_long_side`` (pass a
    huge value for no reduction). Photos above ``max_megapixels``, or with a side
    under ``min_side`` pixels, are refused from their header, before decoding
    (:func:`check_size`: every image decoded from what a person sent passes it).
    Raises :class:`PhotoError` for anything that is not a complete photo in a
    supported format, and ``ValueError`` for bad arguments.
    """
    if min_long_side < 1:
        raise ValueError(f"min_long_side must be at least 1, not {min_long_side}")
    if not max_megapixels > 0:
        raise ValueError(f"max_megapixels must be positive, not {max_megapixels}")
    if not data:
        raise PhotoError("empty", "empty: the file has no data (0 bytes)")
    fmt = _sniff(data)
    if fmt == "HEIF":
        return _load_heif(data, min_long_side, _Limits(max_megapixels, min_side))
    return _load_cv(fmt, data, min_long_side, _Limits(max_megapixels, min_side))


def read_photo(
    path: str | os.PathLike[str], *, min_long_side: int = 1600, max_megapixels: float = 60.0
) -> Photo:
    """Read a photo file and :func:`load_photo` it (same keyword arguments).

    The name of the file plays no part; a file that cannot be read (missing, a
    directory, no permission) raises :class:`PhotoError` with code ``"unreadable"``.
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        raise PhotoError("unreadable", f"cannot read {name!r}: there is no such file") from None
    except IsADirectoryError:
        raise PhotoError("unreadable", f"cannot read {name!r}: it is a directory, not a file") from None
    except PermissionError:
        raise PhotoError("unreadable", f"cannot read {name!r}: permission denied") from None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise PhotoError("unreadable", f"cannot read {name!r}: {reason}") from None
    return load_photo(data, min_long_side=min_long_side, max_megapixels=max_megapixels)


def reduction_factor(long_side: int, min_long_side: int) -> int:
    """The largest k in {1, 2, 4, 8} with ``long_side / k >= min_long_side`` (1 when none).

    >>> reduction_factor(4000, 1600), reduction_factor(3199, 1600), reduction_factor(3200, 1600)
    (2, 1, 2)
    >>> reduction_factor(8000, 1000), reduction_factor(900, 1600)
    (8, 1)
    """
    for k in REDUCTION_FACTORS:
        if long_side >= k * min_long_side:
            return k
    return 1


def apply_orientation(image: Image8, orientation: int) -> Image8:
    """Turn an image as stored into the upright one its EXIF ``orientation`` (1 to 8) describes.

    Other values count as 1 (the image is returned as is).

    >>> stored = np.arange(6, dtype=np.uint8).reshape(2, 3)
    >>> apply_orientation(stored, 6)  # turned 90 degrees clockwise
    array([[3, 0],
           [4, 1],
           [5, 2]], dtype=uint8)
    """
    if orientation == 2:
        out = cv2.flip(image, 1)
    elif orientation == 3:
        out = cv2.rotate(image, cv2.ROTATE_180)
    elif orientation == 4:
        out = cv2.flip(image, 0)
    elif orientation == 5:
        out = cv2.transpose(image)
    elif orientation == 6:
        out = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    elif orientation == 7:
        out = cv2.flip(cv2.transpose(image), -1)
    elif orientation == 8:
        out = cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE)
    else:
        return image
    return cast(Image8, out)


# --------------------------------------------------------------------------- format detection


def _sniff(data: bytes) -> str:
    """The supported format the magic bytes announce, or raise ``unsupported``/``not_an_image``."""
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    if data[4:8] == b"ftyp":
        return _sniff_iso(data)
    other = _other_image_format(data)
    if other is not None:
        raise PhotoError("unsupported", f"unsupported format: {other} (expected {EXPECTED})")
    raise PhotoError("not_an_image", f"not an image: the file starts with {data[:8]!r} (expected {EXPECTED})")


def _sniff_iso(data: bytes) -> str:
    """HEIF, or ``unsupported`` for the other ISO base media files (AVIF, videos)."""
    box_size = int.from_bytes(data[0:4], "big")
    end = min(box_size, len(data), 1024) if box_size >= 16 else min(len(data), 16)
    brands = {data[8:12]} | {data[i : i + 4] for i in range(16, end - 3, 4)}
    if brands & _HEIC_BRANDS:
        return "HEIF"
    if brands & _AVIF_BRANDS:
        raise PhotoError("unsupported", f"unsupported format: AVIF (expected {EXPECTED})")
    if brands & _MIF_BRANDS:
        return "HEIF"
    major = data[8:12].decode("latin-1")
    raise PhotoError(
        "unsupported",
        f"unsupported format: an ISO media file of brand {major!r}, probably a video (expected {EXPECTED})",
    )


def _other_image_format(data: bytes) -> str | None:
    """The name of an image format we recognise but do not decode, if the data is in one."""
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if data[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):
        return "TIFF (or a camera raw file)"
    if (
        data[:2] == b"BM"
        and len(data) >= 18
        and int.from_bytes(data[14:18], "little") in (12, 40, 52, 56, 64, 108, 124)
    ):
        return "BMP"
    if data[:2] == b"\xff\x0a" or data[:12] == b"\x00\x00\x00\x0cJXL \r\n\x87\n":
        return "JPEG XL"
    if data[:12] == b"\x00\x00\x00\x0cjP  \r\n\x87\n" or data[:4] == b"\xff\x4f\xff\x51":
        return "JPEG 2000"
    if data[:4] == b"8BPS":
        return "Photoshop (PSD)"
    return None


# --------------------------------------------------------------------------- JPEG, PNG, WebP


@dataclass(frozen=True)
class _Header:
    width: int  # as stored, before the orientation is applied
    height: int
    orientation: int


@dataclass(frozen=True)
class _Limits:
    max_megapixels: float
    min_side: int


def _load_cv(fmt: str, data: bytes, min_long_side: int, limits: _Limits) -> Photo:
    """JPEG, PNG and WebP: header by Pillow, structure checked here, pixels by OpenCV."""
    header = _read_header(fmt, data, limits.max_megapixels)
    check_size(header.width, header.height, header.orientation, limits.max_megapixels, limits.min_side)
    late_exif = _check_complete(fmt, data)
    orientation = header.orientation
    if late_exif is not None and orientation == 1:
        orientation = _orientation_from_exif(late_exif)
    width, height = (
        (header.height, header.width) if orientation in (5, 6, 7, 8) else (header.width, header.height)
    )
    k = reduction_factor(max(width, height), min_long_side)
    buffer = np.frombuffer(data, dtype=np.uint8)
    flags = _JPEG_FLAGS[k] if fmt == "JPEG" else _FULL_FLAGS
    try:
        decoded = cv2.imdecode(buffer, flags)
    except cv2.error:
        decoded = None
    if decoded is None or decoded.size == 0:
        raise PhotoError("corrupt", f"corrupt {_LABEL[fmt]}: the decoder cannot read the image data")
    image = cast(Image8, decoded)  # IMREAD_COLOR: always 3-channel uint8 BGR (grey, alpha, 16-bit converted)
    if fmt != "JPEG":
        image = _reduce(image, k)
    image = np.ascontiguousarray(apply_orientation(image, orientation))
    return Photo(image=image, scale=1.0 / k, full_size=(width, height), orientation=orientation, format=fmt)


def _read_header(fmt: str, data: bytes, max_megapixels: float) -> _Header:
    """Size and EXIF orientation from the header alone (Pillow's lazy open decodes no pixels)."""
    try:
        with warnings.catch_warnings():
            # Pillow's DecompressionBombWarning (we judge the size ourselves) and malformed-MPO notes.
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(data), formats=[fmt]) as im:
                width, height = im.size
                exif = im.info.get("exif")
                # Pillow's getexif() also reads an XMP orientation, but for a PNG without an early
                # eXIf chunk it decodes the whole image to look further: take the raw bytes there.
                if fmt == "PNG":
                    orientation = _orientation_from_exif(exif) if isinstance(exif, bytes) else 1
                else:
                    orientation = _valid_orientation(im.getexif().get(ORIENTATION_TAG))
    except Image.DecompressionBombError as exc:
        match = re.search(r"\((\d+) pixels\)", str(exc))
        size = f"{int(match[1]) / 1e6:.1f} megapixels" if match else "far more megapixels than Pillow allows"
        raise PhotoError("too_large", f"too large: {size}; the limit is {max_megapixels:g}") from None
    except Exception as exc:  # Pillow raises many types on malformed headers; classify them here
        _check_complete(fmt, data)  # raises "truncated" or "corrupt" when the structure tells
        raise PhotoError("corrupt", f"corrupt {_LABEL[fmt]}: the header cannot be read ({exc})") from None
    return _Header(width, height, orientation)


def check_size(width: int, height: int, orientation: int, max_megapixels: float, min_side: int) -> None:
    """Refuse an image of ``width`` x ``height`` (from its header) that is too large or too small.

    >>> check_size(1, 4000, 1, 60.0, 64)
    Traceback (most recent call last):
    ...
    vision.load.PhotoError: too small: 1 x 4000 pixels; each side must be at least 64 pixels
    """
    megapixels = width * height / 1e6
    if orientation in (5, 6, 7, 8):
        width, height = height, width
    if min(width, height) < min_side:
        raise PhotoError(
            "too_small", f"too small: {width} x {height} pixels; each side must be at least {min_side} pixels"
        )
    if megapixels > max_megapixels:
        raise PhotoError(
            "too_large",
            f"too large: {megapixels:.1f} megapixels ({width} x {height}); the limit is {max_megapixels:g}",
        )


def _reduce(image: Image8, k: int) -> Image8:
    """Shrink by the integer factor ``k`` with an area (box) filter, so ``scale`` is exactly 1/k.

    The last ``k - 1`` rows and columns at most are dropped to keep the factor exact.
    """
    if k == 1:
        return image
    height, width = image.shape[0] // k, image.shape[1] // k
    cropped = image[: height * k, : width * k]
    return cast(Image8, cv2.resize(cropped, (width, height), interpolation=cv2.INTER_AREA))


# --------------------------------------------------------------------------- HEIF


def _load_heif(data: bytes, min_long_side: int, limits: _Limits) -> Photo:
    """HEIF/HEIC through libheif: upright already (``irot``/``imir`` applied at decode)."""
    try:
        heif = pillow_heif.open_heif(io.BytesIO(data), convert_hdr_to_8bit=True)
        width, height = heif.size  # after libheif's transforms: upright
        exif = heif.info.get("exif")
    except Exception as exc:  # libheif errors surface as RuntimeError, ValueError, OSError, ...
        _check_complete("HEIF", data)
        raise PhotoError("corrupt", f"corrupt HEIF: the container cannot be read ({exc})") from None
    # The EXIF orientation is informative only: libheif has turned the pixels already (HEIF's
    # rule, which pillow-heif follows by resetting the tag to 1 when it converts to Pillow).
    orientation = _orientation_from_exif(exif) if isinstance(exif, bytes) else 1
    check_size(width, height, 1, limits.max_megapixels, limits.min_side)
    _check_complete("HEIF", data)
    try:
        decoded = np.asarray(heif)
    except Exception as exc:
        raise PhotoError("corrupt", f"corrupt HEIF: the decoder cannot read the image data ({exc})") from None
    if decoded.dtype != np.uint8 or decoded.ndim not in (2, 3) or decoded.size == 0:
        raise PhotoError(
            "unsupported", f"unsupported format: HEIF with {decoded.dtype} samples {decoded.shape}"
        )
    if decoded.ndim == 2:
        bgr = cv2.cvtColor(decoded, cv2.COLOR_GRAY2BGR)
    elif decoded.shape[2] == 4:
        bgr = cv2.cvtColor(decoded, cv2.COLOR_RGBA2BGR)
    else:
        bgr = cv2.cvtColor(decoded, cv2.COLOR_RGB2BGR)
    k = reduction_factor(max(width, height), min_long_side)
    image = np.ascontiguousarray(_reduce(cast(Image8, bgr), k))
    return Photo(
        image=image, scale=1.0 / k, full_size=(width, height), orientation=orientation, format="HEIF"
    )


# --------------------------------------------------------------------------- EXIF


def _valid_orientation(value: object) -> int:
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


def _orientation_from_exif(raw: bytes) -> int:
    """The orientation tag of raw EXIF bytes (with or without the ``Exif\\0\\0`` prefix); 1 if absent."""
    exif = Image.Exif()
    try:
        exif.load(raw)
        return _valid_orientation(exif.get(ORIENTATION_TAG))
    except Exception:  # a damaged EXIF block only loses us the orientation
        return 1


# --------------------------------------------------------------------------- structure checks


def _check_complete(fmt: str, data: bytes) -> bytes | None:
    """Raise ``truncated`` or ``corrupt`` if the file's structure says so; no pixel is decoded.

    Returns the payload of a PNG ``eXIf`` chunk when there is one (it may follow the
    image data, where the header reader does not look), else ``None``.
    """
    if fmt == "JPEG":
        _check_jpeg(data)
    elif fmt == "PNG":
        return _check_png(data)
    elif fmt == "WEBP":
        _check_webp(data)
    else:
        _check_heif(data)
    return None


def _truncated(label: str, detail: str = "the data ends before the image does") -> PhotoError:
    return PhotoError("truncated", f"truncated {label}: {detail}")


def _check_jpeg(data: bytes) -> None:
    """Walk the segments to the first scan, then look for an end-of-image marker after it.

    Inside the compressed data a 0xFF byte is always followed by 0x00 or a restart
    marker, so no ``FF D9`` appears there: a file cut inside the image has none
    after the scan starts. Data after the image (the extra images of an MPO, a
    motion photo's video) is allowed; searching from the end finds the marker in
    microseconds in a complete file instead of reading the whole scan.
    """
    size = len(data)
    pos = 2
    while True:
        if pos >= size:
            raise _truncated("JPEG")
        if data[pos] != 0xFF:
            raise PhotoError(
                "corrupt", f"corrupt JPEG: no segment marker at byte {pos} (found 0x{data[pos]:02x})"
            )
        while pos < size and data[pos] == 0xFF:
            pos += 1
        if pos >= size:
            raise _truncated("JPEG")
        marker = data[pos]
        pos += 1
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:
            continue
        if marker in (0x00, 0xD8, 0xD9):
            raise PhotoError("corrupt", f"corrupt JPEG: unexpected marker 0x{marker:02x} at byte {pos - 1}")
        if pos + 2 > size:
            raise _truncated("JPEG")
        length = int.from_bytes(data[pos : pos + 2], "big")
        if length < 2:
            raise PhotoError("corrupt", f"corrupt JPEG: a segment at byte {pos - 2} has length {length}")
        pos += length
        if marker == 0xDA:  # start of scan: compressed data follows
            break
    if pos > size or data.rfind(b"\xff\xd9", pos) < 0:
        raise _truncated("JPEG")


def _check_png(data: bytes) -> bytes | None:
    """Walk the chunks to ``IEND``, verifying each checksum; return the ``eXIf`` payload if any."""
    view = memoryview(data)
    size = len(data)
    pos = 8
    exif: bytes | None = None
    first = True
    while True:
        if pos + 8 > size:
            raise _truncated("PNG")
        length = int.from_bytes(view[pos : pos + 4], "big")
        kind = bytes(view[pos + 4 : pos + 8])
        if length > 0x7FFFFFFF or not kind.isalpha() or (first and kind != b"IHDR"):
            raise PhotoError("corrupt", f"corrupt PNG: the chunk at byte {pos} is malformed")
        end = pos + 12 + length
        if end > size:
            raise _truncated("PNG")
        if zlib.crc32(view[pos + 4 : end - 4]) != int.from_bytes(view[end - 4 : end], "big"):
            name = kind.decode("ascii")
            raise PhotoError("corrupt", f"corrupt PNG: the {name} chunk at byte {pos} fails its checksum")
        if kind == b"eXIf":
            exif = bytes(view[pos + 8 : end - 4])
        elif kind == b"IEND":
            return exif
        first = False
        pos = end


def _check_webp(data: bytes) -> None:
    """The RIFF header gives the file's length."""
    if len(data) < 12:
        raise _truncated("WebP")
    riff_size = int.from_bytes(data[4:8], "little")
    if riff_size < 4:
        raise PhotoError("corrupt", f"corrupt WebP: the RIFF header gives a size of {riff_size}")
    if 8 + riff_size > len(data):
        raise _truncated("WebP")


def _check_heif(data: bytes) -> None:
    """Walk the top-level ISO base media boxes (``ftyp``, ``meta``, ``mdat``, ...): none may overrun."""
    size = len(data)
    pos = 0
    while pos < size:
        if pos + 8 > size:
            raise _truncated("HEIF")
        box_size = int.from_bytes(data[pos : pos + 4], "big")
        header = 8
        if box_size == 1:
            if pos + 16 > size:
                raise _truncated("HEIF")
            box_size = int.from_bytes(data[pos + 8 : pos + 16], "big")
            header = 16
        elif box_size == 0:
            box_size = size - pos
        if box_size < header:
            raise PhotoError("corrupt", f"corrupt HEIF: the box at byte {pos} has size {box_size}")
        if pos + box_size > size:
            raise _truncated("HEIF")
        pos += box_size
