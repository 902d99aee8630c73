"""Faults made for real: PostgreSQL connections terminated and refused, a database that refuses connections
at start, a read-only and a full data directory, hostile knowledge dropped into a running server. Questions keep
being answered; the quiz gives 503 with Retry-After during the fault and works again within seconds of its end,
with nothing lost.

PostgreSQL is reached through a TCP proxy on loopback (`tests/support/tcp_proxy.py`) that the test takes down (every
connection cut, new ones refused) and brings back; the shared server itself is never stopped. The data
directories are small tmpfs mounts (root only: skipped with the reason elsewhere).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url

from bot.answering.assistant import Assistant
from bot.api import create_app
from bot.config import Settings
from bot.services import Services
from tests.support.tcp_proxy import TcpProxy

QUESTION = "How do I request EFA devices in a pod spec?"
RECOVERY = 5.0  # seconds: the quiz works again this soon after the database is back


@contextlib.contextmanager
def serving(settings: Settings, assistant: Assistant, **overrides: object) -> Iterator[TestClient]:
    """The real application, started as in production (the database opened in the background) over the
    fake-embedder assistant; yields once it answers questions."""
    configured = settings.model_copy(update={"rate_limit": 0, **overrides})
    app = create_app(configured, loader=lambda s: Services.starting(s, assistant))
    with TestClient(app) as client:
        wait_for(lambda: client.get("/readyz").status_code == 200, 30)
        yield client


def wait_for(check: Callable[[], bool], timeout: float) -> float:
    """Seconds until `check()` held; AssertionError after `timeout`."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"not within {timeout} s")
        time.sleep(0.05)
    return time.monotonic() - started


def play(client: TestClient, user: str, choice: str = "A") -> None:
    prompt = client.post("/v1/quiz/next", json={"user": user, "lang": "en"})
    assert prompt.status_code == 200, prompt.text
    graded = client.post("/v1/quiz/answer", json={"user": user, "attempt_id": prompt.json()["attempt_id"],
                                                  "choice": choice})
    assert graded.status_code == 200, graded.text


def quiz_calls(client: TestClient, user: str) -> list[Any]:  # the test client's responses
    return [client.post("/v1/quiz/next", json={"user": user, "lang": "en"}),
            client.get("/v1/quiz/stats", params={"user": user}),
            client.get("/v1/quiz/leaderboard"), client.get("/v1/quiz/questions")]


def assert_unavailable(response: Any) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"] == "5" and "database" in response.json()["error"]


# -- PostgreSQL --------------------------------------------------------------------------------------


@pytest.fixture
def proxied(postgres_url: str) -> Iterator[tuple[TcpProxy, str]]:
    """A proxy to the test's PostgreSQL schema, and the URL through it (with an application name of its own)."""
    url = make_url(postgres_url)
    proxy = TcpProxy((url.host or "127.0.0.1", url.port or 5432))
    name = f"eksbot-fault-{uuid.uuid4().hex[:8]}"
    through = url.set(host="127.0.0.1", port=proxy.port).update_query_dict({"application_name": name})
    yield proxy, through.render_as_string(hide_password=False)
    proxy.close()


def test_a_database_that_refuses_connections_at_start_is_retried_and_answers_never_wait(
    settings: Settings, fake_assistant: Assistant, proxied: tuple[TcpProxy, str]
) -> None:
    proxy, url = proxied
    proxy.refuse()
    with serving(settings, fake_assistant, database_url=url) as client:
        for _ in range(5):
            assert client.post("/v1/query", json={"question": QUESTION}).status_code == 200
        for response in quiz_calls(client, "erin"):
            assert_unavailable(response)
        database = client.get("/readyz/database")
        assert database.status_code == 503 and "database" in database.json()["reason"]
        time.sleep(1.5)  # several attempts fail meanwhile
        proxy.accept()
        recovered = wait_for(lambda: client.post("/v1/quiz/next", json={"user": "erin"}).status_code == 200,
                             RECOVERY)
        assert client.get("/readyz/database").status_code == 200
        play(client, "erin")
    print(f"quiz back {recovered:.2f} s after the database accepted connections")


