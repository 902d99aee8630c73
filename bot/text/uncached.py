"""Index terms of the knowledge's own texts, read past the cache of the questions' words.

`bot.text.tokens.word_terms` keeps the last 8,192 texts it read, for the questions (one question is read several
times while it is answered). A knowledge text read once (a chunk being indexed, a whole section, a unit whose terms
a cache of its own keeps) would fill it with words no question asks for again, and keep the text too.
"""

from __future__ import annotations

from bot.text.tokens import word_terms


def knowledge_tokens(text: str, lang: str) -> list[str]:
    """`bot.text.tokens.tokens` of `text`, not kept."""
    return [term for word in word_terms.__wrapped__(text, lang) for term in word]
