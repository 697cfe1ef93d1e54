"""Everything random about one photo, drawn from its seed alone: the plan that scene.py builds.

No Blender here: a plan is plain data, so the truth (position, corners in pixels, the
conditions) is known before anything is rendered, and the same seed always gives the same
plan. Units are metres; the board's centre is the origin, x to the right (columns), y toward
row 0, z up from the table top.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.board import COLS, ROWS, Cell, Slot
from engine.position import Position
from vision.worlds.cycles.camera import Camera, place_camera, polygon_area
from vision.worlds.cycles.colour import kelvin_rgb
from vision.worlds.cycles.kit import COPIES, MORE_TUNING_COPIES, REFERENCE, TUNING_COPIES, Kit
from vision.worlds.cycles.positions import STAGES, game_position, setup_position

HARD_KINDS = ("glare", "warm", "tilt")
WARM_K = 3500.0
TILT_HARD_DEG = 35.0
MM = 0.001


@dataclass(frozen=True)
class LightPlan:
    kind: str  # "area" (a lamp), "window" (a big soft source), "pinpoint" (a small hard one), "glare"
    kelvin: float
    power: float  # Blender watts
    size: tuple[float, float]  # metres (area lights); radius in [0] for point lights
    position: tuple[float, float, float]
    target: tuple[float, float, float]


@dataclass(frozen=True)
class Piece:
    """A token or stick where it lies: centre (m), turn (deg) and what it is."""

    what: str  # "gold", "warrior", "stick", and for board-free photos the same names
    x: float
    y: float
    angle: float
    value: int = 0  # gold value
    colour: str = ""  # warrior colour key
    dims: tuple[float, float, float] = (0.0, 0.0, 0.0)  # stick length, width, height (m)
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # wood colour factor / token shade
    z: float = 0.0  # the height of its bottom


@dataclass
class Plan:
    seed: int
    set_name: str
    kind: str  # "game", "setup" or "empty" (no board)
    kit: Kit
    position: Position | None
    width: int
    height: int
    camera: Camera
    fstop: float
    focus_distance: float
    lights: list[LightPlan]
    world_strength: float
    world_kelvin: float
    pieces: list[Piece]
    card: dict[str, float]
    table: dict[str, Any]
    hand: dict[str, float] | None
    cup: dict[str, float] | None
    phone: dict[str, Any]
    forced_hard: list[str]
    conditions: dict[str, Any] = field(default_factory=dict)

    @property
    def board_top(self) -> float:
        return self.kit.card_mm * MM

    def board_corners(self) -> NDArray[Any]:
        """The card's top corners: top-left, top-right, bottom-right, bottom-left (right way up)."""
        bw, bh = self.kit.board_mm
        return _rect(bw * MM / 2, bh * MM / 2, self.board_top)

    def grid_corners(self) -> NDArray[Any]:
        gw, gh = self.kit.grid_mm
        return _rect(gw * MM / 2, gh * MM / 2, self.board_top)


def _rect(hw: float, hh: float, z: float) -> NDArray[Any]:
    return np.array([[-hw, hh, z], [hw, hh, z], [hw, -hh, z], [-hw, -hh, z]])


#: The sets of copies and the family of kits each shows: the test copies, or the tuning
#: copies that a fit may see without making the test copies seen.
COPY_FAMILIES: dict[str, tuple[Kit, ...]] = {
    "copies": COPIES,
    "tuning-copies": TUNING_COPIES,
    "more-tuning-copies": MORE_TUNING_COPIES,
}


def kit_for(set_name: str, seed: int) -> Kit:
    """The kit a photo of the set shows: the reference kit, or a copy of the set's family by the seed."""
    if set_name == "reference":
        return REFERENCE
    family = COPY_FAMILIES[set_name]
    return family[seed % len(family)]


def is_forced_hard(seed: int, share: float) -> bool:
    """Whether the seed's photo is made hard: exactly ``share`` of any run of seeds, spread evenly."""
    return share > 0 and math.floor((seed + 1) * share) > math.floor(seed * share)


