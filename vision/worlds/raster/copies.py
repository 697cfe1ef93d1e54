"""Copies of the game: the reference kit and others with their own board art, token colours and emblems.

Issue 4's calibration learns a copy from one setup photo; the renderer needs
copies it was not tuned on to show that it works. A :class:`Copy` is
everything that differs between copies; every drawing function takes one.
:data:`REFERENCE_COPY` draws exactly what the renderer drew before copies
existed. :data:`TUNING_COPIES` and :data:`TEST_COPIES` share no name, seed
or palette, and each holds a copy with white tokens, one with black, one with
two close shades, one with very dark and one with very light art.

>>> copy_named("reference").colours["orange"]
'#E07B24'
>>> [c.name for c in TEST_COPIES][:2]
['greenhollow', 'saltpan']
>>> copy_named("saltpan").art.shape
(1325, 2000, 3)
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType

import numpy as np

from vision.looks import reference_face
from vision.worlds.raster.boardart import PALETTES, painted_art
from vision.worlds.raster.pieces import (
    ALL_EMBLEMS,
    EMBLEM_HEX,
    GOLD_HEX,
    GOLD_INK_HEX,
    GOLD_RIM_HEX,
    PALISADE_GRAIN_HEX,
    PALISADE_HEX,
    PLAYER_HEX,
)
from vision.worlds.raster.textures import U8

BOARD_EDGE_HEX = "#2B2521"
REFERENCE_FRAME_HEX = "#342622"  # the reference face's outline, (34, 38, 52) in BGR
COLOUR_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,23}$")
_HEX = re.compile(r"^#[0-9A-Fa-f]{6}$")
# Below this contrast (CIE76 lightness) a light emblem would vanish on its token: it is printed darker.
_EMBLEM_MIN_CONTRAST = 25.0


@cache
def reference_art() -> U8:
    """The reference board's printed face, 5 px/mm, as BGR (read-only, loaded once)."""
    art = np.asarray(reference_face(), dtype=np.uint8)
    art.setflags(write=False)
    return art


