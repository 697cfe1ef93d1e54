"""The README and docs/ stay true: each pasted command's output is run and compared, the first
screen gives the two commands CI runs, and every link leads somewhere."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```text\n\$ (?P<command>.+?)\n(?P<output>.*?)```", re.S)
SHELL = re.compile(r"```sh\n(?P<lines>.*?)```", re.S)
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def examples() -> list[tuple[str, str, str]]:
    """(document, command, output) of each transcript: a ```text block whose first line is ``$ ...``."""
    found = [
        (path.relative_to(ROOT).as_posix(), m["command"], m["output"])
        for path in DOCUMENTS
        for m in BLOCK.finditer(path.read_text(encoding="utf-8"))
    ]
    # Shortened examples (with "...") are illustrations, not transcripts.
    return [example for example in found if "..." not in example[2]]


def test_the_readme_has_examples_to_check() -> None:
    assert len([e for e in examples() if e[0] == "README.md"]) >= 4
    assert {e[0] for e in examples()} >= {"README.md", "docs/engine-protocol.md"}


SLOW = re.compile(r"armadora (scan|suggest|engine|arena)\b")  # a photo read, or the search run


def _marked(example: tuple[str, str, str]) -> object:
    """A transcript as a test case, slow when it reads a photo or runs the search."""
    return pytest.param(*example, marks=[pytest.mark.slow] if SLOW.search(example[1]) else [])


@pytest.mark.parametrize(
    ("document", "command", "output"),
    [_marked(e) for e in examples()],
    ids=lambda v: v if v.endswith(".md") else v[:40],
)
def test_example_output_is_what_the_command_prints(document: str, command: str, output: str) -> None:
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    run = subprocess.run(
        ["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.stdout + run.stderr == output


def test_the_first_screen_gives_the_two_commands_and_ci_runs_the_second() -> None:
    first_screen = README.read_text(encoding="utf-8").split("\n## ", 1)[0]
    commands = [
        [line for line in m["lines"].splitlines() if line and not line.startswith("#")]
        for m in SHELL.finditer(first_screen)
    ]
    assert len(commands) == 2 and all(len(lines) == 1 for lines in commands), commands
    (serve,), (test,) = commands
    assert serve.startswith("python3 -m venv .venv && ") and serve.endswith(".venv/bin/armadora serve")
    assert test.startswith("python3 -m venv .venv && ") and test.endswith(".venv/bin/python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    install = test.split(" && ")[1]
    assert install in ci and ".venv/bin/python -m pytest" in ci


def _anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings, as GitHub makes them."""
    headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_every_link_leads_to_a_file_and_heading_that_exist(document: Path) -> None:
    for target in LINK.findall(document.read_text(encoding="utf-8")):
        if "://" in target:
            continue
        file, _, anchor = target.partition("#")
        path = (document.parent / file).resolve() if file else document
        assert path.exists(), f"{document.name} links to {target}, which does not exist"
        if anchor:
            assert anchor in _anchors(path), f"{document.name} links to {target}: no such heading"
