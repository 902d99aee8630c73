"""Shared fixtures: the real model and index (built once per session), fakes, and PostgreSQL."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import PROJECT_ROOT, Settings, load_settings

KNOWLEDGE = PROJECT_ROOT / "knowledge"
SEED = PROJECT_ROOT.parent / "shared" / "seeds" / "eks-training-quiz.es.txt"
DEV_QUERIES = PROJECT_ROOT.parent / "shared" / "eval" / "dev-queries.jsonl"
OWN_QUERIES = PROJECT_ROOT / "tests" / "eval" / "queries.jsonl"


@pytest.fixture(scope="session")
def real_embedder():  # type: ignore[no-untyped-def]
    from bot.embeddings import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder("all-MiniLM-L6-v2")


@pytest.fixture(scope="session")
def index_dir(tmp_path_factory: pytest.TempPathFactory, real_embedder) -> Path:  # type: ignore[no-untyped-def]
    """The real index of the repository's knowledge, built once in a temporary directory."""
    from bot.knowledge import load_knowledge
    from bot.retrieval.artifacts import build_index

    directory = tmp_path_factory.mktemp("index")
    build_index(load_knowledge(KNOWLEDGE), directory, real_embedder)
    return directory


@pytest.fixture(scope="session")
def assistant(index_dir: Path, real_embedder):  # type: ignore[no-untyped-def]
    from bot.answers import Assistant

    settings = load_settings(knowledge_dir=KNOWLEDGE, index_dir=index_dir, auto_rebuild=False)
    return Assistant.from_settings(settings, embedder=real_embedder)


@pytest.fixture(scope="session")
def fake_index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the repository's knowledge built with the fake embedder (`tests.fakes.FakeEmbedder()`)."""
    from bot.knowledge import load_knowledge
    from bot.retrieval.artifacts import build_index
    from tests.fakes import FakeEmbedder

    directory = tmp_path_factory.mktemp("fake-index")
    build_index(load_knowledge(KNOWLEDGE), directory, FakeEmbedder())
    return directory


@pytest.fixture
def knowledge_copy(tmp_path: Path) -> Path:
    """A writable copy of the knowledge directory."""
    target = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE, target)
    return target


@pytest.fixture
def settings(tmp_path: Path, index_dir: Path) -> Settings:
    """Settings for one test: the shared index, a private data directory, no Slack, no tokens."""
    return load_settings(
        knowledge_dir=KNOWLEDGE, index_dir=index_dir, data_dir=tmp_path / "data", auto_rebuild=False,
        slack_bot_token=None, slack_signing_secret=None, slack_app_token=None,
    )


def _postgres_url() -> str:
    return os.environ.get("EKSBOT_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@pytest.fixture(scope="session")
def postgres_server_url() -> str:
    """The PostgreSQL server tests use for real; skipped (failed in CI) when it is not reachable."""
    import sqlalchemy as sa

    url = _postgres_url()
    try:
        engine = sa.create_engine(url, connect_args={"connect_timeout": 3})
        with engine.connect() as conn:
            conn.execute(sa.text("select 1"))
        engine.dispose()
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
        reason = f"PostgreSQL not reachable at {url.split('@')[-1]} ({exc.__class__.__name__})"
        if os.environ.get("EKSBOT_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"{reason}, and EKSBOT_REQUIRE_POSTGRES=1 requires it")
        pytest.skip(reason)
    return url


@pytest.fixture
def postgres_url(postgres_server_url: str) -> Iterator[str]:
    """A fresh schema on the real PostgreSQL for one test, dropped afterwards."""
    import sqlalchemy as sa

    schema = f"t_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(postgres_server_url)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in postgres_server_url else "?"
    yield f"{postgres_server_url}{sep}options=-csearch_path%3D{schema}"
    with engine.begin() as conn:
        conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
    engine.dispose()


@pytest.fixture
def services(settings: Settings, assistant) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """The real assistant with a fresh SQLite database in the test's data directory."""
    from bot.services import Services
    from bot.storage import open_store

    built = Services.assemble(settings, assistant, open_store(settings))
    yield built
    built.close()


@pytest.fixture
def fake():  # type: ignore[no-untyped-def]
    """A fake Slack on loopback, recording what the bot sends."""
    from tests.slack_fake import FakeSlack

    with FakeSlack() as server:
        yield server


@pytest.fixture
def slack(settings: Settings, services, fake):  # type: ignore[no-untyped-def]
    """The real application with Slack on, served by uvicorn, its Web API calls going to `fake`."""
    from tests.slack_fake import bot_server

    with bot_server(settings, services, fake) as sender:
        yield sender
