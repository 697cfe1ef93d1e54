"""``armadora bench fit DIR``: fit the readers' weights on a tuning folder (never the test set).

Apart from the product's path: it writes ``vision/data/weights/NAME.json`` with what the fit saw
(:mod:`vision.weights`), and the readers only load those files.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.board import OFF_GOLD_CELLS, SLOTS, Cell, Slot
from vision.bench.accuracy import SETUP_PREFIX, Learner, photos_with_truth
from vision.load import PhotoError, read_photo
from vision.locate.features import NoBoardError
from vision.looks import Kind, Looks, reference_looks
from vision.read.view import BoardView
from vision.weights import BARE_RELATIVE, MODELS, PER_WORLD, SIGNS, WORLDS, fitted, world_model, write_fitted


@dataclass
class TrainingData:
    """Every board photo's signs with their truths: slots, cells off gold against the face, and the
    cells off gold whose art the profile never saw, by warrior pictures
    (:func:`vision.read.tokens.hidden_signs`, where the profile has them); and each example's
    world (the renderer that drew its photo)."""

    slot_x: list[npt.NDArray[np.float64]] = field(default_factory=list)
    slot_y: list[list[bool]] = field(default_factory=list)
    slot_world: list[str] = field(default_factory=list)
    cell_x: list[npt.NDArray[np.float64]] = field(default_factory=list)
    cell_y: list[list[bool]] = field(default_factory=list)
    cell_world: list[str] = field(default_factory=list)
    hidden_x: list[npt.NDArray[np.float64]] = field(default_factory=list)
    hidden_y: list[list[bool]] = field(default_factory=list)
    hidden_world: list[str] = field(default_factory=list)

    def stacked(
        self, name: str
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
        """The examples of ``"slots"``, ``"cells"`` or ``"hidden"``, their truths, and their weights
        (:func:`world_weights`)."""
        x, y, worlds = {
            "slots": (self.slot_x, self.slot_y, self.slot_world),
            "cells": (self.cell_x, self.cell_y, self.cell_world),
            "hidden": (self.hidden_x, self.hidden_y, self.hidden_world),
        }[name]
        return np.vstack(x), np.concatenate(y).astype(bool), world_weights(worlds)

    def of(self, world: str) -> TrainingData:
        """The examples of the photos ``world`` rendered, alone."""

        def kept(
            x: list[npt.NDArray[np.float64]], y: list[list[bool]], worlds: list[str]
        ) -> tuple[list[npt.NDArray[np.float64]], list[list[bool]], list[str]]:
            # Each photo's examples in a row: a photo's world is its first example's.
            starts = np.cumsum([0, *(len(truths) for truths in y)])[:-1]
            photos = [n for n, start in enumerate(starts) if worlds[start] == world]
            return [x[n] for n in photos], [y[n] for n in photos], [world] * sum(len(y[n]) for n in photos)

        slot_x, slot_y, slot_world = kept(self.slot_x, self.slot_y, self.slot_world)
        cell_x, cell_y, cell_world = kept(self.cell_x, self.cell_y, self.cell_world)
        hidden_x, hidden_y, hidden_world = kept(self.hidden_x, self.hidden_y, self.hidden_world)
        return TrainingData(
            slot_x, slot_y, slot_world, cell_x, cell_y, cell_world, hidden_x, hidden_y, hidden_world
        )


def world_weights(worlds: list[str]) -> npt.NDArray[np.float64]:
    """Per example, a weight that gives each world's examples the same total, averaging 1: a fit
    on two worlds learns both, however many photos each has.

    >>> world_weights(["raster", "raster", "raster", "cycles"]).tolist()
    [0.6666666666666666, 0.6666666666666666, 0.6666666666666666, 2.0]
    """
    names, index, counts = np.unique(np.array(worlds), return_inverse=True, return_counts=True)
    weights: npt.NDArray[np.float64] = len(worlds) / (len(names) * counts[index].astype(np.float64))
    return weights


def _world(truth: dict[str, Any]) -> str:
    # A truth names its world where the renderer says it (render.world); the first renderer's do not.
    return str(truth.get("render", {}).get("world", "raster"))


#: How a fit sees a photo (its path and its truth): the board's view and the looks read with.
PhotoSeer = Callable[[Path, dict[str, Any]], "tuple[BoardView, Looks] | None"]


def training_data(pairs: Iterable[tuple[Path, Path]], see: PhotoSeer) -> TrainingData:
    """The signs of every board photo that ``see`` (photo, truth) finds the board in."""
    from vision.read.cells import occupied_probability
    from vision.read.judge import hidden_cells, picture_signs
    from vision.read.view import view_cell_signs, view_slot_signs

    data = TrainingData()
    numbers = [cell.number for cell in OFF_GOLD_CELLS]
    for photo, truth_path in pairs:
        truth = json.loads(truth_path.read_text())
        if not truth.get("board", True):
            continue
        try:
            seen = see(photo, truth)
        except (NoBoardError, PhotoError):
            continue
        if seen is None:
            continue
        view, profile = seen
        world = _world(truth)
        palisades = {Slot.between(Cell(*a), Cell(*b)) for a, b in truth.get("palisades", [])}
        data.slot_x.append(view_slot_signs(view, profile).features)
        data.slot_y.append([slot in palisades for slot in SLOTS])
        data.slot_world += [world] * len(SLOTS)
        signs = view_cell_signs(view, profile, palisades)
        occupied = {tuple(w["cell"]) for w in truth.get("warriors", [])}
        truths = [tuple(cell) in occupied for cell in OFF_GOLD_CELLS]
        data.cell_x.append(signs.features[numbers])
        data.cell_y.append(truths)
        data.cell_world += [world] * len(truths)
        hidden = [cell for cell in hidden_cells(profile) if cell in OFF_GOLD_CELLS]
        if profile.tokens and hidden:
            face_reading = occupied_probability(signs.features)
            asked = [cell.number for cell in hidden]
            data.hidden_x.append(picture_signs(view, profile, signs, asked, face_reading)[1])
            data.hidden_y.append([tuple(cell) in occupied for cell in hidden])
            data.hidden_world += [world] * len(hidden)
    return data


def warrior_data(
    pairs: Iterable[tuple[Path, Path]],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """Every off-gold cell's :func:`vision.learn.pieces.warrior_signs` and whether a warrior is there, on
    each board photo whose board :func:`vision.learn.improvise.board_face` finds."""
    from vision.learn.improvise import board_face
    from vision.learn.pieces import FACE_VIEW, WARRIOR_SIGNS, face_looks

    signs: list[npt.NDArray[np.float64]] = []
    labels: list[bool] = []
    worlds: list[str] = []
    for photo, truth_path in pairs:
        truth = json.loads(truth_path.read_text())
        if not truth.get("board", True):
            continue
        try:
            seen = board_face(read_photo(photo).image)
        except PhotoError:
            continue
        if seen is None:
            continue
        occupied = {tuple(w["cell"]) for w in truth.get("warriors", [])}
        signs.append(face_looks(seen.face, list(OFF_GOLD_CELLS), FACE_VIEW))
        labels += [tuple(cell) in occupied for cell in OFF_GOLD_CELLS]
        worlds += [_world(truth)] * len(OFF_GOLD_CELLS)
    if not signs:
        return np.zeros((0, len(WARRIOR_SIGNS))), np.zeros(0, bool), np.zeros(0)
    return np.vstack(signs), np.array(labels, bool), world_weights(worlds)


Model = Callable[..., npt.NDArray[np.float64]]


def _fit(
    data: TrainingData,
    model: str,
    name: str,
    where: Provenance,
    out: Path | None,
    inputs: str = SIGNS,
    **options: Any,
) -> list[str]:
    """Fit one reader (``"slots"``, ``"plain slots"``, ``"cells"`` or ``"hidden"``) on ``data``'s
    examples for it; write its weights as model ``name``, and return the models written. One of
    :data:`vision.weights.PER_WORLD` is fitted once per world, on that world's photos alone (the
    scanner averages the worlds' fits, :func:`vision.weights.world_mean`, so that one world's many
    photos do not outvote another's few). A slot model whose ``inputs`` are
    :data:`vision.weights.BARE_RELATIVE` reads each photo's signs told against its own bare slots."""
    from vision.read import cells, slots, tokens

    # The first world's fit keeps the reader's own name: a fit on its photos alone is written here.
    if name in PER_WORLD and where.worlds != [WORLDS[0]]:
        written = []
        for world in where.worlds:
            fit_name = world_model(name, world)
            if fit_name not in MODELS:
                raise ValueError(f"no reader is kept for the world {world!r}: add {fit_name!r} to MODELS")
            written += _fit(data.of(world), model, fit_name, where.alone(world), out, inputs, **options)
        return written
    if inputs == BARE_RELATIVE:
        data = replace(data, slot_x=[slots.relative_to_bare(x) for x in data.slot_x])

    readers: dict[str, tuple[str, Model, Model]] = {
        "slots": ("slots", slots.fit_weights, slots.palisade_probability),
        "plain slots": ("slots", slots.fit_plain_weights, slots.plain_probability),
        "cells": ("cells", cells.fit_weights, cells.occupied_probability),
        "hidden": ("hidden", tokens.fit_hidden_weights, tokens.hidden_occupied),
    }
    examples, fit, predict = readers[model]
    _write_fit(*data.stacked(examples), fit, predict, name, where, out, inputs, **options)
    return [name]


