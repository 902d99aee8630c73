"""What each conversation (a Slack thread) is about: a few content words, to read its follow-ups with.

Kept per opaque conversation id, with no user id and no message text, and forgotten after a while."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from bot.lang import Lang, is_lang
from bot.storage.records import upsert
from bot.storage.tables import conversations


def load_topic(conn: sa.Connection, conversation_id: str, since: datetime) -> tuple[Lang, str] | None:
    row = conn.execute(
        sa.select(conversations.c.lang, conversations.c.topic)
        .where(conversations.c.conversation_id == conversation_id, conversations.c.updated_at >= since)
    ).first()
    if row is None or not is_lang(row.lang):
        return None
    return row.lang, row.topic


def save_topic(conn: sa.Connection, conversation_id: str, lang: Lang, topic: str, now: datetime) -> None:
    statement = upsert(conn, conversations).values(
        conversation_id=conversation_id, lang=lang, topic=topic, updated_at=now,
    )
    conn.execute(statement.on_conflict_do_update(
        index_elements=["conversation_id"],
        set_={"lang": statement.excluded.lang, "topic": statement.excluded.topic,
              "updated_at": statement.excluded.updated_at},
    ))


def prune_topics(conn: sa.Connection, older_than: datetime) -> int:
    return conn.execute(conversations.delete().where(conversations.c.updated_at < older_than)).rowcount


def touch_topic(conn: sa.Connection, conversation_id: str, lang: Lang, now: datetime) -> None:
    """Keep a conversation's topic (an empty one for a new conversation) and note it was active now."""
    statement = upsert(conn, conversations).values(conversation_id=conversation_id, lang=lang, topic="",
                                                   updated_at=now)
    conn.execute(statement.on_conflict_do_update(
        index_elements=["conversation_id"], set_={"updated_at": statement.excluded.updated_at},
    ))
