"""Schema migrations, run from code: `upgrade(engine)` brings any database to the newest revision.

Migrations only add to the schema or move data forward: an upgrade never drops progress. Alembic is
imported when a migration runs, not when the server starts (it opens the database after it can answer).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from bot.storage.engine import WRITE

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Replicas starting together take turns: the first upgrades, the others find the schema current.
_LOCK_KEY = 0x656B73626F74
# Alembic runs a migration through module-level proxies (`alembic.context`, `alembic.op`) it sets and removes:
# two upgrades at once in one process (two databases opened by two threads) would pull them from under each
# other. They take turns.
_IN_PROCESS = threading.Lock()

log = logging.getLogger(__name__)


def alembic_config(connection: sa.Connection | None = None) -> Config:
    quiet_alembic()
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("path_separator", "os")
    config.attributes["connection"] = connection
    return config


def upgrade(engine: sa.Engine) -> None:
    quiet_alembic()
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    with _IN_PROCESS, engine.connect() as conn:
        conn.execution_options(**{WRITE: True})
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
            before = MigrationContext.configure(conn).get_current_revision()
            command.upgrade(alembic_config(conn), "head")
            after = MigrationContext.configure(conn).get_current_revision()
    if after != before:
        log.info("database schema upgraded", extra={"from_revision": before or "empty", "revision": after})


def quiet_alembic() -> None:
    """Alembic logs at INFO each plugin it sets up (as it is imported) and each step of an upgrade, on every
    start: its loggers are set to WARNING before it is imported, and an upgrade is one line of ours. A level
    set on them beforehand is kept."""
    logger = logging.getLogger("alembic")
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.WARNING)


def current_revision(engine: sa.Engine) -> str | None:
    quiet_alembic()
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def head_revision() -> str | None:
    quiet_alembic()
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()