def make_plan(
    set_name: str, seed: int, width: int, height: int, *, hard_share: float = 0.0, setup_of: Kit | None = None
) -> Plan:
    """The plan of photo ``seed`` of ``set_name``; with ``setup_of``, that copy's setup photo."""
    rng = random.Random(f"cycles/{set_name}/{seed}/{'setup-' + (setup_of.name or '') if setup_of else ''}")
    kit = setup_of or kit_for(set_name, seed)
    no_board = rng.random() < 0.05
    if setup_of is not None:
        kind = "setup"
    elif set_name == "reference" and no_board and not is_forced_hard(seed, hard_share):
        kind = "empty"
    else:
        kind = "game"
    forced: list[str] = []
    if kind == "game" and is_forced_hard(seed, hard_share):
        # One hard condition, sometimes two: each of the three is forced about as often.
        forced = [rng.choice(HARD_KINDS)]
        if rng.random() < 0.3:
            forced.append(rng.choice([k for k in HARD_KINDS if k not in forced]))
    easy = kind == "setup"  # a setup photo is taken with care: it teaches the scanner the copy

    # The game.
    stage = ""
    position: Position | None = None
    if kind == "game":
        n = rng.choice((2, 3, 4))
        keys = list(kit.colour_keys)
        rng.shuffle(keys)
        stage = rng.choice(STAGES)
        position = game_position(tuple(keys[:n]), stage, rng)
    elif kind == "setup":
        position = setup_position(kit.colour_keys, rng)

    # The phone and where it is held.
    # Seen from any side; most people square the phone with the board's edges, and hold it
    # upright when they stand at a short side (the board then looks tall).
    plan_kit = kit
    bw, bh = kit.board_mm
    top = kit.card_mm * MM
    if kind == "empty":
        corners = _rect(bw * MM / 2, bh * MM / 2, 0.0)  # an imaginary board sets the framing
    else:
        corners = _rect(bw * MM / 2, bh * MM / 2, top)
    # A view that cannot show the board over a quarter of the frame (a long board seen
    # diagonally and steeply) is one a player would not take: draw the phone again.
    for _attempt in range(6):
        side = rng.randrange(4)
        azimuth = (
            (side * 90.0 + rng.gauss(0.0, 12.0)) % 360 if rng.random() < 0.75 else rng.uniform(0.0, 360.0)
        )
        portrait = side % 2 == 1 and rng.random() < 0.55
        w, h = (
            (min(width, height), max(width, height)) if portrait else (max(width, height), min(width, height))
        )
        if "tilt" in forced:
            tilt = rng.uniform(36.0, 50.0)
        elif easy:
            tilt = rng.uniform(0.0, 25.0)
        else:
            tilt = rng.uniform(0.0, 50.0)
        roll = max(-15.0, min(15.0, rng.gauss(0.0, 6.0)))
        lens = rng.uniform(24.0, 30.0) if rng.random() < 0.85 else rng.uniform(44.0, 52.0)
        sensor = 36.0
        fraction = rng.uniform(0.4, 0.8) if easy else rng.uniform(0.27, 0.9)
        k = rng.uniform(-0.03, 0.05)
        offset = (rng.random(), rng.random())
        cam = place_camera(
            corners,
            np.array([0.0, 0.0, top]),
            tilt_deg=tilt,
            azimuth_deg=azimuth,
            roll_deg=roll,
            lens_mm=lens,
            sensor_mm=sensor,
            width=w,
            height=h,
            fraction=fraction,
            offset=offset,
            k=k,
        )
        if polygon_area(cam.project(corners)) / (w * h) >= 0.25:
            break
    centre_depth = float(np.linalg.norm(np.array(cam.position) - [0.0, 0.0, top]))
    focus_error = rng.gauss(0.0, 0.04)
    fstop = rng.uniform(7.0, 16.0)  # a phone's f/1.5-2.2 on its small sensor, 35 mm-equivalent

    # Light.
    if "warm" in forced:
        kelvin = rng.uniform(2400.0, 3400.0)
    elif "glare" in forced or easy:
        kelvin = rng.uniform(3600.0, 7000.0) if easy else rng.uniform(2400.0, 7500.0)
    else:
        kelvin = rng.uniform(2400.0, 7500.0)
    lights = _lights(rng, kelvin, pinpoint=not easy)
    irradiance = sum(_irradiance(light) for light in lights)
    glare_level = 0.0
    if "glare" in forced:
        glare_level = rng.uniform(0.75, 1.0)
    elif (kind == "game" and rng.random() < 0.35) or (kind == "empty" and rng.random() < 0.3):
        glare_level = rng.uniform(0.1, 0.9)
    card = {
        "roughness": rng.uniform(0.25, 0.5),
        "coat_weight": rng.uniform(0.2, 0.6),
        "coat_roughness": rng.uniform(0.08, 0.3),
    }
    if easy:
        # Taken with care: a matt-ish card and no varnish to mirror the lamp (no extra draws,
        # so the other photos' plans stay as they were).
        card.update(roughness=max(card["roughness"], 0.45), coat_weight=card["coat_weight"] * 0.3)
    if glare_level > 0:
        glare, card_gloss = _glare_light(
            rng, glare_level, kelvin, cam, kit, irradiance, strong="glare" in forced
        )
        lights.append(glare)
        card.update(card_gloss)
    world_strength = rng.uniform(0.04, 0.15) * irradiance / math.pi

    # What lies on the board, and beside it.
    pieces = _pieces(rng, plan_kit, position) if position is not None else _strays(rng, plan_kit)
    table = _table(rng)
    hand = cup = None
    if not easy and rng.random() < 0.3:
        # The palm stays off the board: the fingertips (12.5 cm from its centre) reach the frame
        # at most, so the hand never hides a cell the truth describes.
        hand = _beside(rng, kit, 0.125)
    if not easy and rng.random() < 0.3:
        cup = _beside(rng, kit, 0.06)

    # The phone's processing.
    wb_pull = rng.uniform(0.0, 0.45)
    wb_kelvin = kelvin + wb_pull * (5200.0 - kelvin) + rng.gauss(0.0, 250.0)
    blur = rng.random() < 0.2
    phone = {
        "wb_kelvin": round(wb_kelvin, 1),
        "wb_error_kelvin": round(wb_kelvin - kelvin, 1),
        "wb_tint": round(rng.gauss(0.0, 0.03), 4),
        "exposure_ev": round(rng.gauss(0.0, 0.35) * (0.4 if easy else 1.0), 3),
        "iso": rng.choice((50, 100, 200, 400, 800, 1600)),
        "vignette": round(rng.uniform(0.0, 0.35), 3),
        "saturation": round(rng.uniform(0.95, 1.25), 3),
        "contrast": round(rng.uniform(0.0, 0.35), 3),
        "sharpen": round(rng.uniform(0.2, 1.3), 3),
        "blur": (rng.choice(("motion", "defocus")) if blur else "none"),
        "blur_px": round(rng.uniform(1.5, 5.0), 2) if blur else 0.0,
        "blur_angle_deg": round(rng.uniform(0.0, 180.0), 1),
        "jpeg_quality": rng.randint(70, 95),
        "noise_seed": rng.randrange(2**31),
    }
    plan = Plan(
        seed=seed,
        set_name=set_name,
        kind=kind,
        kit=kit,
        position=position,
        width=w,
        height=h,
        camera=cam,
        fstop=fstop,
        focus_distance=centre_depth * (1 + focus_error),
        lights=lights,
        world_strength=world_strength,
        world_kelvin=kelvin + rng.uniform(-500.0, 500.0),
        pieces=pieces,
        card=card,
        table=table,
        hand=hand,
        cup=cup,
        phone=phone,
        forced_hard=forced,
    )
    area = polygon_area(cam.project(plan.board_corners())) / (w * h) if kind != "empty" else 0.0
    plan.conditions = {
        "kind": kind,
        "stage": stage,
        "kelvin": round(kelvin, 1),
        "lights": [
            {
                "kind": li.kind,
                "kelvin": round(li.kelvin, 1),
                "power_w": round(li.power, 2),
                "size_m": [round(s, 3) for s in li.size],
                "position_m": [round(p, 3) for p in li.position],
            }
            for li in lights
        ],
        "ambient_strength": round(world_strength, 4),
        "glare_level": round(glare_level, 3),
        "card": {k2: round(v, 3) for k2, v in card.items()},
        "tilt_deg": round(tilt, 2),
        "azimuth_deg": round(azimuth, 2),
        "roll_deg": round(roll, 2),
        "portrait": portrait,
        "lens_mm_35eq": round(lens, 2),
        "fstop_35eq": round(fstop, 2),
        "focus_error": round(focus_error, 4),
        "camera_distance_m": round(centre_depth, 4),
        "distortion_k": round(k, 4),
        "board_area_fraction_target": round(fraction, 4),
        "board_area_fraction": round(area, 4),
        "table": table["kind"],
        "hand": hand is not None,
        "cup": cup is not None,
        **phone,
    }
    return plan


