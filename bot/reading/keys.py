"""The words that make two messages ask the same thing, whatever their order and form: "How do I use a
PyTorchJob?" and "how to use PyTorchJobs" give one key (what `bot.answering.knowledge_gaps` counts a gap by)."""

from __future__ import annotations

from bot.reading.markup import clean_question
from bot.text.normalise import fold
from bot.text.tokens import word_terms

KEY_CHARS = 255  # a key fits a database column this long


def words_key(text: str, lang: str) -> str:
    """A message's content words (stemmed, without stop words, each once, in order of the alphabet), as one text
    of at most `KEY_CHARS`; the folded message when it has no content word."""
    words = word_terms(fold(clean_question(text)), lang)  # folded: "PyTorchJobs" is stemmed like a word
    terms = sorted({term for word in words for term in word}) or [fold(text).strip()]
    key = ""
    for term in terms:
        if len(key) + len(term) + 1 > KEY_CHARS:
            break
        key = f"{key} {term}".strip()
    return key