@dataclass(frozen=True)
class Copy:
    """How one copy of the game looks. Colours are sRGB ``"#RRGGBB"``.

    ``colours`` maps the 4 player colour keys, in the copy's order, to their
    warrior backs. ``emblems`` names each colour's emblem in that order; None
    (the reference kit) lets each photo draw its own, as the renderer always
    has. ``palette`` and ``seed`` make the art (:mod:`vision.worlds.raster.boardart`);
    a palette of None is the reference art.
    """

    name: str
    colours: Mapping[str, str] = field(hash=False)
    gold_hex: str = GOLD_HEX
    gold_rim_hex: str = GOLD_RIM_HEX
    gold_ink_hex: str = GOLD_INK_HEX
    emblem_hex: str = EMBLEM_HEX
    wood_hex: str = PALISADE_HEX
    grain_hex: str = PALISADE_GRAIN_HEX
    edge_hex: str = BOARD_EDGE_HEX
    frame_hex: str = REFERENCE_FRAME_HEX
    emblems: tuple[str, ...] | None = None
    palette: str | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "colours", MappingProxyType(dict(self.colours)))
        if not COLOUR_KEY.match(self.name):
            raise ValueError(f"copy name {self.name!r} must match {COLOUR_KEY.pattern}")
        if len(self.colours) != 4 or not all(COLOUR_KEY.match(k) for k in self.colours):
            raise ValueError(
                f"copy {self.name}: 4 colour keys matching {COLOUR_KEY.pattern}, not {self.keys}"
            )
        hexes = [*self.colours.values(), self.gold_hex, self.gold_rim_hex, self.gold_ink_hex]
        hexes += [self.emblem_hex, self.wood_hex, self.grain_hex, self.edge_hex, self.frame_hex]
        bad = [h for h in hexes if not _HEX.match(h)]
        if bad:
            raise ValueError(f"copy {self.name}: not #RRGGBB colours: {bad}")
        if self.emblems is not None and (
            len(self.emblems) != 4 or not all(e in ALL_EMBLEMS for e in self.emblems)
        ):
            raise ValueError(f"copy {self.name}: 4 emblems of {', '.join(ALL_EMBLEMS)}, not {self.emblems}")
        if self.palette is not None and self.palette not in PALETTES:
            raise ValueError(f"copy {self.name}: palette must be one of {', '.join(PALETTES)}")

    @property
    def keys(self) -> tuple[str, ...]:
        """The player colour keys in the copy's order."""
        return tuple(self.colours)

    @property
    def is_reference(self) -> bool:
        return self.palette is None

    @property
    def art(self) -> U8:
        """The board's printed face, BGR, 2000x1325 (5 px/mm), read-only; made once per copy."""
        return reference_art() if self.palette is None else painted_art(self.palette, self.seed)

    def emblem_map(self, drawn: tuple[str, ...]) -> dict[str, str]:
        """Each colour's emblem: the copy's own, or for the reference kit the photo's ``drawn`` ones."""
        return dict(zip(self.keys, self.emblems if self.emblems is not None else drawn, strict=True))

    def emblem_ink(self, key: str) -> str:
        """The emblem's colour on a token of ``key``: the copy's emblem colour, or on a token too
        light for it to show, the token's own colour much darker (as a printer would choose)."""
        token = self.colours[key]
        if abs(_lab(token)[0] - _lab(self.emblem_hex)[0]) >= _EMBLEM_MIN_CONTRAST:
            return self.emblem_hex
        return _scaled_hex(token, 0.45)

    def describe(self) -> dict[str, object]:
        """The copy's look for a truth document."""
        return {
            "name": self.name,
            "colours_hex": dict(self.colours),
            "gold_hex": self.gold_hex,
            "wood_hex": self.wood_hex,
            "palette": self.palette or "reference",
        }


def delta_e(a: str, b: str) -> float:
    """CIE76 colour difference of two sRGB ``"#RRGGBB"`` colours."""
    la, lb = _lab(a), _lab(b)
    return math.dist(la, lb)


def _lab(code: str) -> tuple[float, float, float]:
    """sRGB hex to CIE L*a*b* (D65)."""
    value = int(code.lstrip("#"), 16)
    rgb = [(value >> 16 & 255) / 255, (value >> 8 & 255) / 255, (value & 255) / 255]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def _scaled_hex(code: str, factor: float) -> str:
    value = int(code.lstrip("#"), 16)
    parts = [min(255, round((value >> shift & 255) * factor)) for shift in (16, 8, 0)]
    return "#{:02X}{:02X}{:02X}".format(*parts)


REFERENCE_COPY = Copy("reference", PLAYER_HEX)

# Token colours the copies choose from. Two pairs are close shades (about 21 CIE76 apart).
TOKEN_HEX: dict[str, str] = {
    "red": "#C8322B",
    "white": "#ECE9E2",
    "black": "#232327",
    "teal": "#148C8A",
    "navy": "#24306E",
    "pink": "#DE6F9B",
    "brown": "#7A4A2C",
    "grey": "#8C8F94",
    "orange": "#E07B24",
    "purple": "#7B4AA0",
    "lilac": "#A27BC4",
    "green": "#3E8E41",
    "lime": "#76AE3A",
    "blue": "#2F6DB5",
    "sky": "#6AA0DC",
    "coral": "#E8705A",
}
_GOLDS = (  # (face, rim, ink): yellow to ochre
    ("#D4A62A", "#9E7418", "#37260F"),
    ("#DDB43A", "#A8801E", "#3A2A10"),
    ("#C9962A", "#8E6416", "#2E1E0A"),
    ("#D9AE44", "#9A7620", "#40301A"),
    ("#C68A24", "#8A5A12", "#2A1A08"),
)
_WOODS = (  # (wood, grain): natural, lighter, darker, reddish, greyish
    ("#B5835A", "#7C5331"),
    ("#CDA47A", "#9A7450"),
    ("#8E5E3C", "#5A361E"),
    ("#A8603E", "#6E3620"),
    ("#A89478", "#6E5E48"),
)
_EDGES = ("#2B2521", "#1E2226", "#3A2E24", "#2A2A2E", "#4A3A2A")