def _lights(rng: random.Random, kelvin: float, *, pinpoint: bool) -> list[LightPlan]:
    """One to three lights: a ceiling lamp, a window, a pinpoint, each near the main temperature.

    Without ``pinpoint`` (a setup photo, taken with care) the small hard source is left out:
    its mirror image in the card is glare.
    """
    kinds = ["area", "window", "pinpoint"] if pinpoint else ["area", "window"]
    rng.shuffle(kinds)
    chosen = kinds[: rng.choice((1, 1, 2, 2, 3))]
    out = []
    for kind in chosen:
        k = min(7500.0, max(2400.0, kelvin + rng.uniform(-250.0, 250.0)))
        a = rng.uniform(0, 2 * math.pi)
        if kind == "area":
            hgt, off = rng.uniform(1.2, 2.2), rng.uniform(0.0, 1.2)
            size = (rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8))
            power = rng.uniform(80.0, 250.0) * hgt**2
        elif kind == "window":
            hgt, off = rng.uniform(0.5, 1.5), rng.uniform(1.5, 3.0)
            size = (rng.uniform(1.0, 2.0), rng.uniform(0.8, 1.5))
            power = rng.uniform(150.0, 500.0) * (hgt**2 + off**2)
        else:
            hgt, off = rng.uniform(0.6, 1.5), rng.uniform(0.2, 1.0)
            size = (rng.uniform(0.002, 0.01), 0.0)
            power = rng.uniform(150.0, 400.0) * (hgt**2 + off**2)
        pos = (off * math.cos(a), off * math.sin(a), hgt)
        tgt = (rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1), 0.0)
        out.append(LightPlan(kind, k, power, size, pos, tgt))
    return out


