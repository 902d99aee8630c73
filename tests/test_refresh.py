"""Knowledge that changes while the service runs: answered from within seconds, with no restart, on the
model's thread, embedding only what changed; a broken file leaves the knowledge in use as it is."""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from bot.answering.assistant import Assistant
from bot.answering.refresh import KnowledgeRefresh
from bot.api import create_app
from bot.config import Settings, load_settings
from bot.services import Services
from tests.fakes import FakeEmbedder, lexical_model

QUESTION = "When does the ML platform team hold its office hours?"
DOC = """---
title: ML platform team
source_url: https://wiki.example.com/ml-platform
---

Who we are and how to reach us.

## Office hours

The ML platform team holds office hours every Thursday at 15:00 in the Ganymede room.
"""


@pytest.fixture
def embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def live(knowledge_copy: Path, fake_index_dir: Path, embedder: FakeEmbedder) -> Assistant:
    """An assistant over a knowledge directory the test may change."""
    settings = load_settings(knowledge_dir=knowledge_copy, index_dir=fake_index_dir, auto_rebuild=False)
    return Assistant.from_settings(settings, embedder=embedder, model=lexical_model())


@pytest.fixture
def in_use(live: Assistant) -> list[Assistant]:
    return [live]


@pytest.fixture
def refresh(knowledge_copy: Path, in_use: list[Assistant]) -> KnowledgeRefresh:
    return KnowledgeRefresh(knowledge_copy, lambda: in_use[-1], in_use.append)


def add_doc(knowledge: Path, name: str = "team/ml-platform.md", text: str = DOC) -> Path:
    path = knowledge / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_nothing_changed_means_nothing_rebuilt(refresh: KnowledgeRefresh, in_use: list[Assistant],
                                               embedder: FakeEmbedder) -> None:
    embedder.calls.clear()
    assert refresh.check() is None
    assert len(in_use) == 1 and embedder.calls == []


def test_a_new_document_is_answered_and_only_its_text_is_embedded(
    refresh: KnowledgeRefresh, in_use: list[Assistant], knowledge_copy: Path, embedder: FakeEmbedder
) -> None:
    before = in_use[0]
    assert not before.answer(QUESTION, "en").answered
    add_doc(knowledge_copy)
    embedder.calls.clear()
    fresh = refresh.check()
    assert fresh is not None and in_use[-1] is fresh
    answer = fresh.answer(QUESTION, "en")
    assert answer.answered and "Ganymede" in answer.text
    top = answer.citations[0]
    assert (top.section, top.url, top.doc_id) == (
        "ML platform team › Office hours", "https://wiki.example.com/ml-platform", "team/ml-platform")
    embedded = [text for call in embedder.calls for text in call]
    assert embedded and all("ML platform" in text or "Ganymede" in text or "reach us" in text for text in embedded)
    assert not before.answer(QUESTION, "en").answered  # a question in flight on the old assistant is unchanged


def test_a_deleted_document_stops_being_cited(refresh: KnowledgeRefresh, in_use: list[Assistant],
                                              knowledge_copy: Path) -> None:
    path = add_doc(knowledge_copy)
    assert refresh.check() is not None and in_use[-1].answer(QUESTION, "en").answered
    path.unlink()
    assert refresh.check() is not None
    answer = in_use[-1].answer(QUESTION, "en")
    assert not answer.answered and all(c.doc_id != "team/ml-platform" for c in answer.citations)


def test_an_edited_section_is_answered_as_edited(refresh: KnowledgeRefresh, in_use: list[Assistant],
                                                 knowledge_copy: Path) -> None:
    path = add_doc(knowledge_copy)
    refresh.check()
    path.write_text(DOC.replace("Ganymede", "Callisto"), encoding="utf-8")
    assert refresh.check() is not None
    assert "Callisto" in in_use[-1].answer(QUESTION, "en").text