@dataclass(frozen=True)
class Provenance:
    """What a fit saw: the folders, their photos, the worlds that rendered them, and how it was run."""

    folders: list[Path]
    photos: list[Path]
    #: The world that rendered each of ``photos``.
    photo_worlds: list[str]
    seen_with: str

    @property
    def worlds(self) -> list[str]:
        return sorted(set(self.photo_worlds))

    def alone(self, world: str) -> Provenance:
        """The part of what was seen that ``world`` rendered."""
        kept = [n for n, rendered in enumerate(self.photo_worlds) if rendered == world]
        photos = [self.photos[n] for n in kept]
        folders = [folder for folder in self.folders if any(photo.parent == folder for photo in photos)]
        return Provenance(folders, photos, [world] * len(kept), self.seen_with)

    def to_json(self, examples: int, wrong: int) -> dict[str, Any]:
        per_folder = [
            f"{len(names)} photos of {folder} ({names[0]} to {names[-1]})"
            for folder in self.folders
            if (names := [photo.name for photo in self.photos if photo.parent == folder])
        ]
        return {
            "photos": f"{'; '.join(per_folder)}, {self.seen_with}" if per_folder else "no photos",
            "world": ", ".join(self.worlds),
            "weighed": "each world's examples the same total"
            if len(self.worlds) > 1
            else "each example once",
            "command": f"armadora bench fit {' '.join(str(folder) for folder in self.folders)}",
            "when": datetime.now(UTC).isoformat(timespec="seconds"),
            "examples": examples,
            "wrong_on_the_same_examples": wrong,
        }