def _irradiance(light: LightPlan) -> float:
    """Rough irradiance at the board's centre (W/m^2), to balance the ambient and the glare."""
    d2 = sum(p * p for p in light.position)
    cos = light.position[2] / math.sqrt(d2)
    if light.kind == "pinpoint":
        return light.power / (4 * math.pi * d2) * cos
    return light.power / (math.pi * d2) * cos


def _glare_light(
    rng: random.Random,
    level: float,
    kelvin: float,
    cam: Camera,
    kit: Kit,
    irradiance: float,
    *,
    strong: bool = False,
) -> tuple[LightPlan, dict[str, float]]:
    """A compact bright source where the card mirrors it into the lens: the glare.

    The source sits on the mirror ray through a point of the card, so its highlight lands
    there; ``level`` sets how far its radiance exceeds the lit card (2^(6 level)) and how
    glossy the card is, from a faint sheen to a clipped patch. Pinpoint to broad: its size.
    """
    gw, gh = kit.grid_mm
    g = np.array([rng.uniform(-0.4, 0.4) * gw * MM, rng.uniform(-0.4, 0.4) * gh * MM, kit.card_mm * MM])
    c = np.array(cam.position)
    mirrored = np.array([c[0], c[1], 2 * g[2] - c[2]])
    ray = (g - mirrored) / np.linalg.norm(g - mirrored)
    dist = rng.uniform(0.5, 1.4)
    pos = g + dist * ray
    side = rng.uniform(0.01, 0.3)  # pinpoint (1 cm) to broad (30 cm)
    ratio = 2.0 ** (6.0 * level)
    if strong:
        # A glare photo of --hard-share must white out a patch, not a speck: a source of 6 to
        # 30 cm, four times brighter (the same draw, so the other plans do not move).
        side = 0.06 + (side - 0.01) * (0.24 / 0.29)
        ratio *= 4.0
    fresnel = 0.05
    radiance = ratio * 0.35 * irradiance / math.pi / fresnel
    power = radiance * math.pi * side * side
    gloss = {"coat_weight": rng.uniform(0.6, 1.0), "coat_roughness": 0.02 + 0.2 * (1 - level) * rng.random()}
    k = min(7500.0, max(2400.0, kelvin + rng.uniform(-200.0, 200.0)))
    light = LightPlan("glare", k, power, (side, side), _xyz(pos), _xyz(g))
    return light, gloss


