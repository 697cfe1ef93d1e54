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
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

WEIGHTS_DIR = Path(__file__).resolve().parent / "data" / "weights"

#: Every fitted model: the slot reader's and the hidden cells' by the kind of looks read with
#: (:class:`vision.looks.Kind`), the cell reader's, and how a warrior looks on any copy.
MODELS = (
    "slots-reference",
    "slots-learnt",
    "slots-improvised",
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


def path_of(name: str, folder: Path = WEIGHTS_DIR) -> Path:
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; models: {', '.join(MODELS)}")
    return folder / f"{name}.json"


@cache
def fitted(name: str) -> Fitted:
    """The committed weights of model ``name``, read once per process."""
    document = json.loads(path_of(name).read_text(encoding="utf-8"))
    return Fitted(name, tuple(float(w) for w in document["weights"]), dict(document["provenance"]))


def load_weights(name: str) -> tuple[float, ...]:
    """The committed weights of model ``name`` (:data:`MODELS`)."""
    return fitted(name).weights


def write_fitted(name: str, weights: Any, provenance: dict[str, Any], folder: Path = WEIGHTS_DIR) -> Path:
    """Write model ``name``'s weights with their provenance (whole or not at all); the file's path."""
    path = path_of(name, folder)
    document = {"model": name, "weights": [round(float(w), 3) for w in weights], "provenance": provenance}
    temporary = path.with_name(f".{path.name}.part")
    temporary.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)
    return path
