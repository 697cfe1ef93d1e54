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
    "vision": {"engine", "calibration"},
    "calibration": {"engine"},
    "webui": {"engine", "vision", "calibration"},
}
FORBIDDEN_THIRD_PARTY = {"engine": {"cv2", "flask", "numpy", "PIL"}}


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("package", sorted(PROJECT))
def test_package_imports_only_what_lies_below_it(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"{package}/ has no modules"
    for path in files:
        roots = imported_roots(path)
        wrong = (roots & PROJECT) - ALLOWED[package] - {package}
        assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"
        banned = roots & FORBIDDEN_THIRD_PARTY.get(package, set())
        assert not banned, f"{path.relative_to(ROOT)} imports {sorted(banned)}"


def test_importing_the_engine_loads_no_other_package() -> None:
    code = "import json, sys, engine; print(json.dumps(sorted(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    loaded = {name.split(".")[0] for name in json.loads(run.stdout)}
    assert "engine" in loaded
    assert not loaded & (PROJECT - {"engine"} | {"cv2", "flask", "numpy"}), sorted(loaded)
