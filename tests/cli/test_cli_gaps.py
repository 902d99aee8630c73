"""`eksbot gaps`: the knowledge gaps in the terminal (no model loaded), as a table or JSON lines."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.cli.main import main
from bot.storage import Database, GapStore
from tests.conftest import UNREACHABLE_DATABASE


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A migrated database with one gap seen twice today, one uncovered term, and one of 100 days ago."""
    url = f"sqlite:///{tmp_path / 'eksbot.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    with Database(url, clock=lambda: datetime.now(UTC) - timedelta(days=100)) as old:
        old.upgrade()
        GapStore(old).add(kind="unanswered", lang="en", key="ray serv", text="How do I use Ray Serve?")
    with Database(url) as database:
        store = GapStore(database)
        for _ in range(2):
            store.add(kind="unanswered", lang="es", key="paell recet", text="¿Receta de paella?")
        store.add(kind="uncovered", lang="en", key="pytorchjob", text="PyTorchJob",
                      example="MPIJob or PyTorchJob?", question=13)
    return url


def test_gaps_as_json_lines_most_frequent_first(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["gaps", "--json"], capsys)
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["kind"], r["text"], r["count"]) for r in rows] == [
        ("unanswered", "¿Receta de paella?", 2), ("uncovered", "PyTorchJob", 1)]  # not the 100-day-old one
    assert rows[1]["example"] == "MPIJob or PyTorchJob?" and rows[1]["question"] == 13
    code, out, _ = run(["gaps", "--json", "--kind", "uncovered"], capsys)
    assert [json.loads(line)["text"] for line in out.splitlines()] == ["PyTorchJob"]


def test_gaps_as_a_table_and_pruning(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["gaps", "--prune"], capsys)
    assert code == 0, err
    assert "paella" in out and "PyTorchJob" in out and "Ray Serve" not in out
    assert "1 gap(s) past the retention period forgotten" in out
    assert "…" not in out and "(e.g. MPIJob or PyTorchJob?)" in out  # written to a pipe, nothing is cut
    with Database(database) as opened:
        assert [g.text for g in GapStore(opened).listing(since=datetime(2000, 1, 1, tzinfo=UTC), limit=10)] == [
            "¿Receta de paella?", "PyTorchJob"]


def test_a_longer_retention_shows_older_gaps(
    database: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EKSBOT_GAPS_RETENTION_DAYS", "365")
    _, out, _ = run(["gaps", "--json"], capsys)
    assert "How do I use Ray Serve?" in out


@pytest.mark.parametrize(("argv", "message"), [(["gaps", "--limit", "0"], "--limit must be at least 1")])
def test_bad_options_are_one_line_and_exit_code_2(
    database: str, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(argv, capsys)
    assert (code, out) == (2, "") and err == f"eksbot: {message}\n"


def test_an_unreachable_database_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DATABASE_URL", UNREACHABLE_DATABASE)
    code, out, err = run(["gaps"], capsys)
    assert code == 1 and out == "" and err.startswith("eksbot: database error: ") and err.count("\n") == 1
