"""One synthetic photo from a seed: the scene painted far to near, then the phone's optics, then the file.

Painting order (the painter's algorithm): the table; the board's slab and
face; tokens; the shadows of everything that stands on the table; the
palisades, which stand tall enough to hide what lies behind them; cups and
dice; a hand above it all. The photo is painted as it is displayed, and the
truth's pixel coordinates describe that display.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from engine import Position
from vision.geometry import BOARD_H_MM, BOARD_THICKNESS_MM, BOARD_W_MM, board_corners_mm
from vision.worlds.raster.camera import TABLE_Z, Camera, Framing, face_area_fraction, place_camera
from vision.worlds.raster.conditions import Conditions, draw_conditions
from vision.worlds.raster.copies import REFERENCE_COPY, Copy
from vision.worlds.raster.distractors import Distractor, Keepout, place_cup, place_dice
from vision.worlds.raster.draw import translation
from vision.worlds.raster.encode import encode, heic_quality, stored_size
from vision.worlds.raster.hand import Hand, place_hand
from vision.worlds.raster.lighting import Caster, Light, cast_shadows
from vision.worlds.raster.numerals import resolve_font
from vision.worlds.raster.optics import Glare, add_noise, blur, channel_gains, develop, light_field
from vision.worlds.raster.positions import random_position
from vision.worlds.raster.scene import (
    Block,
    PieceArt,
    Token,
    depth_order,
    draw_block,
    draw_board,
    draw_token,
    grid_outline_px,
    lay_out_tokens,
    palisade_blocks,
    palisade_faces,
)
from vision.worlds.raster.textures import U8, table

REFERENCE_WIDTH = 4000  # blur and similar pixel lengths in Conditions are meant for this width
_STREAMS = ("table", "layout", "clutter", "art", "glare", "noise")
_TABLE_REACH_MM = 1500.0  # the table texture stops here; beyond it, it is mirrored


@dataclass
class _Made:
    """What the truth needs to know about how a photo was painted."""

    camera: Camera
    background: dict[str, Any]
    position: Position | None = None
    moves: int = 0
    distractors: list[dict[str, Any]] = field(default_factory=list)
    glare: Glare | None = None


@dataclass(frozen=True)
class Staging:
    """What stands in the scene besides what the conditions say: which copy, and for a setup photo
    its fixed position (else a game is played from the seed) with nothing allowed over the board."""

    copy: Copy = REFERENCE_COPY
    position: Position | None = None
    clear_board: bool = False


@dataclass(frozen=True)
class RenderedPhoto:
    """A photo file's bytes exactly as written, its suffix (".jpg" or ".heic") and its ground truth."""

    data: bytes
    suffix: str
    truth: dict[str, Any]


def render_photo(
    seed: int,
    *,
    players: int | None = None,
    kind: str = "board",
    fmt: str = "jpeg",
    size: tuple[int, int] = (4000, 3000),
    quality: int | None = None,
    set_name: str | None = None,
    copy: Copy = REFERENCE_COPY,
    **overrides: Any,
) -> RenderedPhoto:
    """Render the photo of ``seed`` of ``copy``: same seed and arguments, same bytes.

    ``kind`` is "board" or "no_board"; ``size`` the sensor's (long, short)
    side, displayed landscape or portrait as the conditions say; ``quality``
    the JPEG/HEIC quality (else drawn in 70..95). Any field of
    :class:`~vision.worlds.raster.conditions.Conditions` may be given to override it.
    The players are ``players`` of the copy's colours in a seeded order.
    """
    conditions = draw_conditions(seed, kind=kind, players=players, quality=quality, overrides=overrides)
    return render_staged(seed, conditions, Staging(copy), kind=kind, fmt=fmt, size=size, set_name=set_name)


