"""`VectorStore`: the vectors of embedded texts, shared by every replica over the database (the SQL is in
`vector_records`). An index build reads the vectors of the texts embedded before, by whichever replica, and
writes those it embedded."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.errors import StorageError
from bot.storage import vector_records as sql
from bot.storage.database import ConcernStore
from bot.storage.vector_records import VectorRow

LOOKUP_BATCH = 2000  # text digests per query (a few MB of vectors back at 384 dimensions)
WRITE_BATCH = 500  # rows per transaction

log = logging.getLogger(__name__)


class VectorStore(ConcernStore):
    def vectors(self, model: str, digests: Sequence[str]) -> list[VectorRow]:
        """The stored vectors of `model` for those of `digests` that have one, `LOOKUP_BATCH` digests a query:
        rows of (text digest, dimension, little-endian float32 bytes)."""
        self._with_statistics()
        out: list[VectorRow] = []
        for first in range(0, len(digests), LOOKUP_BATCH):
            with self.database.reading() as conn:
                out.extend(sql.found(conn, model, digests[first : first + LOOKUP_BATCH]))
        return out

    def keep(self, model: str, rows: Sequence[tuple[str, int, bytes]]) -> None:
        """Store the vectors `rows` (text digest, dimension, float32 bytes) of `model`, `WRITE_BATCH` a
        transaction; those stored already are kept as they are (two replicas writing the same text at once both
        succeed)."""
        for first in range(0, len(rows), WRITE_BATCH):
            with self.database.writing() as conn:
                sql.add(conn, model, rows[first : first + WRITE_BATCH], self.database.clock())

    def _with_statistics(self) -> None:
        """Before reading a table PostgreSQL's statistics do not describe (filled moments ago by a first
        replica, before autovacuum analyzed it again): ANALYZE it. With statistics of an empty table the planner
        reads every row of the model for each lookup of a few thousand digests (seconds each at 70,000 rows);
        with statistics of the rows there, each lookup is an index scan of the primary key."""
        with self.database.reading() as conn:
            if sql.has_statistics(conn):
                return
        try:
            with self.database.writing() as conn:
                sql.make_statistics(conn)
        except StorageError as exc:  # not the table's owner: the reads are slower, not wrong
            log.info("vectors table not analyzed: %s", exc)

    def count(self, model: str | None = None) -> int:
        with self.database.reading() as conn:
            return sql.count(conn, model)
