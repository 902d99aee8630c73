"""How close a question is to a page's section, as the decision reads it: a section that is only a table (or a
code block) has no sentence, and is as close as its closest row; a Spanish question about a page written only in
English is read against its sentences said in English as well, as the page was searched."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bot.answering.assistant import Assistant
from tests.support.extra_knowledge import with_documents

PAGE = """# Lustre volumes

## Overview

The storage driver creates a Lustre file system for each claim that names its storage class. Claims are
provisioned in the subnet that the class names.

## Required parameters

| Parameter | Type | Description |
|---|---|---|
| `subnetId` | string | The subnet where the file system is created |
| `securityGroupIds` | string | Security groups attached to the file system's network interfaces |
| `deploymentType` | string | `SCRATCH_2`, `PERSISTENT_1` or `PERSISTENT_2` |
"""


def _page(assistant: Assistant, knowledge_copy: Path) -> Assistant:
    return with_documents(assistant, knowledge_copy, {"storage/lustre-volumes.md": PAGE})


def _section(assistant: Assistant, title: str) -> tuple[str, int]:
    document = next(d for d in assistant.knowledge.documents if d.source.endswith("lustre-volumes.md"))
    return next((document.doc_id, s.number) for s in document.questions if s.path[-1] == title)


def test_a_section_that_is_a_table_is_as_close_as_its_closest_row(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    assistant = _page(fake_assistant, knowledge_copy)
    table, prose = _section(assistant, "Required parameters"), _section(assistant, "Overview")
    question = "Which securityGroupIds and subnetId does the Lustre storage class need?"
    [retrieval] = assistant.retrieve_many([(question, "en")])
    top = retrieval.ranked[0]
    assert top.key == table, retrieval.ranked[:3]
    assert assistant.retriever.sentence_similarity(retrieval, table) is None  # no sentence to read
    assert assistant.retriever.sentence_similarity(retrieval, prose) is not None
    features = assistant.judge.features(retrieval)
    # Not "no closeness at all", which the decision reads as a question the section does not answer.
    assert features["sentence_dense"] == top.dense > 0
    assert features["sentence_peak"] == 0.0


def test_a_spanish_question_is_read_against_an_english_pages_sentences_said_in_english_too(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    assistant = _page(fake_assistant, knowledge_copy)
    prose = _section(assistant, "Overview")
    question = "¿En qué subred crea el driver el sistema de archivos Lustre?"
    [retrieval] = assistant.retrieve_many([(question, "es")])
    assert retrieval.english_vector is not None
    spanish = assistant.retriever.sentence_similarity(replace(retrieval, english_vector=None), prose)
    both = assistant.retriever.sentence_similarity(retrieval, prose)
    english = assistant.retriever.sentence_similarity(
        replace(retrieval, vector=retrieval.english_vector, english_vector=None), prose)
    assert spanish is not None and both is not None and english is not None
    assert both[0] == max(spanish[0], english[0]) and both[0] > spanish[0]
    # The quiz has a Spanish edition: its sentences are read with the question's own words only.
    quiz = next(s.key for s in retrieval.ranked if s.key[0] != prose[0])
    assert assistant.retriever.sentence_similarity(retrieval, quiz) == \
        assistant.retriever.sentence_similarity(replace(retrieval, english_vector=None), quiz)
