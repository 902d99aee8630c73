"""What searching Spanish questions said in English costs: the answer time of Spanish questions over the quiz
and the test pages (tests/docs: public, runbook and holdout pages, most written only in English), with the
English reading (a second text in the same embedding batch, a second dense search) and without it, in one run,
the two alternating question by question.

    .venv/bin/python bench/spanish_on_pages.py [--rounds 3]

The questions are the Spanish lines of tests/docs/*.jsonl and tests/docs/holdout/questions.jsonl. Without the
English reading is the same assistant with no section marked as written only in English, as a knowledge of the
quiz alone is. The machine may be shared: the ratio of one run means more than its absolute times.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, percentile, summary  # noqa: E402
from bot.answering.assistant import Assistant  # noqa: E402
from bot.config import load_settings  # noqa: E402
from bot.embedding.backends import load_embedder  # noqa: E402
from bot.knowledge import load_knowledge  # noqa: E402
from bot.retrieval.artifacts import build_index, load_index  # noqa: E402

DOCS = ROOT / "tests" / "docs"
FILES = [*sorted(DOCS.glob("*.jsonl")), DOCS / "holdout" / "questions.jsonl"]


def spanish_questions() -> list[str]:
    return [row["q"] for path in FILES for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and (row := json.loads(line)).get("lang") == "es"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    settings = load_settings()
    embedder = load_embedder(settings)
    with tempfile.TemporaryDirectory() as tmp:
        knowledge_dir = Path(tmp) / "knowledge"
        shutil.copytree(ROOT / "knowledge", knowledge_dir)
        for folder in ("public", "runbook", "holdout"):
            shutil.copytree(DOCS / folder, knowledge_dir / folder)
        knowledge = load_knowledge(knowledge_dir)
        build_index(knowledge, Path(tmp) / "index", embedder)
        index = load_index(knowledge, Path(tmp) / "index", embedder, rebuild=False)
    reading = Assistant(index, embedder, threshold=settings.abstain_threshold)
    plain = Assistant(index, embedder, threshold=settings.abstain_threshold)
    # As over the quiz alone: no section marked as written only in English.
    plain.retriever._english_only = np.zeros_like(plain.retriever._english_only)
    plain.retriever._reads_in_english = False
    assert reading.retriever.reads_in_english and not plain.retriever.reads_in_english
    for assistant in (reading, plain):
        assistant.warm()
    qs = spanish_questions()
    for q in qs[:10]:  # warm up
        reading.answer(q, "es")
        plain.answer(q, "es")
    times: dict[str, list[float]] = {"with": [], "without": []}
    for _ in range(args.rounds):
        for q in qs:
            for name, assistant in (("with", reading), ("without", plain)):
                started = time.perf_counter()
                assistant.answer(q, "es")
                times[name].append(time.perf_counter() - started)
    print(f"Spanish questions: {len(qs)} x {args.rounds} rounds, {len(index.chunks)} chunks "
          f"({int(reading.retriever._english_only.sum())} of sections written only in English)")
    print(f"answer, said in English too: {summary(times['with'])}")
    print(f"answer, as before:           {summary(times['without'])}")
    print(f"p50 ratio = {percentile(times['with'], 50) / percentile(times['without'], 50):.3f}")


if __name__ == "__main__":
    main()
