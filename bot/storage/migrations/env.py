"""Alembic environment: runs on the connection the store hands over (see `bot.storage.migrate`).

Without one (the `alembic` command pointed at this directory), it connects to `sqlalchemy.url`.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context


def _run(connection: sa.Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=None,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = context.config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    engine = sa.create_engine(context.config.get_main_option("sqlalchemy.url") or "")
    with engine.begin() as conn:
        _run(conn)
    engine.dispose()
