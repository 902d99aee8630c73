"""Mending a misspelt word with the knowledge's own words: one closest word, or none when two different words
are as close; two forms of one word ("checkpoint", "checkpoints") are not a tie."""

from __future__ import annotations

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
