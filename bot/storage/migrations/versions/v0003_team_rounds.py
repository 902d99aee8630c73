"""Team rounds in a channel: weekly schedules, rounds (with their lease) and each person's answers.

Revision ID: 0003
Revises: 0002
Create Date: 2025-03-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)
LIVE = "status IN ('pending', 'open')"


def upgrade() -> None:
    op.create_table(
        "round_schedules",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("team_id", sa.String(64), nullable=False),
        sa.Column("channel_id", sa.String(64), nullable=False),
        sa.Column("created_by", sa.String(128), nullable=False),
        sa.Column("weekday", sa.Integer, nullable=False),
        sa.Column("at_time", sa.String(5), nullable=False),
        sa.Column("timezone", sa.String(64), nullable=False),
        sa.Column("questions", sa.Integer, nullable=False),
        sa.Column("topic", sa.Text),
        sa.Column("minutes", sa.Integer, nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("paused_reason", sa.String(64)),
        sa.Column("next_run", TS, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.CheckConstraint("status IN ('active', 'paused', 'cancelled')", name="ck_round_schedules_status"),
    )
    op.create_index("ix_round_schedules_due", "round_schedules", ["status", "next_run"])
    op.create_index("ix_round_schedules_channel", "round_schedules", ["team_id", "channel_id"])
    op.create_table(
        "rounds",
        sa.Column("id", sa.String(32), primary_key=True),
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
        sa.Column("created_at", TS, nullable=False),
        sa.Column("post_at", TS, nullable=False),
        sa.Column("opened_at", TS),
        sa.Column("ends_at", TS),
        sa.Column("closed_at", TS),
        sa.Column("message_ts", sa.String(32)),
        sa.Column("end_reason", sa.String(32)),
        sa.Column("ended_by", sa.String(128)),
        sa.Column("shown_people", sa.Integer, nullable=False),
        sa.Column("shown_at", TS),
        sa.Column("lease_owner", sa.String(128)),
        sa.Column("lease_until", TS),
        sa.CheckConstraint("status IN ('pending', 'open', 'closed', 'failed')", name="ck_rounds_status"),
    )
    op.create_index("uq_rounds_live_channel", "rounds", ["team_id", "channel_id"], unique=True,
                    sqlite_where=sa.text(LIVE), postgresql_where=sa.text(LIVE))
    op.create_index("ix_rounds_status", "rounds", ["status"])
    op.create_index("ix_rounds_channel_opened", "rounds", ["team_id", "channel_id", "opened_at"])
    op.create_table(
        "round_answers",
        sa.Column("round_id", sa.String(32), sa.ForeignKey("rounds.id", name="fk_round_answers_round"),
                  primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.String(128), primary_key=True),
        sa.Column("attempt_id", sa.String(64), nullable=False),
        sa.Column("choice", sa.String(8), nullable=False),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("answered_at", TS, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("round_answers")
    op.drop_index("ix_rounds_channel_opened", table_name="rounds")
    op.drop_index("ix_rounds_status", table_name="rounds")
    op.drop_index("uq_rounds_live_channel", table_name="rounds")
    op.drop_table("rounds")
    op.drop_index("ix_round_schedules_channel", table_name="round_schedules")
    op.drop_index("ix_round_schedules_due", table_name="round_schedules")
    op.drop_table("round_schedules")
