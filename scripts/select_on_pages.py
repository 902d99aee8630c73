"""Choose a constant of the answering code by leaving one page out: each value is tried on the doc questions tuned
on, and the figure reported is the one of a page the choice never saw.

    .venv/bin/python scripts/select_on_pages.py bot.answering.assistant:SECTION_UNIT_WEIGHT 0.1 0.2 0.3 0.4

For each value it prints the questions quoted over every page (the passage that answers in what the answer quotes
first, as `eksbot eval` counts it), and the mean and worst page. Then, for each page in turn, the value that quotes
most on the other pages (the value shipped among equals, then the closest to it) is measured on that page: summed
over pages, that is what the choice gives on a page it never saw, beside what the shipped value gives.

The constant is set where it is defined, so it must be read there when used (a module global, not a default
argument or a name imported elsewhere). Run `make eval-docs` first: it lays out the knowledge (`.eval-docs/`) the
questions are asked of. The default question files are those tuned on (`tests/docs/questions.jsonl`,
`questions-more.jsonl`, `fit-b/`, `holdout-c/`, `fit-c/`, `fit-d/`); the held-out ones are for measuring the value
chosen once, never for choosing it.
"""

from __future__ import annotations

import argparse
import importlib
from collections import defaultdict
from pathlib import Path

from bot.answering.assistant import Assistant
from bot.config import Settings
from bot.evaluation.documents import evaluate_documents, read_document_questions

ROOT = Path(__file__).resolve().parent.parent
TUNED = [ROOT / "tests/docs/questions.jsonl", ROOT / "tests/docs/questions-more.jsonl",
         ROOT / "tests/docs/fit-b/questions.jsonl", ROOT / "tests/docs/holdout-c/questions.jsonl",
         ROOT / "tests/docs/fit-c/questions.jsonl", ROOT / "tests/docs/fit-d/questions.jsonl"]


def per_page(assistant: Assistant, files: list[Path]) -> dict[str, tuple[int, int]]:
    """Each page's answerable questions quoted, and their number."""
    questions = [q for path in files for q in read_document_questions(path) if q.answerable]
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for result in evaluate_documents(assistant, questions):
        counts[result.question.source][0] += result.quoted
        counts[result.question.source][1] += 1
    return {page: (quoted, total) for page, (quoted, total) in counts.items()}


def left_one_out(results: dict[float, dict[str, tuple[int, int]]], shipped: float) -> tuple[int, dict[float, int]]:
    """Questions quoted on each page by the value chosen on the other pages, summed; and how often each value was
    chosen."""
    pages = sorted(next(iter(results.values())))
    quoted, chosen = 0, dict.fromkeys(results, 0)
    for page in pages:
        best = max(results, key=lambda v: (sum(results[v][p][0] for p in pages if p != page), v == shipped,
                                           -abs(v - shipped)))
        chosen[best] += 1
        quoted += results[best][page][0]
    return quoted, chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("constant", help="module:NAME, e.g. bot.answering.assistant:SECTION_UNIT_WEIGHT")
    parser.add_argument("values", type=float, nargs="+")
    parser.add_argument("--questions", type=Path, nargs="*", default=TUNED)
    parser.add_argument("--knowledge-dir", type=Path, default=ROOT / ".eval-docs/knowledge")
    parser.add_argument("--index-dir", type=Path, default=ROOT / ".eval-docs/index")
    args = parser.parse_args()
    module_name, _, name = args.constant.partition(":")
    module = importlib.import_module(module_name)
    shipped = float(getattr(module, name))
    assistant = Assistant.from_settings(Settings(knowledge_dir=args.knowledge_dir, index_dir=args.index_dir))
    results: dict[float, dict[str, tuple[int, int]]] = {}
    try:
        for value in sorted({*args.values, shipped}):
            setattr(module, name, value)
            results[value] = pages = per_page(assistant, args.questions)
            shares = [quoted / total for quoted, total in pages.values()]
            print(f"{name} = {value:g}{' (shipped)' if value == shipped else ''}: quoted "
                  f"{sum(q for q, _ in pages.values())} of {sum(t for _, t in pages.values())}, mean page "
                  f"{sum(shares) / len(shares):.3f}, worst page {min(shares):.3f}")
    finally:
        setattr(module, name, shipped)
    quoted, chosen = left_one_out(results, shipped)
    as_shipped = sum(q for q, _ in results[shipped].values())
    print(f"chosen on the other pages, measured on the one left out ({len(results[shipped])} pages): quoted {quoted}, "
          f"against {as_shipped} as shipped; chosen " + ", ".join(f"{v:g} for {n}" for v, n in chosen.items() if n))


if __name__ == "__main__":
    main()
