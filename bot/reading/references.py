"""A question that names a quiz question ("question 7", "pregunta 5 del cuestionario", "the third question of
the quiz", "the FSx question", "the quiz question about MPIJob slots", "I got the BF16 one wrong", "explícame la
de Volcano") is about that question, whatever the rest of it says.

The patterns are data (`bot/data/rules/<lang>.yaml`, read with `bot.reading.rules`); both languages' are tried,
since people mix them. A number resolves to the quiz question with that number; "about X" to the one quiz
question that uses the most of X's specific words (ties broken by how retrieval ranks the whole message).
Nothing resolves, and the question is read as any other, when the number is not a quiz question's or no
quiz question uses X's words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.lang import LANGUAGES
from bot.reading.rules import QuizReferenceRules, rules
from bot.text.normalise import fold, strip_accents

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Reference:
    """Where a message names a quiz question, and how: by `number` or by what it is `about`."""

    start: int
    end: int
    number: int | None = None
    about: str | None = None


def find_reference(text: str, lang: str) -> Reference | None:
    """The first reference to a quiz question in `text` (its own language's patterns first), or None."""
    words = {fold(w) for w in _WORD.findall(text)}
    order = [lang, *(other for other in LANGUAGES if other != lang)]
    table = [rules(each).quiz_reference for each in order]
    for ref in table:
        found = _numbered(text, ref.number)
        if found:
            return found
    for ref in table:
        if words & (ref.quiz_words | ref.explain_words | ref.taking_words):
            found = _numbered(text, ref.number_with_quiz_word) or _ordinal(text, ref)
            if found:
                return found
    for ref in table:
        found = _about(text, ref.about) or (
            _about(text, ref.about_with_quiz_word) if words & (ref.quiz_words | ref.explain_words) else None)
        if found:
            return found
    for ref in table:
        if words & (ref.quiz_words | ref.taking_words | ref.elliptic_words):
            found = _about(text, ref.elliptic)
            if found:
                return found
    return None


def _numbered(text: str, patterns: tuple[re.Pattern[str], ...]) -> Reference | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return Reference(match.start(), match.end(), number=int(match.group("number")))
    return None


def _ordinal(text: str, ref: QuizReferenceRules) -> Reference | None:
    """"the third question", "la séptima pregunta": a number in words."""
    plain = strip_accents(text)  # the same length: the match's place is the text's
    for pattern in ref.ordinal_with_quiz_word:
        for match in pattern.finditer(plain):
            number = ref.ordinals.get(fold(match.group("ordinal")))
            if number is not None:
                return Reference(match.start(), match.end(), number=number)
    return None


def _about(text: str, patterns: tuple[re.Pattern[str], ...]) -> Reference | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match and match.group("about").strip():
            return Reference(match.start(), match.end(), about=match.group("about").strip())
    return None


__all__ = ["QuizReferenceRules", "Reference", "find_reference"]
