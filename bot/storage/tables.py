"""The tables the code queries. The schema itself is created by the migrations in `migrations/versions/`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect


class UTCDateTime(sa.TypeDecorator[datetime]):
    """Aware UTC datetimes in and out, whatever the database keeps (SQLite keeps naive text)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


metadata = sa.MetaData()

attempts = sa.Table(
    "attempts", metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("team_id", sa.String(64), nullable=False),
    sa.Column("user_id", sa.String(128), nullable=False),
    sa.Column("doc_id", sa.String(128), nullable=False),
    sa.Column("question", sa.Integer, nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("option_order", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("answered_at", UTCDateTime),
    sa.Column("choice", sa.String(8)),
    sa.Column("correct", sa.Boolean),
    sa.Column("confidence", sa.String(16)),
    sa.CheckConstraint("confidence IN ('sure', 'guessed')", name="ck_attempts_confidence"),
    sa.Index("ix_attempts_team_user", "team_id", "user_id"),
    sa.Index("ix_attempts_question", "doc_id", "question"),
)

reviews = sa.Table(
    "reviews", metadata,
    sa.Column("team_id", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.String(128), primary_key=True),
    sa.Column("doc_id", sa.String(128), primary_key=True),
    sa.Column("question", sa.Integer, primary_key=True),
    sa.Column("card", sa.Text, nullable=False),
    sa.Column("due", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

slack_events = sa.Table(
    "slack_events", metadata,
    sa.Column("event_id", sa.String(255), primary_key=True),
    sa.Column("received_at", UTCDateTime, nullable=False),
    sa.Index("ix_slack_events_received_at", "received_at"),
)

feedback = sa.Table(
    "feedback", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("team_id", sa.String(64), nullable=False),
    sa.Column("user_id", sa.String(128), nullable=False),
    sa.Column("message_key", sa.String(255), nullable=False),
    sa.Column("doc_id", sa.String(128), nullable=False),
    sa.Column("question", sa.Integer, nullable=False),
    sa.Column("chunk_id", sa.Integer),
    sa.Column("vote", sa.String(8), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.UniqueConstraint("team_id", "user_id", "message_key", name="uq_feedback_voter"),
    sa.CheckConstraint("vote IN ('up', 'down')", name="ck_feedback_vote"),
)

people = sa.Table(
    "people", metadata,
    sa.Column("team_id", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.String(128), primary_key=True),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.CheckConstraint("lang IN ('es', 'en')", name="ck_people_lang"),
)

knowledge_gaps = sa.Table(
    "knowledge_gaps", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("group_key", sa.String(255), nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("example", sa.Text),
    sa.Column("question", sa.Integer),
    sa.Column("count", sa.Integer, nullable=False),
    sa.Column("first_seen", UTCDateTime, nullable=False),
    sa.Column("last_seen", UTCDateTime, nullable=False),
    sa.Column("answered_by", sa.String(32)),  # the knowledge entry that answered it
    sa.UniqueConstraint("kind", "lang", "group_key", name="uq_knowledge_gaps_group"),
    sa.CheckConstraint("kind IN ('unanswered', 'uncovered', 'downvoted')", name="ck_knowledge_gaps_kind"),
    sa.Index("ix_knowledge_gaps_last_seen", "last_seen"),
)

conversations = sa.Table(
    "conversations", metadata,
    sa.Column("conversation_id", sa.String(255), primary_key=True),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("topic", sa.Text, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Index("ix_conversations_updated_at", "updated_at"),
)

# -- team rounds ---------------------------------------------------------------------------------------

ROUND_LIVE = "status IN ('pending', 'open')"  # at most one such round per channel

round_schedules = sa.Table(
    "round_schedules", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("team_id", sa.String(64), nullable=False),
    sa.Column("channel_id", sa.String(64), nullable=False),
    sa.Column("created_by", sa.String(128), nullable=False),
    sa.Column("weekday", sa.Integer, nullable=False),  # 0 is Monday
    sa.Column("at_time", sa.String(5), nullable=False),  # "HH:MM", local to `timezone`
    sa.Column("timezone", sa.String(64), nullable=False),
    sa.Column("questions", sa.Integer, nullable=False),
    sa.Column("topic", sa.Text),
    sa.Column("minutes", sa.Integer, nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("paused_reason", sa.String(64)),
    sa.Column("next_run", UTCDateTime, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.CheckConstraint("status IN ('active', 'paused', 'cancelled')", name="ck_round_schedules_status"),
    sa.Index("ix_round_schedules_due", "status", "next_run"),
    sa.Index("ix_round_schedules_channel", "team_id", "channel_id"),
)

rounds = sa.Table(
    "rounds", metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("secret", sa.String(32)),
    sa.Column("team_id", sa.String(64), nullable=False),
    sa.Column("channel_id", sa.String(64), nullable=False),
    sa.Column("started_by", sa.String(128), nullable=False),
    sa.Column("schedule_id", sa.Integer, sa.ForeignKey("round_schedules.id", name="fk_rounds_schedule")),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("topic", sa.Text),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("minutes", sa.Integer, nullable=False),
    sa.Column("questions", sa.Text, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("post_at", UTCDateTime, nullable=False),
    sa.Column("opened_at", UTCDateTime),
    sa.Column("ends_at", UTCDateTime),
    sa.Column("closed_at", UTCDateTime),
    sa.Column("message_ts", sa.String(32)),
    sa.Column("end_reason", sa.String(32)),
    sa.Column("ended_by", sa.String(128)),
    sa.Column("shown_people", sa.Integer, nullable=False),
    sa.Column("shown_at", UTCDateTime),
    sa.Column("lease_owner", sa.String(128)),
    sa.Column("lease_until", UTCDateTime),
    sa.CheckConstraint("status IN ('pending', 'open', 'closed', 'failed')", name="ck_rounds_status"),
    sa.Index("uq_rounds_live_channel", "team_id", "channel_id", unique=True,
             sqlite_where=sa.text(ROUND_LIVE), postgresql_where=sa.text(ROUND_LIVE)),
    sa.Index("ix_rounds_status", "status"),
    sa.Index("ix_rounds_channel_opened", "team_id", "channel_id", "opened_at"),
)

round_answers = sa.Table(
    "round_answers", metadata,
    sa.Column("round_id", sa.String(32), sa.ForeignKey("rounds.id", name="fk_round_answers_round"),
              primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.String(128), primary_key=True),
    sa.Column("attempt_id", sa.String(64), nullable=False),
    sa.Column("choice", sa.String(8), nullable=False),
    sa.Column("correct", sa.Boolean, nullable=False),
    sa.Column("answered_at", UTCDateTime, nullable=False),
)

knowledge_entries = sa.Table(
    "knowledge_entries", metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("topic", sa.Text),
    sa.Column("quiz", sa.Text),  # JSON {"options": [str, ...], "answer": "B"} for a quiz question
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("credit", sa.String(128)),
    sa.Column("request_key", sa.String(128)),
    sa.Column("created_by", sa.String(128), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_by", sa.String(128), nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Column("deleted_by", sa.String(128)),
    sa.Column("deleted_at", UTCDateTime),
    sa.CheckConstraint("kind IN ('doc', 'quiz')", name="ck_knowledge_entries_kind"),
    sa.UniqueConstraint("request_key", name="uq_knowledge_entries_request"),
)

knowledge_entry_versions = sa.Table(
    "knowledge_entry_versions", metadata,
    sa.Column("entry_id", sa.String(32), sa.ForeignKey("knowledge_entries.id", name="fk_entry_versions_entry"),
              primary_key=True),
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("action", sa.String(16), nullable=False),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("topic", sa.Text),
    sa.Column("quiz", sa.Text),
    sa.Column("changed_by", sa.String(128), nullable=False),
    sa.Column("changed_at", UTCDateTime, nullable=False),
)

knowledge_notes = sa.Table(
    "knowledge_notes", metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("doc_id", sa.String(255), nullable=False),
    sa.Column("question", sa.Integer, nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("request_key", sa.String(128)),
    sa.Column("created_by", sa.String(128), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("deleted_by", sa.String(128)),
    sa.Column("deleted_at", UTCDateTime),
    sa.UniqueConstraint("request_key", name="uq_knowledge_notes_request"),
    sa.Index("ix_knowledge_notes_question", "doc_id", "question"),
)

knowledge_revision = sa.Table(
    "knowledge_revision", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("revision", sa.Integer, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

# -- vectors shared by the replicas ----------------------------------------------------------------------

text_vectors = sa.Table(
    "text_vectors", metadata,
    sa.Column("model", sa.String(64), primary_key=True),  # the embedding model's digest
    sa.Column("text_digest", sa.String(64), primary_key=True),  # sha256 of the exact text embedded
    sa.Column("dimension", sa.Integer, nullable=False),
    sa.Column("vector", sa.LargeBinary, nullable=False),  # `dimension` little-endian float32
    sa.Column("created_at", UTCDateTime, nullable=False),
)
