"""A named thing another page writes and the cited page does not is a neighbouring feature the page may not
cover ("YuniKorn" asked of a storage page); a named thing the quiz writes is the domain the team asks from ("our
GPU nodes" asked of the same page), not a neighbour, however few pages write it."""

from __future__ import annotations

from pathlib import Path

from bot.answering.assistant import Assistant
from tests.support.extra_knowledge import with_documents

STORAGE = """# Lustre volumes

## Required parameters

| Parameter | Type | Description |
|---|---|---|
| `subnetId` | string | The subnet where the file system is created |
| `securityGroupIds` | string | Security groups attached to the file system's network interfaces |
"""

SCHEDULER = """# YuniKorn queues

## Queue quotas

YuniKorn queues hold a guaranteed and a maximum quota of CPU and memory per team.
"""


def _assistant(fake_assistant: Assistant, knowledge_copy: Path) -> Assistant:
    return with_documents(fake_assistant, knowledge_copy,
                          {"storage/lustre-volumes.md": STORAGE, "scheduling/yunikorn-queues.md": SCHEDULER})


def _features(assistant: Assistant, question: str) -> tuple[str, dict[str, float]]:
    [retrieval] = assistant.retrieve_many([(question, "en")])
    top = retrieval.ranked[0].key
    cited = next(d.source for d in assistant.knowledge.documents if d.doc_id == top[0])
    return cited, assistant.judge.features(retrieval)


def test_a_thing_only_another_page_writes_counts_as_off_the_cited_page(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    assistant = _assistant(fake_assistant, knowledge_copy)
    cited, features = _features(assistant, "Does YuniKorn need the subnetId and securityGroupIds of the Lustre "
                                           "volumes?")
    assert cited.endswith("lustre-volumes.md")
    assert features["named_off_page"] == 1.0


def test_a_thing_the_quiz_writes_is_the_askers_domain_not_a_neighbour(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    assistant = _assistant(fake_assistant, knowledge_copy)
    quiz = [d for d in assistant.knowledge.documents if d.kind == "quiz"]
    assert quiz and all(any("GPU" in b.text for q in d.questions for b in q.blocks) for d in quiz)
    assert "GPU" not in STORAGE
    cited, features = _features(assistant, "On our GPU nodes, which subnetId and securityGroupIds do the Lustre "
                                           "volumes need?")
    assert cited.endswith("lustre-volumes.md")
    assert features["named_off_page"] == 0.0
