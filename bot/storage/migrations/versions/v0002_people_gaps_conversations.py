"""Language per person, knowledge gaps and the topics of conversations.

Revision ID: 0002
Revises: 0001
Create Date: 2025-02-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "people",
        sa.Column("team_id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(128), primary_key=True),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.CheckConstraint("lang IN ('es', 'en')", name="ck_people_lang"),
    )
    op.create_table(
        "knowledge_gaps",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("group_key", sa.String(255), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("example", sa.Text),
        sa.Column("question", sa.Integer),
        sa.Column("count", sa.Integer, nullable=False),
        sa.Column("first_seen", TS, nullable=False),
        sa.Column("last_seen", TS, nullable=False),
        sa.UniqueConstraint("kind", "lang", "group_key", name="uq_knowledge_gaps_group"),
        sa.CheckConstraint("kind IN ('unanswered', 'uncovered', 'downvoted')", name="ck_knowledge_gaps_kind"),
    )
    op.create_index("ix_knowledge_gaps_last_seen", "knowledge_gaps", ["last_seen"])
    op.create_table(
        "conversations",
        sa.Column("conversation_id", sa.String(255), primary_key=True),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("topic", sa.Text, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
    )
    op.create_index("ix_conversations_updated_at", "conversations", ["updated_at"])


def downgrade() -> None:
    op.drop_index("ix_conversations_updated_at", table_name="conversations")
    op.drop_table("conversations")
    op.drop_index("ix_knowledge_gaps_last_seen", table_name="knowledge_gaps")
    op.drop_table("knowledge_gaps")
    op.drop_table("people")