def make_copy(
    name: str,
    seed: int,
    *,
    palette: str | None = None,
    colours: tuple[str, ...] | None = None,
    emblems: tuple[str, ...] | None = None,
) -> Copy:
    """Another copy made from ``seed``: its art painted in ``palette``, its tokens in ``colours``
    (keys of :data:`TOKEN_HEX`); whatever is not given is drawn from the seed."""
    rng = np.random.default_rng([seed, 3])
    palette = palette or str(rng.choice(sorted(PALETTES)))
    keys = colours or tuple(str(k) for k in rng.choice(sorted(TOKEN_HEX), 4, replace=False))
    emblems = emblems or tuple(str(e) for e in rng.choice(ALL_EMBLEMS, 4, replace=False))
    gold, rim, ink = _GOLDS[int(rng.integers(len(_GOLDS)))]
    wood, grain = _WOODS[int(rng.integers(len(_WOODS)))]
    p = PALETTES[palette]
    return Copy(
        name,
        {k: TOKEN_HEX[k] for k in keys},
        gold_hex=gold,
        gold_rim_hex=rim,
        gold_ink_hex=ink,
        emblem_hex=str(rng.choice(["#F1E8D4", "#F4F1EA", "#E8DDBE"])),
        wood_hex=wood,
        grain_hex=grain,
        edge_hex=_EDGES[int(rng.integers(len(_EDGES)))],
        frame_hex=p.frame,
        emblems=emblems,
        palette=palette,
        seed=seed,
    )


#: Copies the scanner may be tuned on.
TUNING_COPIES: tuple[Copy, ...] = (
    make_copy("tidewater", 101, palette="sea", colours=("red", "teal", "white", "navy")),
    make_copy("frostmere", 102, palette="snow", colours=("black", "red", "green", "blue")),
    make_copy("ember-dunes", 103, palette="desert", colours=("teal", "white", "black", "purple")),
    make_copy("nightwood", 104, palette="night", colours=("white", "orange", "pink", "sky")),
    make_copy("pastel-vale", 105, palette="pastel", colours=("green", "lime", "red", "navy")),
    make_copy("autumn-moor", 106, palette="autumn", colours=("black", "blue", "white", "lilac")),
)

#: Copies kept apart for testing: never tune on these.
TEST_COPIES: tuple[Copy, ...] = (
    make_copy("greenhollow", 201, palette="jungle", colours=("black", "white", "coral", "purple")),
    make_copy("saltpan", 202, palette="salt", colours=("red", "teal", "navy", "black")),
    make_copy("canyon", 203, palette="savanna", colours=("blue", "sky", "white", "black")),
    make_copy("midnight-marsh", 204, palette="volcanic", colours=("red", "white", "teal", "orange")),
    make_copy("lavender", 205, palette="lavender", colours=("brown", "green", "black", "pink")),
    make_copy("meadowlark", 206, palette="meadow", colours=("purple", "red", "white", "teal")),
)

_ALL: dict[str, Copy] = {c.name: c for c in (REFERENCE_COPY, *TUNING_COPIES, *TEST_COPIES)}


def copy_named(name: str) -> Copy:
    """The reference kit or one of the tuning and test copies, by name."""
    if name not in _ALL:
        raise ValueError(f"copy must be one of {', '.join(_ALL)}, not {name!r}")
    return _ALL[name]


def copy_names() -> tuple[str, ...]:
    return tuple(_ALL)
