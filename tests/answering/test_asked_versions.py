"""A question that asks for a version is answered with what the knowledge says, and told when the passage it
quotes states no version: "which Helm chart version…" of a section that names none opens with "The knowledge base
says nothing about “Helm chart version”", where a section that states "1.29 or later" answers without it. Fake
embedder."""

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

## Upgrades

Upgrade the Acme training operator with its Helm chart: the chart upgrades the controller and its custom resource
definitions together. Running training jobs keep their pods during an upgrade.
"""


@pytest.fixture
def with_operator(fake_assistant: Assistant, tmp_path: Path) -> Assistant:
    return beside_the_quiz(fake_assistant, tmp_path, {"platform/acme-operator.md": OPERATOR})


def test_a_version_the_quoted_section_does_not_state_is_named_as_not_covered(with_operator: Assistant) -> None:
    answer = with_operator.answer("Which Helm chart version should we pin to upgrade the Acme training operator?")
    assert answer.answered and answer.citations[0].section.endswith("Upgrades")
    assert answer.uncovered == ["Helm chart version"]
    assert answer.text.startswith("The knowledge base says nothing about “Helm chart version”")


def test_a_version_the_quoted_section_states_answers_without_a_caveat(with_operator: Assistant) -> None:
    answer = with_operator.answer("Which Kubernetes version does the Acme training operator require?")
    assert answer.answered and answer.citations[0].section.endswith("Requirements")
    assert answer.uncovered == [] and "1.29 or later" in answer.text
    # Asked in Spanish, the same.
    spanish = with_operator.answer("¿Qué versión mínima de Kubernetes necesita el Acme training operator?")
    assert spanish.answered and spanish.uncovered == [] and spanish.citations[0].section.endswith("Requirements")


EXAMPLES = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples["asked_versions"]]


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