def render_staged(
    seed: int,
    conditions: Conditions,
    staging: Staging,
    *,
    kind: str,
    fmt: str,
    size: tuple[int, int],
    set_name: str | None,
) -> RenderedPhoto:
    """Paint, encode and describe one photo whose conditions and staging are already settled."""
    long_side, short_side = max(size), min(size)
    display = (short_side, long_side) if conditions.portrait else (long_side, short_side)
    image, made = _paint(seed, conditions, kind, display, staging)
    data, suffix = encode(
        image, fmt=fmt, quality=conditions.jpeg_quality, orientation=conditions.exif_orientation
    )
    truth = _truth(seed, set_name, kind, fmt, display, conditions, made, staging.copy)
    return RenderedPhoto(data, suffix, truth)


def _paint(
    seed: int, c: Conditions, kind: str, display: tuple[int, int], staging: Staging
) -> tuple[U8, _Made]:
    """The displayed photo, and what went into it."""
    # One generator per purpose, so that changing one condition leaves the others' draws alone.
    rng = {name: np.random.default_rng([seed, n]) for n, name in enumerate(_STREAMS)}
    board = kind == "board"
    framing = Framing(c.tilt_deg, c.azimuth_deg, c.roll_deg, c.focal_factor, c.board_area_fraction, c.shift)
    camera = place_camera(display, framing)
    light = Light(c.light_elevation_deg, c.light_azimuth_deg, c.shadow, c.shadow_softness_mm)
    scale = camera.px_per_mm(BOARD_W_MM / 2, BOARD_H_MM / 2)
    canvas, background = _table(camera, c.background, rng["table"], scale)
    made = _Made(camera, background)
    casters: list[Caster] = []
    copy = staging.copy
    if board:
        if staging.position is None:
            played = random_position(random.Random(f"position:{seed}"), c.players, c.stage, copy.keys)
            made.position, made.moves = played
        else:
            made.position = staging.position
        draw_board(canvas, camera, light, copy)
        tokens = lay_out_tokens(made.position, rng["layout"])
        blocks = palisade_blocks(sorted(made.position.palisades), rng["layout"])
        casters.append(Caster(board_corners_mm(), TABLE_Z, BOARD_THICKNESS_MM, cut=True))
    else:
        tokens, blocks = _loose_pieces(rng["layout"], c.loose_pieces, copy.keys)
    keep = Keepout.of_grid(camera, board, whole_board=staging.clear_board)
    distractors = _distractors(c, camera, keep, board, rng["clutter"])
    made.distractors = [d.describe() for d in distractors]

    art = PieceArt(
        rng["art"], float(np.clip(scale * 1.3, 3.0, 14.0)), c.font, copy.emblem_map(c.emblems), copy
    )
    for i in depth_order(camera, [(t.centre[0], t.centre[1], t.base_z) for t in tokens]):
        draw_token(canvas, camera, tokens[i], art, light)
    casters += [t.caster() for t in tokens] + [b.caster() for b in blocks]
    casters += [k for d in distractors for k in d.casters()]
    cast_shadows(canvas, camera, casters, light, _shadow_region(camera, casters, light))
    for i in depth_order(camera, [b.centre for b in blocks]):
        draw_block(canvas, camera, blocks[i], palisade_faces(art, blocks[i]), light)
    standing = [d for d in distractors if not isinstance(d, Hand)]
    for i in depth_order(camera, [d.depth_point() for d in standing]):
        standing[i].draw(canvas, camera, light)
    for d in distractors:
        if isinstance(d, Hand):  # above everything else
            d.draw(canvas, camera, light)

    made.glare = _glare(c, camera, rng["glare"], scale)
    gains = channel_gains(c.kelvin, c.colour_cast)
    image = develop(canvas, light_field(display, c.brightness, c.vignetting, c.gradient, gains), made.glare)
    image = blur(image, c.blur, c.blur_px * max(display) / REFERENCE_WIDTH, c.blur_angle_deg)
    return add_noise(image, c.noise, rng["noise"]), made