def test_during_a_database_outage_questions_are_answered_and_the_quiz_recovers_with_nothing_lost(
    settings: Settings, fake_assistant: Assistant, proxied: tuple[TcpProxy, str], caplog: pytest.LogCaptureFixture
) -> None:
    proxy, url = proxied
    with serving(settings, fake_assistant, database_url=url) as client:
        wait_for(lambda: client.get("/readyz/database").status_code == 200, 30)
        for _ in range(3):
            play(client, "frank")
        before = client.get("/v1/quiz/stats", params={"user": "frank"}).json()
        pending = client.post("/v1/quiz/next", json={"user": "frank", "lang": "en"}).json()

        proxy.refuse()  # open connections cut, new ones refused
        answered = [client.post("/v1/query", json={"question": QUESTION}).status_code for _ in range(20)]
        assert answered == [200] * 20
        for response in quiz_calls(client, "frank"):
            assert_unavailable(response)
        caplog.clear()
        caplog.set_level("INFO")
        lost = client.post("/v1/quiz/answer", json={"user": "frank", "attempt_id": pending["attempt_id"],
                                                    "choice": "B"})
        assert_unavailable(lost)
        # Logged once, besides the request line, and without the statement's parameters (user ids). The
        # knowledge refresh says once, whenever its next look comes, that it cannot read the entries: not this.
        failures = [r for r in caplog.records
                    if r.name not in ("bot.http", "bot.answering.refresh") and r.levelname == "WARNING"]
        assert len(failures) == 1 and not failures[0].exc_info
        assert "frank" not in caplog.text and pending["attempt_id"] not in caplog.text
        assert client.get("/readyz").status_code == 200  # still in the load balancer
        assert client.get("/readyz/database").status_code == 503

        proxy.accept()
        recovered = wait_for(
            lambda: client.get("/v1/quiz/stats", params={"user": "frank"}).status_code == 200, RECOVERY)
        assert client.get("/v1/quiz/stats", params={"user": "frank"}).json() == before
        late = client.post("/v1/quiz/answer", json={"user": "frank", "attempt_id": pending["attempt_id"],
                                                    "choice": "B"})
        assert late.status_code == 200  # the attempt refused during the outage is graded now, once
        assert client.get("/v1/quiz/stats", params={"user": "frank"}).json()["answered"] == before["answered"] + 1
    print(f"quiz back {recovered:.2f} s after the database came back")


def test_answers_never_wait_on_a_locked_table_and_their_gaps_are_written_after(
    settings: Settings, fake_assistant: Assistant, postgres_url: str
) -> None:
    """The knowledge gaps and conversations tables locked: questions that leave a gap to record and messages of
    a thread (whose earlier topic is read) are answered within 0.5 s all the same; once the lock goes, what
    they left to record is written."""
    with serving(settings, fake_assistant, database_url=postgres_url) as client:
        wait_for(lambda: client.get("/readyz/database").status_code == 200, 30)
        services: Services = client.app.state.services  # type: ignore[attr-defined]
        locker = sa.create_engine(postgres_url)
        timings: list[float] = []
        with locker.connect() as conn:
            held = conn.begin()
            conn.execute(sa.text("LOCK TABLE knowledge_gaps, conversations IN ACCESS EXCLUSIVE MODE"))
            for i in range(20):
                started = time.perf_counter()
                response = client.post("/v1/query", json={"question": f"What is the best paella recipe number {i}?"})
                timings.append(time.perf_counter() - started)
                assert response.status_code == 200 and response.json()["answered"] is False
                started = time.perf_counter()
                asked = asyncio.run(services.answers.ask("and with FSx for Lustre?", "en", conversation=f"T{i % 4}"))
                timings.append(time.perf_counter() - started)
                assert asked.answer.text
            held.rollback()
        locker.dispose()
        timings.sort()
        p99 = timings[min(len(timings) - 1, int(0.99 * len(timings)))]
        print(f"answers while locked: p50 {timings[len(timings) // 2]:.3f} s, p99 {p99:.3f} s")
        assert p99 <= 0.5, timings
        wait_for(lambda: any("paella" in g.text for g in services.gaps.listing(limit=100)), 15)


def test_terminated_connections_are_replaced_without_an_error(
    settings: Settings, fake_assistant: Assistant, proxied: tuple[TcpProxy, str], postgres_server_url: str
) -> None:
    _, url = proxied
    name = make_url(url).query["application_name"]
    admin = sa.create_engine(postgres_server_url)
    try:
        with serving(settings, fake_assistant, database_url=url) as client:
            wait_for(lambda: client.get("/readyz/database").status_code == 200, 30)
            play(client, "gina")
            for _ in range(3):
                with admin.begin() as conn:
                    killed = conn.execute(sa.text(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = :n"
                    ), {"n": name}).scalar()
                assert killed is not None and killed >= 1
                statuses = [r.status_code for r in quiz_calls(client, "gina")]
                assert statuses == [200] * 4  # the pool notices the dead connection and opens a new one
            play(client, "gina")
            assert client.get("/v1/quiz/stats", params={"user": "gina"}).json()["answered"] == 2
    finally:
        admin.dispose()


