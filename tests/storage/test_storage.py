"""Durable storage on SQLite (a temporary file) and on the real PostgreSQL: migrations, Slack event
de-duplication across processes, feedback votes, reopening."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from bot.errors import InputError, StorageIntegrityError, StorageUnavailableError
from bot.storage import AttemptRecord, Database, EventStore, ReviewRecord, Stores
from bot.storage.migrate import head_revision
from bot.storage.tables import metadata
from tests.conftest import UNREACHABLE_DATABASE
from tests.support.quiz_helpers import Clock, claim_worker, race, upgrade_worker

TABLES = {"attempts", "reviews", "slack_events", "feedback", "alembic_version", "people", "knowledge_gaps",
          "conversations", "round_schedules", "rounds", "round_answers", "knowledge_entries",
          "knowledge_entry_versions", "knowledge_notes", "knowledge_revision", "text_vectors"}


def table_names(database: Database) -> set[str]:
    return set(sa.inspect(database.engine).get_table_names())


def test_upgrade_creates_the_schema_from_an_empty_database(db_url: str) -> None:
    store = Database(db_url)
    try:
        assert table_names(store) == set()
        assert store.revision() is None
        store.upgrade()
        assert table_names(store) == TABLES
        assert store.revision() == head_revision() is not None
    finally:
        store.close()


def test_upgrading_again_changes_nothing_and_keeps_the_data(store: Stores, db_url: str) -> None:
    assert store.events.claim("Ev1")
    assert store.feedback.record("U1", "T1", "m1", "eks-training-quiz", 5, 12, "up")
    revision = store.database.revision()
    store.database.upgrade()
    again = Database(db_url)
    again.upgrade()
    again.close()
    assert store.database.revision() == revision
    assert table_names(store.database) == TABLES
    assert not store.events.claim("Ev1")
    assert store.feedback.counts() == {"up": 1, "down": 0}


def test_two_processes_migrating_at_once_both_succeed(db_url: str) -> None:
    results = race(upgrade_worker, [(db_url,), (db_url,)], rounds=1)
    assert results == [("upgraded", head_revision())] * 2
    store = Database(db_url)
    try:
        assert table_names(store) == TABLES
    finally:
        store.close()


def test_the_tables_the_code_uses_match_the_migrated_schema(store: Stores) -> None:
    with store.database.engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), metadata)
    assert differences == []


def test_an_event_is_claimed_only_the_first_time(store: Stores) -> None:
    assert store.events.claim("Ev123") is True
    assert store.events.claim("Ev123") is False
    assert store.events.claim("Ev124") is True


def test_pruning_forgets_old_events_only(store: Stores, clock: Clock) -> None:
    assert store.events.claim("old")
    clock.advance(hours=2)
    assert store.events.claim("recent")
    assert store.events.prune(older_than=clock.now - timedelta(hours=1)) == 1
    assert store.events.claim("old") is True  # forgotten: would be handled again
    assert store.events.claim("recent") is False


def test_one_vote_per_person_per_message(store: Stores) -> None:
    args = ("eks-training-quiz", 5, 17)
    assert store.feedback.record("U1", "T1", "msg-1", *args, "up") is True
    assert store.feedback.record("U1", "T1", "msg-1", *args, "up") is False  # double click
    assert store.feedback.counts() == {"up": 1, "down": 0}
    assert store.feedback.record("U1", "T1", "msg-1", *args, "down") is True  # changed mind
    assert store.feedback.counts() == {"up": 0, "down": 1}
    assert store.feedback.record("U2", "T1", "msg-1", "eks-training-quiz", 5, None, "up") is True
    assert store.feedback.record("U1", "T1", "msg-2", *args, "up") is True
    assert store.feedback.record("U1", "T2", "msg-1", *args, "up") is True  # same id, other workspace
    assert store.feedback.counts() == {"up": 3, "down": 1}


def test_a_vote_on_a_document_with_a_path_longer_than_the_column_is_kept(store: Stores) -> None:
    """A doc page deep in a team's repository may have a path of thousands of characters (PostgreSQL refuses
    a value longer than its column; SQLite does not check)."""
    deep = "/".join(["runbooks", *(["a-very-long-folder-name"] * 100), "gpu-quota"])
    other = deep.replace("gpu-quota", "gpu-limits")
    assert store.feedback.record("U1", "T1", "msg-1", deep, 2, 3, "up") is True
    assert store.feedback.record("U1", "T1", "msg-1", deep, 2, 3, "up") is False  # the same vote again
    assert store.feedback.record("U1", "T1", "msg-2", other, 1, None, "down") is True
    assert store.feedback.counts() == {"up": 1, "down": 1}


def test_a_vote_must_be_up_or_down(store: Stores) -> None:
    with pytest.raises(InputError):
        store.feedback.record("U1", "T1", "msg-1", "eks-training-quiz", 5, None, "sideways")
    assert store.feedback.counts() == {"up": 0, "down": 0}


def test_claims_from_two_processes_at_once_succeed_once(store: Stores, db_url: str) -> None:
    ids = [f"Ev{i}" for i in range(8)]
    results = race(claim_worker, [(db_url, ids), (db_url, ids)], rounds=len(ids))
    for event_id in ids:
        outcomes = sorted(claimed for eid, claimed in results if eid == event_id)
        assert outcomes == [False, True], event_id
    assert not store.events.claim("Ev0")


def test_data_survives_closing_and_reopening(db_url: str) -> None:
    store = Stores(Database(db_url))
    store.database.upgrade()
    store.events.claim("Ev1")
    store.feedback.record("U1", "T1", "m", "eks-training-quiz", 1, None, "down")
    store.database.close()
    reopened = Stores(Database(db_url))
    try:
        reopened.database.upgrade()
        assert reopened.events.claim("Ev1") is False
        assert reopened.feedback.counts() == {"up": 0, "down": 1}
    finally:
        reopened.database.close()


def test_ping_passes_on_a_live_database(store: Stores) -> None:
    statements: list[str] = []
    sa.event.listen(store.database.engine, "before_cursor_execute",
                    lambda _conn, _cursor, statement, *_rest: statements.append(statement))
    store.database.ping()  # raises unless the database answers
    assert "SELECT 1" in statements  # a round trip to the database, not a connection taken on trust


def test_ping_raises_when_the_database_is_unreachable() -> None:
    store = Database(UNREACHABLE_DATABASE)
    try:
        with pytest.raises(StorageUnavailableError) as raised:
            store.ping()
        assert str(raised.value) == "database unavailable (OperationalError)"  # the kind only: safe to show
        assert "refused" in raised.value.detail.lower()  # the driver's reason: for the log and the terminal
    finally:
        store.close()


def test_every_operation_on_an_unreachable_database_is_unavailable_not_a_driver_error() -> None:
    database = Database(UNREACHABLE_DATABASE)
    store, since = Stores(database), datetime(2025, 1, 1, tzinfo=UTC)
    operations: dict[str, Callable[[], object]] = {
        "upgrade": database.upgrade, "revision": database.revision, "get_attempt": lambda: store.quiz.get_attempt("a"),
        "claim_event": lambda: store.events.claim("Ev1"), "feedback_counts": store.feedback.counts,
        "record_feedback": lambda: store.feedback.record("U1", "T1", "m", "quiz", 1, None, "up"),
        "answered_attempts": store.quiz.answered_attempts, "reviews": lambda: store.quiz.reviews("T1", "U1"),
        "language_of": lambda: store.people.language_of("T1", "U1"),
        "topic": lambda: store.topics.get("c", since=since), "gaps": lambda: store.gaps.listing(since=since),
        "round": lambda: store.rounds.get("r"),
    }
    try:
        for name, operation in operations.items():
            with pytest.raises(StorageUnavailableError, match="database unavailable"):
                operation()
                pytest.fail(f"{name} did not fail")
    finally:
        database.close()


def test_an_unparsable_url_is_unavailable_with_the_reason() -> None:
    with pytest.raises(StorageUnavailableError) as raised:
        Database("not a database url")
    assert "Could not parse" in raised.value.detail


def test_a_write_that_breaks_a_constraint_is_an_integrity_error(store: Stores, clock: Clock) -> None:
    record = AttemptRecord(id="same-id", team="T1", user="U1", doc_id="quiz", question=1, lang="en",
                           option_order=("A", "B"), created_at=clock.now)
    store.quiz.create_attempt(record)
    with pytest.raises(StorageIntegrityError, match="refused a write"):
        store.quiz.create_attempt(record)
    assert store.quiz.get_attempt("same-id") == record  # the first one is intact


def test_a_database_that_was_never_migrated_is_unavailable(tmp_path: Path) -> None:
    store = Database(f"sqlite:///{tmp_path / 'fresh.db'}")
    try:
        with pytest.raises(StorageUnavailableError, match="OperationalError") as raised:
            EventStore(store).claim("Ev1")
        assert "no such table" in raised.value.detail
    finally:
        store.close()


def test_sqlite_runs_in_wal_mode_with_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    store = Database(f"sqlite:///{tmp_path / 'a' / 'b' / 'eksbot.db'}")
    try:
        with store.engine.connect() as conn:  # the directory is made at the first connection
            assert (tmp_path / "a" / "b").is_dir()
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert int(conn.exec_driver_sql("PRAGMA busy_timeout").scalar() or 0) >= 1000
    finally:
        store.close()


def test_the_url_shown_in_logs_hides_the_password() -> None:
    store = Database("postgresql+psycopg://bot:s3cret@127.0.0.1:1/eksbot")
    try:
        assert "s3cret" not in store.url and "s3cret" not in repr(store)
    finally:
        store.close()


def test_unanswered_attempts_are_pruned_after_the_retention_period_and_answered_ones_kept(
    store: Stores, clock: Clock
) -> None:
    def draw(attempt_id: str, days_ago: float) -> None:
        store.quiz.create_attempt(AttemptRecord(
            id=attempt_id, team="T1", user="U1", doc_id="quiz", question=1, lang="en", option_order=("A", "B"),
            created_at=clock.now - timedelta(days=days_ago)))

    draw("old-unanswered", 40)
    draw("old-answered", 40)
    draw("recent-unanswered", 2)
    assert store.quiz.finish_attempt("old-answered", choice="A", correct=True, confidence=None,
                                     answered_at=clock.now, schedule=lambda _: review_of("old-answered", clock))
    assert store.quiz.prune_unanswered(clock.now - timedelta(days=30)) == 1
    assert store.quiz.get_attempt("old-unanswered") is None
    assert store.quiz.get_attempt("old-answered") is not None
    assert store.quiz.get_attempt("recent-unanswered") is not None
    assert store.quiz.prune_unanswered(clock.now - timedelta(days=30)) == 0


def review_of(attempt_id: str, clock: Clock) -> ReviewRecord:
    return ReviewRecord(team="T1", user="U1", doc_id="quiz", question=1, card="{}", due=clock.now)


def test_databases_opened_at_once_by_several_threads_are_all_migrated(tmp_path: Path) -> None:
    """A server opens its database on a thread of its own while another part of the process may open another
    (a command, a test): their migrations must not pull Alembic's shared state from under each other."""
    import threading

    from bot.storage import Database

    databases = [Database(f"sqlite:///{tmp_path / f'db-{i}.sqlite'}") for i in range(6)]
    start = threading.Barrier(len(databases))
    failures: list[BaseException] = []

    def open_one(database: Database) -> None:
        start.wait()
        try:
            database.upgrade()
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion below
            failures.append(exc)

    threads = [threading.Thread(target=open_one, args=(d,)) for d in databases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures
    for database in databases:
        database.check_schema()  # raises when not at the newest revision
        database.close()
