"""Each person's language (Spanish or English), as they chose it, and the SQL that reads and writes it."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from bot.lang import Lang, is_lang
from bot.storage.records import upsert
from bot.storage.tables import people


def load_language(conn: sa.Connection, team: str, user: str) -> Lang | None:
    value = conn.execute(
        sa.select(people.c.lang).where(people.c.team_id == team, people.c.user_id == user)
    ).scalar()
    return value if is_lang(value) else None


def save_language(conn: sa.Connection, team: str, user: str, lang: Lang, now: datetime) -> None:
    statement = upsert(conn, people).values(team_id=team, user_id=user, lang=lang, updated_at=now)
    conn.execute(statement.on_conflict_do_update(
        index_elements=["team_id", "user_id"],
        set_={"lang": statement.excluded.lang, "updated_at": statement.excluded.updated_at},
    ))