def _xyz(v: NDArray[Any]) -> tuple[float, float, float]:
    return float(v[0]), float(v[1]), float(v[2])


def _tint(rng: random.Random, spread: float) -> tuple[float, float, float]:
    """A small shade variation of a printed colour, per channel."""
    return (
        rng.uniform(1 - spread, 1 + spread),
        rng.uniform(1 - spread, 1 + spread),
        rng.uniform(1 - spread, 1 + spread),
    )


def _pieces(rng: random.Random, kit: Kit, position: Position) -> list[Piece]:
    top = kit.card_mm * MM
    out: list[Piece] = []
    for cell, value in position.gold:
        x, y = kit.cell_centre_mm(cell.row, cell.col)
        out.append(
            Piece(
                "gold",
                (x + rng.uniform(-1.5, 1.5)) * MM,
                (y + rng.uniform(-1.5, 1.5)) * MM,
                rng.uniform(-6.0, 6.0),
                value=value or 3,
                z=top,
                tint=_tint(rng, 0.03),
            )
        )
    walls = set(position.palisades)
    half = kit.pitch_mm / 2
    for warrior in position.warriors:
        cell, colour = warrior.cell, warrior.player
        x, y = kit.cell_centre_mm(cell.row, cell.col)
        turn = rng.uniform(-15.0, 15.0)
        # Its half-extent along x or y at that turn; a warrior is pushed back from a palisade
        # it would otherwise lie under (players set them down beside the sticks, not under).
        ext = kit.warrior_mm / 2 * (math.cos(math.radians(abs(turn))) + math.sin(math.radians(abs(turn))))
        ext -= 3.0 * (math.sqrt(2) - 1) * math.sin(math.radians(2 * abs(turn)))
        room = half - 2.8 - ext
        dx, dy = rng.uniform(-5.0, 5.0), rng.uniform(-5.0, 5.0)
        r, c = cell.row, cell.col
        if c + 1 < COLS and Slot.between(Cell(r, c), Cell(r, c + 1)) in walls:
            dx = min(dx, room)
        if c > 0 and Slot.between(Cell(r, c - 1), Cell(r, c)) in walls:
            dx = max(dx, -room)
        if r > 0 and Slot.between(Cell(r - 1, c), Cell(r, c)) in walls:
            dy = min(dy, room)
        if r + 1 < ROWS and Slot.between(Cell(r, c), Cell(r + 1, c)) in walls:
            dy = max(dy, -room)
        out.append(
            Piece(
                "warrior",
                (x + dx) * MM,
                (y + dy) * MM,
                turn + 90.0 * rng.randrange(4),
                colour=colour,
                z=top,
                tint=_tint(rng, 0.04),
            )
        )
    gw, gh = kit.grid_mm
    for slot in position.palisades:
        a, b = slot.a, slot.b
        if a.row == b.row:  # side by side: the stick lies along the vertical line between them
            x = -gw / 2 + kit.pitch_mm * b.col
            y = gh / 2 - kit.pitch_mm * (a.row + 0.5)
            angle = 90.0
        else:
            x = -gw / 2 + kit.pitch_mm * (a.col + 0.5)
            y = gh / 2 - kit.pitch_mm * b.row
            angle = 0.0
        along = rng.uniform(-1.5, 1.5)
        across = rng.uniform(-1.0, 1.0)
        rad = math.radians(angle)
        x += along * math.cos(rad) - across * math.sin(rad)
        y += along * math.sin(rad) + across * math.cos(rad)
        dims = (rng.uniform(38.5, 41.5) * MM, rng.uniform(4.6, 5.4) * MM, rng.uniform(9.5, 10.5) * MM)
        wood = (rng.uniform(0.8, 1.15), rng.uniform(0.8, 1.1), rng.uniform(0.75, 1.1))
        out.append(
            Piece("stick", x * MM, y * MM, angle + rng.uniform(-3.0, 3.0), dims=dims, tint=wood, z=top)
        )
    return out


