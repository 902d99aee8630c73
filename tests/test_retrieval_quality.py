"""Retrieval quality with the real model and FAISS, measured on the evaluation sets."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.answers import Answer, Assistant
from bot.evaluation import evaluate, read_queries, summarize
from tests.conftest import DEV_QUERIES, OWN_QUERIES

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Targets:
    recall_at_1: float
    recall_at_3: float
    max_false_abstention: float


OWN_TARGETS = Targets(recall_at_1=0.93, recall_at_3=0.98, max_false_abstention=0.05)
DEV_TARGETS = Targets(recall_at_1=0.95, recall_at_3=1.0, max_false_abstention=0.0)


def check_targets(assistant: Assistant, path: Path, targets: Targets) -> None:
    queries = read_queries(path)
    summary = summarize(list(evaluate(assistant, queries)))
    figures = json.dumps(summary, indent=1)
    by_language = summary["by_language"]
    assert isinstance(by_language, dict)
    assert set(by_language) == {"es", "en"}, f"{path.name} must hold both languages:\n{figures}"
    failures: list[str] = []
    for lang, stats in by_language.items():
        minimums = {"recall@1": targets.recall_at_1, "recall@3": targets.recall_at_3, "abstention": 1.0}
        for key, minimum in minimums.items():
            if key not in stats:
                failures.append(f"{lang}: no {key} (the set needs in-domain and out-of-domain queries)")
            elif stats[key] < minimum:
                failures.append(f"{lang}: {key} {stats[key]} < {minimum}")
        ceiling = targets.max_false_abstention
        if stats.get("false_abstention", 1.0) > ceiling:
            failures.append(f"{lang}: false_abstention {stats.get('false_abstention')} > {ceiling}")
    assert not failures, f"{path.name} misses its targets:\n" + "\n".join(failures) + f"\n{figures}"


def test_own_evaluation_set_meets_targets(assistant: Assistant) -> None:
    check_targets(assistant, OWN_QUERIES, OWN_TARGETS)


def test_development_set_meets_targets(assistant: Assistant) -> None:
    if not DEV_QUERIES.exists():
        pytest.skip(f"the development set is not available at {DEV_QUERIES}")
    check_targets(assistant, DEV_QUERIES, DEV_TARGETS)


def explain(answer: Answer) -> str:
    return json.dumps(answer.to_dict(), ensure_ascii=False, indent=1)


@pytest.mark.parametrize(
    ("question", "lang", "number", "in_snippet"),
    [
        ("¿Qué variables de entorno necesito para que NCCL use EFA?", "es", 5, "FI_PROVIDER=efa"),
        ("How do I request EFA devices in a pod spec?", "en", 5, "vpc.amazonaws.com/efa"),
        ("¿Qué CRD de Slinky define los grupos de nodos de cómputo?", "es", 4, "kind: SlurmNodeSet"),
        ("What does slotsPerWorker set in an MPIJob?", "en", 13, "slotsPerWorker"),
        ("¿Cómo configuro DeepSpeed ZeRO para descargar los parámetros a la CPU?", "es", 12, "offload_param"),
        ("How do I pin GPU training nodes to a single availability zone with Karpenter?", "en", 15,
         "topology.kubernetes.io/zone"),
    ],
)
def test_answers_cite_the_right_question_and_snippet(
    assistant: Assistant, question: str, lang: str, number: int, in_snippet: str
) -> None:
    answer = assistant.answer(question)
    assert answer.answered, explain(answer)
    assert answer.language == lang, explain(answer)
    top = answer.citations[0]
    assert top.question == number, explain(answer)
    assert top.snippet is not None and in_snippet in top.snippet, explain(answer)
    assert top.source == f"eks-training-quiz.{lang}.md"
    assert top.title == assistant.knowledge.question("eks-training-quiz", number, lang).title


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("¿Cuál es la receta de la paella?", "es"),
        ("¿Quién ganó el mundial de fútbol de 2010?", "es"),
        ("How do I configure Istio mTLS?", "en"),
        ("What is the capital of Australia?", "en"),
    ],
)
def test_out_of_domain_questions_are_not_answered(assistant: Assistant, question: str, lang: str) -> None:
    answer = assistant.answer(question)
    assert not answer.answered, explain(answer)
    assert answer.language == lang
    topics = assistant.topics(lang)
    assert topics
    for topic in topics:
        assert topic in answer.text, f"topic {topic!r} not listed in {answer.text!r}"
