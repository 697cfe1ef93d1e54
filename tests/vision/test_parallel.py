"""A photo's work spread over threads: the same results in the same order, errors raised as a loop
raises them, the number of threads chosen by the environment, and a photo read the same on one
thread or many."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from console import run

import vision.parallel as parallel
from vision.parallel import THREADS_ENV, both, chosen_threads, each, threads
from vision.scan import scan

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"


@pytest.mark.parametrize("workers", [1, 2, 4, 16])
def test_each_gives_the_results_in_the_order_of_the_items(workers: int) -> None:
    # The first items take longest: on many threads they end last, and still come back first.
    def slow_square(n: int) -> int:
        time.sleep(0.002 * (10 - n))
        return n * n

    assert each(slow_square, range(10), workers=workers) == [n * n for n in range(10)]


def test_each_works_on_several_threads_at_once() -> None:
    seen: set[int] = set()

    def note(_: int) -> None:
        seen.add(threading.get_ident())
        time.sleep(0.01)

    each(note, range(8), workers=4)
    assert len(seen) > 1
    seen.clear()
    each(note, range(8), workers=1)
    assert seen == {threading.get_ident()}


def test_each_raises_the_error_an_item_raised() -> None:
    def fail_on_three(n: int) -> int:
        if n == 3:
            raise KeyError(n)
        return n

    with pytest.raises(KeyError):
        each(fail_on_three, range(6), workers=3)
    assert each(fail_on_three, [], workers=3) == []


def test_both_gives_both_results_and_raises_either_error() -> None:
    assert both(lambda: 1, lambda: "two", workers=2) == (1, "two")
    assert both(lambda: 1, lambda: "two", workers=1) == (1, "two")
    with pytest.raises(ZeroDivisionError):
        both(lambda: 1 / 0, lambda: 2, workers=2)
    with pytest.raises(ZeroDivisionError):
        both(lambda: 2, lambda: 1 / 0, workers=2)


def test_the_environment_chooses_the_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_ENV, "3")
    assert threads() == chosen_threads() == 3
    monkeypatch.setenv(THREADS_ENV, "")
    assert chosen_threads() is None
    monkeypatch.setattr("engine.workers.cores", lambda: 2)
    assert threads() == 2
    monkeypatch.setattr("engine.workers.cores", lambda: 64)
    assert threads() == parallel.MOST_THREADS


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5"])
def test_a_wrong_number_of_threads_is_named(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(THREADS_ENV, value)
    with pytest.raises(ValueError, match=f"{THREADS_ENV} must be a whole number of threads, 1 or more"):
        threads()


def test_the_command_refuses_a_wrong_number_of_threads_before_it_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(THREADS_ENV, "many")
    code, _, err = run(capsys, "bench", "scan", str(tmp_path))
    assert code == 2 and f"armadora: {THREADS_ENV} must be a whole number of threads" in err
    monkeypatch.setenv(THREADS_ENV, "2")
    code, _, err = run(capsys, "bench", "scan", str(tmp_path), "--threads", "0")
    assert code == 2 and "--threads takes 1 or more, not 0" in err


@pytest.mark.slow
@pytest.mark.parametrize("unknown", [False, True], ids=["reference", "without-profile"])
def test_a_photo_reads_the_same_on_one_thread_and_on_four(
    monkeypatch: pytest.MonkeyPatch, unknown: bool
) -> None:
    # Read as the reference kit, and as a copy without a profile (its looks improvised from the
    # photo: the way that spreads most of its work over the threads).
    data = (SAMPLES / "samples-0001.jpg").read_bytes()
    readings = []
    for count in ("1", "4"):
        monkeypatch.setenv(THREADS_ENV, count)
        reading = scan(data, as_unknown=unknown).to_json()
        del reading["timing_ms"]
        readings.append(reading)
    assert readings[0] == readings[1]
    assert readings[0]["position"]["warriors"]
