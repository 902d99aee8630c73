"""A page is named by its path as well as by its text: a team keeps "argo-workflows/synchronization.md" in a
folder named for what it is about, and a question names that ("Argo") where the page only says "workflow"."""

from __future__ import annotations

import shutil
from pathlib import Path

from bot.answering.assistant import Assistant
from tests.conftest import KNOWLEDGE
from tests.support.extra_knowledge import with_documents

PAGE = """# Synchronization

You can limit the parallel execution of workflows with a semaphore. The limit of each semaphore is the value of
a key in a ConfigMap the workflow refers to.
"""
QUESTION = "Where do I set the limit of an Argo semaphore?"


def test_a_word_only_the_pages_path_says_is_known_and_finds_the_page(fake_assistant: Assistant,
                                                                      tmp_path: Path) -> None:
    knowledge = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE, knowledge)
    named = with_documents(fake_assistant, knowledge, {"argo-workflows/synchronization.md": PAGE})
    retrieval = named.retrieve_many([(QUESTION, "en")])[0]
    argo = next(w for w in retrieval.analysis.words if w.text == "Argo")
    assert argo.known  # not "the knowledge says nothing about Argo"
    assert retrieval.ranked[0].key[0] == "argo-workflows/synchronization"
    assert "Argo" not in named.answer(QUESTION, "en").uncovered

