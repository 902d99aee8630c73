"""`eksbot db` and the database as the terminal shows it: migrations, status, one line when it is down."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli.main import main
from bot.storage.migrate import head_revision


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_upgrade_then_status_tell_the_revision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'data' / 'eksbot.db'}")
    code, out, err = run(["db", "status"], capsys)
    assert code == 0, err
    assert "reachable" in out and "none (run: eksbot db upgrade)" in out
    code, out, err = run(["db", "upgrade"], capsys)
    assert code == 0, err
    assert f"at revision {head_revision()}" in out
    assert f"revision {head_revision()}" in run(["db", "status"], capsys)[1]


@pytest.mark.parametrize("command", [["db", "status"], ["db", "upgrade"], ["quiz", "--lang", "en"]])
def test_an_unreachable_database_is_one_line_and_exit_code_1(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql+psycopg://nobody@127.0.0.1:1/none")
    code, out, err = run(command, capsys)
    assert code == 1 and out == ""
    assert err.startswith("eksbot: database error: ") and err.count("\n") == 1
    assert "refused" in err.lower() and "Traceback" not in err