def _table(camera: Camera, kind: str, rng: np.random.Generator, scale: float) -> tuple[U8, dict[str, Any]]:
    """The table top filling the frame, its texture laid on the table plane in perspective.

    The texture is finer for larger photos (``scale`` px/mm at the board), up to 2 px/mm.
    """
    w, h = camera.width, camera.height
    frame = camera.frame_corners()
    cx, cy = BOARD_W_MM / 2, BOARD_H_MM / 2
    lo = np.array([cx - _TABLE_REACH_MM, cy - _TABLE_REACH_MM])
    hi = np.array([cx + _TABLE_REACH_MM, cy + _TABLE_REACH_MM])
    spots = camera.unproject(frame, TABLE_Z)
    depths = camera.depth(np.column_stack([spots, np.full(4, TABLE_Z)]))
    if np.all(depths > 0):
        lo, hi = np.maximum(lo, spots.min(axis=0) - 20), np.minimum(hi, spots.max(axis=0) + 20)
    extent = float(max(hi - lo))
    px = min(2.0, 2000 / extent, max(0.3, 0.45 * scale))
    texture = table(rng, kind, (float(lo[0]), float(lo[1])), (float(hi[0] - lo[0]), float(hi[1] - lo[1])), px)
    to_mm = translation(texture.origin[0] + 0.5 / px, texture.origin[1] + 0.5 / px) @ np.diag(
        [1 / px, 1 / px, 1]
    )
    canvas = cv2.warpPerspective(
        texture.image,
        camera.plane_homography(TABLE_Z) @ to_mm,
        (w, h),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT_101,
    )
    return np.asarray(canvas, dtype=np.uint8), texture.description


def _loose_pieces(
    rng: np.random.Generator, count: int, colours: tuple[str, ...]
) -> tuple[list[Token], list[Block]]:
    """Pieces lying about on a table without the board: tokens, and palisades on their side."""
    tokens: list[Token] = []
    blocks: list[Block] = []
    spots: list[np.ndarray] = []
    for _ in range(count * 8):
        if len(spots) == count:
            break
        spot = rng.uniform([30, 30], [BOARD_W_MM - 30, BOARD_H_MM - 30])
        if any(np.hypot(*(spot - s)) < 48 for s in spots):
            continue
        spots.append(spot)
        x, y = float(spot[0]), float(spot[1])
        roll = rng.random()
        if roll < 0.35:
            tokens.append(Token("gold", str(rng.integers(3, 8)), (x, y), float(rng.uniform(0, 360)), TABLE_Z))
        elif roll < 0.8:
            colour = str(rng.choice(colours))
            tokens.append(Token("warrior", colour, (x, y), float(rng.uniform(0, 360)), TABLE_Z))
        else:
            blocks.append(Block((x, y, TABLE_Z), (40.0, 10.0, 5.0), float(rng.uniform(0, 180))))
    return tokens, blocks


def _distractors(
    c: Conditions, camera: Camera, keep: Keepout, board: bool, rng: np.random.Generator
) -> list[Distractor]:
    found: list[Distractor | None] = []
    for name in c.distractors:
        if name == "cup":
            found.append(place_cup(rng, camera, keep, board))
        elif name == "dice":
            found.append(place_dice(rng, camera, keep, board))
        else:
            found.append(place_hand(rng, camera, keep))
    return [d for d in found if d is not None]


def _shadow_region(camera: Camera, casters: list[Caster], light: Light) -> tuple[float, float, float, float]:
    """A rectangle of the table holding every shadow, no larger than what the camera sees of it."""
    if not casters:
        return (0.0, 0.0, 1.0, 1.0)
    pts = np.vstack(
        [c.outline for c in casters] + [c.outline + light.shadow_offset(c.height) for c in casters]
    )
    pad = 3 * light.softness_mm + 2
    lo, hi = pts.min(axis=0) - pad, pts.max(axis=0) + pad
    seen = camera.unproject(camera.frame_corners(), 0.0)
    if np.all(camera.depth(np.column_stack([seen, np.zeros(4)])) > 0):
        lo, hi = np.maximum(lo, seen.min(axis=0) - 10), np.minimum(hi, seen.max(axis=0) + 10)
    centre = np.array([BOARD_W_MM / 2, BOARD_H_MM / 2])
    for _ in range(20):  # the box's corners must lie in front of the camera for its homography to hold
        corners = np.array([[lo[0], lo[1], 0], [hi[0], lo[1], 0], [hi[0], hi[1], 0], [lo[0], hi[1], 0]])
        if np.all(camera.depth(corners) > 10):
            break
        lo, hi = centre + (lo - centre) * 0.85, centre + (hi - centre) * 0.85
    return (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))


