"""Running the command line in-process, as a person would from a shell."""

from __future__ import annotations

import pytest

from bot.cli.main import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`eksbot ARGV…`: the exit code, and what it printed on stdout and stderr."""
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err
