"""Read the value of a gold token (3, 4, 5, 6 or 7) from a top-down crop of its cell.

The scanner warps each gold cell to an upright, top-down BGR crop centred on the cell, at a known
``px_per_mm``. :func:`numeral_probabilities` turns one crop into probabilities of the five values;
:func:`assign_gold_values` turns the eight rows of a game into the most likely assignment that uses
the kit's values 7, 6, 6, 5, 5, 4, 4, 3 exactly once each.

How a crop is read (all of it numpy and OpenCV):

1. The central 44 mm of the crop is resampled to :data:`WORK_PX_PER_MM`.
2. The colour of the gold is measured in the middle of the crop (the disc covers it whatever the
   light), and every pixel is projected on it: gold reads 1, a dark numeral reads near 0, whatever
   the colour of the light.
3. The disc is found by a Hough vote for circles of the disc's known radius near the centre.
4. Dark strokes are the pixels darker than a local (closing) estimate of the gold around them;
   only those well inside the disc are kept, away from its dark rim.
5. The strokes are cropped to their bounding box, scaled to a fixed height and described by HOG
   and coarse intensity features; a small neural network trained on numerals rendered in many
   fonts (and on blank discs) gives the probabilities.

The trained network lives in ``vision/data/numerals.npz``; ``python -m vision.numerals --build``
renders the training set from the fonts found on the machine and writes it again (10 minutes on
2 cores). Nothing is trained at import or run time, so reading works the same where no font is
installed. The committed file was built from 593 font faces (DejaVu, which every machine here
has, and Debian's fonts-liberation2, -freefont-ttf, -urw-base35, -texgyre, -noto-core, -roboto,
-open-sans, -lato, -croscore, -crosextra-*, -cmu, -ebgaramond, -linuxlibertine, -bebas-neue,
-yanone-kaffeesatz, -routed-gothic, -osifont, -stick, -ocr-a/b, -adf-* and some 40 more) plus a
jittered stroke font of its own. Faces are split by design (clones such as Arial/Liberation/Arimo
share a group): 430 train, 68 validation, 65 held out ("eval"), and 30 never trained on so that
the tests can read them ("test": DejaVu Sans, Serif and Sans Mono with their Vera clones). On the
held-out faces, under the training renderer's conditions, the build measured 0.980 / 0.989 /
0.982 (eval) and 0.983 / 0.997 / 0.987 (test) at 2 / 4 / 8 px/mm; the report is stored in the
file (``report``).

>>> values, confidences = assign_gold_values(np.full((8, 5), 0.2))
>>> sorted(values)
[3, 4, 4, 5, 5, 6, 6, 7]
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import itertools
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

#: The values a gold token can show, in the order of the probability columns.
VALUES: tuple[int, ...] = (3, 4, 5, 6, 7)
#: The values of the eight gold tokens of a game.
GOLD_VALUES: tuple[int, ...] = (7, 6, 6, 5, 5, 4, 4, 3)

#: Where the trained classifier is stored.
MODEL_PATH = Path(__file__).resolve().parent / "data" / "numerals.npz"

#: Resolution the crop is read at, whatever the resolution it comes in.
WORK_PX_PER_MM = 4.0
#: Side of the square around the crop centre that is read: disc, offset and some context.
WINDOW_MM = 44.0
DISC_RADIUS_MM = 15.0
#: Radii at which edges vote for the disc centre: the rim's inner and outer edges.
VOTE_RADII_MM = (13.25, 14.0, 14.75, 15.5)
#: How far from the crop centre the disc centre is looked for.
MAX_DISC_OFFSET_MM = 6.0
#: Strokes are kept up to this distance from the disc centre (fully) ...
INNER_RADIUS_MM = 10.5
#: ... and fade out until this one, short of the rim.
OUTER_RADIUS_MM = 12.5
#: The numeral is rescaled to this height inside a square of side GLYPH_SIZE.
GLYPH_SIZE = 32
GLYPH_HEIGHT = 24
#: Below this stroke contrast (ink fraction) the disc is taken as blank.
MIN_CONTRAST = 0.12
FULL_CONTRAST = 0.25
#: Sum of B, G and R below which the middle of the crop cannot be a lit gold disc.
MIN_GOLD_BRIGHTNESS = 45.0
#: Share of the probability spread evenly over the five values, so one misread never rules a value out.
FLOOR = 0.01

FloatImage = NDArray[np.float32]
FloatVec = NDArray[np.float64]
ByteImage = NDArray[np.uint8]

HOG_BINS = 9


# ---------------------------------------------------------------------------------------------
# Reading a crop
# ---------------------------------------------------------------------------------------------


def numeral_probabilities(crop: NDArray[np.uint8], px_per_mm: float) -> NDArray[np.float64]:
    """Probabilities of the values 3, 4, 5, 6, 7 (shape (5,), sums to 1) for one gold cell crop.

    ``crop`` is a BGR image of the cell, upright and top-down, its centre the cell's centre;
    ``px_per_mm`` its resolution. A crop in which no numeral can be made out gives a flat
    distribution.
    """
    glyph, contrast = extract_glyph(crop, px_per_mm)
    if glyph is None:
        return np.full(len(VALUES), 1.0 / len(VALUES))
    model = _load_model()
    probs = model.predict(glyph_features(glyph)[None, :])[0]
    # The last class is "no numeral": its mass goes evenly to the five values.
    p = probs[: len(VALUES)] + probs[len(VALUES)] / len(VALUES)
    # Faint strokes: lean towards flat.
    trust = float(np.clip((contrast - MIN_CONTRAST) / (FULL_CONTRAST - MIN_CONTRAST), 0.0, 1.0))
    p = trust * p + (1.0 - trust) / len(VALUES)
    p = (1.0 - FLOOR) * p / p.sum() + FLOOR / len(VALUES)
    return np.asarray(p / p.sum(), dtype=np.float64)


def extract_glyph(crop: NDArray[np.uint8], px_per_mm: float) -> tuple[FloatImage | None, float]:
    """The numeral of a crop, normalised to a ``GLYPH_SIZE`` square (ink 1, paper 0), and its contrast.

    The glyph is ``None`` when the disc holds no stroke dark enough to be read.
    """
    if crop.ndim != 3 or crop.shape[2] != 3:
        raise ValueError(f"expected a BGR image, got shape {crop.shape}")
    if not px_per_mm > 0:
        raise ValueError(f"px_per_mm must be positive, got {px_per_mm}")
    window = _work_window(np.ascontiguousarray(crop, dtype=np.uint8), px_per_mm)
    projected = _project_on_gold(window)
    centre = _locate_disc(projected)
    ink, contrast = _ink_map(projected, centre)
    if contrast < MIN_CONTRAST:
        return None, contrast
    return _normalise_glyph(ink), contrast


@functools.lru_cache(maxsize=8)
def _grid(side: int) -> tuple[FloatImage, FloatImage]:
    """Pixel x and y coordinates of a ``side`` square (read-only, shared)."""
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    xx.flags.writeable = False
    yy.flags.writeable = False
    return xx, yy


@functools.lru_cache(maxsize=8)
def _central_disc(side: int, radius: float) -> NDArray[np.bool_]:
    """Pixels of a ``side`` square within ``radius`` of its centre."""
    xx, yy = _grid(side)
    c = 0.5 * (side - 1)
    mask = (xx - c) ** 2 + (yy - c) ** 2 <= radius * radius
    mask.flags.writeable = False
    return mask


@functools.lru_cache(maxsize=8)
def _central_indices(side: int) -> NDArray[np.intp]:
    """Flat indices of every other pixel within 10 mm of the centre of a ``side`` square."""
    indices = np.flatnonzero(_central_disc(side, 10.0 * WORK_PX_PER_MM))[::2]
    indices.flags.writeable = False
    return indices


def _work_window(crop: NDArray[np.uint8], px_per_mm: float) -> FloatImage:
    """The central ``WINDOW_MM`` square of the crop at ``WORK_PX_PER_MM``, as float BGR."""
    h, w = crop.shape[:2]
    half = 0.5 * WINDOW_MM * px_per_mm
    cx, cy = 0.5 * w, 0.5 * h
    x0, x1 = round(cx - half), round(cx + half)
    y0, y1 = round(cy - half), round(cy + half)
    pad = max(0, -x0, -y0, x1 - w, y1 - h)
    src = crop
    if pad > 0:
        src = np.asarray(cv2.copyMakeBorder(crop, pad, pad, pad, pad, cv2.BORDER_REPLICATE), np.uint8)
        x0, x1, y0, y1 = x0 + pad, x1 + pad, y0 + pad, y1 + pad
    side = round(WINDOW_MM * WORK_PX_PER_MM)
    part = src[y0:y1, x0:x1]
    interp = cv2.INTER_AREA if part.shape[0] > side else cv2.INTER_LINEAR
    return np.asarray(cv2.resize(part, (side, side), interpolation=interp), dtype=np.float32)


def _project_on_gold(window: FloatImage) -> FloatImage:
    """Each pixel projected on the colour of the gold: gold about 1, dark strokes about 0.

    The gold's colour is measured in the middle 20 mm, which the disc covers wherever it lies,
    from the pixels between the median and the 90th percentile of brightness (not the numeral,
    not the glare).
    """
    middle = window.reshape(-1, 3)[_central_indices(window.shape[0])]
    brightness = middle.sum(axis=1)
    n = len(brightness)
    lo, hi = np.partition(brightness, (n // 2, (9 * n) // 10))[[n // 2, (9 * n) // 10]]
    chosen = middle[(brightness >= lo) & (brightness <= hi)]
    gold = np.median(chosen, axis=0) if len(chosen) else middle.mean(axis=0)
    gold = np.maximum(gold, 1.0)
    if float(gold.sum()) < MIN_GOLD_BRIGHTNESS:
        return np.ones(window.shape[:2], np.float32)  # nothing bright enough to be a gold disc
    projected = cv2.transform(window, (gold / float(gold @ gold)).reshape(1, 3).astype(np.float32))
    # Glare and highlights are no brighter than gold: they must not make the gold near them look dark.
    return np.asarray(np.minimum(projected, 1.12), dtype=np.float32)


def _locate_disc(projected: FloatImage) -> tuple[float, float]:
    """The disc centre in work pixels: a Hough vote for circles of the disc's radius near the centre.

    Edge pixels vote both ways along their gradient, at the radii of the rim's inner and outer
    edges; the numeral's own edges land too far away to matter. Falls back to the window centre
    when nothing stands out.
    """
    small = cv2.resize(projected, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), 0.7)
    n = small.shape[0]
    gx = cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy)
    fallback = (0.5 * (projected.shape[1] - 1), 0.5 * (projected.shape[0] - 1))
    flat = mag.ravel()
    threshold = max(float(np.partition(flat, (3 * len(flat)) // 4)[(3 * len(flat)) // 4]), 0.02)
    ys, xs = np.nonzero(mag > threshold)
    if len(xs) < 10:
        return fallback
    m = mag[ys, xs]
    ux, uy = gx[ys, xs] / m, gy[ys, xs] / m
    weight = np.sqrt(m)
    radii = np.array(VOTE_RADII_MM) * 0.5 * WORK_PX_PER_MM
    steps = np.concatenate([radii, -radii])[:, None]
    tx = np.rint(xs[None, :] + steps * ux[None, :]).astype(np.int64).ravel()
    ty = np.rint(ys[None, :] + steps * uy[None, :]).astype(np.int64).ravel()
    w = np.broadcast_to(weight, (len(steps), len(weight))).ravel()
    ok = (tx >= 0) & (tx < n) & (ty >= 0) & (ty < n)
    acc = np.bincount(ty[ok] * n + tx[ok], weights=w[ok], minlength=n * n).reshape(n, n).astype(np.float32)
    acc = np.asarray(cv2.GaussianBlur(acc, (0, 0), 1.2), np.float32)
    acc[~_central_disc(n, MAX_DISC_OFFSET_MM * 0.5 * WORK_PX_PER_MM)] = 0.0
    peak = float(acc.max())
    if peak <= 0.0:
        return fallback
    py, px = divmod(int(np.argmax(acc)), n)
    # Sub-pixel: centroid of the 3x3 neighbourhood.
    y0, y1, x0, x1 = max(py - 1, 0), min(py + 2, n), max(px - 1, 0), min(px + 2, n)
    patch = acc[y0:y1, x0:x1]
    total = float(patch.sum())
    sy = float(patch.sum(axis=1) @ np.arange(y0, y1)) / total
    sx = float(patch.sum(axis=0) @ np.arange(x0, x1)) / total
    scale = projected.shape[0] / n
    return ((sx + 0.5) * scale - 0.5, (sy + 0.5) * scale - 0.5)


def _ink_map(projected: FloatImage, centre: tuple[float, float]) -> tuple[FloatImage, float]:
    """How much darker than the gold around it each pixel is (0..1), masked to the disc's middle.

    Returns the ink divided by its contrast (the 99th percentile inside the disc), cut to the
    square around the disc's middle, and the contrast.
    """
    k = round(3.5 * WORK_PX_PER_MM) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    background = cv2.morphologyEx(projected, cv2.MORPH_CLOSE, kernel)
    background = cv2.GaussianBlur(background, (0, 0), 0.5 * WORK_PX_PER_MM)
    # Only the square around the disc's middle can hold ink: work on that alone.
    side = projected.shape[0]
    half = math.ceil(OUTER_RADIUS_MM * WORK_PX_PER_MM) + 2
    x0, y0 = max(0, round(centre[0]) - half), max(0, round(centre[1]) - half)
    x1, y1 = min(side, round(centre[0]) + half + 1), min(side, round(centre[1]) + half + 1)
    background = background[y0:y1, x0:x1]
    # Only what is darker than gold around it is ink: not the dark board between a disc and its rim.
    ratio = projected[y0:y1, x0:x1] / np.maximum(background, 1e-3)
    ink = np.where(background > 0.4, np.clip(1.0 - ratio, 0.0, 1.0), 0.0)
    xx, yy = _grid(side)
    dist = cv2.magnitude(xx[y0:y1, x0:x1] - centre[0], yy[y0:y1, x0:x1] - centre[1]) / WORK_PX_PER_MM
    weight = np.clip((OUTER_RADIUS_MM - dist) / (OUTER_RADIUS_MM - INNER_RADIUS_MM), 0.0, 1.0)
    ink = ink * weight
    inside = ink[dist <= INNER_RADIUS_MM]
    contrast = float(np.percentile(inside, 99.0)) if inside.size else 0.0
    if contrast <= 1e-6:
        return np.zeros_like(ink, dtype=np.float32), 0.0
    return np.asarray(np.clip(ink / contrast, 0.0, 1.0), dtype=np.float32), contrast


def _normalise_glyph(ink: FloatImage) -> FloatImage:
    """The strokes cut to their bounding box and scaled to ``GLYPH_HEIGHT`` in a ``GLYPH_SIZE`` square.

    Specks (connected parts much smaller than the largest) and the faint haze between strokes are
    dropped first.
    """
    binary = (ink >= 0.4).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    glyph = np.zeros((GLYPH_SIZE, GLYPH_SIZE), np.float32)
    if count <= 1:
        return glyph
    areas = stats[1:, cv2.CC_STAT_AREA]
    keep = np.flatnonzero(areas >= 0.12 * areas.max()) + 1
    kept = np.isin(labels, keep).astype(np.uint8)
    grow = round(0.6 * WORK_PX_PER_MM) | 1
    kept = np.asarray(cv2.dilate(kept, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow))), np.uint8)
    strokes = np.where(kept > 0, ink, 0.0).astype(np.float32)
    ys, xs = np.nonzero(binary * kept)
    y0, y1, x0, x1 = int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1
    part = strokes[y0:y1, x0:x1]
    h, w = part.shape
    scale = GLYPH_HEIGHT / h
    if w * scale > GLYPH_SIZE - 4:
        scale = (GLYPH_SIZE - 4) / w
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    interp = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    small = cv2.resize(part, (nw, nh), interpolation=interp)
    oy, ox = (GLYPH_SIZE - nh) // 2, (GLYPH_SIZE - nw) // 2
    glyph[oy : oy + nh, ox : ox + nw] = small
    return glyph


def hog(image: FloatImage, cell: int, bins: int = HOG_BINS) -> NDArray[np.float32]:
    """Histograms of oriented gradients: unsigned orientations, 2 x 2-cell blocks, L2-Hys normalised."""
    gx = cv2.Sobel(image, cv2.CV_32F, 1, 0, ksize=1)
    gy = cv2.Sobel(image, cv2.CV_32F, 0, 1, ksize=1)
    mag = np.sqrt(gx * gx + gy * gy)
    pos = (np.arctan2(gy, gx) % np.pi) / (np.pi / bins) - 0.5
    low = np.floor(pos)
    frac = (pos - low).astype(np.float32)
    b0 = low.astype(np.int64) % bins
    b1 = (b0 + 1) % bins
    h, w = image.shape
    flat = (np.arange(h * w) * bins).reshape(h, w)
    size = h * w * bins
    votes = np.bincount((flat + b0).ravel(), weights=(mag * (1.0 - frac)).ravel(), minlength=size)
    votes += np.bincount((flat + b1).ravel(), weights=(mag * frac).ravel(), minlength=size)
    votes = votes.reshape(h, w, bins)
    ch, cw = h // cell, w // cell
    cells = votes[: ch * cell, : cw * cell].reshape(ch, cell, cw, cell, bins).sum(axis=(1, 3))
    blocks = np.concatenate([cells[:-1, :-1], cells[1:, :-1], cells[:-1, 1:], cells[1:, 1:]], axis=2).reshape(
        -1, 4 * bins
    )
    blocks = blocks / np.sqrt((blocks**2).sum(axis=1, keepdims=True) + 1e-6)
    blocks = np.minimum(blocks, 0.2)
    blocks = blocks / np.sqrt((blocks**2).sum(axis=1, keepdims=True) + 1e-6)
    return np.asarray(blocks.ravel(), dtype=np.float32)


def glyph_features(glyph: FloatImage) -> NDArray[np.float32]:
    """HOG at two scales and a 6 x 6 intensity grid of a normalised glyph."""
    g = np.asarray(glyph, dtype=np.float32)
    half = np.asarray(
        cv2.resize(g, (GLYPH_SIZE // 2, GLYPH_SIZE // 2), interpolation=cv2.INTER_AREA), np.float32
    )
    grid = cv2.resize(g, (6, 6), interpolation=cv2.INTER_AREA).ravel()
    return np.concatenate([hog(g, 8), hog(half, 4), grid]).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# The classifier
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Network:
    """A one-hidden-layer network with standardised inputs and a softmax temperature."""

    mean: NDArray[np.float32]
    scale: NDArray[np.float32]
    w1: NDArray[np.float32]
    b1: NDArray[np.float32]
    w2: NDArray[np.float32]
    b2: NDArray[np.float32]
    temperature: float

    def logits(self, features: NDArray[np.float32]) -> NDArray[np.float32]:
        x = (features - self.mean) / self.scale
        h = np.maximum(x @ self.w1 + self.b1, 0.0)
        return np.asarray(h @ self.w2 + self.b2, dtype=np.float32)

    def predict(self, features: NDArray[np.float32]) -> NDArray[np.float64]:
        """Class probabilities, one row per feature row: values 3..7, then "no numeral"."""
        z = self.logits(features).astype(np.float64) / self.temperature
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=np.float64)


@functools.lru_cache(maxsize=1)
def _load_model() -> _Network:
    """The committed network (``vision/data/numerals.npz``)."""
    if not MODEL_PATH.exists():
        raise FileNotFoundError(f"{MODEL_PATH} is missing: build it with `python -m vision.numerals --build`")
    with np.load(MODEL_PATH, allow_pickle=False) as data:
        return _Network(
            mean=data["mean"].astype(np.float32),
            scale=data["scale"].astype(np.float32),
            w1=data["w1"].astype(np.float32),
            b1=data["b1"].astype(np.float32),
            w2=data["w2"].astype(np.float32),
            b2=data["b2"].astype(np.float32),
            temperature=float(data["temperature"]),
        )


# ---------------------------------------------------------------------------------------------
# Assigning the game's values
# ---------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _all_assignments() -> NDArray[np.int64]:
    """Every distinct ordering of :data:`GOLD_VALUES` as column indices, shape (5040, 8)."""
    index = {v: i for i, v in enumerate(VALUES)}
    orders = sorted(set(itertools.permutations(GOLD_VALUES)))
    return np.array([[index[v] for v in order] for order in orders], dtype=np.int64)


def assign_gold_values(probabilities: NDArray[np.float64]) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """The most likely values of the gold tokens given the kit's values, and a confidence for each.

    ``probabilities`` has one row per token read (at most 8) and one column per value 3..7. Every
    valid assignment (the eight tokens take 7, 6, 6, 5, 5, 4, 4, 3 in some order; tokens not
    given take what is left) is weighed by the product of its rows' probabilities. Returns the
    values of the given tokens under the most probable assignment of them and, for each token,
    the posterior probability of its value over all assignments.

    >>> p = np.full((8, 5), 0.01)
    >>> for row, col in enumerate([4, 3, 3, 2, 2, 1, 1, 0]):
    ...     p[row, col] = 0.96
    >>> p[3] = [0.01, 0.01, 0.30, 0.67, 0.01]   # a 5 that looks like a 6
    >>> assign_gold_values(p)[0]
    (7, 6, 6, 5, 5, 4, 4, 3)
    """
    p = np.asarray(probabilities, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != len(VALUES):
        raise ValueError(f"expected an (n, {len(VALUES)}) array, got shape {p.shape}")
    n = p.shape[0]
    if n > len(GOLD_VALUES):
        raise ValueError(f"at most {len(GOLD_VALUES)} tokens, got {n}")
    if n == 0:
        return (), ()
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError("probabilities must be finite and non-negative")
    rows = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-300)
    logp = np.log(np.maximum(rows, 1e-12))
    orders = _all_assignments()[:, :n]
    loglik = logp[np.arange(n), orders].sum(axis=1)
    weight = np.exp(loglik - loglik.max())
    # Tokens left out take the remaining values: sum full orderings sharing the same first n.
    keys = (orders * (len(VALUES) ** np.arange(n))).sum(axis=1)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    posterior = np.bincount(inverse, weights=weight).astype(np.float64)
    posterior /= posterior.sum()
    best = orders[first[int(np.argmax(posterior))]]
    marginal = np.zeros((n, len(VALUES)))
    for i in range(n):
        marginal[i] = np.bincount(orders[first, i], weights=posterior, minlength=len(VALUES))
    values = tuple(VALUES[int(c)] for c in best)
    confidences = tuple(float(marginal[i, int(c)]) for i, c in enumerate(best))
    return values, confidences


# ---------------------------------------------------------------------------------------------
# Synthetic gold tokens (training, evaluation, tests)
# ---------------------------------------------------------------------------------------------

#: Reference gold, BGR (sRGB #D4A62A).
GOLD_BGR = (42.0, 166.0, 212.0)
#: Height in pixels at which glyph alphas are kept before they are scaled onto a token.
GLYPH_SOURCE_HEIGHT = 128


def glyph_alpha_from_font(font_path: str | Path, digit: int, size: int = 160) -> FloatImage | None:
    """The alpha (0..1) of one digit of a TrueType/OpenType font, cut to its ink, ``GLYPH_SOURCE_HEIGHT``
    pixels tall.

    ``None`` when the font cannot be read or the digit leaves no ink.
    """
    from PIL import Image, ImageDraw, ImageFont

    try:
        font = ImageFont.truetype(str(font_path), size)
        canvas = Image.new("L", (size * 3, size * 3), 0)
        ImageDraw.Draw(canvas).text((size, size // 2), str(digit), fill=255, font=font)
    except (OSError, ValueError):
        return None
    alpha = np.asarray(canvas, dtype=np.float32) / 255.0
    return _tight_alpha(alpha)


def _tight_alpha(alpha: FloatImage) -> FloatImage | None:
    """Cut an alpha image to its ink and scale it to ``GLYPH_SOURCE_HEIGHT`` rows (aspect kept)."""
    ys, xs = np.nonzero(alpha > 0.2)
    if len(xs) < 20:
        return None
    part = alpha[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    h, w = part.shape
    if h < 8:
        return None
    scale = GLYPH_SOURCE_HEIGHT / h
    nw = max(1, round(w * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    out = cv2.resize(part, (nw, GLYPH_SOURCE_HEIGHT), interpolation=interp)
    return np.asarray(np.clip(out, 0.0, 1.0), dtype=np.float32)


def _arc(
    cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 24
) -> list[tuple[float, float]]:
    """Points of an elliptic arc, angles in degrees with y pointing down (90 is the bottom)."""
    t = np.radians(np.linspace(a0, a1, n))
    return [(cx + rx * math.cos(a), cy + ry * math.sin(a)) for a in t]


def _stroke_designs() -> dict[int, list[list[list[tuple[float, float]]]]]:
    """Skeletons of the training stroke font: per digit, designs made of polylines in a unit-height box."""
    return {
        3: [
            [_arc(0.30, 0.26, 0.26, 0.24, 200, 450), _arc(0.31, 0.74, 0.29, 0.25, 270, 520)],
            [[(0.05, 0.0), (0.55, 0.0), (0.25, 0.42)], _arc(0.30, 0.70, 0.28, 0.29, 250, 520)],
        ],
        4: [
            [[(0.45, 1.0), (0.45, 0.0), (0.0, 0.7), (0.62, 0.7)]],
            [[(0.10, 0.0), (0.02, 0.65), (0.62, 0.65)], [(0.45, 0.3), (0.45, 1.0)]],
        ],
        5: [
            [[(0.55, 0.0), (0.12, 0.0), (0.08, 0.45)], _arc(0.30, 0.68, 0.29, 0.30, 220, 520)],
            [[(0.55, 0.0), (0.10, 0.0), (0.06, 0.50), (0.30, 0.40)], _arc(0.30, 0.70, 0.28, 0.28, 250, 530)],
        ],
        6: [
            [_arc(0.31, 0.70, 0.29, 0.29, 0, 360), _arc(0.58, 0.70, 0.56, 0.68, 255, 180)],
            [_arc(0.31, 0.70, 0.29, 0.29, 0, 360), [(0.50, 0.0), (0.06, 0.62)]],
        ],
        7: [
            [[(0.0, 0.0), (0.6, 0.0), (0.2, 1.0)]],
            [[(0.0, 0.0), (0.6, 0.0), (0.40, 0.45), (0.25, 1.0)]],
            [[(0.0, 0.0), (0.6, 0.0), (0.2, 1.0)], [(0.22, 0.5), (0.56, 0.5)]],
        ],
    }


def stroke_glyph_alpha(digit: int, rng: np.random.Generator) -> FloatImage:
    """A digit of a randomly varied stroke ("Hershey-like") font: jittered skeleton, pen width and slant."""
    designs = _stroke_designs()[digit]
    design = designs[int(rng.integers(len(designs)))]
    height = 200.0
    slant = rng.normal(0.0, 0.08)
    widen = rng.uniform(0.8, 1.25)
    pen = max(2, round(height * rng.uniform(0.05, 0.16)))
    pad = pen + 40
    canvas = np.zeros((int(height) + 2 * pad, int(height) + 2 * pad), np.uint8)
    for line in design:
        pts = np.array(line, dtype=np.float64)
        pts = pts + rng.normal(0.0, 0.012, size=pts.shape)
        x = (pts[:, 0] * widen + (1.0 - pts[:, 1]) * slant) * height + pad
        y = pts[:, 1] * height + pad
        poly = np.round(np.stack([x, y], axis=1) * 16).astype(np.int32)
        cv2.polylines(canvas, [poly], False, 255, pen, cv2.LINE_AA, shift=4)
    alpha = _tight_alpha(canvas.astype(np.float32) / 255.0)
    assert alpha is not None
    return alpha


@dataclass
class Backgrounds:
    """Board art to put under synthetic tokens: the reference board if found, else texture."""

    art: ByteImage | None = None
    art_px_per_mm: float = 5.0

    @staticmethod
    def find() -> Backgrounds:
        """Load the reference board art from the usual places, if any is there."""
        here = Path(__file__).resolve().parent.parent
        for candidate in (
            here / "calibration" / "reference" / "board.jpg",
            here.parent / "shared" / "board" / "reference-board.png",
            Path("/work/shared/board/reference-board.png"),
        ):
            if candidate.exists():
                image = cv2.imread(str(candidate), cv2.IMREAD_COLOR)
                if image is not None:
                    return Backgrounds(np.asarray(image, dtype=np.uint8), image.shape[1] / 400.0)
        return Backgrounds()

    def patch(self, side_mm: float, px_per_mm: float, rng: np.random.Generator) -> FloatImage:
        """A square of board face ``side_mm`` wide at ``px_per_mm``, float BGR."""
        side = round(side_mm * px_per_mm)
        if self.art is not None and rng.random() < 0.75:
            s = self.art_px_per_mm
            h, w = self.art.shape[:2]
            size = round(side_mm * s)
            x0 = int(rng.integers(round(20 * s), max(round(20 * s) + 1, w - round(20 * s) - size)))
            y0 = int(rng.integers(round(20 * s), max(round(20 * s) + 1, h - round(20 * s) - size)))
            part = self.art[y0 : y0 + size, x0 : x0 + size]
            part = np.rot90(part, int(rng.integers(4)))
            interp = cv2.INTER_AREA if side < size else cv2.INTER_LINEAR
            return np.asarray(
                cv2.resize(np.ascontiguousarray(part), (side, side), interpolation=interp), np.float32
            )
        palette = np.array(
            [[60, 120, 70], [50, 100, 90], [70, 150, 190], [90, 140, 160], [60, 90, 120], [110, 120, 125]],
            np.float32,
        )
        coarse = palette[rng.integers(len(palette), size=(5, 5))] * rng.uniform(0.7, 1.2, size=(5, 5, 1))
        image = cv2.resize(coarse.astype(np.float32), (side, side), interpolation=cv2.INTER_CUBIC)
        fine = cv2.GaussianBlur(rng.normal(0, 18, (side, side)).astype(np.float32), (0, 0), 0.5 * px_per_mm)
        return np.asarray(image + fine[:, :, None], np.float32)


def _light_gains(rng: np.random.Generator) -> NDArray[np.float32]:
    """BGR gains of a light between warm (2700 K, not white balanced) and cold (6500 K)."""
    t = rng.uniform(-1.0, 1.0)
    warm = np.array([0.50, 0.80, 1.0])
    cold = np.array([1.08, 0.97, 0.86])
    base = np.array([1.0, 1.0, 1.0])
    gains = base + (warm - base) * max(-t, 0.0) + (cold - base) * max(t, 0.0)
    gains = gains * rng.uniform(0.93, 1.07, size=3)
    return np.asarray(gains / gains.max(), dtype=np.float32)


def render_token_crop(
    alpha: FloatImage | None,
    px_per_mm: float,
    rng: np.random.Generator,
    backgrounds: Backgrounds | None = None,
    truth: dict[str, float] | None = None,
) -> ByteImage:
    """A synthetic top-down crop of a gold cell, as the scanner would hand it over.

    ``alpha`` is the numeral's ink (as from :func:`glyph_alpha_from_font`), ``None`` for a blank
    disc. Everything else is drawn at random: board art, grid lines, disc offset, size, rim,
    shadow, the numeral's size, rotation, weight and colour, the light's colour, shading, glare,
    a small residual skew, blur, noise and JPEG compression. When ``truth`` is given, the disc
    centre's offset from the crop centre (mm) is written into it as ``dx`` and ``dy``.
    """
    bgs = backgrounds if backgrounds is not None else Backgrounds()
    s = px_per_mm
    side_mm = 45.0 + 2.0 * rng.uniform(2.0, 8.0)
    side = round(side_mm * s)
    image = bgs.patch(side_mm, s, rng)
    c = 0.5 * side - 0.5

    def px(x_mm: float, y_mm: float) -> tuple[int, int]:
        return (round((c + x_mm * s) * 16), round((c + y_mm * s) * 16))

    def rad(r_mm: float) -> int:
        return max(1, round(r_mm * s * 16))

    # Grid lines on the cell's edges.
    line_colour = tuple(float(v) for v in rng.uniform(15, 60, size=3))
    width = max(1, round(1.5 * s * rng.uniform(0.7, 1.3)))
    for sign in (-1.0, 1.0):
        e = 22.5 * sign + rng.normal(0, 0.8)
        cv2.line(image, px(e, -40), px(e, 40), line_colour, width, cv2.LINE_AA, 4)
        e = 22.5 * sign + rng.normal(0, 0.8)
        cv2.line(image, px(-40, e), px(40, e), line_colour, width, cv2.LINE_AA, 4)
    # A palisade on an edge, its top leaning in.
    if rng.random() < 0.1:
        inward = rng.uniform(2.5, 9.0)
        along = rng.uniform(-5, 5)
        wood = np.array([90, 131, 181], np.float32) * rng.uniform(0.7, 1.1)
        box = np.array(
            [
                [-20 + along, -22.5 - 2.5],
                [20 + along, -22.5 - 2.5],
                [20 + along, -22.5 + inward],
                [-20 + along, -22.5 + inward],
            ]
        )
        box = box @ np.array([[0, 1], [-1, 0]]) ** int(rng.integers(4)) if rng.random() < 0.5 else box
        pts = np.array([px(x, y) for x, y in box], np.int32)
        cv2.fillPoly(image, [pts], tuple(float(v) for v in wood), cv2.LINE_AA, 4)

    # The token: its shadow, its side (seen when the photo is tilted), its face and rim.
    radius = DISC_RADIUS_MM * rng.uniform(0.97, 1.03)
    offset_r = 4.5 * math.sqrt(rng.random())
    offset_a = rng.uniform(0, 2 * math.pi)
    dx, dy = offset_r * math.cos(offset_a), offset_r * math.sin(offset_a)
    if truth is not None:
        truth.update(dx=dx, dy=dy)
    shadow = np.zeros((side, side), np.float32)
    sa = rng.uniform(0, 2 * math.pi)
    sd = rng.uniform(0.3, 2.0)
    cv2.circle(
        shadow, px(dx + sd * math.cos(sa), dy + sd * math.sin(sa)), rad(radius), 1.0, -1, cv2.LINE_AA, 4
    )
    shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), max(0.5, s * rng.uniform(0.3, 1.2))), np.float32)
    image *= (1.0 - rng.uniform(0.2, 0.5) * shadow)[:, :, None]

    gold = np.array(GOLD_BGR, np.float32)
    hsv = cv2.cvtColor((gold / 255.0)[None, None, :], cv2.COLOR_BGR2HSV)[0, 0]
    hsv[0] = (hsv[0] + rng.normal(0, 5)) % 360
    hsv[1] = np.clip(hsv[1] * rng.uniform(0.7, 1.1), 0.2, 1.0)
    hsv[2] = np.clip(hsv[2] * rng.uniform(0.8, 1.1), 0.3, 1.0)
    gold = cv2.cvtColor(hsv[None, None, :], cv2.COLOR_HSV2BGR)[0, 0] * 255.0
    face = np.zeros((side, side), np.float32)
    cv2.circle(face, px(dx, dy), rad(radius), 1.0, -1, cv2.LINE_AA, 4)
    tilt = rng.uniform(0.0, 2.4)
    ta = rng.uniform(0, 2 * math.pi)
    wall = np.zeros((side, side), np.float32)
    cv2.circle(
        wall, px(dx + tilt * math.cos(ta), dy + tilt * math.sin(ta)), rad(radius), 1.0, -1, cv2.LINE_AA, 4
    )
    wall = np.clip(wall - face, 0.0, 1.0)
    image = image * (1 - wall[:, :, None]) + (gold * rng.uniform(0.35, 0.7)) * wall[:, :, None]

    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    rx, ry = (xx - c) / s - dx, (yy - c) / s - dy
    dist = np.sqrt(rx * rx + ry * ry)
    ga = rng.uniform(0, 2 * math.pi)
    shade = 1.0 + rng.uniform(-0.15, 0.15) * (rx * math.cos(ga) + ry * math.sin(ga)) / radius
    shade += rng.uniform(-0.1, 0.1) * (dist / radius) ** 2
    texture = cv2.GaussianBlur(rng.normal(0, 1, (side, side)).astype(np.float32), (0, 0), 0.4 * s)
    surface = gold[None, None, :] * (shade + 0.04 * texture)[:, :, None]
    rim_w = rng.uniform(0.6, 2.5)
    rim_dark = rng.uniform(0.35, 0.8) if rng.random() < 0.85 else rng.uniform(0.85, 1.0)
    rim = np.clip((dist - (radius - rim_w)) * s + 0.5, 0.0, 1.0)
    surface *= (1.0 - (1.0 - rim_dark) * rim)[:, :, None]
    if rng.random() < 0.3 and radius - rim_w - 0.3 > 12.8:
        ring_r = rng.uniform(12.7, radius - rim_w - 0.3)
        ring = np.clip(0.5 * rng.uniform(0.3, 0.7) * s - np.abs(dist - ring_r) * s + 0.5, 0.0, 1.0)
        surface *= (1.0 - rng.uniform(0.3, 0.6) * ring)[:, :, None]

    if alpha is not None:
        a = alpha
        k = int(rng.integers(-3, 5))
        if k != 0:
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(k) + 1, 2 * abs(k) + 1))
            thicker = cv2.dilate(a, kernel) if k > 0 else cv2.erode(a, kernel)
            if float(thicker.sum()) > 0.3 * float(a.sum()):
                a = np.asarray(thicker, np.float32)
        height_mm = rng.uniform(10.0, 13.5)
        scale = height_mm * s / a.shape[0]
        a = np.asarray(
            cv2.resize(a, None, fx=scale * 2, fy=scale * 2, interpolation=cv2.INTER_AREA), np.float32
        )
        angle = rng.uniform(-12.0, 12.0)
        gx0 = c + (dx + rng.normal(0, 0.5)) * s
        gy0 = c + (dy + rng.normal(0, 0.5)) * s
        m = cv2.getRotationMatrix2D((0.5 * a.shape[1] - 0.5, 0.5 * a.shape[0] - 0.5), angle, 0.5)
        m[0, 2] += gx0 - (0.5 * a.shape[1] - 0.5)
        m[1, 2] += gy0 - (0.5 * a.shape[0] - 0.5)
        numeral = cv2.warpAffine(a, m, (side, side), flags=cv2.INTER_LINEAR)
        ink = np.array([rng.uniform(5, 50), rng.uniform(5, 55), rng.uniform(5, 70)], np.float32)
        opacity = rng.uniform(0.8, 1.0)
        na = numeral[:, :, None] * opacity
        surface = surface * (1 - na) + ink[None, None, :] * na
    image = image * (1 - face[:, :, None]) + surface * face[:, :, None]

    # Light: colour, level, gradient, a cast shadow, glare.
    image *= _light_gains(rng)[None, None, :] * rng.uniform(0.55, 1.25)
    la = rng.uniform(0, 2 * math.pi)
    image *= (1.0 + rng.uniform(-0.25, 0.25) * ((xx - c) * math.cos(la) + (yy - c) * math.sin(la)) / side)[
        :, :, None
    ]
    if rng.random() < 0.35:
        sa = rng.uniform(0, 2 * math.pi)
        edge = ((xx - c) * math.cos(sa) + (yy - c) * math.sin(sa)) / s - rng.uniform(-15, 15)
        soft = rng.uniform(0.5, 6.0)
        cast = 1.0 / (1.0 + np.exp(np.clip(-edge / soft, -50.0, 50.0)))
        image *= (1.0 - rng.uniform(0.2, 0.55) * cast)[:, :, None]
    if rng.random() < 0.35:
        gx0 = c + rng.uniform(-14, 14) * s
        gy0 = c + rng.uniform(-14, 14) * s
        sx, sy = rng.uniform(1.5, 9.0, size=2) * s
        blob = np.exp(-0.5 * (((xx - gx0) / sx) ** 2 + ((yy - gy0) / sy) ** 2))
        image += (255.0 * rng.uniform(0.2, 1.1) * blob)[:, :, None]

    # Residual skew of the scanner's warp, optics, sensor, compression.
    m = np.eye(2, 3, dtype=np.float64)
    m[:, :2] = m[:, :2] + rng.normal(0, 0.02, size=(2, 2))
    m[:, 2] = (np.eye(2) - m[:, :2]) @ np.array([c, c]) + rng.normal(0, 0.4 * s, size=2)
    image = np.asarray(
        cv2.warpAffine(image, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT),
        np.float32,
    )
    blur = rng.uniform(0.3, 1.3)
    image = np.asarray(cv2.GaussianBlur(image, (0, 0), blur), np.float32)
    if rng.random() < 0.15:
        length = int(rng.integers(2, max(3, round(0.8 * s)) + 2))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        kernel = np.asarray(kernel / max(float(kernel.sum()), 1e-6), np.float32)
        image = np.asarray(cv2.filter2D(image, -1, kernel), np.float32)
    image += rng.normal(0, rng.uniform(1.0, 8.0), size=image.shape).astype(np.float32)
    out = np.clip(image, 0, 255).astype(np.uint8)
    if rng.random() < 0.8:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 96))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            out = np.asarray(decoded, np.uint8)
    return np.asarray(out, dtype=np.uint8)


# ---------------------------------------------------------------------------------------------
# Fonts for training
# ---------------------------------------------------------------------------------------------

FONT_DIRS = (
    Path("/usr/share/fonts"),
    Path("/usr/local/share/fonts"),
    Path("/usr/share/texmf/fonts/opentype"),
    Path.home() / ".fonts",
)
#: Families never trained on: the tests read numerals in them as fonts the model has not seen.
TEST_FAMILIES = ("dejavu serif", "dejavu sans mono", "dejavu math", "hack", "bitstream vera", "verana")
_STYLE_WORDS = {
    "bold", "book", "light", "extralight", "thin", "medium", "semibold", "black", "heavy", "regular",
    "italic", "oblique", "condensed", "narrow", "display", "ui", "demi", "extra", "ultra", "semi",
    "extrabold", "ultralight", "semicondensed", "extracondensed", "text", "caption", "mono",
}  # fmt: skip


@dataclass
class FontFace:
    """One font file whose digits 3..7 render, with the design group it belongs to."""

    path: str
    family: str
    group: str = ""
    signature: NDArray[np.float32] = field(default_factory=lambda: np.zeros(0, np.float32))


def _family_key(family: str) -> str:
    words = [w for w in family.lower().replace("-", " ").split() if w not in _STYLE_WORDS]
    return " ".join(words) or family.lower()


def _signature(alphas: Sequence[FloatImage]) -> NDArray[np.float32]:
    """The five digits, each fitted by height into a 20 x 20 square, as one vector."""
    parts = []
    for a in alphas:
        h, w = a.shape
        nw = min(20, max(1, round(w * 20 / h)))
        tile = np.zeros((20, 20), np.float32)
        x0 = (20 - nw) // 2
        tile[:, x0 : x0 + nw] = cv2.resize(a, (nw, 20), interpolation=cv2.INTER_AREA)
        parts.append(tile.ravel())
    return np.concatenate(parts)


def discover_fonts(dirs: Iterable[Path] = FONT_DIRS) -> list[FontFace]:
    """Fonts on this machine that draw 3..7 as five distinct glyphs, exact duplicates dropped.

    Faces whose digits are near copies of each other's (Arial clones, say) share a ``group`` so a
    split by group keeps them on one side.
    """
    from PIL import ImageFont

    paths = sorted(
        {str(p) for d in dirs if d.exists() for p in d.rglob("*") if p.suffix.lower() in (".ttf", ".otf")}
    )
    faces: list[FontFace] = []
    for path in paths:
        try:
            family = str(ImageFont.truetype(path, 20).getname()[0] or Path(path).stem)
        except OSError:
            continue
        alphas = [glyph_alpha_from_font(path, d) for d in VALUES]
        present = [a for a in alphas if a is not None]
        if len(present) != len(VALUES) or any(x in family.lower() for x in EXCLUDED_FAMILIES):
            continue
        sig = _signature(present)
        tiles = sig.reshape(len(VALUES), -1)
        gaps = [np.abs(tiles[i] - tiles[j]).mean() for i in range(5) for j in range(i + 1, 5)]
        if min(gaps) < 0.05:  # a missing-glyph box or a symbol font
            continue
        faces.append(FontFace(path, family, _family_key(family), sig))
    # Drop exact duplicates; merge the groups of near copies (union-find over groups).
    sigs = np.stack([f.signature for f in faces]) if faces else np.zeros((0, 1), np.float32)
    parent: dict[str, str] = {f.group: f.group for f in faces}

    def root(g: str) -> str:
        while parent[g] != g:
            parent[g] = parent[parent[g]]
            g = parent[g]
        return g

    keep: list[FontFace] = []
    kept_idx: list[int] = []
    for i, face in enumerate(faces):
        if kept_idx:
            d = np.abs(sigs[kept_idx] - sigs[i]).mean(axis=1)
            if float(d.min()) < 0.01:
                continue
            for k in np.flatnonzero(d < 0.03):
                a, b = root(keep[int(k)].group), root(face.group)
                if a != b:
                    # A test family absorbs its clones; otherwise the first group seen.
                    if _is_test(b) and not _is_test(a):
                        a, b = b, a
                    parent[b] = a
        keep.append(face)
        kept_idx.append(i)
    for face in keep:
        face.group = root(face.group)
    return keep


#: Fonts whose "digits" are not digits.
EXCLUDED_FAMILIES = ("d050000l", "dingbat", "music")


def _is_test(group: str) -> bool:
    return any(group.startswith(t) for t in TEST_FAMILIES)


def _split_of(group: str) -> str:
    """``test`` (never trained on), ``eval`` (held out and reported), ``val`` (tuning) or ``train``."""
    if _is_test(group):
        return "test"
    u = int(hashlib.sha256(group.encode()).hexdigest()[:8], 16) / 2**32
    return "eval" if u < 0.15 else "val" if u < 0.25 else "train"


# ---------------------------------------------------------------------------------------------
# Building the classifier: python -m vision.numerals --build
# ---------------------------------------------------------------------------------------------

_BLANK = 0  # the "digit" of a blank disc in a task; its class index is len(VALUES)
_STROKE_FONT = "<stroke>"
_worker_backgrounds: Backgrounds | None = None


@functools.lru_cache(maxsize=64)
def _font_alpha(path: str, digit: int) -> FloatImage | None:
    return glyph_alpha_from_font(path, digit)


def _sample(task: tuple[str, int, int, float]) -> NDArray[np.float32] | None:
    """Render one token and read its features. A task: font path (or stroke font), digit, seed, px_per_mm."""
    global _worker_backgrounds
    if _worker_backgrounds is None:
        _worker_backgrounds = Backgrounds.find()
    source, digit, seed, ppm = task
    rng = np.random.default_rng(seed)
    alpha: FloatImage | None = None
    if digit != _BLANK:
        alpha = stroke_glyph_alpha(digit, rng) if source == _STROKE_FONT else _font_alpha(source, digit)
        if alpha is None:
            return None
    crop = render_token_crop(alpha, ppm, rng, _worker_backgrounds)
    glyph, _ = extract_glyph(crop, ppm)
    if glyph is None:
        return None
    return glyph_features(glyph)


def _render_set(
    tasks: list[tuple[str, int, int, float]], workers: int
) -> tuple[NDArray[np.float32], NDArray[np.int64], NDArray[np.float64]]:
    """Features, labels (index into VALUES, 5 for blank) and px_per_mm of the tasks that gave a glyph."""
    import multiprocessing

    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(_sample, tasks, chunksize=64)
    else:
        results = [_sample(t) for t in tasks]
    keep = [i for i, r in enumerate(results) if r is not None]
    x = np.stack([results[i] for i in keep]).astype(np.float32)  # type: ignore[misc]
    y = np.array(
        [VALUES.index(tasks[i][1]) if tasks[i][1] != _BLANK else len(VALUES) for i in keep], np.int64
    )
    ppm = np.array([tasks[i][3] for i in keep], np.float64)
    return x, y, ppm


def _tasks(
    sources: Sequence[str], per_digit: int, rng: np.random.Generator, ppms: Sequence[float] | None = None
) -> list[tuple[str, int, int, float]]:
    out = []
    for source in sources:
        for digit in VALUES:
            for k in range(per_digit):
                ppm = (
                    ppms[k % len(ppms)] if ppms else float(np.exp(rng.uniform(math.log(1.5), math.log(8.0))))
                )
                out.append((source, digit, int(rng.integers(2**31)), ppm))
    return out


def _blank_tasks(n: int, rng: np.random.Generator) -> list[tuple[str, int, int, float]]:
    return [("", _BLANK, int(rng.integers(2**31)), float(np.exp(rng.uniform(0.4, 2.08)))) for _ in range(n)]


def _train_network(
    x: NDArray[np.float32],
    y: NDArray[np.int64],
    x_val: NDArray[np.float32],
    y_val: NDArray[np.int64],
    hidden: int = 128,
    epochs: int = 40,
    seed: int = 0,
    log: Callable[[str], None] = print,
) -> _Network:
    """A one-hidden-layer ReLU network trained with Adam on cross-entropy (label smoothing, weight decay).

    Keeps the epoch with the best validation accuracy, then fits the softmax temperature on the
    validation set.
    """
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-3
    xs = (x - mean) / scale
    n_in, n_out = x.shape[1], len(VALUES) + 1
    params = {
        "w1": rng.normal(0, math.sqrt(2.0 / n_in), (n_in, hidden)).astype(np.float32),
        "b1": np.zeros(hidden, np.float32),
        "w2": rng.normal(0, math.sqrt(1.0 / hidden), (hidden, n_out)).astype(np.float32),
        "b2": np.zeros(n_out, np.float32),
    }
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}
    counts = np.bincount(y, minlength=n_out).astype(np.float32)
    class_w = (counts.sum() / (n_out * np.maximum(counts, 1))).astype(np.float32)
    smooth, decay, batch = 0.05, 1e-4, 256
    target_all = np.full((len(y), n_out), smooth / n_out, np.float32)
    target_all[np.arange(len(y)), y] += 1.0 - smooth
    steps_per_epoch = math.ceil(len(y) / batch)
    total, step = epochs * steps_per_epoch, 0
    best: tuple[float, dict[str, NDArray[np.float32]]] = (-1.0, params)
    for epoch in range(epochs):
        order = rng.permutation(len(y))
        for start in range(0, len(y), batch):
            idx = order[start : start + batch]
            xb = xs[idx] * (rng.random((len(idx), n_in)) > 0.1) / 0.9
            h = np.maximum(xb @ params["w1"] + params["b1"], 0.0)
            z = h @ params["w2"] + params["b2"]
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            dz = (p - target_all[idx]) * class_w[y[idx]][:, None] / len(idx)
            grads = {"w2": h.T @ dz, "b2": dz.sum(axis=0)}
            dh = (dz @ params["w2"].T) * (h > 0)
            grads["w1"] = xb.T @ dh
            grads["b1"] = dh.sum(axis=0)
            step += 1
            lr = 2e-3 * 0.5 * (1 + math.cos(math.pi * step / total))
            for k, g in grads.items():
                g = g + decay * params[k] if k.startswith("w") else g
                m, v = moments[k]
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                mh = m / (1 - 0.9**step)
                vh = v / (1 - 0.999**step)
                params[k] = (params[k] - lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        net = _Network(mean, scale, params["w1"], params["b1"], params["w2"], params["b2"], 1.0)
        acc = float((net.predict(x_val).argmax(axis=1) == y_val).mean())
        if acc >= best[0]:
            best = (acc, {k: v.copy() for k, v in params.items()})
        if epoch % 5 == 4 or epoch == epochs - 1:
            log(f"  epoch {epoch + 1}: validation accuracy {acc:.3f}")
    w = best[1]
    net = _Network(mean, scale, w["w1"], w["b1"], w["w2"], w["b2"], 1.0)
    logits = net.logits(x_val).astype(np.float64)
    best_t, best_nll = 1.0, math.inf
    for t in np.linspace(0.5, 4.0, 36):
        z = logits / t
        z -= z.max(axis=1, keepdims=True)
        nll = float(-(z[np.arange(len(y_val)), y_val] - np.log(np.exp(z).sum(axis=1))).mean())
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    log(f"  best validation accuracy {best[0]:.3f}; temperature {best_t:.2f} (NLL {best_nll:.3f})")
    return _Network(mean, scale, w["w1"], w["b1"], w["w2"], w["b2"], best_t)


def _report(
    name: str, net: _Network, x: NDArray[np.float32], y: NDArray[np.int64], ppm: NDArray[np.float64]
) -> str:
    probs = net.predict(x)
    p = probs[:, : len(VALUES)] + probs[:, len(VALUES) :] / len(VALUES)
    correct = p.argmax(axis=1) == y
    parts = [f"{name}: {correct.mean():.3f} of {len(y)}"]
    for value in sorted(set(ppm.tolist())):
        sel = ppm == value
        parts.append(f"{value:g} px/mm {correct[sel].mean():.3f}")
    return "; ".join(parts)


def build(
    out: Path = MODEL_PATH, workers: int = 2, seed: int = 20261129, log: Callable[[str], None] = print
) -> str:
    """Render the training set from the fonts on this machine, train, evaluate on held-out fonts, save.

    Returns the evaluation report (also stored in the file).
    """
    t0 = time.time()
    faces = discover_fonts()
    by_split: dict[str, list[str]] = {"train": [], "val": [], "eval": [], "test": []}
    for face in faces:
        by_split[_split_of(face.group)].append(face.path)
    log(f"{len(faces)} font faces: " + ", ".join(f"{k} {len(v)}" for k, v in by_split.items()))
    rng = np.random.default_rng(seed)
    train = _tasks(by_split["train"], 10, rng) + _tasks([_STROKE_FONT], 500, rng) + _blank_tasks(2500, rng)
    val = _tasks(by_split["val"], 6, rng) + _blank_tasks(300, rng)
    x, y, _ = _render_set(train, workers)
    log(f"rendered {len(y)} training samples ({time.time() - t0:.0f} s)")
    xv, yv, _ = _render_set(val, workers)
    net = _train_network(x, y, xv, yv, log=log)
    lines = []
    for split in ("eval", "test"):
        tasks = _tasks(by_split[split], 6, rng, ppms=(2.0, 4.0, 8.0))
        xe, ye, pe = _render_set(tasks, workers)
        lines.append(_report(f"held-out fonts ({split}, {len(by_split[split])} faces)", net, xe, ye, pe))
        log(lines[-1])
    report = "\n".join(lines)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        out,
        mean=net.mean.astype(np.float32),
        scale=net.scale.astype(np.float32),
        w1=net.w1.astype(np.float16),
        b1=net.b1.astype(np.float32),
        w2=net.w2.astype(np.float32),
        b2=net.b2.astype(np.float32),
        temperature=np.float64(net.temperature),
        report=np.array(report),
        train_fonts=np.array(sorted({Path(p).name for p in by_split["train"]})),
    )
    log(f"wrote {out} ({out.stat().st_size / 1024:.0f} KB) in {time.time() - t0:.0f} s")
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m vision.numerals --build``: retrain the classifier from the fonts on this machine."""
    parser = argparse.ArgumentParser(prog="python -m vision.numerals", description=main.__doc__)
    parser.add_argument("--build", action="store_true", help="render, train, evaluate and write the model")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if not args.build:
        parser.print_help()
        return 2
    build(args.out, args.workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