def _glare(c: Conditions, camera: Camera, rng: np.random.Generator, scale: float) -> Glare | None:
    """A lamp's reflection somewhere on the board (or the table where there is none)."""
    if c.glare <= 0:
        return None
    spot = rng.uniform([40, 30], [BOARD_W_MM - 40, BOARD_H_MM - 30])
    centre = camera.project(np.array([[spot[0], spot[1], 0.0]]))[0]
    radius = float(rng.uniform(20, 60)) * scale
    radii = (radius, radius * float(rng.uniform(0.45, 1.0)))
    return Glare((float(centre[0]), float(centre[1])), radii, float(rng.uniform(0, 180)), c.glare)


def _truth(
    seed: int,
    set_name: str | None,
    kind: str,
    fmt: str,
    display: tuple[int, int],
    c: Conditions,
    made: _Made,
    copy: Copy,
) -> dict[str, Any]:
    """The ground-truth document: the position (for a board photo), the copy and how the photo was made.

    A photo of the reference kit names no copy, so that its truth is what it was before copies.
    """
    camera, glare = made.camera, made.glare
    conditions: dict[str, Any] = {
        "tilt_deg": _r(c.tilt_deg),
        "azimuth_deg": _r(c.azimuth_deg),
        "roll_deg": _r(c.roll_deg),
        "focal_px": _r(camera.focal_px),
        "board_area_fraction": _r(face_area_fraction(camera), 4),
        "portrait": c.portrait,
        "kelvin": round(c.kelvin),
        "colour_cast": _r(c.colour_cast),
        "brightness": _r(c.brightness),
        "light": {"elevation_deg": _r(c.light_elevation_deg), "azimuth_deg": _r(c.light_azimuth_deg)},
        "shadow": {"strength": _r(c.shadow), "softness_mm": _r(c.shadow_softness_mm)},
        "glare": None
        if glare is None
        else {
            "strength": _r(glare.strength),
            "centre_px": [_r(v) for v in glare.centre],
            "radius_px": _r(max(glare.radii)),
        },
        "vignetting": _r(c.vignetting),
        "blur": {"kind": c.blur, "px": _r(c.blur_px * max(display) / REFERENCE_WIDTH)},
        "noise": _r(c.noise),
        "jpeg_quality": c.jpeg_quality,
        "exif_orientation": c.exif_orientation,
        "background": made.background,
        "distractors": made.distractors,
        "numeral_font": resolve_font(c.font),
        "emblems": copy.emblem_map(c.emblems),
    }
    render: dict[str, Any] = {
        "seed": seed,
        "set": set_name,
        "kind": kind,
        "format": fmt,
        "size": list(display),
        "stored_size": list(stored_size(display, c.exif_orientation)),
        "conditions": conditions,
    }
    if fmt == "heic":
        conditions["heic_quality"] = heic_quality(c.jpeg_quality)
    named = {} if copy.is_reference else {"copy": copy.name}
    if not copy.is_reference:
        render["copy"] = copy.describe()
    position = made.position
    if position is None:
        conditions["loose_pieces"] = c.loose_pieces
        return {"board": False, **named, "render": render}
    conditions.update(players=len(position.players), stage=c.stage, moves=made.moves)
    conditions["colours_hex"] = {p: copy.colours[p] for p in dict.fromkeys(position.players)}
    render["corners_px"] = [[_r(x, 2), _r(y, 2)] for x, y in camera.project(_face_corners())]
    render["grid_corners_px"] = [[_r(x, 2), _r(y, 2)] for x, y in grid_outline_px(camera)]
    return {**position.to_json(), "board": True, **named, "render": render}


def _face_corners() -> np.ndarray:
    return np.column_stack([board_corners_mm(), np.zeros(4)])


def _r(value: float, digits: int = 3) -> float:
    return round(float(value), digits)


__all__ = ["RenderedPhoto", "Staging", "render_photo", "render_staged"]
