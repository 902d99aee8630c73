"""Knowledge that changes while the service runs: answered from within seconds, with no restart, on the
model's thread, embedding only what changed; a broken file leaves the knowledge in use as it is."""

from __future__ import annotations

import asyncio
import logging
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from prometheus_client import generate_latest

from bot.answering.assistant import Assistant
from bot.answering.in_use import AssistantInUse
from bot.answering.model_thread import ModelThread
from bot.answering.refresh import KnowledgeRefresh
from bot.api import create_app
from bot.config import Settings, load_settings
from bot.curation.service import EntryDraft
from bot.errors import EksBotError
from bot.knowledge.entries import Entry
from bot.knowledge.model import Note
from bot.metrics import Metrics
from bot.services import Services
from bot.storage import open_database
from tests.support.fakes import FakeEmbedder, lexical_model
from tests.support.knowledge_helpers import ASK_RUNBOOK, RUNBOOK

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


class Swaps(AssistantInUse):
    """The assistant in use, with every one it held: `in_use[-1]` is the one in use, `len(in_use)` how many."""

    def __init__(self, assistant: Assistant) -> None:
        super().__init__(assistant)
        self.held = [assistant]
        self.on_swap(self.held.append)

    def __getitem__(self, index: int) -> Assistant:
        return self.held[index]

    def __len__(self) -> int:
        return len(self.held)


@pytest.fixture
def in_use(live: Assistant) -> Swaps:
    return Swaps(live)


@pytest.fixture
def refresh(knowledge_copy: Path, in_use: Swaps) -> KnowledgeRefresh:
    return KnowledgeRefresh(knowledge_copy, in_use)


def add_doc(knowledge: Path, name: str = "team/ml-platform.md", text: str = DOC) -> Path:
    path = knowledge / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_nothing_changed_means_nothing_rebuilt(refresh: KnowledgeRefresh, in_use: Swaps,
                                               embedder: FakeEmbedder) -> None:
    embedder.calls.clear()
    assert refresh.check() is None
    assert len(in_use) == 1 and embedder.calls == []


