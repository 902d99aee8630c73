"""`eksbot index build` and `eksbot knowledge import` show their progress on stderr: lines every few seconds
when stderr is not a terminal (a CI log, `kubectl logs`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import bot.embedding.backends
import bot.logs
from bot.retrieval import artifacts
from bot.retrieval.artifacts import Manifest
from tests.conftest import KNOWLEDGE
from tests.support.cli_helpers import run
from tests.support.fakes import FakeEmbedder

LINE = re.compile(r"^eksbot: (cutting|embedding chunks|embedding sentences) ([\d,]+)/([\d,]+) (documents|texts)")


def test_index_build_prints_progress_lines_off_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(bot.logs, "PROGRESS_EVERY", 0.0)
    monkeypatch.setattr(artifacts, "EMBED_BATCH", 50)
    monkeypatch.setattr(bot.embedding.backends, "load_embedder", lambda _settings: FakeEmbedder())
    monkeypatch.setenv("EKSBOT_KNOWLEDGE_DIR", str(KNOWLEDGE))
    code, out, err = run(["--index-dir", str(tmp_path / "index"), "index", "build"], capsys)
    assert code == 0 and out.startswith("index built in ")
    found = [LINE.match(line) for line in err.splitlines()]
    assert found and all(found), err
    embedded = [(int(m[2].replace(",", "")), int(m[3].replace(",", "")))
                for m in found if m and m[1] == "embedding chunks"]
    assert len(embedded) > 3 and [d for d, _ in embedded] == sorted(d for d, _ in embedded)
    assert embedded[-1] == (embedded[-1][1], embedded[-1][1])
    assert any(line.endswith(" s left") for line in err.splitlines())
    assert Manifest.read(tmp_path / "index").chunks > 0


def test_a_quick_build_prints_no_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(bot.embedding.backends, "load_embedder", lambda _settings: FakeEmbedder())
    monkeypatch.setenv("EKSBOT_KNOWLEDGE_DIR", str(KNOWLEDGE))
    code, _, err = run(["--index-dir", str(tmp_path / "index"), "index", "build"], capsys)
    assert code == 0 and err == ""  # under PROGRESS_EVERY seconds: nothing to follow


def test_knowledge_import_prints_progress_lines_off_a_terminal(knowledge_copy: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(bot.logs, "PROGRESS_EVERY", 0.0)
    monkeypatch.setenv("EKSBOT_KNOWLEDGE_DIR", str(knowledge_copy))
    source = next(KNOWLEDGE.rglob("*.md"))
    code, _, err = run(["knowledge", "import", str(source)], capsys)
    assert code == 0
    lines = err.splitlines()
    assert lines[0] == "eksbot: staging 0/2 files" and "eksbot: staging 2/2 files" in lines  # the files already there
    assert "eksbot: reading 1/1 files" in lines and "eksbot: checking 1/1 knowledge directories" in lines
