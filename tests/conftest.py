"""Shared fixtures, by tier.

- Unit tests use the core's pieces directly (knowledge, fakes, a database).
- Adapter tests (HTTP, Slack, CLI) run the real surfaces over `services`: the real assistant, index and
  retrieval of the repository's knowledge, with the deterministic fake embedder (`tests/support/fakes.py`).
- Integration tests (marked `slow`) use the real model (`real_embedder`, `index_dir`, `assistant`,
  `real_services`) or start processes. `pytest -m "not slow"` loads no model: a test that asks for the
  real model without the `slow` mark is refused at collection.

PostgreSQL: `postgres_url` is the one way to a PostgreSQL database, and every test that uses it carries
the `postgres` marker (`-m "not postgres"` leaves them out). When the server is not reachable they skip,
or fail with EKSBOT_REQUIRE_POSTGRES=1 (as in CI).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from bot.config import PROJECT_ROOT, Settings, load_settings
from tests.support.quiz_helpers import Clock

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

    from bot.answering.answerability import Model
    from bot.answering.assistant import Assistant
    from bot.embedding.embedder import Embedder
    from bot.services import Services
    from bot.storage import Stores
    from tests.support.fakes import FakeEmbedder
    from tests.support.round_helpers import Kit
    from tests.support.slack_fake import FakeSlack, SlackSender

KNOWLEDGE = PROJECT_ROOT / "knowledge"
SEED = PROJECT_ROOT.parent / "shared" / "seeds" / "eks-training-quiz.es.txt"
DEV_QUERIES = PROJECT_ROOT.parent / "shared" / "eval" / "dev-queries.jsonl"
DEV_NEAR_NEGATIVES = PROJECT_ROOT.parent / "shared" / "eval" / "dev-near-negatives.jsonl"
OWN_QUERIES = PROJECT_ROOT / "tests" / "eval" / "queries.jsonl"
FIT = PROJECT_ROOT / "tests" / "eval" / "fit.jsonl"  # fits the answerability model (eksbot calibrate)
FIT_STYLES = PROJECT_ROOT / "tests" / "eval" / "fit-styles.jsonl"  # and these, in other writing styles
# and these, written by other authors from the knowledge alone, each in the styles of a kind of user
FIT_AUTHORS = tuple(sorted((PROJECT_ROOT / "tests" / "eval").glob("fit-authors-*.jsonl")))
FIT_FILES = (FIT, FIT_STYLES, *FIT_AUTHORS)  # what `make calibrate` fits on, in its order
TEST_DOCS = PROJECT_ROOT / "tests" / "docs"


def makefile_fit_lines() -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """The labelled files and `--docs` folders `make calibrate` fits on (the Makefile's `FIT_LINES`, its globs
    expanded as the shell does), in its order: the one list the bundled model is fitted on."""
    makefile = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^FIT_LINES = ((?:.*\\\n)*.*)$", makefile, re.MULTILINE)
    if found is None:
        raise LookupError("no FIT_LINES in the Makefile")
    words = found.group(1).replace("\\\n", " ").split()
    folders = tuple(PROJECT_ROOT / words[i + 1] for i, w in enumerate(words) if w == "--docs")
    files = tuple(path for i, w in enumerate(words) if w != "--docs" and (i == 0 or words[i - 1] != "--docs")
                  for path in (sorted(PROJECT_ROOT.glob(w)) if "*" in w else [PROJECT_ROOT / w]))
    return files, folders


# and the questions about public pages and runbooks the Makefile names, retrieved with its folders beside the quiz
# (never a held-out folder; holdout-c/, the pages of neighbouring tools, joined the fit after it was measured once,
# and fit-c/, fit-d/ and fit-e/ were written for it)
_FIT_LINES, FIT_DOC_FOLDERS = makefile_fit_lines()
FIT_DOC_FILES = tuple(path for path in _FIT_LINES if path.is_relative_to(TEST_DOCS))
HOLDOUT = PROJECT_ROOT / "tests" / "eval" / "holdout.jsonl"  # never fitted or tuned on
FOLLOWUPS = PROJECT_ROOT / "tests" / "eval" / "followups.jsonl"  # two-turn conversations
UNREACHABLE_DATABASE = "postgresql+psycopg://secret_user@127.0.0.1:1/db"  # nothing listens on port 1
REAL_MODEL = "real_embedder"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the PostgreSQL tests; refuse a test that would load the real model in the fast tier."""
    unmarked = []
    for item in items:
        names = getattr(item, "fixturenames", ())
        if "postgres_url" in names:
            item.add_marker(pytest.mark.postgres)
        if REAL_MODEL in names and item.get_closest_marker("slow") is None:
            unmarked.append(item.nodeid)
    if unmarked:
        raise pytest.UsageError("these tests load the real model but are not marked slow:\n" + "\n".join(unmarked))


