"""The readers' fitted weights are data: each model's file loads, says where it comes from, fits
its reader's signs, and is what ``armadora bench fit`` writes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from renders import Renders

from vision.learn.pieces import WARRIOR_SIGNS, WARRIOR_WEIGHTS
from vision.read import cells, slots, tokens
from vision.weights import BARE_RELATIVE, MODELS, fitted, load_weights, path_of, world_models, write_fitted

SIGNS = {
    "slots": len(slots.FEATURES),
    "slots-plain": len(slots.PLAIN_FEATURES),
    "cells": len(cells.FEATURES),
    "hidden": len(tokens.FEATURES),
    "warriors": len(WARRIOR_SIGNS),
}


@pytest.mark.parametrize("name", MODELS)
def test_every_model_loads_with_its_provenance(name: str) -> None:
    model = fitted(name)
    # One weight a sign, and the constant.
    reader = "slots-plain" if name.startswith("slots-plain") else name.split("-")[0]
    assert len(model.weights) == SIGNS[reader] + 1
    assert {"photos", "world", "command", "when"} <= set(model.provenance)
    assert model.provenance["command"].startswith("armadora bench fit")


def test_the_readers_read_with_the_loaded_weights() -> None:
    # The reference kit's slot reader averages the log-odds of one fit per world: the mean weights.
    worlds = [load_weights(name) for name in slots.WORLD_MODELS]
    assert [fitted(name).provenance["world"] for name in slots.WORLD_MODELS] == ["raster", "cycles"]
    assert np.allclose(slots.WEIGHTS, np.mean(worlds, axis=0))
    signs = np.random.default_rng(0).normal(size=(67, len(worlds[0]) - 1))

    def odds(p: np.ndarray) -> np.ndarray:
        return np.log(p / (1 - p))

    each = [odds(slots.palisade_probability(signs, weights)) for weights in worlds]
    assert np.allclose(odds(slots.palisade_probability(signs)), np.mean(each, axis=0))
    # So are the copies' readers: each the mean of its fit on the raster world's tuning copies and
    # its fit on the path-traced world's.
    for name, weights in (
        ("slots-learnt", slots.LEARNT_WEIGHTS),
        ("slots-improvised", slots.IMPROVISED_WEIGHTS),
        ("slots-plain-learnt", slots.PLAIN_LEARNT_WEIGHTS),
        ("slots-plain-improvised", slots.PLAIN_IMPROVISED_WEIGHTS),
        ("hidden-learnt", tokens.LEARNT_WEIGHTS),
        ("hidden-outline-learnt", tokens.OUTLINE_WEIGHTS),
        ("hidden-improvised", tokens.IMPROVISED_WEIGHTS),
    ):
        fits = [fitted(model) for model in world_models(name)]
        assert [fit.provenance["world"] for fit in fits] == ["raster", "cycles"]
        assert np.allclose(weights, np.mean([fit.weights for fit in fits], axis=0))
    assert load_weights("slots-plain-reference") == slots.PLAIN_WEIGHTS
    assert load_weights("cells-reference") == cells.WEIGHTS
    assert load_weights("warriors") == WARRIOR_WEIGHTS
    assert load_weights("cells-reference") is load_weights("cells-reference")  # read once


def test_a_fit_writes_what_the_readers_load(tmp_path: Path) -> None:
    provenance = {"photos": "3 photos", "world": "raster", "command": "armadora bench fit X", "when": "now"}
    path = write_fitted("warriors", [1.23456, -2.0, 0.0, 4.0, 5.5], provenance, folder=tmp_path)
    assert path == path_of("warriors", tmp_path)
    document = json.loads(path.read_text())
    assert document["weights"] == [1.235, -2.0, 0.0, 4.0, 5.5] and document["provenance"] == provenance
    assert not list(tmp_path.glob(".*"))  # written whole: no part left behind


def test_a_model_says_what_it_reads_and_keeps_saying_it_when_copied(tmp_path: Path) -> None:
    provenance = {"photos": "3 photos", "world": "raster", "command": "armadora bench fit X", "when": "now"}
    plain = json.loads(write_fitted("warriors", [1.0], provenance, folder=tmp_path).read_text())
    assert "inputs" not in plain
    path = write_fitted("slots-reference", [1.0, 2.0], provenance, folder=tmp_path, inputs=BARE_RELATIVE)
    assert json.loads(path.read_text())["inputs"] == BARE_RELATIVE
    # The committed reference slot model reads the photo's signs against its own bare slots, and
    # the scanner reads it so; the copies' models read the signs as they are.
    assert fitted("slots-reference").inputs == BARE_RELATIVE and slots.RELATIVE
    assert fitted("slots-learnt").inputs == "signs" and not slots.reads_relative("slots-learnt")


def test_an_unknown_model_is_named() -> None:
    with pytest.raises(ValueError, match="unknown model 'slot'"):
        path_of("slot")


@pytest.mark.slow
def test_bench_fit_fits_on_several_folders_and_writes_a_whole_set_elsewhere(
    tmp_path: Path, renders: Renders
) -> None:
    from webui.cli import main

    folders = []
    for n, seed in enumerate((4_100_001, 4_100_002)):
        photo = renders.photo(seed, players=2, size=(1600, 1200), quality=90)
        folder = tmp_path / f"tuning-{n}"
        folder.mkdir()
        (folder / f"photo{photo.suffix}").write_bytes(photo.data)
        truth = dict(photo.truth)
        if n == 1:
            # As if the second folder were the path-traced world's (its truths say which).
            truth["render"] = {**truth.get("render", {}), "world": "cycles"}
        (folder / "photo.json").write_text(json.dumps(truth))
        folders.append(folder)
    out = tmp_path / "weights"
    before = {name: fitted(name).weights for name in MODELS}
    assert main(["bench", "fit", *map(str, folders), "--out", str(out)]) == 0
    # Every model is there, so that ARMADORA_WEIGHTS=out reads a whole set; the plain slot reader
    # and the cell reader name both folders; the committed files are untouched.
    assert sorted(p.stem for p in out.glob("*.json")) == sorted(MODELS)
    for name in ("slots-plain-reference", "cells-reference"):
        refitted = json.loads((out / f"{name}.json").read_text())["provenance"]
        assert all(str(folder) in refitted["photos"] for folder in folders)
        assert refitted["command"] == f"armadora bench fit {folders[0]} {folders[1]}"
        assert refitted["world"] == "cycles, raster"
    # The whole slot reader is fitted once per world, each on its own world's folder alone.
    for name, folder in (("slots-reference", folders[0]), ("slots-reference-cycles", folders[1])):
        alone = json.loads((out / f"{name}.json").read_text())["provenance"]
        assert alone["photos"].startswith(f"1 photos of {folder} ") and alone["command"].endswith(str(folder))
        assert alone["world"] == ("raster" if folder == folders[0] else "cycles")
    for name in ("warriors", "warriors-every-world"):
        assert tuple(json.loads((out / f"{name}.json").read_text())["weights"]) == before[name]
    assert json.loads((out / "slots-reference.json").read_text())["inputs"] == BARE_RELATIVE
    assert {name: fitted(name).weights for name in MODELS} == before
    assert main(["bench", "fit", str(tmp_path / "nowhere")]) == 2


def test_bench_fit_refuses_photos_it_cannot_open_before_fitting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from webui.cli import main

    # A folder of links to tuning photos, one of them since moved: its truth is still there.
    (tmp_path / "photo.json").write_text(json.dumps({"board": True, "warriors": []}))
    (tmp_path / "photo.jpg").symlink_to(tmp_path / "moved.jpg")
    out = tmp_path / "weights"
    assert main(["bench", "fit", str(tmp_path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"1 photos cannot be opened ({tmp_path / 'photo.jpg'})" in err and "fit again" in err
    assert not out.exists()


def test_a_reader_fitted_per_world_is_fitted_on_each_world_s_photos_alone(tmp_path: Path) -> None:
    from vision.train.fit import Provenance, TrainingData, _fit

    rng = np.random.default_rng(3)
    width = len(tokens.FEATURES)
    # Three photos' hidden cells: two of the raster world's, one of the path-traced world's, whose
    # truths run the other way, so that a fit on both worlds' photos together would tell.
    sizes, worlds = (5, 4, 6), ("raster", "raster", "cycles")
    x = [rng.normal(size=(size, width)) for size in sizes]
    y = [
        list(rows[:, 0] > 0) if world == "raster" else list(rows[:, 0] < 0)
        for rows, world in zip(x, worlds, strict=True)
    ]
    data = TrainingData(
        hidden_x=x, hidden_y=y, hidden_world=[w for w, n in zip(worlds, sizes, strict=True) for _ in range(n)]
    )
    alone = data.of("cycles")
    assert len(alone.hidden_x) == 1 and alone.hidden_x[0] is x[2] and alone.hidden_world == ["cycles"] * 6
    assert [len(rows) for rows in data.of("raster").hidden_x] == [5, 4] and data.of("raster").slot_x == []
    photos = [tmp_path / f"{n}.jpg" for n in range(3)]
    where = Provenance([tmp_path], photos, list(worlds), "seen somehow")
    written = _fit(data, "hidden", "hidden-learnt", where, tmp_path, weighed=tokens.WEIGHED["learnt"])
    assert written == ["hidden-learnt-cycles", "hidden-learnt"]
    raster = json.loads((tmp_path / "hidden-learnt.json").read_text())
    cycles = json.loads((tmp_path / "hidden-learnt-cycles.json").read_text())
    assert raster["provenance"]["world"] == "raster" and raster["provenance"]["examples"] == 9
    assert cycles["provenance"]["world"] == "cycles" and cycles["provenance"]["examples"] == 6
    # Fitted on opposite truths, the two worlds' fits weigh the first sign opposite ways.
    assert raster["weights"][0] > 0 > cycles["weights"][0]


def test_a_fit_on_path_traced_copies_alone_keeps_the_raster_warriors_looks_and_fits_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import vision.train.fit as fit

    rng = np.random.default_rng(5)
    photos = []
    for n in range(4):
        photo = tmp_path / f"tcopy-{n}.jpg"
        photo.write_bytes(b"")
        truth = {"copy": "harvest", "render": {"world": "cycles"}}
        photo.with_suffix(".json").write_text(json.dumps(truth))
        photos.append((photo, photo.with_suffix(".json")))

    def signs(pairs: object, see: object) -> fit.TrainingData:
        # Each photo's slots and hidden cells as a path-traced photo's, whatever the looks.
        data = fit.TrainingData()
        for _ in photos:
            data.slot_x.append(rng.normal(size=(67, len(slots.FEATURES))))
            data.slot_y.append(list(rng.random(67) < 0.3))
            data.slot_world += ["cycles"] * 67
            data.hidden_x.append(rng.normal(size=(8, len(tokens.FEATURES))))
            data.hidden_y.append([True, False] * 4)
            data.hidden_world += ["cycles"] * 8
        return data

    looked_at: list[object] = []

    def looks(pairs: list[object]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # Each off-gold cell's warrior signs, a warrior on a third of them.
        looked_at.extend(pairs)
        cells = 32 * len(pairs)
        return rng.normal(size=(cells, len(WARRIOR_SIGNS))), rng.random(cells) < 0.3, np.ones(cells)

    monkeypatch.setattr(fit, "training_data", signs)
    monkeypatch.setattr(fit, "warrior_data", looks)
    out = tmp_path / "weights"
    written = fit._fit_copies(photos, lambda data, name: None, out)  # type: ignore[arg-type, return-value]
    readers = ("slots", "slots-plain", "hidden")
    per_world = [f"{reader}-{kind}-cycles" for reader in readers for kind in ("learnt", "improvised")]
    per_world.append("hidden-outline-learnt-cycles")
    # The improvised readers' warrior looks are the raster world's: without its photos they are kept;
    # the looks read as a probability are fitted on every world's photos, here the path-traced ones.
    assert sorted(written) == sorted(["warriors-every-world", *per_world]) and looked_at == photos
    assert sorted(p.stem for p in out.glob("*.json")) == sorted(written)
    for name in written:
        provenance = json.loads((out / f"{name}.json").read_text())["provenance"]
        assert provenance["world"] == "cycles" and "4 photos" in provenance["photos"]
