"""`Database`: the one database every store runs on, its schema, and the transactions they run in.

`Database("sqlite:///data/eksbot.db")` (one process or a few on one machine) or
`Database("postgresql+psycopg://user@host/db")` (several replicas). Call `upgrade()` once at start.
Each concern has its own store over it (`ConcernStore`; `Stores` builds them all). Every transaction goes
through `reading()` or `writing()`, so database failures surface as `StorageUnavailableError` or
`StorageIntegrityError` (bot.errors) whichever store runs it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from bot.config import Settings
from bot.errors import StorageUnavailableError
from bot.storage import migrate
from bot.storage.engine import WRITE, create_engine, storage_errors

log = logging.getLogger(__name__)


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Database:
    """The engine and its lifecycle; `clock` stamps the rows the stores write."""

    def __init__(self, url: str, *, clock: Callable[[], datetime] = _utc_now) -> None:
        with storage_errors():
            self.engine = create_engine(url)
        self.clock = clock

    @property
    def url(self) -> str:
        """The database URL without its password, for logs."""
        return make_url(str(self.engine.url)).render_as_string(hide_password=True)

    def __repr__(self) -> str:
        return f"Database({self.url!r})"

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

    def __enter__(self) -> Database:
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


class ConcernStore:
    """The store of one concern (the quiz, Slack events, feedback, people, topics, gaps, team rounds) over
    the shared database: each method is one transaction, `database.reading()` or `database.writing()`, so
    its failures surface as StorageError like any other store's."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.database.url!r})"


def open_database(settings: Settings) -> Database:
    """The database the settings name, migrated first when `EKSBOT_MIGRATE_ON_START` is on (off where a
    release job migrates). An SQLite file's directory is created on the way."""
    database = Database(settings.database_url)
    if settings.migrate_on_start:
        database.upgrade()
    log.info("database ready", extra={"database": database.url})
    return database
