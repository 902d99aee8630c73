"""The index build's progress: the steps a listener is told, the lines written every few seconds, and the
same index whether anyone listens or not."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

import bot.logs
from bot.knowledge import load_knowledge
from bot.logs import Step, Throttled
from bot.retrieval import artifacts
from bot.retrieval.artifacts import Manifest, build_index, load_index, make_index
from tests.conftest import KNOWLEDGE
from tests.support.fakes import FakeEmbedder


def test_the_listener_is_told_counts_that_only_grow_and_end_at_the_total(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(artifacts, "EMBED_BATCH", 50)
    steps: list[Step] = []
    index = make_index(load_knowledge(KNOWLEDGE), FakeEmbedder(), progress=steps.append)
    stages = list(dict.fromkeys(step.stage for step in steps))
    assert stages == ["cutting", "embedding chunks", "embedding sentences"]
    for stage in stages:
        counts = [step.done for step in steps if step.stage == stage]
        totals = {step.total for step in steps if step.stage == stage}
        assert len(totals) == 1 and counts[0] == 0 and counts[-1] == totals.pop()
        assert counts == sorted(counts) and len(set(counts)) == len(counts)
    chunks = [step for step in steps if step.stage == "embedding chunks"]
    assert len(chunks) > 3  # several batches, each told
    assert chunks[-1].total == len({text for text in _chunk_texts(index)})
    assert all(step.seconds_left is not None for step in chunks[1:])
    cut = [step for step in steps if step.stage == "cutting"][-1]
    assert f"{len(index.chunks):,} chunks" in cut.detail and "sections" in cut.detail


def _chunk_texts(index: artifacts.LoadedIndex) -> list[str]:
    from bot.retrieval.readings import embedded_text

    return [embedded_text(c, artifacts.english_of(index)) for c in index.chunks]


def test_a_build_with_no_listener_is_the_same_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(artifacts, "EMBED_BATCH", 50)
    knowledge = load_knowledge(KNOWLEDGE)
    quiet, followed = FakeEmbedder(), FakeEmbedder()
    build_index(knowledge, tmp_path / "quiet", quiet)
    build_index(knowledge, tmp_path / "followed", followed, progress=lambda step: None)
    assert len(quiet.calls) == 2  # one call for the chunks, one for the sentences, as before
    assert len(followed.calls) > 2
    for name in ("chunks.json", "sentences.npy"):
        assert (tmp_path / "quiet" / name).read_bytes() == (tmp_path / "followed" / name).read_bytes()
    one, two = (load_index(knowledge, tmp_path / d, FakeEmbedder(), rebuild=False) for d in ("quiet", "followed"))
    assert Manifest.read(tmp_path / "quiet").chunks == Manifest.read(tmp_path / "followed").chunks
    assert np.array_equal(one.faiss_index.reconstruct_n(0, one.faiss_index.ntotal),
                          two.faiss_index.reconstruct_n(0, two.faiss_index.ntotal))


def test_lines_are_written_every_few_seconds_and_at_the_end_of_a_stage_written_of() -> None:
    now = [0.0]
    written: list[str] = []
    throttled = Throttled(lambda step: written.append(step.line()), every=5.0, clock=lambda: now[0])
    for done in range(0, 11):
        now[0] = done * 2.0
        throttled(Step("embedding chunks", done * 1000, 10_000, "texts", seconds_left=(10 - done) * 2.0))
    assert written == ["embedding chunks 3,000/10,000 texts, 14 s left",
                       "embedding chunks 6,000/10,000 texts, 8 s left",
                       "embedding chunks 9,000/10,000 texts, 2 s left",
                       "embedding chunks 10,000/10,000 texts"]
    quick = Throttled(lambda step: written.append(step.line()), every=5.0, clock=lambda: now[0])
    quick(Step("cutting", 0, 3, "documents"))
    quick(Step("cutting", 3, 3, "documents"))
    assert len(written) == 4  # quick work leaves no line


def test_a_rebuild_at_start_logs_its_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(bot.logs, "PROGRESS_EVERY", 0.0)
    with caplog.at_level(logging.INFO, logger="bot.retrieval.artifacts"):
        load_index(load_knowledge(KNOWLEDGE), tmp_path / "index", FakeEmbedder(), rebuild=True)
    lines = [r.getMessage() for r in caplog.records if getattr(r, "stage", None) == "embedding chunks"]
    assert len(lines) >= 2 and lines[-1].startswith("embedding chunks ") and lines[-1].endswith(" texts")
    done, total = lines[-1].split()[2].split("/")
    assert done == total
