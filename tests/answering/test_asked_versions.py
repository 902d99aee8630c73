"""A question that asks for a version, a default, or how to upgrade or install a thing is answered with what the
knowledge says, and told when the passage it quotes states none: "which Helm chart version…" of a section that names
none opens with "The knowledge base says nothing about “Helm chart version”", where a section that states "1.29 or
later" answers without it; "what's the default backoffLimit…" of a section that says no default, the same. Fake
embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.answering.assistant import Assistant
from bot.reading.rules import ASKED_KINDS, rules
from bot.reading.uncovered import STATED, unstated_values
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
    # Asked as whether there is one, or as what a thing uses by default: the same.
    ("Is there a default for backoffLimit on Acme training jobs?", "Retries", "default for backoffLimit"),
    ("How many retries does an Acme training job get by default?", "Retries", "retries"),
    # How to install a thing, of a section that speaks of upgrading it only.
    ("How do I install the Acme training operator with its Helm chart?", "Upgrades",
     "install the Acme training operator"),
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


# Per kind of value asked for: passages (texts, headings) that do not state one, and passages that do: a version
# ("v2.10", "1.35+"; an address or a section number is none), a default (in the text or in the heading).
Passages = list[tuple[list[str], list[str]]]
KINDS: dict[str, tuple[Passages, Passages]] = {
    # (Each speaks of upgrading the operator: "how do I upgrade the operator to a new version?" asks how to upgrade
    # it, not which.)
    "asked_versions": ([(["Nothing here says which release to upgrade the operator to."], []),
                        (["Upgrade the operator pod at 192.168.0.10 on node p4d.24xlarge."], [])],
                       [(["Operator upgrades are supported from v2.10 and after."], []),
                        (["Upgrading the operator is supported on 1.35+ clusters."], [])]),
    "asked_defaults": ([(["It is set per NodePool."], [])],
                       [(["It defaults to 30 seconds."], []), (["Viene desactivado por defecto."], []),
                        (["Four jobs at once."], ["Runbook › Default quota per team"])]),
    "asked_upgrades": ([(["Install the chart with helm install."], [])],
                       [(["Upgrade the operator with its Helm chart."], []),
                        (["Actualiza el chart con helm upgrade."], []),
                        (["Run helm install."], ["Runbook › Upgrading"])]),
    "asked_installs": ([(["Upgrade the operator with its Helm chart."], [])],
                       [(["helm install volcano volcano-sh/volcano -n volcano-system"], []),
                        (["Despliega el chart en el namespace del equipo."], []),
                        (["kubectl apply -f https://example.com/plugin.yaml"], []),
                        (["Run the chart."], ["Runbook › Installation"])]),
    "asked_limits": ([(["FSx for Lustre gives training pods high throughput."], []),
                      (["Version 1.2 of the chart adds 4 metrics."], [])],
                     [(["A file system holds at least 1.2 TiB."], []), (["Up to 32 interfaces per instance."], []),
                      (["Como mínimo 2 nodos por grupo."], [])]),
    "asked_removals": ([(["Install the chart with helm install."], []),
                        (["The labels are prefixed with feature.node.kubernetes.io."], [])],
                       [(["helm uninstall nfd -n node-feature-discovery"], []),
                        (["Run cdk destroy for each stack, in reverse order."], []),
                        (["Borra los CRDs a mano."], []),
                        (["Run the script."], ["Runbook › Cleaning up"])]),
}
def test_every_kind_of_value_asked_for_says_how_a_passage_states_it() -> None:
    assert set(STATED) == set(ASKED_KINDS) == set(KINDS)


EXAMPLES = [(kind, lang, example) for kind in KINDS for lang in ("en", "es") for example in rules(lang).examples[kind]]


@pytest.mark.parametrize(("kind", "lang", "example"), EXAMPLES, ids=[str(e["text"]) for _, _, e in EXAMPLES])
def test_each_asked_value_example_is_read_as_its_file_says(fake_assistant: Assistant, kind: str, lang: str,
                                                           example: dict[str, object]) -> None:
    analysis = fake_assistant.retriever.analyze(str(example["text"]), lang)
    expected = [example["asks"]] if example["asks"] else []
    unstated, stated = KINDS[kind]
    for texts, headings in unstated:
        assert unstated_values(analysis, texts, headings) == expected, texts
    # A passage that states the value under a heading naming the thing asked about ("EFA device plugin" for "install
    # the EFA device plugin"; the heading's words of the kind itself left out, so that it is the text that states it).
    thing = STATED[kind][0].sub("", str(example["asks"] or ""))
    for texts, headings in stated:
        assert unstated_values(analysis, texts, [*headings, thing]) == [], texts



def test_an_upgrade_the_quoted_section_speaks_of_answers_without_a_caveat(with_operator: Assistant) -> None:
    """"How do we upgrade X?" of a section on upgrading X answers as it is; of a passage that never speaks of
    upgrading, it opens by saying the knowledge does not cover the upgrade (`asked_upgrades`)."""
    answer = with_operator.answer("How do we upgrade the Acme training operator?")
    assert answer.answered and answer.citations[0].section.endswith("Upgrades")
    assert answer.uncovered == []
    analysis = with_operator.retriever.analyze("How do we upgrade the Acme training operator?", "en")
    assert unstated_values(analysis, ["Each team namespace can run four Acme training jobs at once."],
                           ["Acme training operator › Default quota"]) == ["upgrade the Acme training operator"]


@pytest.mark.parametrize(("question", "named"), [
    ("How do I install the Zephyr scheduler on EKS?", "install the Zephyr scheduler"),
    ("Which NCCL version is baked into the image?", "NCCL version"),
    ("¿Cómo se instala el Zephyr scheduler?", "instala el Zephyr scheduler"),
])
def test_a_value_stated_of_another_thing_is_named_as_not_covered(fake_assistant: Assistant, question: str,
                                                                  named: str) -> None:
    """A passage that states an install or a version, but of another thing than the one asked about ("helm install"
    of the Acme operator, asked how to install the Zephyr scheduler), does not answer it; under a heading that names
    the thing, or naming it as it stands for ("k8s": Kubernetes), it does."""
    analysis = fake_assistant.retriever.analyze(question, fake_assistant.language_of(question))
    elsewhere = (["Install it with helm install acme acme/operator, version 2.4.1."], ["Acme operator › Installation"])
    assert unstated_values(analysis, *elsewhere) == [named]
    thing = named.split()[-2] if "Zephyr" in named else "NCCL"
    assert unstated_values(analysis, elsewhere[0], [f"{thing} › Installation"]) == []


def test_a_thing_named_as_it_stands_for_is_the_thing_the_passage_names(fake_assistant: Assistant) -> None:
    analysis = fake_assistant.retriever.analyze("What's the minimum k8s version the chart needs?", "en")
    assert unstated_values(analysis, ["Kubernetes 1.23+ and Helm 3.8+."], ["Chart › Prerequisites"]) == []
    assert unstated_values(analysis, ["Helm 3.8+."], ["Chart › Prerequisites"]) == ["minimum k8s version"]


def test_a_version_is_of_the_name_nearest_it(fake_assistant: Assistant) -> None:
    """"Since v2.2.0, GPUStack can be deployed on Kubernetes" states which GPUStack release brings the chart, not
    the Kubernetes version it needs; a row "Kubernetes | >= v1.30.0" and "EKS 1.29 or Kubernetes 1.30+" do."""
    analysis = fake_assistant.retriever.analyze("min k8s version for the GPUStack helm chart?", "en")
    intro = "Since v2.2.0, GPUStack can be deployed on Kubernetes with the official Helm chart."
    assert unstated_values(analysis, [intro], ["Installation via Helm"]) == ["min k8s version"]
    assert unstated_values(analysis, [intro, "Component: Kubernetes; Version: >= v1.30.0"], []) == []
    assert unstated_values(analysis, ["Runs on EKS 1.29 or on Kubernetes 1.30+."], []) == []


def test_a_default_asked_of_a_thing_in_ordinary_words_is_stated_of_those_words(fake_assistant: Assistant) -> None:
    """"What memory limit does the chart set by default?" is not answered by a passage that tells another default
    of the chart ("it scrapes every 30 seconds by default"): the thing asked about, in ordinary words, is written
    there too when the passage answers it."""
    analysis = fake_assistant.retriever.analyze("What memory limit does the Acme chart set by default?", "en")
    assert unstated_values(analysis, ["The Acme chart scrapes every 30 seconds by default."], []) == ["memory limit"]
    assert unstated_values(analysis, ["By default the Acme chart sets a memory limit of 512Mi."], []) == []



def test_a_version_or_a_bound_is_stated_of_the_thing_on_the_line_that_names_it(fake_assistant: Assistant) -> None:
    """A version or a bound counts for the thing asked about when a line names both, or a heading names the thing:
    "- Kubernetes 1.23+" above "- Download the MLflow chart" states no MLflow version, and "up to 1 TB/s" of
    throughput under a sentence on FSx for Lustre states no minimum size of one."""
    mlflow = fake_assistant.retriever.analyze("Which MLflow version does the chart deploy?", "en")
    prerequisites = ["- Kubernetes 1.23+\n- Helm 3.8+\n- Download the MLflow chart from its repository"]
    assert unstated_values(mlflow, prerequisites, ["Chart › Prerequisites"]) == ["MLflow version"]
    assert unstated_values(mlflow, [*prerequisites, "The chart deploys MLflow 2.14.1."], []) == []
    assert unstated_values(mlflow, prerequisites, ["MLflow chart › Prerequisites"]) == []
    fsx = fake_assistant.retriever.analyze("What is the minimum size of an FSx for Lustre file system?", "en")
    throughput = ["FSx for Lustre gives training pods a shared file system.\nUp to 1 TB/s of throughput."]
    assert unstated_values(fsx, throughput, []) == ["minimum size of an FSx"]
    assert unstated_values(fsx, ["An FSx for Lustre file system holds at least 1.2 TiB."], []) == []


CHART = """---
title: Acme scheduler chart
---

