"""What a message says of the earlier turns of its conversation: whether it opens as a continuation ("and …",
"¿y …", "what about …"), adds to what was asked ("also", "además"), or points back ("it", "eso", "activarlo").

The words and patterns are data (`bot/data/rules/<lang>.yaml`, `follow_ups`), both languages' read at once
(people mix them). Which turns a message is then read with is decided by `bot.answering.conversation`.
"""

from __future__ import annotations

from bot.reading.rules import addition, continuation, is_clitic, pointer_words
from bot.reading.terms import Analysis, QueryWord
from bot.text.normalise import fold


def opens_as_continuation(text: str) -> bool:
    """Whether a clean message opens as a continuation of the one before ("and …", "¿y …", "what about …")."""
    return bool(continuation().match(text))


def adds_to_earlier(text: str) -> bool:
    """Whether a clean message adds to what was asked before ("also", "además")."""
    return bool(addition().search(text))


def points_back(analysis: Analysis) -> bool:
    """Whether any word of a message points back to something named earlier ("it", "eso"), or a verb with a
    pointer joined to it ("activarlo")."""
    return any(t in pointer_words() or is_clitic(t) for t in (fold(token) for token in analysis.tokens))


def is_pointer(word: QueryWord) -> bool:
    """Whether a content word only points back ("it", "them", "eso"): no word of the message's own."""
    return fold(word.text) in pointer_words()


def own_words(analysis: Analysis) -> list[QueryWord]:
    """A message's content words but those that only point back."""
    return [w for w in analysis.words if not is_pointer(w)]