def _provenance(pairs: list[tuple[Path, Path]], seen_with: str) -> Provenance:
    worlds = [_world(json.loads(truth.read_text())) for _, truth in pairs]
    folders = list(dict.fromkeys(photo.parent for photo, _ in pairs))
    return Provenance(folders, [photo for photo, _ in pairs], worlds, seen_with)


def _write_fit(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.bool_],
    example_weights: npt.NDArray[np.float64],
    fit: Model,
    model: Model,
    name: str,
    where: Provenance,
    out: Path | None,
    inputs: str = SIGNS,
    **options: Any,
) -> None:
    """Fit ``model``'s weights to ``x`` and ``y`` by ``fit``; write them as model ``name`` in ``out``
    (by default the folder the readers load), saying what they read (``inputs``)."""
    weights = fit(x, y, example_weights, **options)
    wrong = int(((model(x, weights) > 0.5) != y).sum())
    path = write_fitted(name, weights, where.to_json(len(y), wrong), out, inputs)
    print(f"wrote {path}: fitted on {len(y)} examples; {wrong} wrong on that same set")


def main_fit(folders: list[Path], learn: Learner, out: Path | None = None) -> int:
    """Fit the readers' models on tuning folders; write their weights to ``out`` (by default
    ``vision/data/weights/``).

    Folders of the reference kit refit the slot and cell models, on all their photos together.
    Folders of other copies (truths naming a ``"copy"``, with the copies' setup photos) refit what
    reads them: how a warrior looks on any copy (:func:`vision.learn.pieces.warrior_odds`: on the
    raster world's folders alone, and on every world's together), and the readers with the looks
    ``learn`` takes from each setup photo and with those improvised from each photo. A reader of
    :data:`vision.weights.PER_WORLD` is fitted once for each world the folders hold, on that world's
    photos alone. The improvised readers' signs depend on how a warrior looks, read when this
    process started: fit the same folders again once the warriors' weights have changed. A model
    no folder refits is copied into ``out`` as it is, so that ``ARMADORA_WEIGHTS=out`` reads a
    whole set.
    """
    by_folder = [photos_with_truth(folder) for folder in folders]
    # A photo that cannot be opened (a link to one since moved) would be left out of the fit while
    # its provenance still counted it: refused before any fitting, named.
    unreadable = [photo for pairs in by_folder for photo, _ in pairs if not os.access(photo, os.R_OK)]
    if unreadable:
        names = ", ".join(str(photo) for photo in unreadable[:5]) + (" ..." if len(unreadable) > 5 else "")
        print(
            f"armadora bench fit: {len(unreadable)} photos cannot be opened ({names}): "
            "link or copy them again, or move their .json truths away, and fit again",
            file=sys.stderr,
        )
        return 2
    reference_pairs: list[tuple[Path, Path]] = []
    copies_pairs: list[tuple[Path, Path]] = []
    for pairs in by_folder:
        copies = any("copy" in json.loads(truth.read_text()) for _, truth in pairs)
        (copies_pairs if copies else reference_pairs).extend(pairs)
    refitted: list[str] = []
    if reference_pairs:
        refitted += _fit_reference(reference_pairs, out)
    if copies_pairs:
        refitted += _fit_copies(copies_pairs, learn, out)
    if out is not None:
        for name in MODELS:
            if name not in refitted:
                fitted_before = fitted(name)
                write_fitted(name, fitted_before.weights, fitted_before.provenance, out, fitted_before.inputs)
    return 0


