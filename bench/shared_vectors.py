"""A new replica's index build with the knowledge's vectors already in the database, against a full embed with
none, in one run, at about 10,000 sections of team docs.

    PYTHONPATH=. .venv/bin/python bench/shared_vectors.py [--sections 10000] [--quick] [--database-url URL]

The knowledge is `knowledge/` and `--sections` sections of the synthetic team docs of
`bench/knowledge_scale.py` (the same generator and seed). Each build is what a replica does at start when its
index directory is empty (`load_index` with rebuilding on: cut, embed, write the files, read them back), with
the same model (EKSBOT_EMBEDDING_BACKEND, default onnx; the model's ONNX export is made once beforehand, or
copied from `--export-from DIR`, so no build pays for it), each into a fresh index directory:

1. **no database**: every text embedded (as before the vectors were shared; `--no-baseline` leaves it out);
2. **first replica, empty database**: every text embedded, and each vector written to the database;
3. **new replica, vectors in the database**: every vector read from the database, nothing embedded;
4. **new replica after a change**: one doc gained a section since the database was filled: only its new
   texts are embedded.

`--prefill` fills the database with stand-in vectors (random unit vectors written under the model's digest for
every text, as the first replica would write them, without running the model) in place of build 2: it measures
the new replica's side at a size whose full embed does not fit in the run (79,000 texts at 10,000 sections:
over 15 minutes on 2 quiet cores). The new replica's index is then made of those vectors: its time is what is
measured, not its answers.

The database is an SQLite file in the temporary directory, or `--database-url` (PostgreSQL: a schema of its
own is made for the run and dropped after). Printed: each build's seconds, texts embedded, vectors read and
written, and the table's rows and bytes per row. The machine may be shared: compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT  # noqa: E402
from bench.knowledge_scale import SYNTHETIC_FOLDER, count_sections, write_synthetic_docs  # noqa: E402
from bot.embedding.embedder import Embedder, backend_of  # noqa: E402
from bot.retrieval.shared_vectors import VectorSource  # noqa: E402

CHANGE = ("\n## Maintenance window 4821\n\nThe maintenance window of cluster zeta-4821 starts every Sunday at 03:00 "
          "UTC. Jobs still running then are checkpointed and requeued by Kueue.\n")


class Counting:
    """The embedder, counting the texts it embeds."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.model_id = embedder.model_id
        self.dimension = embedder.dimension
        self.backend = backend_of(embedder)
        self.texts = 0

    def encode(self, texts: list[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.embedder.encode(texts)


class StandIn:
    """Random unit vectors under `embedder`'s identity (model id, backend, dimension): what the first replica
    would write to the database, without running the model."""

    def __init__(self, embedder: Embedder) -> None:
        self.model_id = embedder.model_id
        self.dimension = embedder.dimension
        self.backend = backend_of(embedder)
        self.rng = np.random.default_rng(0)

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = self.rng.standard_normal((len(texts), self.dimension)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


class CountingSource:
    """The database's vectors, counting the rows read and written, the calls and the seconds they took."""

    def __init__(self, source: VectorSource) -> None:
        self.source = source
        self.read = self.written = self.calls = 0
        self.seconds = 0.0

    def vectors(self, model: str, digests: Sequence[str]) -> Sequence[tuple[str, int, bytes]]:
        began = time.perf_counter()
        rows = self.source.vectors(model, digests)
        self.seconds += time.perf_counter() - began
        self.read += len(rows)
        self.calls += 1
        return rows

    def keep(self, model: str, rows: Sequence[tuple[str, int, bytes]]) -> None:
        began = time.perf_counter()
        self.source.keep(model, rows)
        self.seconds += time.perf_counter() - began
        self.written += len(rows)
        self.calls += 1


@dataclass
class Run:
    name: str
    seconds: float
    embedded: int
    read: int
    written: int
    calls: int
    database_seconds: float
    chunks: int
    sentences: int


@contextmanager
def database_url(given: str | None, tmp: Path) -> Iterator[str]:
    """The database of the run: an SQLite file in `tmp`, or a fresh schema of the PostgreSQL `given` (dropped
    after)."""
    if not given:
        yield f"sqlite:///{tmp / 'data' / 'eksbot.db'}"
        return
    if not given.startswith("postgresql"):
        yield given
        return
    import sqlalchemy as sa

    schema = f"bench_{uuid.uuid4().hex[:10]}"
    engine = sa.create_engine(given)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield f"{given}{'&' if '?' in given else '?'}options=-csearch_path%3D{schema}"
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()


def table_size(url: str) -> tuple[int, int]:
    """(rows of text_vectors, bytes the table takes with its index and TOAST)."""
    import sqlalchemy as sa

    from bot.storage import Database

    database = Database(url)
    try:
        with database.engine.connect() as conn:
            rows = int(conn.execute(sa.text("SELECT count(*) FROM text_vectors")).scalar_one())
            if conn.dialect.name == "postgresql":
                size = int(conn.execute(sa.text("SELECT pg_total_relation_size('text_vectors')")).scalar_one())
            else:
                file = Path(str(database.engine.url.database))
                size = sum(f.stat().st_size for f in (file, file.with_name(f"{file.name}-wal")) if f.exists())
    finally:
        database.close()
    return rows, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", type=int, default=10_000, help="sections of synthetic docs (default 10,000)")
    parser.add_argument("--quick", action="store_true", help="1,000 sections")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--database-url", help="the database (default: an SQLite file in the temporary directory)")
    parser.add_argument("--export-from", type=Path, help="an index directory whose ONNX export (onnx*/) is copied")
    parser.add_argument("--no-baseline", action="store_true", help="leave out the build with no database")
    parser.add_argument("--prefill", action="store_true",
                        help="fill the database with stand-in vectors instead of the first replica's full embed")
    args = parser.parse_args()
    if args.quick:
        args.sections = 1_000
    logging.basicConfig(level=logging.WARNING, format="  log: %(levelname)s %(name)s: %(message)s")

    from bot.config import load_settings
    from bot.embedding.backends import load_embedder
    from bot.knowledge import load_knowledge
    from bot.retrieval.artifacts import load_index
    from bot.retrieval.shared_vectors import SharedVectors
    from bot.storage import Database, VectorStore

    backend = os.environ.get("EKSBOT_EMBEDDING_BACKEND", "onnx")
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start (a shared machine: compare the "
          f"ratios); backend {backend}", flush=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="shared-vectors-") as tmp_name:
        tmp = Path(tmp_name)
        knowledge_dir = tmp / "knowledge"
        shutil.copytree(ROOT / "knowledge", knowledge_dir)
        plans = write_synthetic_docs(knowledge_dir / SYNTHETIC_FOLDER, args.sections, args.seed)
        sections, quiz = count_sections(knowledge_dir)
        print(f"knowledge: {sections} sections of {len(plans)} synthetic docs and {quiz} quiz questions", flush=True)

        export = tmp / "export"
        export.mkdir()
        if args.export_from:
            for found in args.export_from.glob("onnx*"):
                shutil.copytree(found, export / found.name)
        settings = load_settings(knowledge_dir=knowledge_dir, index_dir=export, data_dir=tmp / "data",
                                 embedding_backend=backend, auto_rebuild=True)
        embedder = load_embedder(settings)
        print(f"model {embedder.model_id} ({embedder.dimension} dims) on {backend_of(embedder)}", flush=True)

        runs: list[Run] = []
        with database_url(args.database_url, tmp) as url:
            database = Database(url)
            database.upgrade()

            def build(name: str, shared: bool, model: Embedder = embedder) -> None:
                knowledge = load_knowledge(knowledge_dir)
                counting, source = Counting(model), CountingSource(VectorStore(database))
                index_dir = tmp / f"index-{len(runs)}"
                for found in export.glob("onnx*"):
                    shutil.copytree(found, index_dir / found.name)
                began = time.perf_counter()
                index = load_index(knowledge, index_dir, counting, rebuild=True,
                                   shared=SharedVectors(source) if shared else None)
                run = Run(name, time.perf_counter() - began, counting.texts, source.read, source.written,
                          source.calls, source.seconds, len(index.chunks), len(index.sentences))
                runs.append(run)
                print(f"{name}: {run.seconds:.1f} s, {run.embedded} texts embedded, {run.read} vectors read, "
                      f"{run.written} written ({run.calls} calls to the database, {run.database_seconds:.1f} s)",
                      flush=True)

            if not args.no_baseline:
                build("no database (full embed)", shared=False)
            if args.prefill:
                build("database filled with stand-in vectors (no model run)", shared=True, model=StandIn(embedder))
            else:
                build("first replica, empty database", shared=True)
            build("new replica, vectors in the database", shared=True)
            changed = plans[len(plans) // 2].path
            changed.write_text(changed.read_text(encoding="utf-8") + CHANGE, encoding="utf-8")
            build("new replica after one doc changed", shared=True)
            database.close()
            rows, size = table_size(url)
            dialect = url.split(":")[0].split("+")[0]

        base = runs[0]  # the first build (with --prefill and --no-baseline: the stand-in's, not a full embed)
        print(f"\n{sections} sections: {runs[-1].chunks} chunks, {runs[-1].sentences} sentences; database: {dialect}")
        print("| build | seconds | vs first | texts embedded | vectors read | vectors written | database calls "
              "(seconds) |")
        print("|---|---|---|---|---|---|---|")
        for run in runs:
            print(f"| {run.name} | {run.seconds:.1f} | {run.seconds / base.seconds:.2f}x | {run.embedded} | "
                  f"{run.read} | {run.written} | {run.calls} ({run.database_seconds:.1f} s) |")
        print(f"\ntext_vectors: {rows} rows, {size / 1e6:.1f} MB with its index ({size / max(rows, 1):.0f} bytes "
              f"a row, {embedder.dimension * 4} of them the vector)")
    print(f"(whole run: {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
