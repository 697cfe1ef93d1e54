"""vision.load: photo bytes in, an upright, possibly reduced BGR image out, or a PhotoError that says why.

Every test image is built here. The orientation tests start from an upright
picture of coloured tiles (all different, so any wrong flip or turn moves some
colour), store it turned the way each EXIF orientation describes, and expect the
loader to turn it back.
"""

from __future__ import annotations

import io
import pickle
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np
import pillow_heif
import pytest
from numpy.typing import NDArray
from PIL import Image, ImageOps

from vision import load
from vision.load import Photo, PhotoError, apply_orientation, load_photo, read_photo, reduction_factor

Image8 = NDArray[np.uint8]

TILE = 16  # a multiple of the JPEG block size, so tile edges survive compression and every turn
TILE_COLOURS = np.array(  # BGR, 3 rows x 4 columns, all different
    [
        [(0, 0, 255), (0, 255, 0), (255, 0, 0), (0, 255, 255)],
        [(255, 0, 255), (255, 255, 0), (40, 40, 40), (200, 200, 200)],
        [(0, 128, 255), (128, 0, 255), (255, 128, 0), (0, 0, 0)],
    ],
    dtype=np.uint8,
)

# How to store an upright picture so that EXIF orientation o turns it upright again: the inverse of
# the turn each orientation asks for (2, 3, 4, 5 and 7 are their own inverse; 6 and 8 swap).
STORE_FOR = {
    1: None,
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,  # Pillow turns counter-clockwise; orientation 6 turns clockwise
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}

JPEG_TOLERANCE = 8  # quality 95 without chroma subsampling, on flat 16 x 16 tiles


# --------------------------------------------------------------------------- helpers


def upright() -> Image8:
    """The asymmetric test picture, 64 wide and 48 high."""
    return np.repeat(np.repeat(TILE_COLOURS, TILE, axis=0), TILE, axis=1)


def to_pil(bgr: Image8) -> Image.Image:
    return Image.fromarray(np.ascontiguousarray(bgr[..., ::-1]))


def stored(bgr: Image8, orientation: int) -> Image.Image:
    """The picture as a camera would store it, to be shown turned by ``orientation``."""
    transpose = STORE_FOR[orientation]
    pil = to_pil(bgr)
    return pil if transpose is None else pil.transpose(transpose)


def exif_bytes(orientation: int) -> bytes:
    exif = Image.Exif()
    exif[load.ORIENTATION_TAG] = orientation
    return exif.tobytes()


def encode(pil: Image.Image, fmt: str, orientation: int | None = None, **options: Any) -> bytes:
    """Pillow's (or pillow-heif's) encoding of ``pil``, with an EXIF orientation tag when given."""
    if orientation is not None:
        options["exif"] = exif_bytes(orientation)
    buffer = io.BytesIO()
    if fmt == "HEIF":
        pillow_heif.from_pillow(pil).save(buffer, **{"quality": 95, "chroma": 444, **options})
    elif fmt == "JPEG":
        pil.save(buffer, "JPEG", **{"quality": 95, "subsampling": 0, **options})
    elif fmt == "WEBP":
        pil.save(buffer, "WEBP", **{"lossless": True, **options})
    else:
        pil.save(buffer, fmt, **options)
    return buffer.getvalue()


def png_chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    chunks, pos = [], 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        chunks.append((data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]))
        pos += 12 + length
    return chunks