def test_a_broken_quiz_file_keeps_the_knowledge_in_use(refresh: KnowledgeRefresh, in_use: list[Assistant],
                                                       knowledge_copy: Path, caplog: pytest.LogCaptureFixture) -> None:
    quiz = knowledge_copy / "eks-training-quiz.en.md"
    text = quiz.read_text(encoding="utf-8")
    add_doc(knowledge_copy)
    quiz.write_text(text.replace("Answer: B", "Answer: Z", 1), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="bot.answering.refresh"):
        assert refresh.check() is None
    assert len(in_use) == 1
    assert any("eks-training-quiz.en.md" in r.getMessage() for r in caplog.records)
    quiz.write_text(text, encoding="utf-8")  # fixed: the new document comes in with it
    assert refresh.check() is not None and in_use[-1].answer(QUESTION, "en").answered


def test_an_unreadable_document_is_skipped_and_the_rest_comes_in(
    refresh: KnowledgeRefresh, in_use: list[Assistant], knowledge_copy: Path
) -> None:
    (knowledge_copy / "notes.md").write_bytes("Ma\xf1ana".encode("latin-1"))
    add_doc(knowledge_copy)
    fresh = refresh.check()
    assert fresh is not None and fresh.answer(QUESTION, "en").answered
    assert [s.path.name for s in fresh.knowledge.skipped] == ["notes.md"]


def test_the_service_answers_and_draws_from_the_new_knowledge(
    settings: Settings, services: Services, refresh: KnowledgeRefresh, in_use: list[Assistant],
    knowledge_copy: Path,
) -> None:
    client = TestClient(create_app(settings, services=services))
    assert client.post("/v1/query", json={"question": QUESTION, "lang": "en"}).json()["answered"] is False
    add_doc(knowledge_copy)
    fresh = refresh.check()
    assert fresh is not None
    services.swap_assistant(fresh)
    body = client.post("/v1/query", json={"question": QUESTION, "lang": "en"}).json()
    assert body["answered"] is True and body["citations"][0]["section"] == "ML platform team › Office hours"
    assert services.quiz.knowledge is fresh.knowledge
    metrics = client.get("/metrics").text
    assert f"eksbot_index_chunks {float(len(fresh.index.chunks))}" in metrics


@pytest.fixture
def watched(knowledge_copy: Path, settings: Settings, live: Assistant) -> Iterator[Services]:
    """The services as a server starts them, watching the knowledge directory every 0.1 s."""
    watching = settings.model_copy(update={"knowledge_dir": knowledge_copy, "knowledge_refresh_seconds": 0.1})
    services = Services.starting(watching, live)
    yield services
    services.close()


def test_a_running_service_answers_from_a_dropped_in_document_within_seconds(
    watched: Services, knowledge_copy: Path
) -> None:
    shutil.copy(Path(__file__).parent / "docs" / "runbook" / "gpu-training-runbook.md", knowledge_copy)
    add_doc(knowledge_copy)
    deadline = time.monotonic() + 10
    while not watched.assistant.answer(QUESTION, "en").answered:
        assert time.monotonic() < deadline, "the new document was not answered from within 10 s"
        time.sleep(0.05)
    assert watched.batcher.assistant is watched.assistant
    assert any(d.doc_id == "gpu-training-runbook" for d in watched.assistant.knowledge.documents)


def test_a_written_document_is_taken_in_without_waiting_for_the_next_look(
    knowledge_copy: Path, in_use: list[Assistant]
) -> None:
    """The system tells of the write: with a look every minute, a new document is still answered at once."""
    refresh = KnowledgeRefresh(knowledge_copy, lambda: in_use[-1], in_use.append, every=60)
    stop = threading.Event()
    watching = threading.Thread(target=refresh.run, args=(stop,), daemon=True)
    watching.start()
    try:
        time.sleep(0.3)  # the watch has begun
        add_doc(knowledge_copy)
        deadline = time.monotonic() + 5
        while not in_use[-1].answer(QUESTION, "en").answered:
            assert time.monotonic() < deadline, "the written document was not taken in within 5 s"
            time.sleep(0.05)
    finally:
        stop.set()
        watching.join(timeout=5)
    assert not watching.is_alive()
