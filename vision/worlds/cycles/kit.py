"""The kits this world photographs: the reference kit of board-spec.md and three families of copies.

A kit is its geometry (millimetres), its four player colours (keys and sRGB), the emblem on
each colour's warrior backs and the style of its board art. The reference kit follows
board-spec.md; the copies are other editions, each with its own art, colours, emblems and a
slightly different size, as "real copies differ in art, colours and size". ``COPIES`` are the
test sets' unseen copies; ``TUNING_COPIES`` and ``MORE_TUNING_COPIES``, disjoint from them, are
the ones a fit may see.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.board import COLS, ROWS

RGB = tuple[int, int, int]


def hex_rgb(code: str) -> RGB:
    """``"#D4A62A"`` as an (r, g, b) triple of 0..255."""
    code = code.lstrip("#")
    return int(code[0:2], 16), int(code[2:4], 16), int(code[4:6], 16)


@dataclass(frozen=True)
class Kit:
    """One edition of the game as this world builds it."""

    name: str | None  # None for the reference kit: its truth carries no "copy" key
    style: str  # "reference" uses the reference art PNG; the others are drawn by art.py
    colours: tuple[tuple[str, RGB], ...]  # the four colour keys with their sRGB, in box order
    emblems: tuple[str, ...]  # one emblem shape (art.EMBLEMS) per colour, same order
    pitch_mm: float = 45.0
    frame_mm: float = 20.0
    card_mm: float = 2.0
    gold_mm: float = 30.0
    warrior_mm: float = 32.0
    token_mm: float = 2.0
    title: str = "ARMADORA"

    @property
    def grid_mm(self) -> tuple[float, float]:
        """Width and height of the grid."""
        return COLS * self.pitch_mm, ROWS * self.pitch_mm

    @property
    def board_mm(self) -> tuple[float, float]:
        """Width and height of the whole card."""
        gw, gh = self.grid_mm
        return gw + 2 * self.frame_mm, gh + 2 * self.frame_mm

    @property
    def colour_keys(self) -> tuple[str, ...]:
        return tuple(key for key, _ in self.colours)

    def colour(self, key: str) -> RGB:
        return dict(self.colours)[key]

    def emblem(self, key: str) -> str:
        return self.emblems[self.colour_keys.index(key)]

    def cell_centre_mm(self, row: int, col: int) -> tuple[float, float]:
        """Centre of a cell on the board plane: x to the right, y toward row 0, origin the centre."""
        gw, gh = self.grid_mm
        return -gw / 2 + self.pitch_mm * (col + 0.5), gh / 2 - self.pitch_mm * (row + 0.5)


REFERENCE = Kit(
    name=None,
    style="reference",
    colours=(
        ("orange", hex_rgb("#E07B24")),
        ("green", hex_rgb("#3E8E41")),
        ("blue", hex_rgb("#2F6DB5")),
        ("purple", hex_rgb("#7B4AA0")),
    ),
    emblems=("crescent", "axe", "leaf", "star"),
)

# The unseen copies. Colour keys name the colour; several are close to a reference colour
# or to another copy's (teal, light blue) on purpose, and white, black and yellow are there
# because they are the hard ones for a colour classifier (white on snow, black on dark art,
# yellow beside the gold).
COPIES: tuple[Kit, ...] = (
    Kit(
        name="autumn",
        style="autumn",
        colours=(
            ("teal", hex_rgb("#1F8A8A")),
            ("red", hex_rgb("#C0302B")),
            ("black", hex_rgb("#262626")),
            ("white", hex_rgb("#EDEDE6")),
        ),
        emblems=("tower", "sun", "ring", "drop"),
        pitch_mm=44.0,
        frame_mm=18.0,
        title="ARMADORA  AUTOMNE",
    ),
    Kit(
        name="snowfield",
        style="snow",
        colours=(
            ("lightblue", hex_rgb("#8CC3E8")),
            ("crimson", hex_rgb("#A3173A")),
            ("navy", hex_rgb("#1E2F6B")),
            ("yellow", hex_rgb("#E8C61E")),
        ),
        emblems=("star", "cross", "diamond", "crescent"),
        pitch_mm=46.0,
        frame_mm=22.0,
        title="ARMADORA  WINTER",
    ),
    Kit(
        name="nightfall",
        style="dark",
        colours=(
            ("white", hex_rgb("#F2F0EA")),
            ("lime", hex_rgb("#8CC63F")),
            ("pink", hex_rgb("#E377B0")),
            ("cyan", hex_rgb("#2FB8D4")),
        ),
        emblems=("diamond", "leaf", "sun", "tower"),
        pitch_mm=45.0,
        frame_mm=20.0,
        title="ARMADORA  NOX",
    ),
    Kit(
        name="bazaar",
        style="busy",
        colours=(
            ("brown", hex_rgb("#7A4A26")),
            ("teal", hex_rgb("#15807A")),
            ("yellow", hex_rgb("#F0C419")),
            ("black", hex_rgb("#1C1C1C")),
        ),
        emblems=("ring", "axe", "cross", "drop"),
        pitch_mm=43.0,
        frame_mm=17.0,
        title="ARMADORA",
    ),
    Kit(
        name="lagoon",
        style="lagoon",
        colours=(
            ("red", hex_rgb("#D2352D")),
            ("white", hex_rgb("#EEEEEE")),
            ("navy", hex_rgb("#22306E")),
            ("orange", hex_rgb("#EE8A1A")),
        ),
        emblems=("sun", "star", "leaf", "ring"),
        pitch_mm=47.0,
        frame_mm=21.0,
        title="ARMADORA  ISLES",
    ),
    Kit(
        name="dunes",
        style="dunes",
        colours=(
            ("magenta", hex_rgb("#B0307E")),
            ("grey", hex_rgb("#8A8A8A")),
            ("lightblue", hex_rgb("#7DB6DE")),
            ("green", hex_rgb("#2E7D32")),
        ),
        emblems=("crescent", "drop", "tower", "cross"),
        pitch_mm=45.5,
        frame_mm=19.0,
        title="ARMADORA  SABLE",
    ),
)


# The copies a fit may see. The test copies stay unseen only if nothing is tuned on them, so
# these are as hard as they are in the same ways, without sharing a name, a colour or an art
# style with them: a white on pale art, blacks on dark art, yellows beside the gold (one of them
# close to it), pairs of colours close to each other (red and coral) or to a reference colour
# (cobalt to blue, violet to purple, amber to orange), a sand close to the art it lies on, busy
# confetti art, and round gold-coloured shapes (bales, embers, ochre rocks) among the gold.
TUNING_COPIES: tuple[Kit, ...] = (
    Kit(
        name="harvest",
        style="harvest",
        colours=(
            ("white", hex_rgb("#F5F3EA")),
            ("plum", hex_rgb("#6E2C5A")),
            ("forest", hex_rgb("#2F6B3A")),
            ("sky", hex_rgb("#5FA3D9")),
        ),
        emblems=("sun", "drop", "axe", "ring"),
        pitch_mm=44.5,
        frame_mm=19.5,
        title="ARMADORA  MOISSON",
    ),
    Kit(
        name="glacier",
        style="ice",
        colours=(
            ("white", hex_rgb("#F7F7F2")),
            ("cobalt", hex_rgb("#2A63A8")),
            ("scarlet", hex_rgb("#D8262E")),
            ("black", hex_rgb("#2B2B2E")),
        ),
        emblems=("star", "tower", "leaf", "diamond"),
        pitch_mm=46.5,
        frame_mm=22.0,
        title="ARMADORA  GLACIER",
    ),
    Kit(
        name="ashfall",
        style="ember",
        colours=(
            ("black", hex_rgb("#181818")),
            ("yellow", hex_rgb("#F2D22E")),
            ("violet", hex_rgb("#8C5BB0")),
            ("mint", hex_rgb("#5CC8A0")),
        ),
        emblems=("cross", "crescent", "ring", "leaf"),
        pitch_mm=45.0,
        frame_mm=18.0,
        title="ARMADORA  CENDRE",
    ),
    Kit(
        name="carnival",
        style="confetti",
        colours=(
            ("yellow", hex_rgb("#E4B81C")),
            ("red", hex_rgb("#B8282E")),
            ("coral", hex_rgb("#E8664A")),
            ("white", hex_rgb("#EAE8DF")),
        ),
        emblems=("diamond", "sun", "star", "axe"),
        pitch_mm=43.0,
        frame_mm=17.5,
        title="ARMADORA",
    ),
    Kit(
        name="reef",
        style="reef",
        colours=(
            ("amber", hex_rgb("#E8942A")),
            ("turquoise", hex_rgb("#27A3A0")),
            ("olive", hex_rgb("#6F7A2A")),
            ("black", hex_rgb("#202226")),
        ),
        emblems=("drop", "cross", "crescent", "tower"),
        pitch_mm=47.0,
        frame_mm=20.5,
        title="ARMADORA  RECIF",
    ),
    Kit(
        name="mesa",
        style="mesa",
        colours=(
            ("rust", hex_rgb("#A8442A")),
            ("lemon", hex_rgb("#EADB3C")),
            ("indigo", hex_rgb("#3C3F8F")),
            ("sand", hex_rgb("#D2BE94")),
        ),
        emblems=("leaf", "ring", "sun", "cross"),
        pitch_mm=44.0,
        frame_mm=21.0,
        title="ARMADORA  MESA",
    ),
)


# More copies a fit may see (the set ``more-tuning-copies``), drawn up when six tuning editions
# proved too few to tell a reader that learns copies from one that learns those six: as hard in
# the same ways, sharing no name, colour or art style with the test copies nor with the first
# six. Colours close to a reference colour (tangerine to orange, leaf to green, azure to blue,
# grape to purple), to the gold (saffron) or to the art they lie on (tan on dry grass, ink on a
# night sky), a white and a near-white, and round fruit, stones and stars the gold's size.
MORE_TUNING_COPIES: tuple[Kit, ...] = (
    Kit(
        name="orchard",
        style="orchard",
        colours=(
            ("tangerine", hex_rgb("#F0862A")),
            ("leaf", hex_rgb("#4A8A30")),
            ("cherry", hex_rgb("#9E1A32")),
            ("pearl", hex_rgb("#EEEDE4")),
        ),
        emblems=("leaf", "drop", "sun", "tower"),
        pitch_mm=45.5,
        frame_mm=20.0,
        title="ARMADORA  VERGER",
    ),
    Kit(
        name="midnight",
        style="starry",
        colours=(
            ("ink", hex_rgb("#15171F")),
            ("saffron", hex_rgb("#EEAE22")),
            ("lavender", hex_rgb("#B29BDE")),
            ("aqua", hex_rgb("#3CC6D6")),
        ),
        emblems=("ring", "star", "axe", "crescent"),
        pitch_mm=44.0,
        frame_mm=19.0,
        title="ARMADORA  MINUIT",
    ),
    Kit(
        name="mosaic",
        style="tiles",
        colours=(
            ("azure", hex_rgb("#2E6EDE")),
            ("grape", hex_rgb("#6B3B9B")),
            ("peach", hex_rgb("#F2A884")),
            ("snow", hex_rgb("#F9F9F6")),
        ),
        emblems=("diamond", "cross", "leaf", "sun"),
        pitch_mm=43.5,
        frame_mm=17.0,
        title="ARMADORA",
    ),
    Kit(
        name="savanna",
        style="savanna",
        colours=(
            ("tan", hex_rgb("#C6A67A")),
            ("maroon", hex_rgb("#6B1F24")),
            ("sea", hex_rgb("#2A8B9B")),
            ("black", hex_rgb("#232323")),
        ),
        emblems=("tower", "crescent", "diamond", "drop"),
        pitch_mm=46.0,
        frame_mm=21.5,
        title="ARMADORA  SAVANE",
    ),
    Kit(
        name="vineyard",
        style="vines",
        colours=(
            ("wine", hex_rgb("#7B1E3E")),
            ("ivory", hex_rgb("#F1ECD6")),
            ("jade", hex_rgb("#38A478")),
            ("slate", hex_rgb("#5B6571")),
        ),
        emblems=("axe", "ring", "star", "cross"),
        pitch_mm=47.0,
        frame_mm=18.5,
        title="ARMADORA  VIGNE",
    ),
    Kit(
        name="tundra",
        style="moss",
        colours=(
            ("cream", hex_rgb("#EDE3C4")),
            ("petrol", hex_rgb("#1E5E6A")),
            ("brick", hex_rgb("#9B3A2D")),
            ("charcoal", hex_rgb("#2F2F34")),
        ),
        emblems=("sun", "diamond", "crescent", "leaf"),
        pitch_mm=44.5,
        frame_mm=22.0,
        title="ARMADORA  TOUNDRA",
    ),
)


def copy_named(name: str) -> Kit:
    """The copy of that name, test or tuning; KeyError if there is none."""
    for kit in (*COPIES, *TUNING_COPIES, *MORE_TUNING_COPIES):
        if kit.name == name:
            return kit
    raise KeyError(name)
