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


#: Every fitted model: the slot reader's and the hidden cells' by the kind of looks read with
#: (:class:`vision.looks.Kind`), the cell reader's, and how a warrior looks on any copy.
MODELS = (
    "slots-reference",
    "slots-reference-cycles",
    "slots-learnt",
    "slots-improvised",
    "slots-plain-reference",
    "slots-plain-learnt",
    "slots-plain-improvised",
    "cells-reference",
    "hidden-learnt",
    "hidden-improvised",
    "warriors",
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
