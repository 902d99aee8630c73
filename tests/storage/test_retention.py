"""The retention pass (`Retention.prune`: on the database thread once the database is open, then hourly):
each kind of row kept for a while is forgotten once its period is over while recent ones stay, knowledge
gaps also while recording is off, and a kind that fails stops none of the others."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from bot.answering.assistant import Assistant
from bot.config import Settings
from bot.errors import StorageUnavailableError
from bot.services import Services
from bot.storage import AttemptRecord, Database, RoundRecord, Stores, open_database

# What the pass prunes: each table, and the column that tells its rows apart.
KEYS = {"attempts": "id", "rounds": "id", "knowledge_gaps": "group_key", "conversations": "conversation_id",
        "slack_events": "event_id"}
OLD = timedelta(days=200)  # past every retention period (the longest, team rounds', is 180 days)
RECENT = timedelta(hours=1)  # within every one (the shortest, Slack event ids', is a day)

Build = Callable[..., Services]


@pytest.fixture
def build(settings: Settings, fake_assistant: Assistant) -> Iterator[Build]:
    """Services over the test's database, with some settings changed."""
    built: list[Services] = []

    def services(**changes: object) -> Services:
        configured = settings.model_copy(update=changes)
        built.append(Services.assemble(configured, fake_assistant, open_database(configured)))
        return built[-1]

    yield services
    for each in built:
        each.close()


def write(url: str, key: str, age: timedelta, *, kinds: tuple[str, ...] = tuple(KEYS)) -> None:
    """One row of each kind named `key`, written `age` ago, and a vote on an answer."""
    with Database(url, clock=lambda: datetime.now(UTC) - age) as database:
        store, then = Stores(database), database.clock()
        if "attempts" in kinds:
            store.quiz.create_attempt(AttemptRecord(id=key, team="T1", user="U1", doc_id="quiz", question=1, lang="en",
                                                    option_order=("A", "B"), created_at=then))
        if "rounds" in kinds:
            assert store.rounds.create(RoundRecord(
                id=key, team="T1", channel=f"C-{key}", started_by="U1", schedule_id=None, lang="en", topic=None,
                size=1, minutes=30, questions=(), status="closed", created_at=then, post_at=then, closed_at=then))
        if "knowledge_gaps" in kinds:
            store.gaps.add(kind="unanswered", lang="en", key=key, text=f"What is {key}?")
        if "conversations" in kinds:
            store.topics.set(key, "en", "stage 2 DeepSpeed ZeRO")
        if "slack_events" in kinds:
            assert store.events.claim(key)
        store.feedback.record("U1", "T1", f"message-{key}", "quiz", 1, None, "up")


def remaining(url: str) -> dict[str, set[str]]:
    with Database(url) as database, database.reading() as conn:
        return {table: set(conn.execute(sa.text(f"SELECT {column} FROM {table}")).scalars())
                for table, column in KEYS.items()}


def test_the_pass_forgets_each_kind_past_its_period_and_keeps_recent_rows(build: Build, settings: Settings) -> None:
    services = build()
    write(settings.database_url, "old", OLD)
    write(settings.database_url, "recent", RECENT)
    assert services.retention.prune() == len(KEYS)
    assert remaining(settings.database_url) == {table: {"recent"} for table in KEYS}
    assert services.stores.feedback.counts() == {"up": 2, "down": 0}  # votes have no retention period: kept
    assert services.retention.prune() == 0


def test_each_kind_keeps_its_own_period(build: Build, settings: Settings) -> None:
    services = build(unanswered_retention_days=30, round_retention_days=180, gaps_retention_days=90)
    write(settings.database_url, "40 days", timedelta(days=40))  # past the quiz's, the topics' and the events'
    services.retention.prune()
    assert remaining(settings.database_url) == {"attempts": set(), "rounds": {"40 days"},
                                                "knowledge_gaps": {"40 days"}, "conversations": set(),
                                                "slack_events": set()}


def test_old_gaps_are_pruned_also_while_recording_is_off(build: Build, settings: Settings) -> None:
    services = build(record_gaps=False, gaps_retention_days=30)
    write(settings.database_url, "old", timedelta(days=31), kinds=("knowledge_gaps",))
    write(settings.database_url, "recent", timedelta(days=29), kinds=("knowledge_gaps",))
    assert services.retention.prune() == 1
    assert remaining(settings.database_url)["knowledge_gaps"] == {"recent"}


def test_a_kind_that_fails_stops_none_of_the_others(
    build: Build, settings: Settings, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    services = build()
    write(settings.database_url, "old", OLD)

    def unavailable(*_args: object) -> int:
        raise StorageUnavailableError("database unavailable (OperationalError)", "U1 asked about old")

    def broken(*_args: object) -> int:
        raise RuntimeError("What is old?")

    monkeypatch.setattr(services.stores.quiz, "prune_unanswered", unavailable)  # the first kind the pass prunes
    monkeypatch.setattr(services.stores.gaps, "prune", broken)  # not even a storage error
    caplog.set_level("WARNING", logger="bot.storage.retention")
    assert services.retention.prune() == len(KEYS) - 2
    assert remaining(settings.database_url) == {"attempts": {"old"}, "rounds": set(), "knowledge_gaps": {"old"},
                                                "conversations": set(), "slack_events": set()}
    assert [r.getMessage() for r in caplog.records] == [
        "could not prune unanswered quiz questions: StorageUnavailableError",
        "could not prune knowledge gaps: RuntimeError",
    ]  # the kind and the exception's class, never what it says (it may quote data)