def _fit_reference(pairs: list[tuple[Path, Path]], out: Path | None) -> list[str]:
    from vision.locate.find import reference_view

    reference = reference_looks()

    def seen(photo: Path, truth: dict[str, Any]) -> tuple[BoardView, Looks] | None:
        view = reference_view(read_photo(photo).image)
        return None if view is None else (view, reference)

    data = training_data(pairs, seen)
    how = "read with the reference kit's looks"
    where = _provenance(pairs, how)
    return [
        *_fit(data, "slots", "slots-reference", where, out, BARE_RELATIVE),
        *_fit(data, "plain slots", "slots-plain-reference", where, out),
        *_fit(data, "cells", "cells-reference", where, out),
    ]


def _fit_copies(pairs: list[tuple[Path, Path]], learn: Learner, out: Path | None) -> list[str]:
    from vision.learn.pieces import fit_warrior_weights, warrior_probability
    from vision.locate.find import board_view, improvised_view
    from vision.read.tokens import OUTLINE_WEIGHED, WEIGHED

    seen_from_above = _provenance(pairs, "each seen from above by vision.learn.improvise.board_face")
    names = []
    # How a warrior looks is fitted on the first renderer's copies alone for the improvised
    # profile, whose readers' signs are read with it (every world's fits of them were made with that
    # one: a change of it asks those fits to be made again); and on every world's copies together,
    # each world's cells weighed the same total, where its probability is read as it is.
    worlds = seen_from_above.photo_worlds
    looks = {
        world: warrior_data([pair for pair, seen_in in zip(pairs, worlds, strict=True) if seen_in == world])
        for world in seen_from_above.worlds
    }
    if WORLDS[0] in looks:
        first = seen_from_above.alone(WORLDS[0])
        _write_fit(*looks[WORLDS[0]], fit_warrior_weights, warrior_probability, "warriors", first, out)
        names.append("warriors")
    signs = np.vstack([x for x, _, _ in looks.values()])
    labels = np.concatenate([y for _, y, _ in looks.values()])
    each_world = world_weights([world for world, (_, y, _) in looks.items() for _ in y])
    _write_fit(
        signs, labels, each_world, fit_warrior_weights, warrior_probability, "warriors-every-world",
        seen_from_above, out,
    )  # fmt: skip
    names.append("warriors-every-world")
    learnt: dict[tuple[Path, str], Looks] = {}

    def with_setup(photo: Path, truth: dict[str, Any]) -> tuple[BoardView, Looks]:
        key = (photo.parent, truth["copy"])
        if key not in learnt:
            learnt[key] = learn(
                (photo.parent / f"{SETUP_PREFIX}{truth['copy']}.jpg").read_bytes(), truth["copy"]
            )
        return board_view(read_photo(photo).image, learnt[key]), learnt[key]

    seers: tuple[tuple[Kind, PhotoSeer, str], ...] = (
        (Kind.LEARNT, with_setup, "each read with the looks learnt from its copy's setup photo"),
        (
            Kind.IMPROVISED,
            lambda photo, truth: improvised_view(read_photo(photo).image),
            "each read with the looks improvised from it",
        ),
    )
    for kind, see, seen_with in seers:
        data = training_data(pairs, see)
        where = replace(seen_from_above, seen_with=seen_with)
        names += _fit(data, "slots", f"slots-{kind.value}", where, out)
        names += _fit(data, "plain slots", f"slots-plain-{kind.value}", where, out)
        names += _fit(data, "hidden", f"hidden-{kind.value}", where, out, weighed=WEIGHED[kind.value])
        if kind == Kind.LEARNT:
            names += _fit(data, "hidden", "hidden-outline-learnt", where, out, weighed=OUTLINE_WEIGHED)
    return names
