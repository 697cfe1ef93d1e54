"""The readers' fitted weights: data in ``vision/data/weights/``, each file with its provenance.

A file ``NAME.json`` holds one model's logistic weights and where they come from: the photos and
the world (renderer) they were fitted on, the command, and when. ``armadora bench fit``
(:mod:`vision.train.fit`) writes them; the readers load each once (:func:`load_weights`).

>>> fitted("cells-reference").provenance["world"]
'raster'
>>> len(load_weights("cells-reference"))
8
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

#: The committed weights. ``ARMADORA_WEIGHTS=DIR`` reads another folder instead, written by
#: ``armadora bench fit --out DIR``: how a fit on one world is measured on the other without
#: touching the committed files.
WEIGHTS_DIR = Path(__file__).resolve().parent / "data" / "weights"


#: What a model's weights read: its reader's signs as they are, or (a slot model) each photo's
#: signs told against its own bare slots (:func:`vision.read.slots.relative_to_bare`).
SIGNS = "signs"
BARE_RELATIVE = "relative to the photo's bare slots"


def weights_dir() -> Path:
    """The folder the readers load their weights from: ``ARMADORA_WEIGHTS`` or :data:`WEIGHTS_DIR`."""
    chosen = os.environ.get("ARMADORA_WEIGHTS")
    return Path(chosen) if chosen else WEIGHTS_DIR


#: The worlds (renderers) a reader can be fitted in: the first renderer's (raster), then the
#: path-traced one's.
WORLDS = ("raster", "cycles")

#: The readers fitted once per world, each on that world's tuning photos alone, and read as the
#: mean of those fits (:func:`world_mean`): for logistic models over the same signs, the model whose
#: log odds are the mean of theirs. Fitted together instead, the world with more photos outvotes
#: the other's looks, and weighed equal the fit trades one world's photos for the other's.
PER_WORLD = (
    "slots-reference",
    "slots-learnt",
    "slots-improvised",
    "slots-plain-learnt",
    "slots-plain-improvised",
    "hidden-learnt",
    "hidden-outline-learnt",
    "hidden-improvised",
)


def world_model(name: str, world: str) -> str:
    """The name a reader fitted on one ``world`` alone is written under: ``name`` for the first
    renderer's (raster) world, ``name-world`` for another.

    >>> world_model("slots-reference", "raster"), world_model("slots-reference", "cycles")
    ('slots-reference', 'slots-reference-cycles')
    """
    return name if world == WORLDS[0] else f"{name}-{world}"


def world_models(name: str) -> tuple[str, ...]:
    """The fits a reader is read from: one per world for :data:`PER_WORLD`'s, else ``name`` alone.

    >>> world_models("slots-learnt"), world_models("cells-reference")
    (('slots-learnt', 'slots-learnt-cycles'), ('cells-reference',))
    """
    return tuple(world_model(name, world) for world in WORLDS) if name in PER_WORLD else (name,)


#: Every fitted model: the slot reader's and the hidden cells' by the kind of looks read with
#: (:class:`vision.looks.Kind`), the cell reader's, and how a warrior looks on any copy; the
#: :data:`PER_WORLD` readers once per world.
MODELS = tuple(
    model
    for name in (
        "slots-reference",
        "slots-learnt",
        "slots-improvised",
        "slots-plain-reference",
        "slots-plain-learnt",
        "slots-plain-improvised",
        "cells-reference",
        "hidden-learnt",
        "hidden-outline-learnt",
        "hidden-improvised",
        "warriors",
        "warriors-every-world",
    )
    for model in world_models(name)
)


@dataclass(frozen=True)
class Fitted:
    """One model's weights and what they were fitted on."""

    name: str
    weights: tuple[float, ...]
    provenance: dict[str, Any]
    #: What the weights read: :data:`SIGNS` or :data:`BARE_RELATIVE`.
    inputs: str = SIGNS


def path_of(name: str, folder: Path | None = None) -> Path:
    """Where model ``name``'s weights lie in ``folder`` (by default :func:`weights_dir`)."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; models: {', '.join(MODELS)}")
    return (weights_dir() if folder is None else folder) / f"{name}.json"


@cache
def fitted(name: str) -> Fitted:
    """The weights of model ``name`` (:func:`weights_dir`), read once per process."""
    document = json.loads(path_of(name).read_text(encoding="utf-8"))
    return Fitted(
        name,
        tuple(float(w) for w in document["weights"]),
        dict(document["provenance"]),
        str(document.get("inputs", SIGNS)),
    )


def load_weights(name: str) -> tuple[float, ...]:
    """The committed weights of model ``name`` (:data:`MODELS`)."""
    return fitted(name).weights


def world_mean(name: str) -> tuple[float, ...]:
    """The weights reader ``name`` reads with: the mean of its fits' (:func:`world_models`).

    >>> world_mean("cells-reference") == load_weights("cells-reference")
    True
    """
    fits = [fitted(model) for model in world_models(name)]
    if len({model.inputs for model in fits}) > 1:
        raise ValueError(f"the worlds' fits of {name} read different signs: refit them")
    return tuple(float(w) for w in np.mean([model.weights for model in fits], axis=0))


def write_fitted(
    name: str, weights: Any, provenance: dict[str, Any], folder: Path | None = None, inputs: str = SIGNS
) -> Path:
    """Write model ``name``'s weights with their provenance and what they read (whole or not at all);
    the file's path."""
    path = path_of(name, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    document: dict[str, Any] = {"model": name, "weights": [round(float(w), 3) for w in weights]}
    if inputs != SIGNS:
        document["inputs"] = inputs
    document["provenance"] = provenance
    temporary = path.with_name(f".{path.name}.part")
    temporary.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)
    return path
