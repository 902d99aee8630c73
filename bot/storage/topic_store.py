"""`TopicStore`: what each conversation is about (the SQL is in `conversation_records`)."""

from __future__ import annotations

from datetime import datetime

from bot.lang import Lang
from bot.storage import conversation_records
from bot.storage.database import ConcernStore


class TopicStore(ConcernStore):
    def get(self, conversation_id: str, *, since: datetime) -> tuple[Lang, str] | None:
        """What a conversation is about (its language and content words), if it was updated since `since`."""
        with self.database.reading() as conn:
            return conversation_records.load_topic(conn, conversation_id, since)

    def set(self, conversation_id: str, lang: Lang, topic: str) -> None:
        with self.database.writing() as conn:
            conversation_records.save_topic(conn, conversation_id, lang, topic, self.database.clock())

    def touch(self, conversation_id: str, lang: Lang) -> None:
        """Note the conversation was active now, keeping its topic (an empty one when new)."""
        with self.database.writing() as conn:
            conversation_records.touch_topic(conn, conversation_id, lang, self.database.clock())

    def prune(self, older_than: datetime) -> int:
        """Forget the topics not updated since `older_than`; returns how many."""
        with self.database.writing() as conn:
            return conversation_records.prune_topics(conn, older_than)
