"""What BM25 keeps of every chunk between changes of the knowledge, at a replica's scale: each chunk's counted
tokens, (token number, count) pairs, kept by the chunk's text so that a change tokenises only the chunks it
changed (`bot/retrieval/lexical.py`).

    .venv/bin/python bench/lexical_tokens.py [--sections 10000] [--seed 7]

The knowledge is the quiz and `--sections` sections of the synthetic team docs of `bench/knowledge_scale.py`
(the same generator and seed). Printed side by side, over the same chunks: the bytes kept as they are kept now
(each pair in one 4-byte int, a chunk whose pair does not fit in two), and as they would be with each pair in two
4-byte ints (the same objects, 8 bytes a pair); and the time to build the index and to make the next one from
it (a change that touches nothing), the work the kept pairs save.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT  # noqa: E402
from bench.knowledge_scale import write_synthetic_docs  # noqa: E402
from bot.knowledge.chunks import chunk_knowledge  # noqa: E402
from bot.knowledge.loader import load_knowledge  # noqa: E402
from bot.reading.lexicon import Glossary  # noqa: E402
from bot.retrieval.lexical import LexicalIndex  # noqa: E402
from bot.retrieval.readings import english_readings  # noqa: E402

BYTES_HEADER = sys.getsizeof(b"")  # a bytes object's own size, past its data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sections", type=int, default=10_000, help="sections of synthetic docs (default 10,000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3, help="builds timed of each kind (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        knowledge = Path(tmp) / "knowledge"
        shutil.copytree(ROOT / "knowledge", knowledge)
        write_synthetic_docs(knowledge / "team-docs", args.sections, args.seed)
        chunks, _ = chunk_knowledge(load_knowledge(knowledge, strict=False))
    english = english_readings(chunks, Glossary.bundled())

    fresh: list[float] = []
    again: list[float] = []
    index = None
    for _ in range(args.rounds):
        start = time.perf_counter()
        index = LexicalIndex(chunks, english=english)
        fresh.append(time.perf_counter() - start)
        start = time.perf_counter()
        LexicalIndex(chunks, english=english, previous=index)
        again.append(time.perf_counter() - start)
    assert index is not None
    kept = list(index._tokens.values())  # noqa: SLF001 (what the index keeps is what is measured)
    wide = [doc for doc in kept if len(doc) % 4]
    pairs = sum(len(doc) // 4 for doc in kept if not len(doc) % 4) + sum((len(doc) - 1) // 8 for doc in wide)
    keys = sum(sys.getsizeof(key) for key in index._tokens) + sys.getsizeof(index._tokens)  # noqa: SLF001
    now = sum(sys.getsizeof(doc) for doc in kept)
    before = len(kept) * BYTES_HEADER + 8 * pairs

    print(f"{args.sections:,} sections of synthetic docs and the quiz: {len(chunks):,} chunks, {len(kept):,} counted "
          f"token lists, {pairs:,} (token, count) pairs ({len(wide)} lists kept 8 bytes a pair)")
    print()
    print("| what BM25 keeps between changes | 8 bytes a pair | 4 bytes a pair (now) | now / before |")
    print("|---|---|---|---|")
    print(f"| the pairs' bytes objects | {before / 1e6:.1f} MB | {now / 1e6:.1f} MB | {now / before:.2f} |")
    print(f"| with their keys and the dict | {(before + keys) / 1e6:.1f} MB | {(now + keys) / 1e6:.1f} MB | "
          f"{(now + keys) / (before + keys):.2f} |")
    print()
    print(f"index built from the chunks, median of {args.rounds}: {statistics.median(fresh):.2f} s; "
          f"made again from it (nothing changed): {statistics.median(again):.2f} s")


if __name__ == "__main__":
    main()
