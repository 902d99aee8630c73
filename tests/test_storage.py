"""Durable storage on SQLite (a temporary file) and on the real PostgreSQL: migrations, Slack event
de-duplication across processes, feedback votes, reopening."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from bot.errors import InputError, StorageIntegrityError, StorageUnavailableError
from bot.storage import AttemptRecord, ReviewRecord, Store
from bot.storage.migrate import head_revision
from bot.storage.tables import metadata
from tests.conftest import UNREACHABLE_DATABASE
from tests.quiz_helpers import Clock, claim_worker, race, upgrade_worker

TABLES = {"attempts", "reviews", "slack_events", "feedback", "alembic_version", "people", "knowledge_gaps",
          "conversations", "round_schedules", "rounds", "round_answers"}


def table_names(store: Store) -> set[str]:
    return set(sa.inspect(store.engine).get_table_names())


def test_upgrade_creates_the_schema_from_an_empty_database(db_url: str) -> None:
    store = Store(db_url)
    try:
        assert table_names(store) == set()
        assert store.revision() is None
        store.upgrade()
        assert table_names(store) == TABLES
        assert store.revision() == head_revision() is not None
    finally:
        store.close()


def test_upgrading_again_changes_nothing_and_keeps_the_data(store: Store, db_url: str) -> None:
    assert store.claim_event("Ev1")
    assert store.record_feedback("U1", "T1", "m1", "eks-training-quiz", 5, 12, "up")
    revision = store.revision()
    store.upgrade()
    again = Store(db_url)
    again.upgrade()
    again.close()
    assert store.revision() == revision
    assert table_names(store) == TABLES
    assert not store.claim_event("Ev1")
    assert store.feedback_counts() == {"up": 1, "down": 0}


def test_two_processes_migrating_at_once_both_succeed(db_url: str) -> None:
    results = race(upgrade_worker, [(db_url,), (db_url,)], rounds=1)
    assert results == [("upgraded", head_revision())] * 2
    store = Store(db_url)
    try:
        assert table_names(store) == TABLES
    finally:
        store.close()


def test_the_tables_the_code_uses_match_the_migrated_schema(store: Store) -> None:
    with store.engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), metadata)
    assert differences == []


def test_an_event_is_claimed_only_the_first_time(store: Store) -> None:
    assert store.claim_event("Ev123") is True
    assert store.claim_event("Ev123") is False
    assert store.claim_event("Ev124") is True


def test_pruning_forgets_old_events_only(store: Store, clock: Clock) -> None:
    assert store.claim_event("old")
    clock.advance(hours=2)
    assert store.claim_event("recent")
    assert store.prune_events(older_than=clock.now - timedelta(hours=1)) == 1
    assert store.claim_event("old") is True  # forgotten: would be handled again
    assert store.claim_event("recent") is False


def test_one_vote_per_person_per_message(store: Store) -> None:
    args = ("eks-training-quiz", 5, 17)
    assert store.record_feedback("U1", "T1", "msg-1", *args, "up") is True
    assert store.record_feedback("U1", "T1", "msg-1", *args, "up") is False  # double click
    assert store.feedback_counts() == {"up": 1, "down": 0}
    assert store.record_feedback("U1", "T1", "msg-1", *args, "down") is True  # changed mind
    assert store.feedback_counts() == {"up": 0, "down": 1}
    assert store.record_feedback("U2", "T1", "msg-1", "eks-training-quiz", 5, None, "up") is True
    assert store.record_feedback("U1", "T1", "msg-2", *args, "up") is True
    assert store.record_feedback("U1", "T2", "msg-1", *args, "up") is True  # same id, other workspace
    assert store.feedback_counts() == {"up": 3, "down": 1}


def test_a_vote_must_be_up_or_down(store: Store) -> None:
    with pytest.raises(InputError):
        store.record_feedback("U1", "T1", "msg-1", "eks-training-quiz", 5, None, "sideways")
    assert store.feedback_counts() == {"up": 0, "down": 0}


def test_claims_from_two_processes_at_once_succeed_once(store: Store, db_url: str) -> None:
    ids = [f"Ev{i}" for i in range(8)]
    results = race(claim_worker, [(db_url, ids), (db_url, ids)], rounds=len(ids))
    for event_id in ids:
        outcomes = sorted(claimed for eid, claimed in results if eid == event_id)
        assert outcomes == [False, True], event_id
    assert not store.claim_event("Ev0")


def test_data_survives_closing_and_reopening(db_url: str) -> None:
    store = Store(db_url)
    store.upgrade()
    store.claim_event("Ev1")
    store.record_feedback("U1", "T1", "m", "eks-training-quiz", 1, None, "down")
    store.close()
    reopened = Store(db_url)
    try:
        reopened.upgrade()
        assert reopened.claim_event("Ev1") is False
        assert reopened.feedback_counts() == {"up": 0, "down": 1}
    finally:
        reopened.close()


def test_ping_passes_on_a_live_database(store: Store) -> None:
    store.ping()


def test_ping_raises_when_the_database_is_unreachable() -> None:
    store = Store(UNREACHABLE_DATABASE)
    try:
        with pytest.raises(StorageUnavailableError) as raised:
            store.ping()
        assert str(raised.value) == "database unavailable (OperationalError)"  # the kind only: safe to show
        assert "refused" in raised.value.detail.lower()  # the driver's reason: for the log and the terminal
    finally:
        store.close()


def test_every_operation_on_an_unreachable_database_is_unavailable_not_a_driver_error() -> None:
    store = Store(UNREACHABLE_DATABASE)
    operations = {
        "upgrade": store.upgrade, "revision": store.revision, "get_attempt": lambda: store.get_attempt("a"),
        "claim_event": lambda: store.claim_event("Ev1"), "feedback_counts": store.feedback_counts,
        "record_feedback": lambda: store.record_feedback("U1", "T1", "m", "quiz", 1, None, "up"),
        "answered_attempts": store.answered_attempts, "reviews": lambda: store.reviews("T1", "U1"),
    }
    try:
        for name, operation in operations.items():
            with pytest.raises(StorageUnavailableError, match="database unavailable"):
                operation()
                pytest.fail(f"{name} did not fail")
    finally:
        store.close()


def test_an_unparsable_url_is_unavailable_with_the_reason() -> None:
    with pytest.raises(StorageUnavailableError) as raised:
        Store("not a database url")
    assert "Could not parse" in raised.value.detail


def test_a_write_that_breaks_a_constraint_is_an_integrity_error(store: Store, clock: Clock) -> None:
    record = AttemptRecord(id="same-id", team="T1", user="U1", doc_id="quiz", question=1, lang="en",
                           option_order=("A", "B"), created_at=clock.now)
    store.create_attempt(record)
    with pytest.raises(StorageIntegrityError, match="refused a write"):
        store.create_attempt(record)
    assert store.get_attempt("same-id") == record  # the first one is intact


def test_a_database_that_was_never_migrated_is_unavailable(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'fresh.db'}")
    try:
        with pytest.raises(StorageUnavailableError, match="OperationalError") as raised:
            store.claim_event("Ev1")
        assert "no such table" in raised.value.detail
    finally:
        store.close()


def test_sqlite_runs_in_wal_mode_with_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'a' / 'b' / 'eksbot.db'}")
    try:
        with store.engine.connect() as conn:  # the directory is made at the first connection
            assert (tmp_path / "a" / "b").is_dir()
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert int(conn.exec_driver_sql("PRAGMA busy_timeout").scalar() or 0) >= 1000
    finally:
        store.close()


def test_the_url_shown_in_logs_hides_the_password() -> None:
    store = Store("postgresql+psycopg://bot:s3cret@127.0.0.1:1/eksbot")
    try:
        assert "s3cret" not in store.url and "s3cret" not in repr(store)
    finally:
        store.close()


def test_unanswered_attempts_are_pruned_after_the_retention_period_and_answered_ones_kept(
    store: Store, clock: Clock
) -> None:
    def draw(attempt_id: str, days_ago: float) -> None:
        store.create_attempt(AttemptRecord(
            id=attempt_id, team="T1", user="U1", doc_id="quiz", question=1, lang="en", option_order=("A", "B"),
            created_at=clock.now - timedelta(days=days_ago)))

    draw("old-unanswered", 40)
    draw("old-answered", 40)
    draw("recent-unanswered", 2)
    assert store.finish_attempt("old-answered", choice="A", correct=True, confidence=None,
                                answered_at=clock.now, schedule=lambda _: review_of("old-answered", clock))
    assert store.prune_unanswered(clock.now - timedelta(days=30)) == 1
    assert store.get_attempt("old-unanswered") is None
    assert store.get_attempt("old-answered") is not None and store.get_attempt("recent-unanswered") is not None
    assert store.prune_unanswered(clock.now - timedelta(days=30)) == 0


def review_of(attempt_id: str, clock: Clock) -> ReviewRecord:
    return ReviewRecord(team="T1", user="U1", doc_id="quiz", question=1, card="{}", due=clock.now)
