"""Which of the bot's languages a short text is written in."""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.lang import Lang
from bot.text.normalise import fold
from bot.text.tokens import STOPWORDS

_ES_MARKS = re.compile(r"[¿¡ñáéíóúü]", re.IGNORECASE)
_LETTERS = re.compile(r"[^\W\d_]+")
_LONGER_WORD = re.compile(r"[^\W\d_]{3,}")


def detect_language(text: str, vocabulary: dict[str, frozenset[str]] | None = None) -> Lang:
    """'es' or 'en' for a short question, from stop words, Spanish marks and words of each edition.

    `vocabulary` maps a language to the words found only in that edition of the knowledge, so
    'DeepSpeed ZeRO etapas' is Spanish even with no stop word in it.
    """
    words = [fold(w) for w in _LETTERS.findall(text)]
    score = {"es": 0.0, "en": 0.0}
    for word in words:
        for lang in score:
            if word in STOPWORDS[lang]:
                score[lang] += 1.0
            elif vocabulary and word in vocabulary.get(lang, ()):
                score[lang] += 0.75
    score["es"] += 1.5 * len(_ES_MARKS.findall(text))
    if score["es"] > score["en"]:
        return "es"
    return "en"


def edition_vocabulary(texts_by_lang: dict[str, Iterable[str]]) -> dict[str, frozenset[str]]:
    """Folded words that appear in one language's texts and not in the other's."""
    words = {
        lang: {fold(w) for text in texts for w in _LONGER_WORD.findall(text)}
        for lang, texts in texts_by_lang.items()
    }
    return {
        lang: frozenset(own - set().union(*(w for other, w in words.items() if other != lang)))
        for lang, own in words.items()
    }
