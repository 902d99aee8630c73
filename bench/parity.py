"""Evaluation figures per embedding backend, side by side (what tests/embedding/test_backend_parity.py checks).

    .venv/bin/python bench/parity.py

Builds an index per backend (and its ONNX export) in a temporary directory, runs the evaluation sets
through `Assistant` and prints recall@1, recall@3, abstention and false abstention per set and language,
with each ONNX backend's largest gap from torch (parity: every gap <= 0.01).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import DEV_NEAR_NEGATIVES, DEV_SET, OWN_SET  # noqa: E402
from bot.answering.assistant import Assistant  # noqa: E402
from bot.config import load_settings  # noqa: E402
from bot.evaluation.queries import evaluate, read_queries, summarize  # noqa: E402

BACKENDS = ("torch", "onnx", "onnx-int8")
FIGURES = ("recall@1", "recall@3", "abstention", "false_abstention")


def main() -> None:
    sets = [path for path in (DEV_SET, DEV_NEAR_NEGATIVES, OWN_SET) if path.exists()]
    rows: dict[tuple[str, str, str], dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for backend in BACKENDS:
            settings = load_settings(index_dir=Path(tmp) / backend, embedding_backend=backend, auto_rebuild=True)
            assistant = Assistant.from_settings(settings)
            for path in sets:
                summary = summarize(list(evaluate(assistant, read_queries(path))))
                by_language = summary.pop("by_language")
                assert isinstance(by_language, dict)
                for scope, stats in {"all": summary, **by_language}.items():
                    rows[(path.name, scope, backend)] = {k: float(v) for k, v in stats.items() if k in FIGURES}
    print(f"{'set':28} {'lang':4} {'figure':16} " + " ".join(f"{b:>9}" for b in BACKENDS))
    worst = dict.fromkeys(BACKENDS[1:], 0.0)
    for name, scope in dict.fromkeys((n, s) for n, s, _ in rows):
        for figure in FIGURES:
            values = [rows[(name, scope, backend)].get(figure) for backend in BACKENDS]
            if values[0] is None:
                continue
            print(f"{name:28} {scope:4} {figure:16} " + " ".join(f"{v:9.4f}" for v in values if v is not None))
            for backend, value in zip(BACKENDS[1:], values[1:], strict=True):
                worst[backend] = max(worst[backend], abs((value or 0.0) - values[0]))
    for backend, gap in worst.items():
        print(f"{backend}: largest gap from torch {gap:.4f} ({'parity' if gap <= 0.01 else 'NO parity'}, limit 0.01)")


if __name__ == "__main__":
    main()
