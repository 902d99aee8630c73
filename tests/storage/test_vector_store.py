"""The vectors every replica shares through the database (SQLite and the real PostgreSQL): the migration that
adds their table, reading them back by digest, and writers of the same texts at once."""

from __future__ import annotations

from typing import Any

import numpy as np
import sqlalchemy as sa
from alembic import command

from bot.storage import Database, Stores, VectorStore
from bot.storage.migrate import alembic_config, head_revision
from bot.storage.vector_records import has_statistics
from bot.storage.vector_store import LOOKUP_BATCH
from tests.support.quiz_helpers import race

MODEL = "a" * 64
OTHER_MODEL = "b" * 64


def row(n: int, dimension: int = 4) -> tuple[str, int, bytes]:
    return f"{n:064x}", dimension, np.full(dimension, n, dtype="<f4").tobytes()


def test_the_migration_adds_the_table_to_a_database_at_the_previous_revision(db_url: str) -> None:
    database = Database(db_url)
    try:
        with database.engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0004")
            conn.execute(sa.text("UPDATE knowledge_revision SET revision = 7"))
        assert "text_vectors" not in sa.inspect(database.engine).get_table_names()
        database.upgrade()
        assert database.revision() == head_revision() == "0005"
        with database.engine.connect() as conn:  # what was there is kept
            assert conn.execute(sa.text("SELECT revision FROM knowledge_revision")).scalar_one() == 7
        store = VectorStore(database)
        store.keep(MODEL, [row(1)])
        assert store.vectors(MODEL, [row(1)[0]]) == [row(1)]
    finally:
        database.close()


def test_vectors_come_back_by_model_and_text_digest(store: Stores) -> None:
    store.vectors.keep(MODEL, [row(1), row(2), row(3)])
    store.vectors.keep(OTHER_MODEL, [row(4)])
    found = store.vectors.vectors(MODEL, [row(2)[0], row(3)[0], row(4)[0], "f" * 64])
    assert sorted(found) == [row(2), row(3)]  # not another model's, nor a text never stored
    assert store.vectors.vectors(OTHER_MODEL, [row(1)[0]]) == []
    assert {digest: float(np.frombuffer(vector, dtype="<f4")[0]) for digest, _, vector in found} == {
        row(2)[0]: 2.0, row(3)[0]: 3.0}


def test_more_digests_than_one_query_takes_are_all_found(store: Stores) -> None:
    rows = [row(n) for n in range(LOOKUP_BATCH + 10)]
    store.vectors.keep(MODEL, rows)
    assert sorted(store.vectors.vectors(MODEL, [digest for digest, *_ in rows])) == sorted(rows)


def test_writing_a_stored_text_again_keeps_the_first_vector_and_does_not_fail(store: Stores) -> None:
    store.vectors.keep(MODEL, [row(1)])
    digest, dimension, _ = row(1)
    store.vectors.keep(MODEL, [(digest, dimension, np.zeros(dimension, dtype="<f4").tobytes()), row(2)])
    assert sorted(store.vectors.vectors(MODEL, [digest, row(2)[0]])) == [row(1), row(2)]
    assert store.vectors.count(MODEL) == 2


def keep_worker(url: str, rows: list[tuple[str, int, bytes]], barrier: Any, results: Any) -> None:
    """Write `rows` at the same moment as the other process (two replicas embedding the same knowledge)."""
    database = Database(url)
    try:
        for first in range(0, len(rows), 50):
            barrier.wait(timeout=60)
            VectorStore(database).keep(MODEL, rows[first : first + 50])
            results.put(("kept", first))
    except Exception as exc:  # noqa: BLE001
        results.put(("error", repr(exc)))
    finally:
        database.close()


def test_two_processes_writing_the_same_vectors_at_once_both_succeed(store: Stores, db_url: str) -> None:
    rows = [row(n) for n in range(200)]
    results = race(keep_worker, [(db_url, rows), (db_url, rows)], rounds=4)
    assert sorted(results) == sorted([("kept", first) for first in range(0, 200, 50)] * 2)
    assert store.vectors.count(MODEL) == 200
    assert sorted(store.vectors.vectors(MODEL, [digest for digest, *_ in rows])) == sorted(rows)


def test_reading_a_table_just_filled_gives_postgresql_statistics_of_its_rows(postgres_url: str) -> None:
    """With statistics of an empty table PostgreSQL reads every row of the model for each lookup of a few
    thousand digests: a new replica reading a table a first replica filled moments ago would time out."""
    database = Database(postgres_url)
    try:
        database.upgrade()
        with database.writing() as conn:  # analyzed while empty (by autovacuum, or a first build's first read)
            conn.execute(sa.text("ANALYZE text_vectors"))
        rows = [row(n, dimension=384) for n in range(5000)]
        VectorStore(database).keep(MODEL, rows)
        wanted = [digest for digest, *_ in rows[::25]]
        assert len(VectorStore(database).vectors(MODEL, wanted)) == len(wanted)
        with database.reading() as conn:
            assert has_statistics(conn)
            plan = "\n".join(conn.execute(sa.text(
                "EXPLAIN SELECT vector FROM text_vectors WHERE model = :m AND text_digest = ANY(:d)"),
                {"m": MODEL, "d": wanted}).scalars())
        assert "Index Scan" in plan and "Bitmap" not in plan, plan
    finally:
        database.close()