## Introduction

This chart bootstraps the Acme scheduler on a Kubernetes cluster using the Helm package manager. The Acme scheduler
chart needs a Kubernetes cluster and Helm.

## Installing the chart

Install the Acme scheduler chart with `helm install acme acme/scheduler` into its own namespace on the Kubernetes
cluster.

## Prerequisites

- Kubernetes 1.27+
- Helm 3.8+
"""


def test_a_value_asked_for_is_answered_by_the_section_of_the_page_that_states_it(fake_assistant: Assistant,
                                                                                tmp_path: Path) -> None:
    """"What's the minimum Kubernetes version the Acme scheduler chart needs?" ranks the chart's introduction first
    (it names the chart, Kubernetes and what it needs), which states no version: the section of the page that
    does, ranked below it, answers, and the answer does not open by saying the version is not covered."""
    chart = beside_the_quiz(fake_assistant, tmp_path, {"platform/acme-chart.md": CHART})
    question = "What's the minimum Kubernetes version the Acme scheduler chart needs?"
    ranked = chart.retrieve_many([chart.prepare(question)])[0].ranked
    assert chart.knowledge.question(*ranked[0].key, "en").path[-1] != "Prerequisites"
    answer = chart.answer(question)
    assert answer.answered and answer.citations[0].section.endswith("Prerequisites")
    assert "Kubernetes 1.27+" in answer.text and answer.uncovered == []


def test_a_version_asked_with_the_thing_is_no_name_of_it(fake_assistant: Assistant) -> None:
    """"How do I install the zephyr-operator v1?" names the thing by "zephyr-operator": a section on installing k3s
    that writes "v1" (an `apiVersion: v1`) does not say how to install it."""
    analysis = fake_assistant.retriever.analyze("¿Cómo instalo el zephyr-operator v1 estable?", "es")
    k3s = ["Install k3s with curl, then apply the manifest with apiVersion: v1 to the cluster."]
    assert unstated_values(analysis, k3s, ["Install k3s"]) == ["instalo el zephyr-operator v1 estable"]
    assert unstated_values(analysis, ["Install the zephyr-operator (stable v1) with helm install."], []) == []
