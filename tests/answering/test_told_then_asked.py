"""A message that tells what happened and then asks a question of no words of its own ("… What am I missing?",
"… bug?", "… ¿Qué falta?") asks about what it told: how much of the question the cited section covers is read
from the whole message, not from the few words of the question that name nothing."""

from __future__ import annotations

from pathlib import Path

from bot.answering.assistant import Assistant
from bot.lang import Lang
from tests.support.extra_knowledge import with_documents

STORAGE = """# Lustre volumes

## Throughput per unit of storage

`perUnitStorageThroughput` takes 125, 250, 500 or 1000 MB/s/TiB on a `PERSISTENT_2` file system. Any other value
leaves the PersistentVolumeClaim Pending, and the driver logs the value it refused.
"""


def _features(assistant: Assistant, question: str, lang: Lang = "en") -> dict[str, float]:
    [retrieval] = assistant.retrieve_many([(question, lang)])
    assert retrieval.ranked[0].key[0] == next(d.doc_id for d in assistant.knowledge.documents
                                              if d.source.endswith("lustre-volumes.md"))
    return assistant.judge.features(retrieval)


def test_a_question_naming_nothing_is_read_with_what_the_message_told(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    assistant = with_documents(fake_assistant, knowledge_copy, {"storage/lustre-volumes.md": STORAGE})
    told = "We set perUnitStorageThroughput to 300 on a PERSISTENT_2 file system and the PersistentVolumeClaim " \
           "stays Pending."
    asked: list[tuple[str, Lang]] = [
        (f"{told} What am I missing?", "en"), (f"{told} bug?", "en"),
        ("Pusimos perUnitStorageThroughput a 300 en un file system PERSISTENT_2 y la PersistentVolumeClaim se queda "
         "Pending. ¿Qué falta?", "es")]
    for question, lang in asked:
        features = _features(assistant, question, lang)
        assert features["segment_found"] == features["broad_found"] > 0.5, question


def test_a_question_that_names_its_own_thing_is_read_alone(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    """Told the same, a question that names something of its own is what is asked: the section's words of the
    scenario do not cover it."""
    assistant = with_documents(fake_assistant, knowledge_copy, {"storage/lustre-volumes.md": STORAGE})
    features = _features(assistant, "We set perUnitStorageThroughput to 300 on a PERSISTENT_2 file system and the "
                                    "PersistentVolumeClaim stays Pending. Which GPU instance types are supported?")
    assert features["segment_found"] < features["broad_found"]
