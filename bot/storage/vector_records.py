"""The vectors of embedded texts as stored: one row per (model digest, text digest), the vector as
little-endian float32 bytes with its dimension. A row is written once and never changed: the same text
embedded by the same model gives the same vector, so a second write of it (another replica, at the same
moment) is dropped."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

import sqlalchemy as sa

from bot.storage.records import upsert
from bot.storage.tables import text_vectors


class VectorRow(NamedTuple):
    text_digest: str
    dimension: int
    vector: bytes  # `dimension` little-endian float32


def found(conn: sa.Connection, model: str, digests: Sequence[str]) -> list[VectorRow]:
    """The rows of `model` for those of `digests` that are stored (in one query)."""
    if not digests:
        return []
    query = sa.select(text_vectors.c.text_digest, text_vectors.c.dimension, text_vectors.c.vector).where(
        text_vectors.c.model == model, text_vectors.c.text_digest.in_(list(digests)))
    return [VectorRow(row.text_digest, row.dimension, bytes(row.vector)) for row in conn.execute(query)]


def add(conn: sa.Connection, model: str, rows: Sequence[tuple[str, int, bytes]], now: datetime) -> None:
    """Store `rows` of `model`; a row already stored (by anyone, even in a transaction committed meanwhile)
    is left as it is."""
    if not rows:
        return
    statement = upsert(conn, text_vectors).on_conflict_do_nothing(index_elements=["model", "text_digest"])
    conn.execute(statement, [
        {"model": model, "text_digest": digest, "dimension": dimension, "vector": vector, "created_at": now}
        for digest, dimension, vector in rows])


def count(conn: sa.Connection, model: str | None = None) -> int:
    """How many vectors are stored (of `model`, when given)."""
    query = sa.select(sa.func.count()).select_from(text_vectors)
    if model is not None:
        query = query.where(text_vectors.c.model == model)
    return int(conn.execute(query).scalar_one())


STALE_FROM_PAGES = 256  # 2 MB of rows (about 1,000): below, any plan is quick


def has_statistics(conn: sa.Connection) -> bool:
    """Whether PostgreSQL's statistics of the table describe its rows. It has none of its digests until the
    table is analyzed with rows in it: a table analyzed or vacuumed while (nearly) empty, as a first build's first
    read finds it, is planned as one of a few rows until autovacuum analyzes it again, a while after thousands
    were written. Stale too when the table grew to more than twice the pages the statistics counted. True below
    `STALE_FROM_PAGES`, and elsewhere than on PostgreSQL."""
    if conn.dialect.name != "postgresql":
        return True
    found = conn.execute(sa.text(
        "SELECT c.relpages, pg_relation_size(c.oid) / current_setting('block_size')::int, s.attname IS NOT NULL "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_stats s "
        "ON s.schemaname = n.nspname AND s.tablename = c.relname AND s.attname = 'text_digest' "
        "WHERE c.oid = to_regclass('text_vectors')")).first()
    if found is None:
        return True
    counted, pages, described = int(found[0]), int(found[1]), bool(found[2])
    return pages < STALE_FROM_PAGES or (described and pages <= 2 * counted)


def make_statistics(conn: sa.Connection) -> None:
    """ANALYZE the table (a sample of its rows: a fraction of a second at any size)."""
    conn.execute(sa.text("ANALYZE text_vectors"))

