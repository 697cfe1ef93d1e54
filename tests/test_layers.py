"""Data flows one way (photo -> vision -> position -> engine -> page): each package imports only below it."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = {"engine", "vision", "calibration", "webui"}
# What each package may import of the project; the engine also stays free of OpenCV and Flask.
ALLOWED = {
    "engine": set(),
    "vision": {"engine"},
    "calibration": {"engine", "vision"},
    "webui": {"engine", "vision", "calibration"},
}
FORBIDDEN_THIRD_PARTY = {"engine": {"cv2", "flask", "numpy", "PIL"}}
# The one exception: the search kernel is compiled by numba, which works on numpy arrays. Only
# engine/kernel.py may import them, inside the function that compiles the kernel, so that
# importing the engine (or running it on the pure-Python fallback) loads neither.
LAZY_THIRD_PARTY = {Path("engine/kernel.py"): {"numba", "numpy"}}


def imported(path: Path, top_level_only: bool = False) -> set[str]:
    """The modules a file imports, or only those it imports when it is imported (not inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inner = {
        id(node)
        for func in ast.walk(tree)
        if top_level_only and isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(func)
    }
    modules = set()
    for node in ast.walk(tree):
        if id(node) in inner:
            continue
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def top_level_roots(path: Path) -> set[str]:
    return {module.split(".")[0] for module in imported(path, top_level_only=True)}


def imported_roots(path: Path) -> set[str]:
    return {module.split(".")[0] for module in imported(path)}


@pytest.mark.parametrize("package", sorted(PROJECT))
def test_package_imports_only_what_lies_below_it(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"{package}/ has no modules"
    for path in files:
        roots = imported_roots(path)
        wrong = (roots & PROJECT) - ALLOWED[package] - {package}
        assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"
        lazy = LAZY_THIRD_PARTY.get(path.relative_to(ROOT), set())
        banned = roots & FORBIDDEN_THIRD_PARTY.get(package, set()) - lazy
        assert not banned, f"{path.relative_to(ROOT)} imports {sorted(banned)}"
        assert not top_level_roots(path) & lazy, f"{path.relative_to(ROOT)} imports {sorted(lazy)} on import"


@pytest.mark.parametrize(
    "code",
    [
        "import engine",
        # The whole search, run on the pure-Python kernel: no numba, no numpy either.
        "import random, engine.search_commands, engine.players as p, engine.knowledge as v, engine.game as g;"
        "view = v.Knowledge.of(g.GameState.new(('orange', 'blue'), (7, 6, 6, 5, 5, 4, 4, 3)), 'orange');"
        "p.make_player('ismcts', 'python').choose(view, 0.01, random.Random())",
    ],
    ids=["engine", "search on the fallback"],
)
def test_importing_the_engine_loads_no_other_package(code: str) -> None:
    code += "; import json, sys; print(json.dumps(sorted(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    loaded = {name.split(".")[0] for name in json.loads(run.stdout)}
    assert "engine" in loaded
    assert not loaded & (PROJECT - {"engine"} | {"cv2", "flask", "numpy", "numba"}), sorted(loaded)