def png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` RGB pixels, with almost no data behind it."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 64)
    return (
        b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", idat) + png_chunk(b"IEND", b"")
    )


def max_diff(a: Image8, b: Image8) -> int:
    assert a.shape == b.shape, (a.shape, b.shape)
    return int(np.abs(a.astype(np.int16) - b.astype(np.int16)).max())


def photo_like(width: int, height: int, seed: int = 0) -> Image8:
    """A smooth colour picture with blocky noise, big but cheap to make (uint8 all the way)."""
    x = np.linspace(0, 255, width).astype(np.uint16)[None, :]
    y = np.linspace(0, 255, height).astype(np.uint16)[:, None]
    picture = np.empty((height, width, 3), np.uint8)
    picture[..., 0] = x
    picture[..., 1] = y
    picture[..., 2] = (x + y) // 2
    blocks = np.random.default_rng(seed).integers(0, 12, (height // 8 + 1, width // 8 + 1, 3), dtype=np.uint8)
    noise = cv2.resize(blocks, (blocks.shape[1] * 8, blocks.shape[0] * 8), interpolation=cv2.INTER_NEAREST)
    return cast(Image8, cv2.add(picture, noise[:height, :width]))


class DecodeSpy:
    """Wraps cv2.imdecode to record the flags of each call."""

    def __init__(self, real: Callable[..., Any]) -> None:
        self.real = real
        self.flags: list[int] = []

    def __call__(self, buffer: Any, flags: int) -> Any:
        self.flags.append(flags)
        return self.real(buffer, flags)


@pytest.fixture
def decode_spy(monkeypatch: pytest.MonkeyPatch) -> DecodeSpy:
    spy = DecodeSpy(cv2.imdecode)
    monkeypatch.setattr(cv2, "imdecode", spy)
    return spy


@pytest.fixture
def no_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if any pixel decoder runs."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a decoder ran")

    monkeypatch.setattr(cv2, "imdecode", refuse)
    monkeypatch.setattr(pillow_heif.HeifFile, "__array_interface__", property(refuse))


def expect_error(data: bytes, code: str, *phrases: str, **kwargs: Any) -> PhotoError:
    with pytest.raises(PhotoError) as caught:
        load_photo(data, **kwargs)
    err = caught.value
    assert err.code == code, str(err)
    for phrase in phrases:
        assert phrase in str(err), str(err)
    assert "\n" not in str(err)
    return err


# --------------------------------------------------------------------------- orientation


@pytest.mark.parametrize("orientation", range(1, 9))
def test_jpeg_exif_orientation_loads_upright(orientation: int) -> None:
    data = encode(stored(upright(), orientation), "JPEG", orientation)
    # The test's own premise: Pillow's reference transpose of this file gives the upright picture.
    reference = np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(data))))[..., ::-1]
    assert max_diff(np.ascontiguousarray(reference), upright()) <= JPEG_TOLERANCE

    photo = load_photo(data)
    assert max_diff(photo.image, upright()) <= JPEG_TOLERANCE
    assert (photo.orientation, photo.full_size, photo.scale, photo.format) == (
        orientation,
        (64, 48),
        1.0,
        "JPEG",
    )


@pytest.mark.parametrize("fmt", ["PNG", "WEBP"])
@pytest.mark.parametrize("orientation", range(1, 9))
def test_lossless_exif_orientation_loads_upright_exactly(fmt: str, orientation: int) -> None:
    photo = load_photo(encode(stored(upright(), orientation), fmt, orientation))
    assert np.array_equal(photo.image, upright())
    assert (photo.orientation, photo.full_size, photo.format) == (orientation, (64, 48), fmt)


def test_png_exif_chunk_after_the_image_data_still_counts() -> None:
    data = encode(stored(upright(), 6), "PNG", 6)
    chunks = png_chunks(data)
    exif = [c for c in chunks if c[0] == b"eXIf"]
    rest = [c for c in chunks if c[0] not in (b"eXIf", b"IEND")]
    moved = b"\x89PNG\r\n\x1a\n" + b"".join(png_chunk(k, p) for k, p in [*rest, *exif, (b"IEND", b"")])
    assert moved.index(b"eXIf") > moved.index(b"IDAT")
    photo = load_photo(moved)
    assert photo.orientation == 6
    assert np.array_equal(photo.image, upright())


@pytest.mark.parametrize("orientation", [6, 7])
def test_heic_turned_by_its_container_loads_upright_once_and_equals_the_jpeg(orientation: int) -> None:
    picture = stored(upright(), orientation)
    heic = encode(picture, "HEIF", orientation)
    jpeg = encode(picture, "JPEG", orientation)
    # pillow-heif writes the EXIF orientation as HEIF irot/imir boxes, which libheif applies when
    # decoding: the loader must not turn the pixels a second time.
    assert b"irot" in heic
    assert np.asarray(Image.open(io.BytesIO(jpeg))).shape[:2] == (64, 48)  # stored turned

    from_heic, from_jpeg = load_photo(heic), load_photo(jpeg)
    assert max_diff(from_heic.image, upright()) <= JPEG_TOLERANCE
    assert max_diff(from_heic.image, from_jpeg.image) <= JPEG_TOLERANCE
    assert (from_heic.format, from_heic.orientation, from_heic.full_size) == ("HEIF", orientation, (64, 48))


def test_apply_orientation_matches_pillow_for_every_tag() -> None:
    rng = np.random.default_rng(3)
    picture = rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)
    for orientation in range(1, 9):
        pil = to_pil(picture)
        pil.getexif()[load.ORIENTATION_TAG] = orientation  # what exif_transpose reads
        expected = np.asarray(ImageOps.exif_transpose(pil))[..., ::-1]
        got = apply_orientation(picture, orientation)
        assert np.array_equal(got, expected), orientation
    assert apply_orientation(picture, 0) is picture and apply_orientation(picture, 9) is picture


# --------------------------------------------------------------------------- reduction


@pytest.mark.parametrize(
    ("long_side", "minimum", "factor"),
    [(4000, 1600, 2), (3200, 1600, 2), (3199, 1600, 1), (6400, 1600, 4), (12800, 1600, 8), (99999, 1600, 8)],
)
def test_reduction_factor(long_side: int, minimum: int, factor: int) -> None:
    assert reduction_factor(long_side, minimum) == factor


@pytest.mark.parametrize("orientation", [1, 6])
def test_12_megapixel_jpeg_decodes_at_half_size(orientation: int, decode_spy: DecodeSpy) -> None:
    picture = photo_like(4000, 3000)  # upright; with orientation 6 it is stored 3000 wide and 4000 high
    photo = load_photo(encode(stored(picture, orientation), "JPEG", orientation))

    assert photo.full_size == (4000, 3000)
    assert photo.image.shape == (1500, 2000, 3)
    assert photo.scale == 0.5
    # One decode, by libjpeg's DCT scaling at 1/2, with OpenCV's own EXIF rotation off.
    assert decode_spy.flags == [cv2.IMREAD_REDUCED_COLOR_2 | cv2.IMREAD_IGNORE_ORIENTATION]
    expected = cv2.resize(picture, (2000, 1500), interpolation=cv2.INTER_AREA)
    assert np.abs(photo.image.astype(np.int16) - expected).mean() < 3


def test_small_jpeg_stays_full_size(decode_spy: DecodeSpy) -> None:
    photo = load_photo(encode(to_pil(photo_like(900, 600)), "JPEG"))
    assert (photo.image.shape, photo.scale, photo.full_size) == ((600, 900, 3), 1.0, (900, 600))
    assert decode_spy.flags == [cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION]


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "HEIF"])
@pytest.mark.parametrize(("minimum", "factor"), [(129, 1), (64, 2), (32, 4), (16, 8)])
def test_every_format_reduces_by_the_same_factor(fmt: str, minimum: int, factor: int) -> None:
    picture = np.repeat(np.repeat(upright(), 2, axis=0), 2, axis=1)  # 128 x 96, tiles of 32
    photo = load_photo(encode(to_pil(picture), fmt), min_long_side=minimum)
    assert photo.scale == 1 / factor
    assert photo.full_size == (128, 96)
    assert photo.image.shape == (96 // factor, 128 // factor, 3)
    expected = cv2.resize(picture, (128 // factor, 96 // factor), interpolation=cv2.INTER_AREA)
    assert np.abs(photo.image.astype(np.int16) - expected).mean() < (6 if fmt in ("JPEG", "HEIF") else 0.5)


# --------------------------------------------------------------------------- colour and depth


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_grey_photos_come_out_as_three_equal_channels(fmt: str) -> None:
    grey = np.tile(np.arange(0, 256, 4, dtype=np.uint8), (32, 1))
    photo = load_photo(encode(Image.fromarray(grey), fmt))
    assert photo.image.shape == (32, 64, 3)
    assert np.array_equal(photo.image[..., 0], photo.image[..., 1])
    assert np.array_equal(photo.image[..., 0], photo.image[..., 2])
    assert max_diff(photo.image[..., 0], grey) <= (2 if fmt == "JPEG" else 0)


@pytest.mark.parametrize("fmt", ["PNG", "WEBP", "HEIF"])
def test_alpha_is_dropped(fmt: str) -> None:
    bgra = np.dstack([upright(), np.full((48, 64), 128, np.uint8)])
    rgba = Image.fromarray(np.ascontiguousarray(bgra[..., [2, 1, 0, 3]]), "RGBA")
    photo = load_photo(encode(rgba, fmt))
    assert photo.image.shape == (48, 64, 3) and photo.image.dtype == np.uint8
    assert max_diff(photo.image, upright()) <= (JPEG_TOLERANCE if fmt == "HEIF" else 0)


def test_16_bit_png_comes_out_8_bit() -> None:
    rng = np.random.default_rng(5)
    deep = rng.integers(0, 65536, (20, 30, 3), dtype=np.uint16)
    ok, buffer = cv2.imencode(".png", deep)
    assert ok
    photo = load_photo(buffer.tobytes())
    assert photo.image.dtype == np.uint8
    assert np.array_equal(photo.image, (deep >> 8).astype(np.uint8))


def test_result_is_a_plain_contiguous_array() -> None:
    photo = load_photo(encode(stored(upright(), 6), "JPEG", 6))
    assert isinstance(photo, Photo)
    assert photo.image.flags.c_contiguous and photo.image.flags.writeable


# --------------------------------------------------------------------------- refusals


def test_empty() -> None:
    expect_error(b"", "empty", "empty")


def test_text_is_not_an_image() -> None:
    err = expect_error(b"hello world, this is text\n", "not_an_image")
    assert str(err) == "not an image: the file starts with b'hello wo' (expected JPEG, PNG, WebP or HEIC)"


@pytest.mark.parametrize(("fmt", "name"), [("GIF", "GIF"), ("BMP", "BMP"), ("TIFF", "TIFF")])
def test_other_image_formats_are_unsupported(fmt: str, name: str, no_decoding: None) -> None:
    expect_error(encode(to_pil(upright()), fmt), "unsupported", f"unsupported format: {name}", "JPEG, PNG")


def test_a_video_is_unsupported() -> None:
    mp4 = struct.pack(">I", 24) + b"ftypisom" + b"\x00\x00\x02\x00" + b"isomiso2" + b"\x00" * 32
    expect_error(mp4, "unsupported", "video")


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "HEIF"])
@pytest.mark.parametrize("keep", [0.5, 0.9])
def test_truncated(fmt: str, keep: float, capfd: pytest.CaptureFixture[str]) -> None:
    data = encode(to_pil(photo_like(160, 120)), fmt, **({"lossless": False} if fmt == "WEBP" else {}))
    name = {"WEBP": "WebP"}.get(fmt, fmt)
    expect_error(
        data[: int(len(data) * keep)], "truncated", f"truncated {name}: the data ends before the image does"
    )
    assert capfd.readouterr().err == ""  # no chatter from the codecs


def test_jpeg_cut_just_before_its_end_marker() -> None:
    data = encode(to_pil(photo_like(160, 120)), "JPEG")
    assert data.endswith(b"\xff\xd9")
    expect_error(data[:-2], "truncated", "truncated JPEG")


def test_corrupt_jpeg_header(capfd: pytest.CaptureFixture[str]) -> None:
    data = bytearray(encode(to_pil(photo_like(160, 120)), "JPEG"))
    dqt = data.index(b"\xff\xdb")
    data[dqt : dqt + 4] = b"\x00\x00\x00\x00"  # the quantisation table's marker and length
    expect_error(bytes(data), "corrupt", "corrupt JPEG")
    assert capfd.readouterr().err == ""


@pytest.mark.xfail(reason="libjpeg conceals damage inside the compressed data; OpenCV reports no warning")
def test_damage_inside_the_jpeg_scan_is_reported() -> None:
    data = bytearray(encode(to_pil(photo_like(96, 64)), "JPEG"))
    scan = data.index(b"\xff\xda") + 200
    data[scan : scan + 4] = b"\x12\x34\x56\x78"
    expect_error(bytes(data), "corrupt", "corrupt JPEG")


def test_corrupt_png_data(capfd: pytest.CaptureFixture[str]) -> None:
    data = bytearray(encode(to_pil(photo_like(160, 120)), "PNG"))
    data[data.index(b"IDAT") + 40] ^= 0xFF
    expect_error(bytes(data), "corrupt", "corrupt PNG", "IDAT", "checksum")
    assert capfd.readouterr().err == ""


def test_100_megapixel_header_is_refused_before_decoding(no_decoding: None) -> None:
    err = expect_error(png_header_only(10000, 10000), "too_large")
    assert str(err) == "too large: 100.0 megapixels (10000 x 10000); the limit is 60"


def test_a_header_beyond_pillows_bomb_limit_is_too_large_too(no_decoding: None) -> None:
    expect_error(png_header_only(20000, 20000), "too_large", "400.0 megapixels", "the limit is 60")


@pytest.mark.parametrize("fmt", ["JPEG", "HEIF"])
def test_the_limit_is_a_parameter_and_uses_the_upright_size(fmt: str, no_decoding: None) -> None:
    data = encode(stored(photo_like(90, 60), 6), fmt, 6)
    expect_error(data, "too_large", "0.0 megapixels (90 x 60); the limit is 0.005", max_megapixels=0.005)


def test_bad_arguments_are_programming_errors() -> None:
    data = encode(to_pil(upright()), "PNG")
    with pytest.raises(ValueError, match="min_long_side"):
        load_photo(data, min_long_side=0)
    with pytest.raises(ValueError, match="max_megapixels"):
        load_photo(data, max_megapixels=0)


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "HEIF"])
def test_damaged_files_never_escape_as_other_exceptions(fmt: str) -> None:
    """Random cuts and scribbles: a Photo or a PhotoError, nothing else (and no crash)."""
    data = encode(to_pil(photo_like(96, 64)), fmt, **({"lossless": False} if fmt == "WEBP" else {}))
    rng = np.random.default_rng(11)
    for _ in range(25):
        damaged = bytearray(data[: int(rng.integers(1, len(data) + 1))])
        for _ in range(int(rng.integers(0, 4))):
            start = int(rng.integers(0, len(damaged)))
            damaged[start : start + 8] = rng.integers(0, 256, 8, dtype=np.uint8).tobytes()
        try:
            photo = load_photo(bytes(damaged))
        except PhotoError as err:
            assert err.code in {"empty", "not_an_image", "truncated", "corrupt", "unsupported"}, err
        else:
            assert photo.image.ndim == 3 and photo.image.shape[2] == 3


def test_photo_error_pickles_with_its_code() -> None:
    err = PhotoError("truncated", "truncated JPEG: the data ends before the image does")
    again = pickle.loads(pickle.dumps(err))
    assert (again.code, str(again)) == (err.code, str(err))
    assert isinstance(again, ValueError)


# --------------------------------------------------------------------------- files


def test_read_photo_tells_the_format_from_the_content(tmp_path: Path) -> None:
    path = tmp_path / "board.jpg"
    path.write_bytes(encode(stored(upright(), 3), "PNG", 3))
    photo = read_photo(path, min_long_side=32)
    assert photo.format == "PNG"
    assert photo.scale == 0.5 and photo.full_size == (64, 48)


def test_read_photo_file_errors(tmp_path: Path) -> None:
    with pytest.raises(PhotoError, match="no such file") as missing:
        read_photo(tmp_path / "missing.jpg")
    with pytest.raises(PhotoError, match="directory") as directory:
        read_photo(tmp_path)
    assert missing.value.code == directory.value.code == "unreadable"
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(PhotoError, match="empty"):
        read_photo(str(tmp_path / "empty.jpg"))
