"""Initial schema: quiz attempts, review schedules, Slack event ids and answer feedback.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "attempts",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("team_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(128), nullable=False),
        sa.Column("doc_id", sa.String(128), nullable=False),
        sa.Column("question", sa.Integer, nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("option_order", sa.Text, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("answered_at", TS),
        sa.Column("choice", sa.String(8)),
        sa.Column("correct", sa.Boolean),
        sa.Column("confidence", sa.String(16)),
        sa.CheckConstraint("confidence IN ('sure', 'guessed')", name="ck_attempts_confidence"),
    )
    op.create_index("ix_attempts_team_user", "attempts", ["team_id", "user_id"])
    op.create_index("ix_attempts_question", "attempts", ["doc_id", "question"])
    op.create_table(
        "reviews",
        sa.Column("team_id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(128), primary_key=True),
        sa.Column("doc_id", sa.String(128), primary_key=True),
        sa.Column("question", sa.Integer, primary_key=True),
        sa.Column("card", sa.Text, nullable=False),
        sa.Column("due", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
    )
    op.create_table(
        "slack_events",
        sa.Column("event_id", sa.String(255), primary_key=True),
        sa.Column("received_at", TS, nullable=False),
    )
    op.create_index("ix_slack_events_received_at", "slack_events", ["received_at"])
    op.create_table(
        "feedback",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("team_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(128), nullable=False),
        sa.Column("message_key", sa.String(255), nullable=False),
        sa.Column("doc_id", sa.String(128), nullable=False),
        sa.Column("question", sa.Integer, nullable=False),
        sa.Column("chunk_id", sa.Integer),
        sa.Column("vote", sa.String(8), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.UniqueConstraint("team_id", "user_id", "message_key", name="uq_feedback_voter"),
        sa.CheckConstraint("vote IN ('up', 'down')", name="ck_feedback_vote"),
    )


def downgrade() -> None:
    op.drop_table("feedback")
    op.drop_index("ix_slack_events_received_at", table_name="slack_events")
    op.drop_table("slack_events")
    op.drop_table("reviews")
    op.drop_index("ix_attempts_question", table_name="attempts")
    op.drop_index("ix_attempts_team_user", table_name="attempts")
    op.drop_table("attempts")
