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



NTH_PAGE = """# AWS Node Termination Handler

## Kubernetes configuration

The `daemonsetNodeSelector` value tells the daemon set where to place its pods: for example only on spot nodes,
with `eks.amazonaws.com/capacityType: SPOT`.
"""
SPOT_PAGE = """# Spot and on-demand nodes

## Placing pods on spot nodes

A training job's pods go to spot nodes or on-demand nodes by a node selector on the capacity type; a daemon set
runs its pods on every node unless its own node selector says otherwise.
"""
NTH_QUESTION = "Which value places the NTH daemon set pods only on spot nodes?"


def test_the_initials_of_a_pages_title_name_the_page_among_others(fake_assistant: Assistant, tmp_path: Path) -> None:
    """Readers shorten a page's title ("NTH" for "AWS Node Termination Handler") where the page writes it out: the
    initials are known, and they lead to that page rather than to another that shares the question's other words."""
    pages = {"charts/termination-handler.md": NTH_PAGE, "ops/spot-nodes.md": SPOT_PAGE}
    named = beside_the_quiz(fake_assistant, tmp_path, pages)
    retrieval = named.retrieve_many([(NTH_QUESTION, "en")])[0]
    nth = next(w for w in retrieval.analysis.words if w.text == "NTH")
    assert nth.known
    assert retrieval.ranked[0].key[0] == "charts/termination-handler"
    assert "NTH" not in named.answer(NTH_QUESTION, "en").uncovered


RAN_PAGE = """# Retry and notify

## Backoff

Each failed step is tried again after a backoff that doubles, up to five times, and the owner gets a message.
"""
OTHER_PAGE = """# Checkpoints

## Out of memory

A training job that ran out of GPU memory restarts from its last checkpoint once the batch size is lowered.
"""


def test_initials_that_spell_a_word_do_not_name_the_page(fake_assistant: Assistant, tmp_path: Path) -> None:
    """"Retry and notify" shortens to "ran", a word of general language: a question that says it means the word."""
    pages = {"ops/retry-notify.md": RAN_PAGE, "ops/checkpoints.md": OTHER_PAGE}
    named = beside_the_quiz(fake_assistant, tmp_path, pages)
    retrieval = named.retrieve_many([("the job ran out of memory, what now?", "en")])[0]
    scores = {s.key[0]: s.specific for s in retrieval.ranked}
    assert scores.get("ops/retry-notify", 0.0) == 0.0