# -- the real model (slow) -----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def real_index_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the session's real index is built; with an ONNX backend the model's export is made there too."""
    return tmp_path_factory.mktemp("index")


@pytest.fixture(scope="session")
def real_embedder(real_index_path: Path) -> Embedder:
    """The model EKSBOT_EMBEDDING_MODEL names (the bundled all-MiniLM-L6-v2 by default) on the backend
    EKSBOT_EMBEDDING_BACKEND names (ONNX by default: exported once per session)."""
    from bot.embedding.backends import load_embedder

    return load_embedder(load_settings(knowledge_dir=KNOWLEDGE, index_dir=real_index_path, auto_rebuild=True))


@pytest.fixture(scope="session")
def index_dir(real_index_path: Path, real_embedder: Embedder) -> Path:
    """The real index of the repository's knowledge, built once in a temporary directory."""
    return _built_index(real_index_path, real_embedder)


@pytest.fixture(scope="session")
def assistant(index_dir: Path, real_embedder: Embedder) -> Assistant:
    return _assistant(index_dir, real_embedder)


@pytest.fixture
def real_services(settings: Settings, index_dir: Path, assistant: Assistant) -> Iterator[Services]:
    """Like `services`, with the real model."""
    yield from _services(settings.model_copy(update={"index_dir": index_dir}), assistant)



@pytest.fixture
def client(settings: Settings, services: Services) -> TestClient:
    """The HTTP application over `services`, in-process."""
    from tests.support.api_helpers import client_for

    return client_for(settings, services)


# -- the fake embedder (fast) --------------------------------------------------------------------------


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    """A fresh fake embedder (its `calls` and `threads` are this test's); it loads `fake_index_dir`."""
    from tests.support.fakes import FakeEmbedder

    return FakeEmbedder()


@pytest.fixture(scope="session")
def fake_index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the repository's knowledge built with the fake embedder (any `FakeEmbedder()` loads it)."""
    from tests.support.fakes import FakeEmbedder

    return _built_index(tmp_path_factory.mktemp("fake-index"), FakeEmbedder())


@pytest.fixture(scope="session")
def fake_assistant(fake_index_dir: Path) -> Assistant:
    """The real assistant (knowledge, index, retrieval) over the fake embedder (`tests/support/fakes.py`), with
    an answerability model that reads only words (the fake's cosines mean nothing)."""
    from tests.support.fakes import FakeEmbedder, lexical_model

    return _assistant(fake_index_dir, FakeEmbedder(), lexical_model())


def _built_index(directory: Path, embedder: Embedder) -> Path:
    from bot.knowledge import load_knowledge
    from bot.retrieval.artifacts import build_index

    build_index(load_knowledge(KNOWLEDGE), directory, embedder)
    return directory


def _assistant(index_dir: Path, embedder: Embedder, model: Model | None = None) -> Assistant:
    from bot.answering.assistant import Assistant

    settings = load_settings(knowledge_dir=KNOWLEDGE, index_dir=index_dir, auto_rebuild=False)
    return Assistant.from_settings(settings, embedder=embedder, model=model)


@pytest.fixture
def settings(tmp_path: Path, fake_index_dir: Path) -> Settings:
    """Settings for one test: the fake-embedder index, a private data directory, no Slack, no tokens, and
    Spanish when nothing tells (whatever the locale the tests run in)."""
    return load_settings(
        knowledge_dir=KNOWLEDGE, index_dir=fake_index_dir, data_dir=tmp_path / "data", auto_rebuild=False,
        slack_bot_token=None, slack_signing_secret=None, slack_app_token=None, default_lang="es",
    )


