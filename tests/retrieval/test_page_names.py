"""A page is named by its path as well as by its text: a team keeps "argo-workflows/synchronization.md" in a
folder named for what it is about, and a question names that ("Argo") where the page only says "workflow"."""

from __future__ import annotations

from pathlib import Path

from bot.answering.assistant import Assistant
from tests.support.extra_knowledge import beside_the_quiz

PAGE = """# Synchronization

You can limit the parallel execution of workflows with a semaphore. The limit of each semaphore is the value of
a key in a ConfigMap the workflow refers to.
"""
QUESTION = "Where do I set the limit of an Argo semaphore?"


def test_a_word_only_the_pages_path_says_is_known_and_finds_the_page(fake_assistant: Assistant,
                                                                      tmp_path: Path) -> None:
    named = beside_the_quiz(fake_assistant, tmp_path, {"argo-workflows/synchronization.md": PAGE})
    retrieval = named.retrieve_many([(QUESTION, "en")])[0]
    argo = next(w for w in retrieval.analysis.words if w.text == "Argo")
    assert argo.known  # not "the knowledge says nothing about Argo"
    assert retrieval.ranked[0].key[0] == "argo-workflows/synchronization"
    assert "Argo" not in named.answer(QUESTION, "en").uncovered

