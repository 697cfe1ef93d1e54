"""The readers' fitted weights are data: each model's file loads, says where it comes from, fits
its reader's signs, and is what ``armadora bench fit`` writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.learn.pieces import WARRIOR_SIGNS, WARRIOR_WEIGHTS
from vision.read import cells, slots, tokens
from vision.weights import MODELS, fitted, load_weights, path_of, write_fitted

SIGNS = {
    "slots": len(slots.FEATURES),
    "cells": len(cells.FEATURES),
    "hidden": len(tokens.FEATURES),
    "warriors": len(WARRIOR_SIGNS),
}


@pytest.mark.parametrize("name", MODELS)
def test_every_model_loads_with_its_provenance(name: str) -> None:
    model = fitted(name)
    # One weight a sign, and the constant.
    assert len(model.weights) == SIGNS[name.split("-")[0]] + 1
    assert {"photos", "world", "command", "when"} <= set(model.provenance)
    assert model.provenance["command"].startswith("armadora bench fit")


def test_the_readers_read_with_the_loaded_weights() -> None:
    assert load_weights("slots-reference") == slots.WEIGHTS
    assert load_weights("slots-improvised") == slots.IMPROVISED_WEIGHTS
    assert load_weights("cells-reference") == cells.WEIGHTS
    assert load_weights("hidden-learnt") == tokens.LEARNT_WEIGHTS
    assert load_weights("warriors") == WARRIOR_WEIGHTS
    assert load_weights("cells-reference") is load_weights("cells-reference")  # read once


def test_a_fit_writes_what_the_readers_load(tmp_path: Path) -> None:
    provenance = {"photos": "3 photos", "world": "raster", "command": "armadora bench fit X", "when": "now"}
    path = write_fitted("warriors", [1.23456, -2.0, 0.0, 4.0, 5.5], provenance, folder=tmp_path)
    assert path == path_of("warriors", tmp_path)
    document = json.loads(path.read_text())
    assert document["weights"] == [1.235, -2.0, 0.0, 4.0, 5.5] and document["provenance"] == provenance
    assert not list(tmp_path.glob(".*"))  # written whole: no part left behind


def test_an_unknown_model_is_named() -> None:
    with pytest.raises(ValueError, match="unknown model 'slot'"):
        path_of("slot")
