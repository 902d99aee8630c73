"""Mending a misspelt word with the knowledge's own words: one closest word, or none when two different words
are as close; two forms of one word ("checkpoint", "checkpoints") are not a tie."""

from __future__ import annotations

from bot.config import Settings
from bot.retrieval.knowledge_terms import KnowledgeTerms


def spelling(*words: str) -> KnowledgeTerms:
    return KnowledgeTerms([(("doc", i), "en", word) for i, word in enumerate(words)])


def test_the_one_closest_knowledge_word_is_meant() -> None:
    assert spelling("karpenter", "kubernetes").spelling.closest("karpeter") == "karpenter"


def test_two_different_words_as_close_are_a_tie() -> None:
    assert spelling("trainer", "drainer").spelling.closest("rainer") is None


def test_two_forms_of_one_word_as_close_are_that_word() -> None:
    terms = spelling("checkpoint", "checkpoints", "nodepool", "nodepools")
    assert terms.spelling.closest("checkpoins") == "checkpoint"
    assert terms.spelling.closest("nodepoos") == "nodepool"


def test_the_index_is_built_once_prepared_and_then_mends_as_before() -> None:
    terms = spelling("karpenter", "kubernetes")
    assert not terms.spelling.ready  # a start does not wait for it
    terms.spelling.prepare()
    assert terms.spelling.ready
    assert terms.spelling.closest("karpeter") == "karpenter"


def test_a_started_server_builds_the_misspelling_index_off_the_request_path(settings: Settings) -> None:
    """After a start, the index is built in the background: the first misspelt question does not pay for it."""
    import time

    from bot.answering.assistant import Assistant
    from bot.services import Services
    from tests.support.fakes import FakeEmbedder, lexical_model

    assistant = Assistant.from_settings(settings, embedder=FakeEmbedder(), model=lexical_model())
    index = assistant.retriever.terms.spelling
    assert not index.ready
    services = Services.starting(settings, assistant)
    try:
        deadline = time.monotonic() + 10
        while not index.ready and time.monotonic() < deadline:
            time.sleep(0.01)
        assert index.ready
    finally:
        # The database opens (and migrates) on a thread of its own: let it finish before closing, so no
        # migration runs on beside another test's.
        deadline = time.monotonic() + 30
        while not services.database.ready and time.monotonic() < deadline:
            time.sleep(0.02)
        services.close()


def test_strings_sharing_a_key_only_add_candidates_the_distance_rules_out(monkeypatch) -> None:
    """The index keeps a hash of each deletion, not the string: two strings with one key find each other's words,
    and the edit distance (or, for an ending, the word itself) keeps only the word meant."""
    import bot.reading.spelling as spelling_module

    entry = spelling_module._entry

    def shared(text: str, number: int) -> int:  # every string has one of two keys
        return entry("k" if text.startswith("k") else "x", number)

    monkeypatch.setattr(spelling_module, "_entry", shared)
    terms = spelling("karpenter", "kubernetes", "slurmdbd")
    assert terms.spelling.closest("karpeter") == "karpenter"
    assert terms.spelling.closest("kubernets") == "kubernetes"
    assert terms.spelling.closest("kxyzwvuts") is None
    assert terms.spelling.ending("dbd") is None  # every ending shares a key: none is told apart, none is guessed


def test_the_misspelling_index_of_many_words_finds_each_one_misspelt() -> None:
    words = [f"{stem}{suffix}" for stem in ("karpent", "schedul", "checkpo", "nodepoo") for suffix in ("erab", "ixo")]
    terms = spelling(*words)
    for word in words:
        slipped = word[:3] + word[4:]  # one letter dropped
        assert terms.spelling.closest(slipped) == word, slipped