def _strays(rng: random.Random, kit: Kit) -> list[Piece]:
    """A few pieces lying on the table of a photo without a board."""
    out: list[Piece] = []
    for _ in range(rng.randint(0, 6)):
        x, y = rng.uniform(-0.2, 0.2), rng.uniform(-0.13, 0.13)
        what = rng.choice(("gold", "warrior", "stick"))
        dims = (0.04, 0.005, 0.01)
        out.append(
            Piece(
                what,
                x,
                y,
                rng.uniform(0, 360),
                value=rng.randint(3, 7),
                colour=rng.choice(kit.colour_keys),
                dims=dims,
            )
        )
    return out


TABLES = ("wood", "cloth", "stone", "laminate", "dark")


def _table(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(TABLES)
    base = {
        "wood": (rng.uniform(0.25, 0.55), rng.uniform(0.12, 0.3), rng.uniform(0.05, 0.15)),
        "cloth": tuple(rng.uniform(0.05, 0.6) for _ in range(3)),
        "stone": tuple([rng.uniform(0.5, 0.8)] * 3),
        "laminate": tuple([rng.uniform(0.6, 0.85)] * 2 + [rng.uniform(0.55, 0.8)]),
        "dark": tuple([rng.uniform(0.02, 0.08)] * 3),
    }[kind]
    return {"kind": kind, "colour": base, "scale": rng.uniform(0.5, 2.0), "offset": rng.uniform(0, 100)}


def _beside(rng: random.Random, kit: Kit, clearance: float) -> dict[str, float]:
    """A place at the board's edge (a hand reaching in, or a cup beside it)."""
    bw, bh = kit.board_mm
    side = rng.randrange(4)
    t = rng.uniform(-0.4, 0.4)
    out = rng.uniform(0.0, 0.03) + clearance
    if side in (0, 2):
        x, y = t * bw * MM, (1 if side == 0 else -1) * (bh * MM / 2 + out)
        heading = 270.0 if side == 0 else 90.0
    else:
        x, y = (1 if side == 1 else -1) * (bw * MM / 2 + out), t * bh * MM
        heading = 180.0 if side == 1 else 0.0
    return {
        "x": x,
        "y": y,
        "heading": heading + rng.uniform(-30, 30),
        "scale": rng.uniform(0.9, 1.1),
        "tone": rng.uniform(0.0, 1.0),
    }


def light_rgb(light: LightPlan) -> tuple[float, float, float]:
    return kelvin_rgb(light.kelvin)
