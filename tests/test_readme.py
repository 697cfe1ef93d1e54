"""The README's pasted command output stays true: each complete example is run and compared."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```text\n\$ (?P<command>.+?)\n(?P<output>.*?)```", re.S)


def examples() -> list[tuple[str, str]]:
    found = [(m["command"], m["output"]) for m in BLOCK.finditer((ROOT / "README.md").read_text())]
    # Shortened examples (with "...") are illustrations, not transcripts.
    return [(command, output) for command, output in found if "..." not in output]


def test_the_readme_has_examples_to_check() -> None:
    assert len(examples()) >= 4


@pytest.mark.parametrize(("command", "output"), examples(), ids=lambda v: v[:40])
def test_readme_example_output_is_what_the_command_prints(command: str, output: str) -> None:
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    run = subprocess.run(
        ["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert run.stdout + run.stderr == output
