"""The vectors of the texts an embedding model embedded, keyed by the model's digest and the text's, so that
every replica reads what another embedded before instead of embedding it again.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "text_vectors",
        sa.Column("model", sa.String(64), primary_key=True),
        sa.Column("text_digest", sa.String(64), primary_key=True),
        sa.Column("dimension", sa.Integer, nullable=False),
        sa.Column("vector", sa.LargeBinary, nullable=False),
        sa.Column("created_at", TS, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("text_vectors")
