"""Schema migrations, run from code: `upgrade(engine)` brings any database to the newest revision.

Migrations only add to the schema or move data forward: an upgrade never drops progress. Alembic is
imported when a migration runs, not when the server starts (it opens the database after it can answer).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from bot.storage.engine import WRITE

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Replicas starting together take turns: the first upgrades, the others find the schema current.
_LOCK_KEY = 0x656B73626F74


def alembic_config(connection: sa.Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("path_separator", "os")
    config.attributes["connection"] = connection
    return config


def upgrade(engine: sa.Engine) -> None:
    from alembic import command

    with engine.connect() as conn:
        conn.execution_options(**{WRITE: True})
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
            command.upgrade(alembic_config(conn), "head")


def current_revision(engine: sa.Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()
