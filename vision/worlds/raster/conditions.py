"""Everything random about one photo, drawn from its seed; any of it can be set by the caller instead.

Fields are always drawn in the same order from the same generator, so
setting one (say ``tilt_deg=45``) leaves every other one as the seed made it.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Any

from vision.worlds.raster.distractors import DISTRACTORS
from vision.worlds.raster.encode import ORIENTATIONS
from vision.worlds.raster.numerals import available_fonts
from vision.worlds.raster.pieces import EMBLEMS
from vision.worlds.raster.positions import STAGES
from vision.worlds.raster.textures import BACKGROUNDS

KINDS: tuple[str, ...] = ("board", "no_board")
BLURS: tuple[str, ...] = ("none", "gaussian", "motion")


@dataclass(frozen=True)
class Conditions:
    """How one photo is taken. Lengths in pixels refer to a 4000 px wide frame and scale with it."""

    players: int
    stage: str
    portrait: bool
    tilt_deg: float
    azimuth_deg: float
    roll_deg: float
    focal_factor: float
    board_area_fraction: float
    shift: tuple[float, float]
    kelvin: float
    colour_cast: float
    brightness: float
    light_elevation_deg: float
    light_azimuth_deg: float
    shadow: float
    shadow_softness_mm: float
    glare: float
    vignetting: float
    gradient: tuple[float, float]
    blur: str
    blur_px: float
    blur_angle_deg: float
    noise: float
    jpeg_quality: int
    exif_orientation: int
    background: str
    distractors: tuple[str, ...]
    font: str
    emblems: tuple[str, str, str, str]
    loose_pieces: int

    def check(self) -> None:
        """ValueError naming the first field out of its range."""
        rules: list[tuple[str, bool]] = [
            ("players", self.players in (2, 3, 4)),
            ("stage", self.stage in STAGES),
            ("tilt_deg", 0 <= self.tilt_deg <= 60),
            ("focal_factor", 0.4 <= self.focal_factor <= 2.0),
            ("board_area_fraction", 0.05 <= self.board_area_fraction <= 0.95),
            ("kelvin", 1500 <= self.kelvin <= 12000),
            ("shadow", 0 <= self.shadow <= 0.9),
            ("glare", 0 <= self.glare <= 1),
            ("blur", self.blur in BLURS),
            ("jpeg_quality", 1 <= self.jpeg_quality <= 100),
            ("exif_orientation", self.exif_orientation in ORIENTATIONS),
            ("background", self.background in BACKGROUNDS),
            ("distractors", all(d in DISTRACTORS for d in self.distractors)),
            ("emblems", len(self.emblems) == 4 and all(e in EMBLEMS for e in self.emblems)),
        ]
        for name, ok in rules:
            if not ok:
                raise ValueError(f"condition {name}={getattr(self, name)!r} is out of range")


FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Conditions))


def draw_conditions(
    seed: int, *, kind: str, players: int | None, quality: int | None, overrides: dict[str, Any]
) -> Conditions:
    """The seed's conditions for a photo of ``kind``, with the caller's choices laid over them."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    unknown = sorted(set(overrides) - set(FIELDS))
    if unknown:
        raise TypeError(f"unknown conditions {unknown}; known: {', '.join(FIELDS)}")
    rng = random.Random(f"conditions:{seed}")
    # Players mostly shoot from their seat at one side of the board, sometimes from a corner.
    side, off_side, corner = rng.choice((0, 90, 180, 270)), rng.gauss(0, 8), rng.random() < 0.3
    azimuth = rng.uniform(0, 360) if corner else (side + off_side) % 360
    sideways = rng.random() < 0.6  # whether the phone is turned to suit a board seen side-on
    mired = rng.uniform(1e6 / 6500, 1e6 / 2700)  # even in mireds: as many warm lamps as cool ones
    board = kind == "board"
    drawn = Conditions(
        players=rng.choice((2, 3, 4)),
        stage=rng.choice(STAGES),
        portrait=sideways if _side_on(azimuth) else rng.random() < 0.15,
        tilt_deg=rng.uniform(0, 50),
        azimuth_deg=azimuth,
        roll_deg=max(-8.0, min(8.0, rng.gauss(0, 3))),
        focal_factor=rng.uniform(0.75, 0.9),
        board_area_fraction=rng.uniform(0.25, 0.9),
        shift=(rng.uniform(-1, 1), rng.uniform(-1, 1)),
        kelvin=1e6 / mired,
        colour_cast=rng.uniform(0.45, 0.9),
        brightness=rng.uniform(0.75, 1.2),
        light_elevation_deg=rng.uniform(30, 75),
        light_azimuth_deg=rng.uniform(0, 360),
        shadow=0.0 if rng.random() < 0.15 else rng.uniform(0.2, 0.6),
        shadow_softness_mm=rng.uniform(0.8, 5.0),
        glare=0.0 if rng.random() < 0.7 else rng.uniform(0.3, 0.75),
        vignetting=rng.uniform(0, 0.35),
        gradient=(rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1)),
        blur=rng.choices(BLURS, weights=(3, 5, 2))[0],
        blur_px=rng.uniform(0.4, 2.0),
        blur_angle_deg=rng.uniform(0, 180),
        noise=rng.uniform(1.0, 6.0),
        jpeg_quality=rng.randint(70, 95),
        exif_orientation=1 if rng.random() < 0.75 else rng.choice((3, 6, 8)),
        background=rng.choices(BACKGROUNDS, weights=(35, 25, 20, 20))[0],
        distractors=tuple(
            d
            for d, p in zip(DISTRACTORS, (0.25, 0.25, 0.2) if board else (0.4, 0.5, 0.5), strict=True)
            if rng.random() < p
        ),
        font=rng.choice(available_fonts()),
        emblems=_four(rng.sample(EMBLEMS, 4)),
        loose_pieces=0 if board else rng.randint(0, 6),
    )
    if drawn.blur == "motion":
        drawn = dataclasses.replace(
            drawn, blur_px=drawn.blur_px * 4
        )  # a streak is longer than a defocus sigma
    if players is not None:
        overrides = {"players": players, **overrides}
    if quality is not None:
        overrides = {"jpeg_quality": quality, **overrides}
    conditions = dataclasses.replace(drawn, **_normalised(overrides))
    conditions.check()
    return conditions


def _side_on(azimuth: float) -> bool:
    """Seen from the board's left or right, where a portrait frame suits its shape."""
    return 45 < azimuth % 180 < 135


def _four(items: list[str]) -> tuple[str, str, str, str]:
    return (items[0], items[1], items[2], items[3])


def _normalised(overrides: dict[str, Any]) -> dict[str, Any]:
    """Lists from JSON or a command line made into the tuples the dataclass holds."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in overrides.items()}
