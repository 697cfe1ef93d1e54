"""Running ``armadora`` in-process, as the console script would, for the tests of every package."""

from __future__ import annotations

import sys

import pytest

from webui.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``armadora ARGV...`` in-process: (exit code, stdout, stderr).

    A ``SystemExit`` is turned into an exit code as the interpreter would do it
    (a message is printed to stderr and gives 1). Any other exception propagates,
    so a test fails on what would be a traceback in the terminal.
    """
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        if exit_.code is None:
            code = 0
        elif isinstance(exit_.code, int):
            code = exit_.code
        else:
            print(exit_.code, file=sys.stderr)
            code = 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err
