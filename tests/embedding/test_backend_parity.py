"""The ONNX backends answer as PyTorch does: every evaluation figure within 0.01, per set and per language.

Each backend gets its own index built from the knowledge with its own embedder (and its own ONNX export), and
the evaluation sets go through `Assistant` as `eksbot eval` runs them. The figures are compared, not fixed:
the answering logic may change, and may come to weigh cosines more, so parity is measured every run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.config import Settings, load_settings
from tests.conftest import DEV_NEAR_NEGATIVES, DEV_QUERIES, KNOWLEDGE, OWN_QUERIES

pytestmark = pytest.mark.slow

DEFAULT = Settings.model_fields["embedding_backend"].default
FIGURES = ("recall@1", "recall@3", "abstention", "false_abstention")
TOLERANCE = 0.01
Summary = dict[str, object]


def eval_sets() -> list[Path]:
    return [path for path in (DEV_QUERIES, DEV_NEAR_NEGATIVES, OWN_QUERIES) if path.exists()]


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory, index_dir: Path) -> dict[str, dict[str, Summary]]:
    """backend -> evaluation set -> summary."""
    from bot.answering.assistant import Assistant
    from bot.evaluation.queries import evaluate, read_queries, summarize

    out: dict[str, dict[str, Summary]] = {}
    for backend in ("torch", "onnx", "onnx-int8"):
        # The session's index already serves the default backend; the others build their own.
        directory = index_dir if backend == DEFAULT else tmp_path_factory.mktemp(f"index-{backend}")
        settings = load_settings(knowledge_dir=KNOWLEDGE, index_dir=directory, embedding_backend=backend,
                                 auto_rebuild=True)
        assistant = Assistant.from_settings(settings)
        out[backend] = {path.name: summarize(list(evaluate(assistant, read_queries(path)))) for path in eval_sets()}
    return out


def scopes(summary: Summary) -> dict[str, dict[str, float]]:
    """The whole set and each language, as {scope: {figure: value}}."""
    by_language = summary["by_language"]
    assert isinstance(by_language, dict)
    return {"all": summary, **by_language}


def gaps(reference: dict[str, Summary], other: dict[str, Summary]) -> list[str]:
    """Every figure of `other` more than TOLERANCE away from `reference` (or missing)."""
    found: list[str] = []
    for name, summary in reference.items():
        theirs = scopes(other[name])
        for scope, stats in scopes(summary).items():
            for figure in FIGURES:
                if figure not in stats:
                    continue
                value = theirs.get(scope, {}).get(figure)
                if value is None or abs(float(value) - float(stats[figure])) > TOLERANCE:
                    found.append(f"{name} {scope} {figure}: {value} vs {stats[figure]} on torch")
    return found


def table(figures: dict[str, dict[str, Summary]]) -> str:
    rows = []
    for backend, sets in figures.items():
        for name, summary in sets.items():
            for scope, stats in scopes(summary).items():
                values = {figure: stats.get(figure) for figure in FIGURES}
                rows.append(f"{backend:9} {name:28} {scope:3} {json.dumps(values)}")
    return "\n".join(rows)


def test_the_evaluation_sets_are_there() -> None:
    assert OWN_QUERIES in eval_sets()


def test_the_default_backend_keeps_every_figure_of_pytorch(figures: dict[str, dict[str, Summary]]) -> None:
    problems = gaps(figures["torch"], figures[DEFAULT])
    assert not problems, f"{DEFAULT} strays from torch:\n" + "\n".join(problems) + "\n" + table(figures)


def test_fp32_onnx_ranks_as_pytorch_does(figures: dict[str, dict[str, Summary]]) -> None:
    """The fp32 export computes the same vectors: not one figure may move, MRR included."""
    for name, summary in figures["torch"].items():
        for scope, stats in scopes(summary).items():
            theirs = scopes(figures["onnx"][name])[scope]
            for figure in (*FIGURES, "mrr"):
                if figure in stats:
                    assert theirs[figure] == pytest.approx(stats[figure], abs=1e-9), (name, scope, figure)
