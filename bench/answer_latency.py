"""In-process answer time against the bare encode of the same queries, and index build time, on the configured
embedding backend (EKSBOT_EMBEDDING_BACKEND; bench/backends.py compares the backends).

    .venv/bin/python bench/answer_latency.py [--rounds 3]

Target: answer p50 <= 1.3x bare encode p50; index build under 10 s.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import percentile, queries, summary  # noqa: E402
from bot.answering.assistant import Assistant  # noqa: E402
from bot.config import load_settings  # noqa: E402
from bot.embedding.backends import load_embedder
from bot.knowledge import load_knowledge  # noqa: E402
from bot.retrieval.artifacts import build_index, load_index  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    settings = load_settings()
    embedder = load_embedder(settings)  # the configured backend (EKSBOT_EMBEDDING_BACKEND)

    knowledge = load_knowledge(settings.knowledge_dir)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        manifest = build_index(knowledge, Path(tmp), embedder)
        build = time.perf_counter() - started
        index = load_index(knowledge, Path(tmp), embedder, rebuild=False)
    assistant = Assistant(index, embedder, threshold=settings.abstain_threshold)
    assistant.warm()  # as the server does, off the request path, after a start

    qs = queries()
    for q in qs[:10]:  # warm up
        embedder.encode([q])
        assistant.answer(q)
    # The first time a word is read costs more (its commonness, whether it is a slip of a common word): what a
    # new question pays. The words read during the warm-up are forgotten, then each query is answered once.
    assistant.retriever.vocabulary.forget_words()
    first: list[float] = []
    for q in qs:
        t0 = time.perf_counter()
        assistant.answer(q)
        first.append(time.perf_counter() - t0)
    encode: list[float] = []
    answer: list[float] = []
    for _ in range(args.rounds):
        for q in qs:
            t0 = time.perf_counter()
            embedder.encode([q])
            t1 = time.perf_counter()
            assistant.answer(q)
            t2 = time.perf_counter()
            encode.append(t1 - t0)
            answer.append(t2 - t1)
    ratio = percentile(answer, 50) / percentile(encode, 50)
    print(f"queries: {len(qs)} x {args.rounds} rounds")
    print(f"index build: {build:.2f} s ({manifest.chunks} chunks, {manifest.sentences} sentences)")
    print(f"bare encode: {summary(encode)}")
    print(f"answer:      {summary(answer)}")
    print(f"answer, its words read for the first time: {summary(first)}  max {max(first) * 1000:.1f} ms")
    print(f"answer p50 / encode p50 = {ratio:.3f} (target <= 1.3)")


if __name__ == "__main__":
    main()
