"""`Store`: the one door to the database, for the quiz, Slack event de-duplication and answer feedback.

`Store("sqlite:///data/eksbot.db")` (one process or a few on one machine) or
`Store("postgresql+psycopg://user@host/db")` (several replicas). Call `upgrade()` once at start.
Database failures surface as `StorageUnavailableError` or `StorageIntegrityError` (bot.errors).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from bot.config import Settings
from bot.errors import InputError, StorageUnavailableError
from bot.lang import Lang
from bot.storage import conversation_records, gap_records, migrate, preference_records, records
from bot.storage.database import WRITE, create_engine, storage_errors
from bot.storage.gap_records import GapRecord
from bot.storage.records import AttemptRecord, ReviewRecord, Schedule, Score
from bot.storage.tables import attempts, feedback, slack_events

log = logging.getLogger(__name__)

VOTES = ("up", "down")
EVENT_MEMORY = timedelta(days=1)  # Slack event ids are kept this long: Slack stops redelivering long before
COUNT_ROWS = {"preserve_rowcount": True}  # INSERT ... ON CONFLICT: did it change a row?


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Store:
    def __init__(self, url: str, *, clock: Callable[[], datetime] = _utc_now) -> None:
        with storage_errors():
            self.engine = create_engine(url)
        self.clock = clock

    @property
    def url(self) -> str:
        """The database URL without its password, for logs."""
        return make_url(str(self.engine.url)).render_as_string(hide_password=True)

    def __repr__(self) -> str:
        return f"Store({self.url!r})"

    # -- lifecycle ---------------------------------------------------------------------------------

    def upgrade(self) -> None:
        """Bring the schema to the newest migration (a no-op when it is already there)."""
        with storage_errors():
            migrate.upgrade(self.engine)

    def revision(self) -> str | None:
        with storage_errors():
            return migrate.current_revision(self.engine)

    def ping(self) -> None:
        """Raise StorageUnavailableError when the database cannot be reached."""
        with storage_errors(), self.engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))

    def check_schema(self) -> None:
        """Raise StorageUnavailableError unless the schema is at the newest migration (where a release job
        migrates, the server waits for it)."""
        current, head = self.revision(), migrate.head_revision()
        if current != head:
            raise StorageUnavailableError(f"database schema is at {current or 'nothing'}, not {head}",
                                          "run 'eksbot db upgrade'")

    def check_writable(self) -> None:
        """Raise StorageUnavailableError unless a write can be committed now: a real write of one row (the
        schema's revision, rewritten as it is), so a read-only or full database, or a standby after a
        failover, is noticed."""
        with self.writing() as conn:
            conn.execute(sa.text("UPDATE alembic_version SET version_num = version_num"))

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextmanager
    def reading(self) -> Iterator[sa.Connection]:
        with storage_errors(), self.engine.connect() as conn, conn.begin():
            yield conn

    @contextmanager
    def writing(self) -> Iterator[sa.Connection]:
        """A transaction that writes; on SQLite it holds the write lock from its first statement."""
        with storage_errors(), self.engine.connect() as conn:
            conn.execution_options(**{WRITE: True})
            with conn.begin():
                yield conn

    # -- quiz --------------------------------------------------------------------------------------

    def create_attempt(self, record: AttemptRecord) -> None:
        with self.writing() as conn:
            records.insert_attempt(conn, record)

    def get_attempt(self, attempt_id: str) -> AttemptRecord | None:
        with self.reading() as conn:
            return records.load_attempt(conn, attempt_id)

    def finish_attempt(self, attempt_id: str, *, choice: str, correct: bool, confidence: str | None,
                       answered_at: datetime, schedule: Schedule) -> bool:
        """Grade the attempt and store its question's new schedule, atomically; False if graded before."""
        with self.writing() as conn:
            return records.finish_attempt(
                conn, attempt_id, choice=choice, correct=correct, confidence=confidence,
                answered_at=answered_at, schedule=schedule,
            )

    def review(self, team: str, user: str, doc_id: str, question: int) -> ReviewRecord | None:
        with self.reading() as conn:
            return records.load_review(conn, team, user, doc_id, question)

    def reviews(self, team: str, user: str) -> dict[tuple[str, int], ReviewRecord]:
        with self.reading() as conn:
            return records.load_reviews(conn, team, user)

    def answered_attempts(self, *, team: str | None = None, user: str | None = None,
                          correct_only: bool = False) -> list[AttemptRecord]:
        with self.reading() as conn:
            return records.answered_attempts(conn, team=team, user=user, correct_only=correct_only)

    def user_scores(self, team: str) -> dict[str, Score]:
        with self.reading() as conn:
            return records.user_scores(conn, team)

    def question_scores(self, team: str | None = None) -> dict[tuple[str, int], Score]:
        with self.reading() as conn:
            return records.question_scores(conn, team)

    def prune_unanswered(self, older_than: datetime) -> int:
        """Forget attempts drawn before `older_than` and never answered (they count nowhere); returns how
        many."""
        with self.writing() as conn:
            return conn.execute(attempts.delete().where(
                attempts.c.answered_at.is_(None), attempts.c.created_at < older_than)).rowcount

    # -- Slack events ------------------------------------------------------------------------------

    def claim_event(self, event_id: str) -> bool:
        """True only the first time an event id is seen, whichever process or replica asks."""
        with self.writing() as conn:
            statement = records.upsert(conn, slack_events).values(event_id=event_id, received_at=self.clock())
            statement = statement.on_conflict_do_nothing(index_elements=["event_id"])
            return conn.execute(statement, execution_options=COUNT_ROWS).rowcount == 1

    def prune_events(self, older_than: datetime) -> int:
        """Forget event ids received before `older_than`; returns how many."""
        with self.writing() as conn:
            return conn.execute(slack_events.delete().where(slack_events.c.received_at < older_than)).rowcount

    # -- feedback ----------------------------------------------------------------------------------

    def record_feedback(self, user: str, team: str, message_key: str, doc_id: str, question: int,
                        chunk_id: int | None, vote: str) -> bool:
        """One vote per person per message: a new vote or a changed one returns True, a repeat False."""
        if vote not in VOTES:
            raise InputError(f"vote must be one of {', '.join(VOTES)}, not {vote!r}")
        now = self.clock()
        with self.writing() as conn:
            statement = records.upsert(conn, feedback).values(
                team_id=team, user_id=user, message_key=message_key, doc_id=doc_id, question=question,
                chunk_id=chunk_id, vote=vote, created_at=now, updated_at=now,
            )
            statement = statement.on_conflict_do_update(
                index_elements=["team_id", "user_id", "message_key"],
                set_={"vote": statement.excluded.vote, "updated_at": statement.excluded.updated_at},
                where=feedback.c.vote != statement.excluded.vote,
            )
            return conn.execute(statement, execution_options=COUNT_ROWS).rowcount == 1

    def feedback_counts(self) -> dict[str, int]:
        with self.reading() as conn:
            rows = conn.execute(sa.select(feedback.c.vote, sa.func.count()).group_by(feedback.c.vote))
            counts = {vote: int(n) for vote, n in rows}
        return {vote: counts.get(vote, 0) for vote in VOTES}

    # -- people, conversations and knowledge gaps (each in its own record module) --------------------

    def language_of(self, team: str, user: str) -> Lang | None:
        """The language the person chose, if any."""
        with self.reading() as conn:
            return preference_records.load_language(conn, team, user)

    def set_language(self, team: str, user: str, lang: Lang) -> None:
        with self.writing() as conn:
            preference_records.save_language(conn, team, user, lang, self.clock())

    def topic_of(self, conversation_id: str, *, since: datetime) -> tuple[Lang, str] | None:
        """What a conversation is about (its language and content words), if it was updated since `since`."""
        with self.reading() as conn:
            return conversation_records.load_topic(conn, conversation_id, since)

    def set_topic(self, conversation_id: str, lang: Lang, topic: str) -> None:
        with self.writing() as conn:
            conversation_records.save_topic(conn, conversation_id, lang, topic, self.clock())

    def touch_topic(self, conversation_id: str, lang: Lang) -> None:
        """Note the conversation was active now, keeping its topic (an empty one when new)."""
        with self.writing() as conn:
            conversation_records.touch_topic(conn, conversation_id, lang, self.clock())

    def prune_topics(self, older_than: datetime) -> int:
        with self.writing() as conn:
            return conversation_records.prune_topics(conn, older_than)

    def add_gap(self, *, kind: str, lang: Lang, key: str, text: str, example: str | None = None,
                question: int | None = None) -> None:
        """Count a knowledge gap in its group of near-identical ones (see `gap_records`)."""
        if kind not in gap_records.KINDS:
            raise InputError(f"gap kind must be one of {', '.join(gap_records.KINDS)}, not {kind!r}")
        with self.writing() as conn:
            gap_records.add_entry(conn, kind=kind, lang=lang, key=key, text=text, example=example,
                                  question=question, now=self.clock())

    def gaps(self, *, since: datetime, limit: int = 50, kind: str | None = None) -> list[GapRecord]:
        with self.reading() as conn:
            return gap_records.load_gaps(conn, since=since, limit=limit, kind=kind)

    def prune_gaps(self, older_than: datetime) -> int:
        with self.writing() as conn:
            return gap_records.prune_gaps(conn, older_than)


def open_store(settings: Settings) -> Store:
    """The database the settings name, migrated first when `EKSBOT_MIGRATE_ON_START` is on (off where a
    release job migrates). An SQLite file's directory is created on the way."""
    store = Store(settings.database_url)
    if settings.migrate_on_start:
        store.upgrade()
    log.info("database ready", extra={"database": store.url})
    return store
