"""Index builds share their vectors through the database: a build reads the vector of every text some build
embedded before with the same model, and embeds only the others (a new replica starts without embedding the
knowledge again); a database that fails or is slow only costs the build the embedding it would have done."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from bot.answering.assistant import Assistant
from bot.config import Settings
from bot.embedding.embedder import model_digest
from bot.knowledge import KnowledgeBase, load_knowledge
from bot.retrieval.artifacts import LoadedIndex, _rows_of, build_index, load_index, make_index
from bot.retrieval.shared_vectors import SharedVectors, text_digest
from bot.services import CommandServices
from bot.storage import Database, VectorStore
from tests.conftest import KNOWLEDGE, UNREACHABLE_DATABASE
from tests.support.fakes import FakeEmbedder, lexical_model

OLD = "EFA"
NEW_WORDS = "quokkatron zephyrine"


@pytest.fixture
def database(db_url: str) -> Iterator[Database]:
    """A migrated database on SQLite and on the real PostgreSQL."""
    opened = Database(db_url)
    opened.upgrade()
    yield opened
    opened.close()


@pytest.fixture
def shared(database: Database) -> SharedVectors:
    return SharedVectors(VectorStore(database))


def embedded(embedder: FakeEmbedder) -> list[str]:
    return [text for call in embedder.calls for text in call]


def same_vectors(one: LoadedIndex, other: LoadedIndex) -> bool:
    return np.array_equal(_rows_of(one.faiss_index), _rows_of(other.faiss_index)) and np.array_equal(
        np.asarray(one.sentence_vectors), np.asarray(other.sentence_vectors))


def test_a_second_replica_embeds_nothing_another_embedded_and_builds_the_same_index(
        shared: SharedVectors, tmp_path: Path) -> None:
    knowledge = load_knowledge(KNOWLEDGE)
    first, second = FakeEmbedder(), FakeEmbedder()
    build_index(knowledge, tmp_path / "one", first, shared=shared)
    build_index(knowledge, tmp_path / "two", second, shared=shared)
    assert len(embedded(first)) > 100
    assert second.calls == []
    alone = FakeEmbedder()
    assert same_vectors(load_index(knowledge, tmp_path / "two", alone, rebuild=False),
                        make_index(knowledge, alone))


def test_a_changed_text_is_the_only_one_embedded(shared: SharedVectors, knowledge_copy: Path) -> None:
    make_index(load_knowledge(knowledge_copy), FakeEmbedder(), shared=shared)
    page = knowledge_copy / "eks-training-quiz.en.md"
    text = page.read_text(encoding="utf-8")
    assert text.count(OLD) > 1
    page.write_text(text.replace(OLD, f"{OLD} {NEW_WORDS}", 1), encoding="utf-8")
    changed = load_knowledge(knowledge_copy)
    replica = FakeEmbedder()
    index = make_index(changed, replica, shared=shared)
    texts = embedded(replica)
    assert texts and len(texts) <= 4
    assert all(NEW_WORDS in text for text in texts)
    assert same_vectors(index, make_index(changed, FakeEmbedder()))


def test_another_model_or_backend_embeds_everything_again(shared: SharedVectors) -> None:
    knowledge = load_knowledge(KNOWLEDGE)
    first = FakeEmbedder()
    make_index(knowledge, first, shared=shared)
    other_model, other_backend = FakeEmbedder(model_id="fake-embedder@2"), FakeEmbedder(backend="onnx-int8")
    make_index(knowledge, other_model, shared=shared)
    make_index(knowledge, other_backend, shared=shared)
    assert sorted(embedded(other_model)) == sorted(embedded(other_backend)) == sorted(embedded(first))


def test_a_damaged_stored_vector_is_embedded_again(database: Database) -> None:
    knowledge = load_knowledge(KNOWLEDGE)
    first = FakeEmbedder()
    make_index(knowledge, first)
    texts = embedded(first)
    damaged = [(text_digest(text), 384, np.zeros(8, dtype="<f4").tobytes()) for text in texts[::2]]
    damaged += [(text_digest(text), 384, np.full(384, np.nan, dtype="<f4").tobytes()) for text in texts[1::2]]
    VectorStore(database).keep(model_digest(first), damaged)
    replica = FakeEmbedder()
    index = make_index(knowledge, replica, shared=SharedVectors(VectorStore(database)))
    assert sorted(embedded(replica)) == sorted(texts)
    assert same_vectors(index, make_index(knowledge, FakeEmbedder()))


def test_a_refresh_reads_the_text_another_replica_embedded(shared: SharedVectors, knowledge_copy: Path) -> None:
    before = load_knowledge(knowledge_copy)
    serving = Assistant(make_index(before, FakeEmbedder()), FakeEmbedder(), model=lexical_model())
    (knowledge_copy / "maintenance.md").write_text(
        f"# Maintenance\n\n## Window\n\nThe window of cluster {NEW_WORDS} starts on Sunday at 03:00 UTC.\n",
        encoding="utf-8")
    after = load_knowledge(knowledge_copy)
    make_index(after, FakeEmbedder(), shared=shared)  # another replica took the change first
    replica = FakeEmbedder()
    fresh = serving.with_knowledge(after, replica, shared=shared)
    assert replica.calls == []
    assert fresh.answer(f"When does the window of cluster {NEW_WORDS} start?").citations


class Failing:
    """A store that is down: every call raises, as the driver does."""

    def __init__(self) -> None:
        self.calls = 0

    def vectors(self, model: str, digests: Sequence[str]) -> list[tuple[str, int, bytes]]:
        self.calls += 1
        raise ConnectionError("connection refused")

    def keep(self, model: str, rows: Sequence[tuple[str, int, bytes]]) -> None:
        self.calls += 1
        raise ConnectionError("connection refused")


class Hanging(Failing):
    """A store that never answers."""

    def __init__(self) -> None:
        super().__init__()
        self.released = threading.Event()

    def vectors(self, model: str, digests: Sequence[str]) -> list[tuple[str, int, bytes]]:
        self.calls += 1
        self.released.wait(30)
        return []


def test_an_unreachable_database_falls_back_to_embedding_with_one_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    knowledge = load_knowledge(KNOWLEDGE)
    down = Database(UNREACHABLE_DATABASE)
    embedder = FakeEmbedder()
    with caplog.at_level(logging.WARNING, logger="bot.retrieval.shared_vectors"):
        manifest = build_index(knowledge, tmp_path / "index", embedder, shared=SharedVectors(VectorStore(down)))
    down.close()
    assert manifest.chunks > 0
    alone = FakeEmbedder()
    make_index(knowledge, alone)
    assert sorted(embedded(embedder)) == sorted(embedded(alone))
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "embedded here" in warnings[0].getMessage()


@pytest.mark.parametrize("store", [Failing, Hanging])
def test_a_failing_or_hanging_store_is_asked_once_and_the_build_is_as_without_it(
        store: type[Failing], caplog: pytest.LogCaptureFixture) -> None:
    knowledge = load_knowledge(KNOWLEDGE)
    source = store()
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="bot.retrieval.shared_vectors"):
        index = make_index(knowledge, FakeEmbedder(), shared=SharedVectors(source, timeout=0.3))
    assert time.monotonic() - started < 5
    if isinstance(source, Hanging):
        source.released.set()
    assert source.calls == 1
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1
    assert same_vectors(index, make_index(knowledge, FakeEmbedder()))


def test_a_command_shares_vectors_only_through_a_database_that_exists(tmp_path: Path) -> None:
    from bot.config import load_settings

    url = f"sqlite:///{tmp_path / 'data' / 'eksbot.db'}"
    settings = load_settings(knowledge_dir=KNOWLEDGE, index_dir=tmp_path / "index", database_url=url)
    with CommandServices(settings) as services:
        assert services.shared_vectors() is None  # no file is made to keep vectors in
    assert not (tmp_path / "data" / "eksbot.db").exists()
    Database(url).upgrade()
    knowledge: KnowledgeBase = load_knowledge(KNOWLEDGE)
    with CommandServices(settings) as services:
        shared = services.shared_vectors()
        assert shared is not None
        make_index(knowledge, FakeEmbedder(), shared=shared)
        again = FakeEmbedder()
        make_index(knowledge, again, shared=shared)
    assert again.calls == []
    with CommandServices(settings.model_copy(update={"share_vectors": False})) as services:
        assert services.shared_vectors() is None


def test_eksbot_index_build_reads_what_an_earlier_build_kept_in_the_database(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import bot.embedding.backends
    from tests.support.cli_helpers import run

    embedders: list[FakeEmbedder] = []

    def load_embedder(_settings: object) -> FakeEmbedder:
        embedders.append(FakeEmbedder())
        return embedders[-1]

    monkeypatch.setattr(bot.embedding.backends, "load_embedder", load_embedder)
    monkeypatch.setenv("EKSBOT_KNOWLEDGE_DIR", str(KNOWLEDGE))
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'data' / 'eksbot.db'}")
    Database(f"sqlite:///{tmp_path / 'data' / 'eksbot.db'}").upgrade()
    for name in ("one", "two"):
        code, out, _ = run(["--index-dir", str(tmp_path / name), "index", "build"], capsys)
        assert code == 0 and out.startswith("index built in ")
    assert embedded(embedders[0]) and embedders[1].calls == []
    monkeypatch.setenv("DATABASE_URL", UNREACHABLE_DATABASE)
    code, out, _ = run(["--index-dir", str(tmp_path / "three"), "index", "build"], capsys)
    assert code == 0 and out.startswith("index built in ")
    assert sorted(embedded(embedders[2])) == sorted(embedded(embedders[0]))


def test_a_server_starting_on_a_stale_index_reads_what_another_replica_kept(
        tmp_path: Path, settings: Settings) -> None:
    from bot.services import Services

    url = f"sqlite:///{tmp_path / 'shared' / 'eksbot.db'}"
    Database(url).upgrade()
    starting = settings.model_copy(update={"index_dir": tmp_path / "index", "auto_rebuild": True,
                                           "knowledge_refresh_seconds": 0, "database_url": url})
    first, second = FakeEmbedder(), FakeEmbedder()
    Services.load(starting, embedder=first).close()
    Services.load(starting.model_copy(update={"index_dir": tmp_path / "other"}), embedder=second).close()
    assert embedded(first) and second.calls == []
