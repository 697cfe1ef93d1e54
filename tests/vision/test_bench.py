"""The bench's "trusted" figure on small made-up readings: a mistake counts against it only when
the reading left it unmarked (confidence at least 0.8, named by no warning)."""

from __future__ import annotations

import time
from typing import Any

from vision.bench.accuracy import BenchResult, groups_of
from vision.bench.metrics import MARKED_BELOW, compare, needless_marks, silent_mistakes

GOLD = [{"cell": [0, 3], "value": 6}, {"cell": [1, 1], "value": 5}]
TRUTH: dict[str, Any] = {
    "players": ["orange", "blue"],
    "gold": GOLD,
    "warriors": [{"cell": [2, 2], "player": "orange", "value": None}],
    "palisades": [[[0, 0], [0, 1]]],
}


def read(**changes: Any) -> dict[str, Any]:
    return {**TRUTH, **changes}


def said(
    confidence: dict[str, dict[str, float]] | None = None, warnings: list[Any] | None = None
) -> dict[str, Any]:
    return {"confidence": confidence or {}, "warnings": warnings or []}


# A warrior missed on c3, a palisade seen on a5|a4 where there is none, the gold of b4 read as 7.
WRONG = read(
    warriors=[],
    palisades=[[[0, 0], [0, 1]], [[0, 0], [1, 0]]],
    gold=[GOLD[0], {"cell": [1, 1], "value": 7}],
)


def test_an_exact_reading_has_no_silent_mistake() -> None:
    assert silent_mistakes(compare(read(), TRUTH), said()) == ()


def test_sure_mistakes_are_silent() -> None:
    comparison = compare(WRONG, TRUTH)
    assert comparison.wrong_cells == ("c3",) and comparison.wrong_slots == ("a5-a4",)
    assert comparison.wrong_gold == ("b4",) and comparison.gold_right == 1
    sure = said({"cells": {"c3": 0.95}, "slots": {"a5-a4": 0.9}, "gold": {"b4": MARKED_BELOW}})
    assert silent_mistakes(comparison, sure) == ("c3", "a5-a4", "gold:b4")


def test_doubtful_mistakes_are_marked() -> None:
    doubtful = said({"cells": {"c3": 0.79}, "slots": {"a5-a4": 0.5}, "gold": {"b4": 0.4}})
    assert silent_mistakes(compare(WRONG, TRUTH), doubtful) == ()


def test_mistakes_a_warning_names_are_marked() -> None:
    warning = {
        "code": "x",
        "message": "look here",
        "cells": [[2, 2], [1, 1]],
        "palisades": [[[0, 0], [1, 0]]],
    }
    sure = said({"cells": {"c3": 1.0}, "slots": {"a5-a4": 1.0}, "gold": {"b4": 1.0}}, [warning])
    assert silent_mistakes(compare(WRONG, TRUTH), sure) == ()
    # A warning about another cell marks nothing here.
    elsewhere = {**warning, "cells": [[4, 7]], "palisades": []}
    assert silent_mistakes(compare(WRONG, TRUTH), said(warnings=[elsewhere])) == ("c3", "a5-a4", "gold:b4")


def test_marks_on_parts_read_right_are_counted_as_needless() -> None:
    # Marked: c3 (wrong) and d3 (right) by confidence, b5 (right) by a warning, the slot a5-a4
    # (wrong) and a5|b5 (right), the gold of b4 (wrong) and d5 (right).
    warning = {"code": "x", "message": "look here", "cells": [[0, 1]], "palisades": []}
    reading = said(
        {
            "cells": {"c3": 0.5, "d3": 0.6, "e3": 0.99},
            "slots": {"a5-a4": 0.5, "a5|b5": 0.7, "b5|c5": 0.95},
            "gold": {"b4": 0.5, "d5": 0.6},
        },
        [warning],
    )
    assert needless_marks(compare(WRONG, TRUTH), reading) == 4
    assert silent_mistakes(compare(WRONG, TRUTH), reading) == ()
    # Read exactly and marked nowhere: nothing needless.
    assert needless_marks(compare(read(), TRUTH), said({"cells": {"c3": 0.99}})) == 0


def truth_of(hard: list[str] | None, world: str | None = None) -> dict[str, Any]:
    render: dict[str, Any] = {} if hard is None else {"hard": hard}
    if world:
        render["world"] = world
    return {**TRUTH, "render": render}


def test_the_bench_counts_trusted_photos_and_silent_mistakes_by_group() -> None:
    result = BenchResult()
    marked = said({"cells": {"c3": 0.3}, "slots": {"a5-a4": 0.3}, "gold": {"b4": 0.3}})
    result.add("exact", compare(read(), TRUTH), said(), truth_of([], "cycles"))
    result.add("marked", compare(WRONG, TRUTH), marked, truth_of(["glare"], "cycles"))
    result.add("silent", compare(WRONG, TRUTH), said(), truth_of(["warm", "tilt"], "raster"))
    result.miss("missed", truth_of(["tilt"], "raster"))
    summary = result.to_json()
    assert summary["board_photos"] == 4 and summary["exact_boards"] == 0.25
    assert summary["trusted"] == 0.5 and summary["silent_mistakes"] == 3
    groups = summary["groups"]
    assert set(groups) == {"hard", "others", "glare", "warm", "tilt", "world:cycles", "world:raster"}
    assert groups["others"]["trusted"] == 1.0 and groups["others"]["board_photos"] == 1
    assert groups["hard"]["board_photos"] == 3 and groups["hard"]["trusted"] == 1 / 3
    assert groups["tilt"]["silent_mistakes"] == 3 and groups["tilt"]["trusted"] == 0.0
    assert groups["world:cycles"]["trusted"] == 1.0 and groups["world:raster"]["trusted"] == 0.0
    assert [m["silent"] for m in summary["mistakes"]] == [[], ["c3", "a5-a4", "gold:b4"]]
    assert summary["needless_marks_per_photo"] == 0.0


def test_photos_without_render_tags_are_in_no_group() -> None:
    assert groups_of(TRUTH) == [] and groups_of({"render": {"seed": 1}}) == []
    assert groups_of(truth_of(None, "cycles")) == ["world:cycles"]
    assert groups_of(truth_of(["lens"])) == ["others"]


def test_the_bench_times_each_photo_by_the_clock_and_by_the_cpu() -> None:
    result = BenchResult()
    assert result.to_json()["cpu_median_s"] is None
    for _ in range(3):
        started = (time.perf_counter(), time.process_time())
        sum(i * i for i in range(20_000))  # some CPU work to measure
        result.timed(started)
    summary = result.to_json()
    assert len(result.seconds) == len(result.cpu_seconds) == 3
    assert summary["cpu_median_s"] > 0 and summary["median_s"] > 0
    assert summary["cpu_median_s"] == sorted(result.cpu_seconds)[1]
