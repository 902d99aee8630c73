"""Answers from documents: public doc pages of real projects as published and two runbooks (tests/docs/), with
questions each answers and near-domain questions none does, measured per source and language with the real
model (the figures are in docs/quality.md). The pages of questions.jsonl and questions-more.jsonl are those the
decision is fitted on, fit-b/ pages of long sections that quoting is tuned on, and holdout-c/ joined them once it
had been measured; holdout/, holdout-b/, holdout-d/, holdout-e/, holdout-f/, holdout-g/, holdout-h/, holdout-i/ and
holdout-j/ are never fitted or tuned on and are measured apart."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.answering.assistant import Assistant
from bot.embedding.embedder import Embedder
from bot.evaluation.documents import evaluate_documents, read_document_questions, summarize_documents
from bot.knowledge import load_knowledge
from bot.retrieval.artifacts import build_index, load_index
from tests.conftest import KNOWLEDGE, TEST_DOCS

# The module's fixture embeds every test page with the real model (some 2,100 chunks and 3,000 sentences): on two
# busy cores that alone can pass the suite's 300 s bound for a hang.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

DOCS = TEST_DOCS
FITTED = (DOCS / "questions.jsonl", DOCS / "questions-more.jsonl")
FIT_B = DOCS / "fit-b" / "questions.jsonl"
HOLDOUT = DOCS / "holdout" / "questions.jsonl"
HOLDOUT_B = DOCS / "holdout-b" / "questions.jsonl"
HOLDOUT_C = DOCS / "holdout-c" / "questions.jsonl"
HOLDOUT_D = DOCS / "holdout-d" / "questions.jsonl"
HOLDOUT_E = DOCS / "holdout-e" / "questions.jsonl"
HOLDOUT_F = DOCS / "holdout-f" / "questions.jsonl"
HOLDOUT_G = DOCS / "holdout-g" / "questions.jsonl"
HOLDOUT_H = DOCS / "holdout-h" / "questions.jsonl"
HOLDOUT_I = DOCS / "holdout-i" / "questions.jsonl"
HOLDOUT_J = DOCS / "holdout-j" / "questions.jsonl"
# Floors with room for noise below the figures measured (docs/quality.md): a regression below them fails.
# "quoted": the passage that answers is in what the answer quotes first.
FIT_FLOORS = {"all": {"quoted": 0.55, "answered_right": 0.8, "declined_right": 0.65},
              "all en": {"quoted": 0.6, "answered_right": 0.88},
              "all es": {"quoted": 0.5, "answered_right": 0.75},
              "each": {"answered_right": 0.5}}
HOLDOUT_FLOORS = {"all": {"quoted": 0.62, "answered_right": 0.82, "declined_right": 0.4, "handled": 0.65},
                  "all en": {"quoted": 0.55}, "all es": {"quoted": 0.7}}
# The second held-out set, under what it measured the first time it was run (docs/quality.md, "A second set of
# held-out pages"): quoted 0.639 en, 0.708 es, answered right 0.883, near-domain handled 0.708.
HOLDOUT_B_FLOORS = {"all": {"quoted": 0.6, "answered_right": 0.82, "declined_right": 0.5, "handled": 0.65},
                    "all en": {"quoted": 0.58}, "all es": {"quoted": 0.62}, "each": {"answered_right": 0.65}}
# The third, under what it measured the first time it was run (docs/quality.md, "A third set of held-out pages"):
# quoted 0.556 en, 0.500 es, answered right 0.817, near-domain handled 0.792. Its pages, of neighbouring tools, have
# been fitted on since ("The decision on pages of neighbouring tools"): the same floors hold them, but for Spanish
# quoted, 0.542 until holdout-e/'s four pages joined the knowledge and 0.417 since (three near-tied sections of
# the right page changed places).
HOLDOUT_C_FLOORS = {"all": {"quoted": 0.48, "answered_right": 0.76, "declined_right": 0.6, "handled": 0.7},
                    "all en": {"quoted": 0.5}, "all es": {"quoted": 0.38}, "each": {"answered_right": 0.65}}
# The fourth, under what it measured the first time it was run (docs/quality.md, "A fourth set of held-out
# pages"): quoted 0.472 en, 0.625 es, answered right 0.733, near-domain handled 0.792. Near-domain declined 0.458
# since fit-e/ joined the fit (2026-12-07: the decision answers more where it was unsure, as its costs ask), with
# one question of room.
HOLDOUT_D_FLOORS = {"all": {"quoted": 0.48, "answered_right": 0.68, "declined_right": 0.4, "handled": 0.7},
                    "all en": {"quoted": 0.42}, "all es": {"quoted": 0.54}, "each": {"answered_right": 0.6}}
# The fifth, under what it measured the first time it was run (docs/quality.md, "A fifth set of held-out pages"):
# quoted 0.500 en, 0.583 es, answered right 0.700, in-scope declined 0.267, near-domain handled 0.792. Near-domain
# declined 0.500 since fit-e/ joined the fit (2026-12-07, as holdout-d/'s), with one question of room.
HOLDOUT_E_FLOORS = {"all": {"quoted": 0.48, "answered_right": 0.64, "declined_right": 0.45, "handled": 0.7},
                    "all en": {"quoted": 0.44}, "all es": {"quoted": 0.5}, "each": {"answered_right": 0.53}}
# The sixth, under what it measured the first time it was run (docs/quality.md, "A sixth set of held-out pages"):
# quoted 0.639 en, 0.667 es, answered right 0.867, in-scope declined 0.083, near-domain handled 0.792 (0.938 en,
# 0.500 es). Near-domain declined 0.625 since the refit of 2026-12-07 (one question of 24 at the bar's edge, 0.330
# -> 0.335, answered from another page): its floor has one question of room.
HOLDOUT_F_FLOORS = {"all": {"quoted": 0.6, "answered_right": 0.8, "declined_right": 0.58, "handled": 0.7},
                    "all en": {"quoted": 0.58}, "all es": {"quoted": 0.6}, "each": {"answered_right": 0.7}}
# The seventh, under what it measured the first time it was run (docs/quality.md, "A seventh set of held-out
# pages"): quoted 0.500 en, 0.542 es, answered right 0.850, near-domain handled 0.875.
HOLDOUT_G_FLOORS = {"all": {"quoted": 0.45, "answered_right": 0.78, "declined_right": 0.6, "handled": 0.75},
                    "all en": {"quoted": 0.44}, "all es": {"quoted": 0.46}, "each": {"answered_right": 0.65}}
# The eighth, under what it measured the first time it was run (docs/quality.md, "An eighth set of held-out
# pages"): quoted 0.583 en, 0.583 es, answered right 0.867, near-domain handled 0.875.
HOLDOUT_H_FLOORS = {"all": {"quoted": 0.53, "answered_right": 0.8, "declined_right": 0.75, "handled": 0.75},
                    "all en": {"quoted": 0.52}, "all es": {"quoted": 0.5}, "each": {"answered_right": 0.73}}
# The ninth, under what it measured the first time it was run (docs/quality.md, "A ninth set of held-out pages"):
# quoted 0.778 en, 0.750 es, answered right 0.917, near-domain handled 0.875.
HOLDOUT_I_FLOORS = {"all": {"quoted": 0.7, "answered_right": 0.85, "declined_right": 0.75, "handled": 0.8},
                    "all en": {"quoted": 0.7}, "all es": {"quoted": 0.66}, "each": {"answered_right": 0.66}}
# The tenth, under what it measured the first time it was run (docs/quality.md, "A tenth set of held-out pages"):
# quoted 0.528 en, 0.750 es, answered right 0.833, near-domain handled 0.875.
HOLDOUT_J_FLOORS = {"all": {"quoted": 0.55, "answered_right": 0.76, "declined_right": 0.7, "handled": 0.75},
                    "all en": {"quoted": 0.45}, "all es": {"quoted": 0.62}, "each": {"answered_right": 0.66}}
# The pages of long sections quoting is tuned on (docs/quality.md, "Pages of long sections to tune quoting on"):
# quoted 0.682 en, 0.821 es, answered right 0.903, near-domain handled 0.875.
FIT_B_FLOORS = {"all": {"quoted": 0.66, "answered_right": 0.85, "declined_right": 0.75, "handled": 0.8},
                "all en": {"quoted": 0.63}, "all es": {"quoted": 0.75}, "each": {"answered_right": 0.65}}
MAX_WRONG_SOURCE = 0.1


@pytest.fixture(scope="module")
def with_docs(tmp_path_factory: pytest.TempPathFactory, real_embedder: Embedder) -> Assistant:
    """The quiz and every test page in one knowledge directory, as `make eval-docs` lays them."""
    root = tmp_path_factory.mktemp("docs-knowledge")
    knowledge = root / "knowledge"
    shutil.copytree(KNOWLEDGE, knowledge)
    for folder in ("public", "runbook", "holdout", "holdout-b", "holdout-c", "holdout-d", "holdout-e", "holdout-f",
                   "holdout-g", "holdout-h", "holdout-i", "holdout-j", "fit-b"):
        shutil.copytree(DOCS / folder, knowledge / folder)
    kb = load_knowledge(knowledge)
    build_index(kb, root / "index", real_embedder)
    return Assistant(load_index(kb, root / "index", real_embedder, rebuild=False), real_embedder)


def below(summary: dict[str, object], floors: dict[str, dict[str, float]]) -> list[str]:
    failures = []
    for group, stats in summary.items():
        assert isinstance(stats, dict)
        wanted = floors.get(group) or ({} if group.startswith("all") else floors.get("each", {}))
        failures += [f"{group}: {name} {stats[name]} < {floor}" for name, floor in wanted.items()
                     if stats[name] is not None and stats[name] < floor]
    return failures


def test_the_pages_fitted_on_are_quoted_and_declined_per_source_and_language(with_docs: Assistant) -> None:
    questions = [q for path in FITTED for q in read_document_questions(path)]
    summary = summarize_documents(evaluate_documents(with_docs, questions))
    figures = json.dumps(summary, indent=1)
    sources = {k for k in summary if not k.startswith("all")}
    assert len(sources) == 11 and {"runbook/gpu-training-runbook.md", "public/karpenter-nodepools.md"} <= sources
    failures = below(summary, FIT_FLOORS)
    overall = summary["all"]
    assert isinstance(overall, dict)
    if overall["wrong_source"] > MAX_WRONG_SOURCE:
        failures.append(f"answered from the wrong source {overall['wrong_source']} > {MAX_WRONG_SOURCE}")
    assert not failures, "\n".join(failures) + "\n" + figures


def test_the_pages_of_long_sections_are_quoted_by_the_passage_that_answers(with_docs: Assistant) -> None:
    """Most of these questions are answered by a passage that is not the first of its section, a quarter of them
    asking two things in one message: the passage is quoted, per language, as first measured."""
    summary = summarize_documents(evaluate_documents(with_docs, read_document_questions(FIT_B)))
    assert len([k for k in summary if not k.startswith("all")]) == 4
    failures = below(summary, FIT_B_FLOORS)
    assert not failures, "\n".join(failures) + "\n" + json.dumps(summary, indent=1)


@pytest.mark.parametrize(("questions", "floors"), [(HOLDOUT, HOLDOUT_FLOORS), (HOLDOUT_B, HOLDOUT_B_FLOORS),
                                                   (HOLDOUT_D, HOLDOUT_D_FLOORS), (HOLDOUT_E, HOLDOUT_E_FLOORS),
                                                   (HOLDOUT_F, HOLDOUT_F_FLOORS), (HOLDOUT_G, HOLDOUT_G_FLOORS),
                                                   (HOLDOUT_H, HOLDOUT_H_FLOORS), (HOLDOUT_I, HOLDOUT_I_FLOORS),
                                                   (HOLDOUT_J, HOLDOUT_J_FLOORS), (HOLDOUT_C, HOLDOUT_C_FLOORS)],
                         ids=["holdout", "holdout-b", "holdout-d", "holdout-e", "holdout-f", "holdout-g", "holdout-h",
                              "holdout-i", "holdout-j", "holdout-c"])
def test_pages_measured_apart_are_quoted_as_well(with_docs: Assistant, questions: Path,
                                                 floors: dict[str, dict[str, float]]) -> None:
    """Each set of pages measured apart from the pages the decision was first fitted on holds its first figures:
    nine never fitted or tuned on, and holdout-c/, fitted on since it was measured once."""
    summary = summarize_documents(evaluate_documents(with_docs, read_document_questions(questions)))
    folder = questions.parent
    assert {k for k in summary if not k.startswith("all")} == {
        f"{folder.name}/{p.name}" for p in folder.glob("*.md*") if p.name not in ("SOURCES.md", "README.md")}
    failures = below(summary, floors)
    assert not failures, "\n".join(failures) + "\n" + json.dumps(summary, indent=1)


def test_an_answer_from_a_document_cites_its_section_and_link(with_docs: Assistant) -> None:
    answer = with_docs.answer("What is the default GPU quota per team namespace at Acme?", "en")
    assert answer.answered
    top = answer.citations[0]
    assert top.source == "runbook/gpu-training-runbook.md"
    assert top.section.startswith("GPU training on EKS — ML Platform runbook › GPU quotas")
    assert top.url == "https://wiki.acme.internal/ml-platform/runbooks/gpu-training"
    assert "GPU quotas" in answer.text  # the reference names the section


def test_a_spanish_document_answers_an_english_question_and_says_so(with_docs: Assistant) -> None:
    answer = with_docs.answer("After how many days are Acme checkpoints deleted from S3?", "en")
    assert answer.answered and answer.citations[0].source == "runbook/checkpoints-runbook.es.md"
    assert answer.citations[0].section.endswith("› Retención")
    assert "(The source is in Spanish.)" in answer.text
