"""Knowledge added while the service runs: entries (with their history), notes on questions and sections, the
revision every replica watches, and the entry that answered a knowledge gap. Rounds gain the secret their
attempt ids are keyed with.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "knowledge_entries",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("topic", sa.Text),
        sa.Column("quiz", sa.Text),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("credit", sa.String(128)),
        sa.Column("request_key", sa.String(128)),
        sa.Column("created_by", sa.String(128), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_by", sa.String(128), nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.Column("deleted_by", sa.String(128)),
        sa.Column("deleted_at", TS),
        sa.CheckConstraint("kind IN ('doc', 'quiz')", name="ck_knowledge_entries_kind"),
        sa.UniqueConstraint("request_key", name="uq_knowledge_entries_request"),
    )
    op.create_table(
        "knowledge_entry_versions",
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
        sa.Column("changed_at", TS, nullable=False),
    )
    op.create_table(
        "knowledge_notes",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("doc_id", sa.String(255), nullable=False),
        sa.Column("question", sa.Integer, nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("request_key", sa.String(128)),
        sa.Column("created_by", sa.String(128), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("deleted_by", sa.String(128)),
        sa.Column("deleted_at", TS),
        sa.UniqueConstraint("request_key", name="uq_knowledge_notes_request"),
    )
    op.create_index("ix_knowledge_notes_question", "knowledge_notes", ["doc_id", "question"])
    op.create_table(
        "knowledge_revision",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
    )
    op.execute(sa.text("INSERT INTO knowledge_revision (id, revision, updated_at) VALUES (1, 0, CURRENT_TIMESTAMP)"))
    with op.batch_alter_table("knowledge_gaps") as batch:
        batch.add_column(sa.Column("answered_by", sa.String(32)))
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("secret", sa.String(32)))


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("secret")
    with op.batch_alter_table("knowledge_gaps") as batch:
        batch.drop_column("answered_by")
    op.drop_table("knowledge_revision")
    op.drop_index("ix_knowledge_notes_question", table_name="knowledge_notes")
    op.drop_table("knowledge_notes")
    op.drop_table("knowledge_entry_versions")
    op.drop_table("knowledge_entries")
