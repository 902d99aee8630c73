"""A question that asks for a version or a default is answered with what the knowledge says, and told when the
passage it quotes states none: "which Helm chart version…" of a section that names none opens with "The knowledge
base says nothing about “Helm chart version”", where a section that states "1.29 or later" answers without it;
"what's the default backoffLimit…" of a section that says no default, the same. Fake embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.answering.assistant import Assistant
from bot.reading.rules import rules
from bot.reading.uncovered import unstated_values
from tests.support.extra_knowledge import beside_the_quiz

OPERATOR = """---
title: Acme training operator
---

## Requirements

The Acme training operator runs on Kubernetes 1.29 or later, with the JobSet controller installed in the
cluster before it.

## Retries

A failed Acme training job is retried `backoffLimit` times before it is marked failed. Set `backoffLimit` in the
job's spec to allow more retries for long runs on spot capacity.

## Default quota

Each team namespace can run four Acme training jobs at once; the platform team raises it on request.

## Upgrades

Upgrade the Acme training operator with its Helm chart: the chart upgrades the controller and its custom resource
definitions together. Running training jobs keep their pods during an upgrade.
"""


@pytest.fixture
def with_operator(fake_assistant: Assistant, tmp_path: Path) -> Assistant:
    return beside_the_quiz(fake_assistant, tmp_path, {"platform/acme-operator.md": OPERATOR})


@pytest.mark.parametrize(("question", "section", "named"), [
    ("Which Helm chart version should we pin to upgrade the Acme training operator?", "Upgrades",
     "Helm chart version"),
    ("What is the default backoffLimit of an Acme training job?", "Retries", "default backoffLimit"),
])
def test_a_value_the_quoted_section_does_not_state_is_named_as_not_covered(
        with_operator: Assistant, question: str, section: str, named: str) -> None:
    answer = with_operator.answer(question)
    assert answer.answered and answer.citations[0].section.endswith(section)
    assert answer.uncovered == [named]
    assert answer.text.startswith(f"The knowledge base says nothing about “{named}”")


def test_a_version_the_quoted_section_states_answers_without_a_caveat(with_operator: Assistant) -> None:
    answer = with_operator.answer("Which Kubernetes version does the Acme training operator require?")
    assert answer.answered and answer.citations[0].section.endswith("Requirements")
    assert answer.uncovered == [] and "1.29 or later" in answer.text
    # Asked in Spanish, the same.
    spanish = with_operator.answer("¿Qué versión mínima de Kubernetes necesita el Acme training operator?")
    assert spanish.answered and spanish.uncovered == [] and spanish.citations[0].section.endswith("Requirements")


def test_a_default_the_section_names_in_its_heading_answers_without_a_caveat(with_operator: Assistant) -> None:
    answer = with_operator.answer("What is the default quota of Acme training jobs a team namespace can run?")
    assert answer.answered and answer.citations[0].section.endswith("Default quota")
    assert answer.uncovered == [] and "four Acme training jobs" in answer.text


EXAMPLES = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples["asked_versions"]]
DEFAULTS = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples["asked_defaults"]]


@pytest.mark.parametrize(("lang", "example"), EXAMPLES, ids=[str(e["text"]) for _, e in EXAMPLES])
def test_each_asked_version_example_is_read_as_its_file_says(fake_assistant: Assistant, lang: str,
                                                             example: dict[str, object]) -> None:
    analysis = fake_assistant.retriever.analyze(str(example["text"]), lang)
    expected = [example["asks"]] if example["asks"] else []
    assert unstated_values(analysis, ["Nothing here says which release."]) == expected
    # A passage that states a version ("v2.10", "1.35+") answers it; an address or a section number does not.
    assert unstated_values(analysis, ["Supported from v2.10 and after."]) == []
    assert unstated_values(analysis, ["Supported on 1.35+ clusters."]) == []
    assert unstated_values(analysis, ["The pod at 192.168.0.10 runs on node p4d.24xlarge."]) == expected


@pytest.mark.parametrize(("lang", "example"), DEFAULTS, ids=[str(e["text"]) for _, e in DEFAULTS])
def test_each_asked_default_example_is_read_as_its_file_says(fake_assistant: Assistant, lang: str,
                                                             example: dict[str, object]) -> None:
    analysis = fake_assistant.retriever.analyze(str(example["text"]), lang)
    expected = [example["asks"]] if example["asks"] else []
    assert unstated_values(analysis, ["It is set per NodePool."]) == expected
    # A passage that says what the default is answers it, in its text or in its heading.
    assert unstated_values(analysis, ["It defaults to 30 seconds."]) == []
    assert unstated_values(analysis, ["Viene desactivado por defecto."]) == []
    assert unstated_values(analysis, ["Four jobs at once."], ["Runbook › Default quota per team"]) == []