# -- SQLite on a read-only or full data directory ----------------------------------------------------


def _mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True, capture_output=True, text=True)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs, unmounted afterwards."""
    target = tmp_path / "data"
    target.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CAP_SYS_ADMIN); CI runs as root")
    try:
        _mount("-t", "tmpfs", "-o", "size=2m,mode=0755", "tmpfs", str(target))
    except subprocess.CalledProcessError as exc:
        pytest.skip(f"mounting a tmpfs is not permitted here: {exc.stderr.strip()}")
    yield target
    subprocess.run(["umount", "-l", str(target)], check=False)


@contextlib.contextmanager
def quiz_on(settings: Settings, assistant: Assistant, disk: Path, user: str) -> Iterator[TestClient]:
    """The application with its SQLite database on `disk`, one question answered by `user` already."""
    with serving(settings, assistant, data_dir=disk, database_url=f"sqlite:///{disk / 'eksbot.db'}") as client:
        wait_for(lambda: client.get("/readyz/database").status_code == 200, 30)
        play(client, user)
        yield client


def assert_fault_then_recovery(client: TestClient, user: str, heal: Callable[[], None]) -> None:
    """During the fault the quiz is 503, the database unready and questions answered; after `heal()` all is
    back within RECOVERY seconds, with the answer given before."""
    try:
        assert_unavailable(client.post("/v1/quiz/next", json={"user": user, "lang": "en"}))
        assert client.get("/readyz/database").status_code == 503
        assert client.post("/v1/query", json={"question": QUESTION}).status_code == 200
    finally:
        heal()
    wait_for(lambda: client.post("/v1/quiz/next", json={"user": user}).status_code == 200, RECOVERY)
    assert client.get("/readyz/database").status_code == 200
    assert client.get("/v1/quiz/stats", params={"user": user}).json()["answered"] == 1


def test_a_read_only_data_directory_gives_503_and_recovers(
    settings: Settings, fake_assistant: Assistant, small_disk: Path
) -> None:
    with quiz_on(settings, fake_assistant, small_disk, "hugo") as client:
        # Linux makes a mount read-only only when no file on it is open for writing: the pooled SQLite
        # connections are closed first (as after an idle spell); the next ones find the directory read-only.
        client.app.state.services.stores.database.engine.dispose()  # type: ignore[attr-defined]
        _mount("-o", "remount,ro", str(small_disk))
        assert_fault_then_recovery(client, "hugo", lambda: _mount("-o", "remount,rw", str(small_disk)))


def test_a_full_data_directory_gives_503_and_recovers(
    settings: Settings, fake_assistant: Assistant, small_disk: Path
) -> None:
    with quiz_on(settings, fake_assistant, small_disk, "ines") as client:
        filler = small_disk / "filler"
        with contextlib.suppress(OSError), filler.open("wb") as out:  # closing a full file fails too
            while True:  # until the disk is full
                out.write(b"\0" * 65536)
                out.flush()
        statuses = []
        for _ in range(200):  # writes go on until the journal needs room the disk no longer has
            statuses.append(client.post("/v1/quiz/next", json={"user": "ines", "lang": "en"}).status_code)
            if statuses[-1] != 200:
                break
        assert statuses[-1] == 503 and set(statuses) <= {200, 503}
        assert_fault_then_recovery(client, "ines", filler.unlink)


def test_the_server_prunes_unanswered_quiz_questions_once_the_database_is_open(
    settings: Settings, fake_assistant: Assistant, sqlite_url: str
) -> None:
    from datetime import UTC, datetime, timedelta

    from bot.storage import AttemptRecord, Database, QuizStore, RoundStore
    from tests.support.quiz_helpers import Clock
    from tests.support.round_helpers import RecordingPublisher, kit, work

    with Database(sqlite_url) as store:
        store.upgrade()
        QuizStore(store).create_attempt(AttemptRecord(
            id="forgotten", team="T1", user="U1", doc_id="quiz", question=1, lang="en", option_order=("A", "B"),
            created_at=datetime.now(UTC) - timedelta(days=31)))
        clock = Clock(datetime.now(UTC) - timedelta(days=200))  # a team round played 200 days ago
        k = kit(sqlite_url, clock)
        record = k.rounds.start(team="T1", channel="C1", user="U1", lang="en", count=1, minutes=30)
        record = asyncio.run(work(k, RecordingPublisher()).post(record))
        clock.advance(minutes=30)
        asyncio.run(work(k, RecordingPublisher()).due())
        k.close()
        with serving(settings, fake_assistant, database_url=sqlite_url, unanswered_retention_days=30,
                     round_retention_days=180):
            wait_for(lambda: QuizStore(store).get_attempt("forgotten") is None, 10)
            wait_for(lambda: RoundStore(store).get(record.id) is None, 10)


# -- hostile knowledge -------------------------------------------------------------------------------
# What a careless maintainer or an attacker can put in the knowledge: lines that make a regular expression
# backtrack, YAML alias bombs, a quiz file with an error, a link to a secret outside the folder, thousands of
# files at once and one huge file. Answers go on meanwhile, and the rest of the knowledge goes live.

def test_hostile_knowledge_never_stalls_answers_and_the_rest_goes_live(
    settings: Settings, knowledge_copy: Path, fake_index_dir: Path, tmp_path: Path
) -> None:
    from pydantic import SecretStr

    from bot.config import load_settings
    from tests.support.fakes import FakeEmbedder, lexical_model
    from tests.support.hostile_knowledge import HOSTILE_FILES, SECRET, drop_hostile_knowledge
    from tests.support.knowledge_helpers import ASK_RUNBOOK, RUNBOOK

    assistant = Assistant.from_settings(
        load_settings(knowledge_dir=knowledge_copy, index_dir=fake_index_dir, auto_rebuild=False),
        embedder=FakeEmbedder(), model=lexical_model())
    live = settings.model_copy(update={"knowledge_dir": knowledge_copy, "knowledge_refresh_seconds": 0.2,
                                       "api_tokens_raw": SecretStr("admin-token"), "rate_limit": 0})
    admin = {"Authorization": "Bearer admin-token"}
    services = Services.starting(live, assistant)
    stop = threading.Event()
    timings: list[float] = []
    statuses: list[int] = []
    outside = tmp_path / "outside"
    outside.mkdir()
    try:
        with TestClient(create_app(live, services=services)) as client:  # one event loop, used from two threads

            def ask() -> None:
                while not stop.is_set():
                    started = time.monotonic()
                    response = client.post("/v1/query", json={"question": QUESTION, "lang": "en"}, headers=admin)
                    timings.append(time.monotonic() - started)
                    statuses.append(response.status_code)
                    time.sleep(0.01)

            def cited() -> list[str]:
                body = client.post("/v1/query", json={"question": ASK_RUNBOOK, "lang": "en"}, headers=admin).json()
                return [c["doc"] for c in body["citations"]]

            wait_for(lambda: services.database.ready, 30)
            asking = threading.Thread(target=ask, daemon=True)
            asking.start()
            try:
                time.sleep(0.5)  # answers before anything is dropped in
                drop_hostile_knowledge(knowledge_copy, outside)
                entry = client.post("/v1/admin/entries", json=RUNBOOK, headers=admin)
                assert entry.status_code == 201, entry.text
                wait_for(lambda: cited()[:1] == [f"entries/{entry.json()['id']}"], 60)
                wait_for(lambda: len(services.assistant.knowledge.documents) > HOSTILE_FILES, 60)
                assert client.get("/healthz").status_code == 200
                secret = client.post("/v1/query", json={"question": "What is the database password?", "lang": "en"},
                                     headers=admin)
                assert SECRET not in secret.text
            finally:
                stop.set()
                asking.join(timeout=30)
    finally:
        services.close()
    knowledge = services.assistant.knowledge
    sources = {d.source for d in knowledge.documents}
    assert "hostile/patterns.mdx" in sources  # read, in linear time
    assert not {"hostile/credentials.md", "hostile/huge.md", "hostile/bomb-doc.md"} & sources
    assert all(SECRET not in b.text for d in knowledge.documents for q in d.questions for b in q.blocks)
    assert set(statuses) == {200}, sorted(set(statuses))
    ordered = sorted(timings)
    p99 = ordered[int(0.99 * (len(ordered) - 1))]
    print(f"\nhostile knowledge: {len(timings)} answers while it was read, p99 {p99 * 1000:.0f} ms, "
          f"max {ordered[-1] * 1000:.0f} ms")
    assert len(timings) > 20
    assert p99 <= 0.5, f"answer p99 {p99:.2f} s while hostile knowledge was read (max {ordered[-1]:.2f} s)"
