"""A name made of ordinary capitalised words ("EKS Auto Mode", "Object Lock") that the knowledge never writes
together is a thing the knowledge does not cover, though it knows each of its words: an answer from a page
opens by saying so, as it does for a word the knowledge never writes."""

from __future__ import annotations

from pathlib import Path

from bot.answering.assistant import Assistant
from tests.support.extra_knowledge import with_documents

AUTOSCALER = """# Cluster autoscaler

## Operating the Cluster Autoscaler

Run the Cluster Autoscaler in auto discovery mode, so that it finds the node groups by their tags. The mode
needs the tags on every Auto Scaling group. Lock the version of the Cluster Autoscaler to the cluster's version.
The job of the autoscaler is to add nodes when pods are pending and to remove idle ones.
"""


def _assistant(fake_assistant: Assistant, knowledge_copy: Path) -> Assistant:
    return with_documents(fake_assistant, knowledge_copy, {"platform/cluster-autoscaler.md": AUTOSCALER})


def _unwritten(assistant: Assistant, question: str) -> list[str]:
    return assistant.judge.unwritten_names(assistant.retriever.analyze(question, "en"))


def test_ordinary_words_written_apart_but_never_together_name_an_uncovered_thing(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    assistant = _assistant(fake_assistant, knowledge_copy)
    assert _unwritten(assistant, "If we turn on EKS Auto Mode, do we still need the Cluster Autoscaler?") == [
        "Auto Mode"]
    assert _unwritten(assistant, "Should we enable Object Lock on the checkpoint bucket?") == ["Object Lock"]


def test_a_name_the_knowledge_writes_a_sentences_first_word_and_an_expression_name_nothing_uncovered(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    assistant = _assistant(fake_assistant, knowledge_copy)
    assert _unwritten(assistant, "How do I run the Cluster Autoscaler with Auto Scaling groups?") == []
    assert _unwritten(assistant, "Lock Version of the autoscaler: how?") == []  # "Lock" opens the sentence
    assert _unwritten(assistant, "My MPIJob shows Running=False, is that bad?") == []
    assert _unwritten(assistant, "```\nstatus: Object Lock\n```\nwhat does this status mean?") == []  # pasted


def test_a_name_a_heading_writes_is_written(fake_assistant: Assistant, knowledge_copy: Path) -> None:
    """A page that names the thing only in a heading ("## Auto Mode") writes it."""
    page = AUTOSCALER + "\n## Auto Mode\n\nWith it, the nodes are managed for you and the autoscaler is not needed.\n"
    assistant = with_documents(fake_assistant, knowledge_copy, {"platform/cluster-autoscaler.md": page})
    assert _unwritten(assistant, "If we turn on EKS Auto Mode, do we still need the Cluster Autoscaler?") == []


def test_a_page_answer_says_so_and_its_decision_is_unchanged(fake_assistant: Assistant, knowledge_copy: Path) -> None:
    assistant = _assistant(fake_assistant, knowledge_copy)
    question = "Does the Cluster Autoscaler discovery mode still matter if we turn on Auto Mode in our cluster?"
    [retrieval] = assistant.retrieve_many([(question, "en")])
    assert retrieval.ranked[0].key[0] not in assistant.judge.quiz_ids
    judgement = assistant.judge.judge(retrieval)
    assert "Auto Mode" in judgement.uncovered
    # What the page does not write is said, not weighed: the same probability and the same bar as without it.
    assert judgement.probability == round(assistant.judge.model.probability(assistant.judge.features(retrieval)), 4)
    assert not judgement.partial


def test_a_settings_name_whose_parts_are_written_apart_is_not_covered(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    """`discovery_tags` where the page writes "discovery" and "tags" in prose names a setting it never mentions;
    written in any spelling ("auto-discovery", "autoDiscovery" for `auto_discovery`), or as the start of a longer
    name (`node_group_auto_discovery`), it is written."""
    page = AUTOSCALER + "\nSet `node_group_auto_discovery` to the tags of your groups.\n"
    assistant = with_documents(fake_assistant, knowledge_copy, {"platform/cluster-autoscaler.md": page})
    assert _unwritten(assistant, "Which value goes in discovery_tags for the Cluster Autoscaler?") == [
        "discovery_tags"]
    assert _unwritten(assistant, "Does mode_tags change what the Cluster Autoscaler discovers?") == ["mode_tags"]
    for written in ("auto_discovery", "autoDiscovery", "node_group", "nodeGroupAuto"):
        assert _unwritten(assistant, f"Which value goes in {written} for the Cluster Autoscaler?") == [], written
    # Pasted, a path or a compound: not a setting the person asks about.
    assert _unwritten(assistant, "```\ndiscovery_tags: prod\n```\nis this right for the Cluster Autoscaler?") == []
    assert _unwritten(assistant, "Does tags-mode change the Cluster Autoscaler?") == []
