"""The engine under `Database`: SQLite (one file, WAL) or PostgreSQL (shared by several replicas), and
`storage_errors`, which turns SQLAlchemy's errors into the project's own.

SQLite is driven in its non-legacy transaction mode: the driver's own BEGIN handling is turned off and
every transaction starts with an explicit BEGIN, so DDL is transactional and a writing transaction can
take the write lock up front (`BEGIN IMMEDIATE`) instead of failing when it upgrades from a read.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool

from bot.errors import StorageIntegrityError, StorageUnavailableError

BUSY_TIMEOUT_MS = 10_000
CONNECT_TIMEOUT_S = 5
# Every PostgreSQL statement gives up after this, and waits for a lock at most LOCK_TIMEOUT_MS: a locked
# table or a stuck server frees its connection and thread instead of holding them.
STATEMENT_TIMEOUT_MS = 10_000
LOCK_TIMEOUT_MS = 5_000
WRITE = "eksbot_write"  # execution option: this connection's transactions write


@contextmanager
def storage_errors() -> Iterator[None]:
    """SQLAlchemy's errors as the project's own: a refused write (integrity), or the database is unavailable
    (anything else: unreachable, locked, full, read-only, not migrated). The message names only the kind of
    failure."""
    try:
        yield
    except sa.exc.IntegrityError as exc:
        raise StorageIntegrityError(f"database refused a write ({_kind(exc)})", _detail(exc)) from exc
    except sa.exc.SQLAlchemyError as exc:
        raise StorageUnavailableError(f"database unavailable ({_kind(exc)})", _detail(exc)) from exc
    except OSError as exc:  # an SQLite file's directory that cannot be made or read
        raise StorageUnavailableError(f"database unavailable ({exc.__class__.__name__})", str(exc)) from exc


def _kind(exc: sa.exc.SQLAlchemyError) -> str:
    return exc.__class__.__name__


def _detail(exc: sa.exc.SQLAlchemyError) -> str:
    """The driver's first line (never the SQL statement or its parameters, which carry user ids)."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    return (text.splitlines() or [_kind(exc)])[0]


def create_engine(url: str) -> sa.Engine:
    """An engine whose errors never quote a statement's parameters (they carry user ids)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(url)
    connect_args: dict[str, Any] = {}
    if parsed.get_backend_name() == "postgresql":
        if "connect_timeout" not in parsed.query:
            connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
        if "options" not in parsed.query:
            connect_args["options"] = f"-c statement_timeout={STATEMENT_TIMEOUT_MS} -c lock_timeout={LOCK_TIMEOUT_MS}"
    return sa.create_engine(url, pool_pre_ping=True, connect_args=connect_args, hide_parameters=True)


def never_created(url: str) -> bool:
    """Whether `url` names an SQLite database whose file was never made (nothing was ever saved there), so that
    a reader can leave it alone rather than open it, which would make the file. Any other database counts as
    made: only connecting would tell."""
    parsed = make_url(url)
    return parsed.get_backend_name() == "sqlite" and not (parsed.database and Path(parsed.database).is_file())


def _sqlite_engine(url: str) -> sa.Engine:
    database = make_url(url).database
    in_memory = not database or database == ":memory:"
    if in_memory:
        engine = sa.create_engine(url, poolclass=StaticPool, connect_args={"check_same_thread": False},
                                  hide_parameters=True)
    else:
        engine = sa.create_engine(url, hide_parameters=True)
        directory = Path(database).expanduser().parent  # type: ignore[arg-type]

        @sa.event.listens_for(engine, "do_connect")
        def _make_directory(*_args: Any) -> None:
            directory.mkdir(parents=True, exist_ok=True)  # at each connection: it may be mounted later

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself, below
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not in_memory:
            _use_wal(cursor)
            cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(WRITE) else "BEGIN")

    return engine


def _use_wal(cursor: Any) -> None:
    """Switch a file to WAL once. The switch needs the file to itself and does not wait on the busy
    timeout, so processes opening a new file together retry it until one has made it."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        if str(cursor.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
            return
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
