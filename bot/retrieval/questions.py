"""The shape of a question: a definition ("what is X?"), a comparison, and where it goes on to another."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from bot.text.identifiers import QUERY_WORD
from bot.text.normalise import fold, strip_accents
from bot.text.rules import DefinitionRules, definition_rules, points_back

QUESTION_END = re.compile(r"\?+(?=\s*\S)|\?+\s*$")


def definition_subject(question: str) -> frozenset[str]:
    """For "what is X?" questions ("what does X mean?", "what does X do?"), the folded words of X; empty for any
    other question (or an X of more than four words, which names no one thing). Words that only soften the
    asking ("what *exactly* is X?", "¿qué es *realmente* X?") are read past."""
    return _definition(question)[0]


def asks_what_it_does(question: str) -> bool:
    """Whether a definition question asks what X does ("what does X do?", "¿qué hace X?"): a sentence that
    starts with X and goes on to say anything of it answers, where "what is X?" needs it to say what X is."""
    return _definition(question)[1]


@lru_cache(maxsize=256)
def _definition(question: str) -> tuple[frozenset[str], bool]:
    shapes = definition_rules()  # the patterns of bot/data/rules/<lang>.yaml, `definitions`
    plain = shapes.hedges.sub("", strip_accents(question))
    for acts, patterns in ((False, shapes.meaning), (True, shapes.acting), (False, (shapes.definition,))):
        for pattern in patterns:
            match = pattern.match(plain)
            if match:
                subject = _subject(match, shapes)
                return subject, acts and bool(subject)
    return frozenset(), False


def _subject(match: re.Match[str], shapes: DefinitionRules) -> frozenset[str]:
    found = match.groupdict()
    subject = shapes.qualifier_tail.sub("", found.get("subject") or found.get("first") or "").strip()
    if not subject or shapes.purpose.search(subject) or fold(subject.split()[0]) in shapes.not_a_subject:
        return frozenset()  # "what is X for?", "what's the difference between…": not a definition
    wanted = frozenset(fold(w) for w in QUERY_WORD.findall(subject))
    return wanted if len(wanted) <= 4 else frozenset()


def referred_to_later(tokens: Sequence[str], segments: Sequence[int], segment: int) -> bool:
    """Whether a later sentence or question of the message refers back with a pronoun, so what
    `segment` names is what the rest asks about (`tokens` lowercased and folded)."""
    words = list(tokens)
    return any(segments[i] > segment and points_back(words, i) for i in range(len(words)))