@pytest.fixture
def services(settings: Settings, fake_assistant: Assistant) -> Iterator[Services]:
    """The services the surfaces run on: the fake-embedder assistant and a fresh SQLite database."""
    yield from _services(settings, fake_assistant)


@pytest.fixture
def services_without_database(settings: Settings, fake_assistant: Assistant) -> Iterator[Services]:
    """The services with a database that cannot be reached (PostgreSQL on a port where nothing listens)."""
    from bot.services import Services
    from bot.storage import Database

    built = Services.assemble(settings, fake_assistant, Database(UNREACHABLE_DATABASE))
    yield built
    built.close()


def _services(settings: Settings, assistant: Assistant) -> Iterator[Services]:
    from bot.services import Services
    from bot.storage import open_database

    built = Services.assemble(settings, assistant, open_database(settings))
    yield built
    built.close()


# -- knowledge, databases, time, logging ---------------------------------------------------------------


@pytest.fixture
def root_logger() -> Iterator[None]:
    """`serve` and `slack` set up logging for the process: put the test process's back afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)



@pytest.fixture
def knowledge_copy(tmp_path: Path) -> Path:
    """A writable copy of the knowledge directory."""
    target = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE, target)
    return target


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A new SQLite file (in a directory that does not exist yet)."""
    return f"sqlite:///{tmp_path / 'data' / 'eksbot.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, sqlite_url: str) -> str:
    """The test runs once on SQLite and once on the real PostgreSQL."""
    if request.param == "sqlite":
        return sqlite_url
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(db_url: str, clock: Clock) -> Iterator[Stores]:
    """The stores over a migrated database on `db_url`, with the test's clock."""
    from bot.storage import Database, Stores

    opened = Database(db_url, clock=clock)
    opened.upgrade()
    yield Stores(opened)
    opened.close()


def _postgres_url() -> str:
    return os.environ.get("EKSBOT_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@pytest.fixture(scope="session")
def postgres_server_url() -> str:
    """The PostgreSQL server tests use for real; skipped (failed with EKSBOT_REQUIRE_POSTGRES=1) when it is
    not reachable."""
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
def postgres_url(request: pytest.FixtureRequest, postgres_server_url: str) -> Iterator[str]:
    """A fresh schema on the real PostgreSQL for one test, dropped afterwards."""
    import sqlalchemy as sa

    assert request.node.get_closest_marker("postgres"), "mark a test that uses PostgreSQL with `postgres`"
    schema = f"t_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(postgres_server_url)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in postgres_server_url else "?"
    yield f"{postgres_server_url}{sep}options=-csearch_path%3D{schema}"
    with engine.begin() as conn:
        conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
    engine.dispose()


# -- Slack ---------------------------------------------------------------------------------------------


@pytest.fixture
def fake() -> Iterator[FakeSlack]:
    """A fake Slack on loopback, recording what the bot sends."""
    from tests.support.slack_fake import FakeSlack

    with FakeSlack() as server:
        yield server


@pytest.fixture
def slack(settings: Settings, services: Services, fake: FakeSlack) -> Iterator[SlackSender]:
    """The real application with Slack on, served by uvicorn, its Web API calls going to `fake`."""
    from tests.support.slack_fake import bot_server

    with bot_server(settings, services, fake) as sender:
        yield sender


SLACK_ADMIN = "UADMIN"  # the one maintainer of `admin_slack`


@pytest.fixture
def admin_slack(settings: Settings, services: Services, fake: FakeSlack) -> Iterator[SlackSender]:
    """`slack` with one maintainer, SLACK_ADMIN (EKSBOT_ADMINS)."""
    from tests.support.slack_fake import bot_server

    with bot_server(settings.model_copy(update={"admins_raw": SLACK_ADMIN}), services, fake) as sender:
        yield sender


# -- team rounds -----------------------------------------------------------------------------------------


@pytest.fixture
def kits(db_url: str, clock: Clock) -> Iterator[Callable[..., Kit]]:
    """Makes rounds and schedules on `db_url`, each on its own connection (a process or replica each)."""
    from tests.support.round_helpers import kit

    made: list[Kit] = []

    def make(**kwargs: Any) -> Kit:
        made.append(kit(db_url, clock, **kwargs))
        return made[-1]

    yield make
    for k in made:
        k.close()