def test_a_new_document_is_answered_and_only_its_text_is_embedded(
    refresh: KnowledgeRefresh, in_use: Swaps, knowledge_copy: Path, embedder: FakeEmbedder
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


def test_a_deleted_document_stops_being_cited(refresh: KnowledgeRefresh, in_use: Swaps,
                                              knowledge_copy: Path) -> None:
    path = add_doc(knowledge_copy)
    assert refresh.check() is not None and in_use[-1].answer(QUESTION, "en").answered
    path.unlink()
    assert refresh.check() is not None
    answer = in_use[-1].answer(QUESTION, "en")
    assert not answer.answered and all(c.doc_id != "team/ml-platform" for c in answer.citations)


def test_an_edited_section_is_answered_as_edited(refresh: KnowledgeRefresh, in_use: Swaps,
                                                 knowledge_copy: Path) -> None:
    path = add_doc(knowledge_copy)
    refresh.check()
    path.write_text(DOC.replace("Ganymede", "Callisto"), encoding="utf-8")
    assert refresh.check() is not None
    assert "Callisto" in in_use[-1].answer(QUESTION, "en").text


def test_a_quiz_file_with_an_error_is_skipped_and_named_and_the_rest_comes_in(
    refresh: KnowledgeRefresh, in_use: Swaps, knowledge_copy: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A quiz file missing its Answer: line holds nothing back while serving: it is named with its line, the
    new document goes in, and the quiz's other edition still answers."""
    quiz = knowledge_copy / "eks-training-quiz.en.md"
    text = quiz.read_text(encoding="utf-8")
    quiz.write_text(text.replace("Answer: B\n", "", 1), encoding="utf-8")
    add_doc(knowledge_copy)
    with caplog.at_level(logging.WARNING, logger="bot.answering.refresh"):
        fresh = refresh.check()
    assert fresh is not None and in_use[-1] is fresh
    assert fresh.answer(QUESTION, "en").answered
    (skipped,) = fresh.knowledge.skipped
    assert skipped.path == quiz and skipped.line is not None
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(f"{quiz}:{skipped.line}: " in message and skipped.reason in message for message in warned), warned
    assert sorted(fresh.knowledge.editions("eks-training-quiz")) == ["es"]
    assert refresh.status.skipped == 1
    quiz.write_text(text, encoding="utf-8")  # fixed: the edition comes back
    fixed = refresh.check()
    assert fixed is not None and sorted(fixed.knowledge.editions("eks-training-quiz")) == ["en", "es"]
    assert not fixed.knowledge.skipped and fixed.answer(QUESTION, "en").answered


def test_an_edition_that_stops_agreeing_is_skipped_not_the_one_in_use(
    refresh: KnowledgeRefresh, in_use: Swaps, knowledge_copy: Path
) -> None:
    quiz = knowledge_copy / "eks-training-quiz.en.md"
    quiz.write_text(quiz.read_text(encoding="utf-8").replace("Answer: B", "Answer: C", 1), encoding="utf-8")
    add_doc(knowledge_copy)
    fresh = refresh.check()
    assert fresh is not None and fresh.answer(QUESTION, "en").answered
    (skipped,) = fresh.knowledge.skipped
    assert skipped.path == quiz and "question 1 answers 'C' here but 'B'" in skipped.reason
    assert fresh.knowledge.editions("eks-training-quiz")["es"].question(1).answer == "B"  # type: ignore[union-attr]


class Extras:
    """Entries and notes kept elsewhere (the database), as the refresh reads them."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries

    def revision(self) -> int:
        return len(self.entries)

    def snapshot(self) -> tuple[int, list[Entry], list[Note]]:
        return len(self.entries), list(self.entries), []


ENTRY = Entry(id="e1", title=RUNBOOK["title"], body=RUNBOOK["body"], lang="en", topic=RUNBOOK["topic"])


def test_an_entry_goes_in_while_a_quiz_file_has_an_error(
    knowledge_copy: Path, in_use: Swaps
) -> None:
    refresh = KnowledgeRefresh(knowledge_copy, in_use, extras=Extras([ENTRY]))
    quiz = knowledge_copy / "eks-training-quiz.en.md"
    quiz.write_text(quiz.read_text(encoding="utf-8").replace("Answer: B\n", "", 1), encoding="utf-8")
    fresh = refresh.check()
    assert fresh is not None
    top = fresh.answer(ASK_RUNBOOK, "en").citations[0]
    assert top.doc_id == "entries/e1"


class FailingOnce(FakeEmbedder):
    """An embedder whose first call for the new document's text fails (memory, a closed model thread)."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    def encode(self, texts: list[str]) -> np.ndarray:
        if not self.failed and any("Ganymede" in text for text in texts):
            self.failed = True
            raise MemoryError("no memory for the new index")
        return super().encode(texts)


def test_a_failed_reload_is_tried_again_though_nothing_changed_since(
    knowledge_copy: Path, fake_index_dir: Path
) -> None:
    settings = load_settings(knowledge_dir=knowledge_copy, index_dir=fake_index_dir, auto_rebuild=False)
    in_use = Swaps(Assistant.from_settings(settings, embedder=FailingOnce(), model=lexical_model()))
    refresh = KnowledgeRefresh(knowledge_copy, in_use)
    add_doc(knowledge_copy)
    with pytest.raises(MemoryError):
        refresh.check()
    assert len(in_use) == 1
    fresh = refresh.check()  # no file changed since the failed attempt
    assert fresh is not None and fresh.answer(QUESTION, "en").answered


def test_a_failing_reload_is_retried_by_the_running_watch_and_counted(
    knowledge_copy: Path, fake_index_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = load_settings(knowledge_dir=knowledge_copy, index_dir=fake_index_dir, auto_rebuild=False)
    in_use = Swaps(Assistant.from_settings(settings, embedder=FailingOnce(), model=lexical_model()))
    refresh = KnowledgeRefresh(knowledge_copy, in_use, every=0.05)
    stop = threading.Event()
    watching = threading.Thread(target=refresh.run, args=(stop,), daemon=True)
    with caplog.at_level(logging.ERROR, logger="bot.answering.refresh"):
        watching.start()
        try:
            add_doc(knowledge_copy)
            deadline = time.monotonic() + 10
            while not in_use[-1].answer(QUESTION, "en").answered:
                assert time.monotonic() < deadline, "the failed reload was not tried again within 10 s"
                time.sleep(0.05)
        finally:
            stop.set()
            watching.join(timeout=5)
    assert refresh.status.failures == 1 and refresh.status.reloads == 1
    assert any("could not be indexed" in r.getMessage() for r in caplog.records)


class SlowEmbedder(FakeEmbedder):
    """Takes `per_text` seconds a text, as a real model does on a small node."""

    def __init__(self, per_text: float) -> None:
        super().__init__()
        self.per_text = per_text

    def encode(self, texts: list[str]) -> np.ndarray:
        time.sleep(self.per_text * len(texts))
        return super().encode(texts)


def test_a_question_asked_during_a_large_reload_waits_for_one_small_batch(
    knowledge_copy: Path, fake_index_dir: Path
) -> None:
    """Hundreds of new texts to embed: a model call asked meanwhile (a question's encoding) goes in between two
    small batches, not after the whole change."""
    embedder = SlowEmbedder(per_text=0.01)
    settings = load_settings(knowledge_dir=knowledge_copy, index_dir=fake_index_dir, auto_rebuild=False)
    in_use = Swaps(Assistant.from_settings(settings, embedder=embedder, model=lexical_model()))
    model = ModelThread()
    refresh = KnowledgeRefresh(knowledge_copy, in_use, model=model)
    for i in range(100):
        add_doc(knowledge_copy, f"team/doc-{i}.md", DOC.replace("ML platform", f"Team {i}").replace(
            "Ganymede", f"room {i} quarblefitz{i}").replace("Who we are", f"Who team {i} is"))
    reloading = threading.Thread(target=refresh.check, daemon=True)
    embedder.calls.clear()
    reloading.start()
    try:
        while not embedder.calls:
            time.sleep(0.001)
        waits = []
        while reloading.is_alive():
            asked = time.perf_counter()
            model.call(lambda: None)
            waits.append(time.perf_counter() - asked)
            time.sleep(0.01)
    finally:
        reloading.join(timeout=60)
        model.close()
    embedded = sum(len(call) for call in embedder.calls)
    assert embedded * embedder.per_text > 1.0, "the change was too small to tell"
    assert len(in_use) == 2 and max(waits) < 0.6, f"a model call waited {max(waits):.2f} s during the reload"


def test_an_unreadable_document_is_skipped_and_the_rest_comes_in(
    refresh: KnowledgeRefresh, in_use: Swaps, knowledge_copy: Path
) -> None:
    (knowledge_copy / "notes.md").write_bytes("Ma\xf1ana".encode("latin-1"))
    add_doc(knowledge_copy)
    fresh = refresh.check()
    assert fresh is not None and fresh.answer(QUESTION, "en").answered
    assert [s.path.name for s in fresh.knowledge.skipped] == ["notes.md"]


def test_the_service_answers_and_draws_from_the_new_knowledge(
    settings: Settings, services: Services, refresh: KnowledgeRefresh, in_use: Swaps,
    knowledge_copy: Path,
) -> None:
    client = TestClient(create_app(settings, services=services))
    assert client.post("/v1/query", json={"question": QUESTION, "lang": "en"}).json()["answered"] is False
    add_doc(knowledge_copy)
    fresh = refresh.check()
    assert fresh is not None
    services.in_use.swap(fresh)
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
    shutil.copy(Path(__file__).parent.parent / "docs" / "runbook" / "gpu-training-runbook.md", knowledge_copy)
    add_doc(knowledge_copy)
    deadline = time.monotonic() + 10
    while not watched.assistant.answer(QUESTION, "en").answered:
        assert time.monotonic() < deadline, "the new document was not answered from within 10 s"
        time.sleep(0.05)
    assert asyncio.run(watched.answers.answer(QUESTION, "en")).answered  # batched answers come from it too
    assert any(d.doc_id == "gpu-training-runbook" for d in watched.assistant.knowledge.documents)


def test_a_written_document_is_taken_in_without_waiting_for_the_next_look(
    knowledge_copy: Path, in_use: Swaps
) -> None:
    """The system tells of the write: with a look every minute, a new document is still answered at once."""
    refresh = KnowledgeRefresh(knowledge_copy, in_use, every=60)
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


def test_with_no_watching_the_entries_are_still_taken_once_the_database_opens(
    knowledge_copy: Path, settings: Settings, live: Assistant
) -> None:
    """EKSBOT_KNOWLEDGE_REFRESH_SECONDS=0 ("only at start"): the entries kept in the database are answered
    from once it is open; files written afterwards are not taken."""
    once = settings.model_copy(update={"knowledge_dir": knowledge_copy, "knowledge_refresh_seconds": 0})
    writer = Services.assemble(once, live, open_database(once))
    entry, _ = writer.curation.add(EntryDraft(**RUNBOOK), by="U-admin")
    writer.close()
    services = Services.starting(once, live)
    try:
        deadline = time.monotonic() + 10
        while not [c for c in services.assistant.answer(ASK_RUNBOOK, "en").citations
                   if c.doc_id == f"entries/{entry.id}"]:
            assert time.monotonic() < deadline, "the entry was not answered from within 10 s of the start"
            time.sleep(0.05)
        add_doc(knowledge_copy)
        time.sleep(1.0)
        assert not services.assistant.answer(QUESTION, "en").answered
    finally:
        services.close()


def test_the_metrics_count_reloads_failures_and_skipped_files(
    knowledge_copy: Path, fake_index_dir: Path
) -> None:
    settings = load_settings(knowledge_dir=knowledge_copy, index_dir=fake_index_dir, auto_rebuild=False)
    in_use = Swaps(Assistant.from_settings(settings, embedder=FailingOnce(), model=lexical_model()))
    refresh = KnowledgeRefresh(knowledge_copy, in_use)
    metrics = Metrics()
    metrics.knowledge.status = lambda: refresh.status
    (knowledge_copy / "notes.md").write_bytes(b"\0binary")
    add_doc(knowledge_copy)
    with pytest.raises(MemoryError):
        refresh.check()
    scraped = generate_latest(metrics.registry).decode()
    assert "eksbot_knowledge_reload_failures_total 1.0" in scraped and "eksbot_knowledge_behind 1.0" in scraped
    assert refresh.check() is not None
    scraped = generate_latest(metrics.registry).decode()
    assert "eksbot_knowledge_reloads_total 1.0" in scraped and "eksbot_knowledge_behind 0.0" in scraped
    assert "eksbot_knowledge_skipped_files 1.0" in scraped


def test_the_served_metrics_say_how_the_reloads_went(watched: Services, knowledge_copy: Path,
                                                     settings: Settings) -> None:
    client = TestClient(create_app(settings, services=watched))
    assert "eksbot_knowledge_reloads_total 0.0" in client.get("/metrics").text
    (knowledge_copy / "notes.md").write_bytes(b"\0binary")
    add_doc(knowledge_copy)
    deadline = time.monotonic() + 10
    while "eksbot_knowledge_reloads_total 1.0" not in (scraped := client.get("/metrics").text):
        assert time.monotonic() < deadline, "the reload was not counted within 10 s"
        time.sleep(0.05)
    assert "eksbot_knowledge_skipped_files 1.0" in scraped


def test_a_server_starts_with_a_quiz_file_that_has_an_error_and_names_it(
    knowledge_copy: Path, tmp_path: Path, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """One broken file must not keep a replica from starting (a rollout would stall on it) while the build
    refuses it with its file and line."""
    quiz = knowledge_copy / "eks-training-quiz.en.md"
    quiz.write_text(quiz.read_text(encoding="utf-8").replace("Answer: B\n", "", 1), encoding="utf-8")
    add_doc(knowledge_copy)
    starting = settings.model_copy(update={"knowledge_dir": knowledge_copy, "index_dir": tmp_path / "index",
                                           "auto_rebuild": True, "knowledge_refresh_seconds": 0})
    with caplog.at_level(logging.WARNING, logger="bot.answering.assistant"):
        services = Services.load(starting, embedder=FakeEmbedder())
    try:
        assert services.assistant.answer(QUESTION, "en").answered
        assert sorted(services.assistant.knowledge.editions("eks-training-quiz")) == ["es"]
        assert any(str(quiz) in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    finally:
        services.close()
    with pytest.raises(EksBotError, match="eks-training-quiz.en.md"):
        Assistant.from_settings(starting, embedder=FakeEmbedder())
