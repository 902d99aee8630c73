"""Where the knowledge uses each term: built from every chunk once per index, read by every question.

`bot.retrieval.terms` reads a question's words; this module holds the knowledge side they are looked up in:
each quiz question's or section's terms per language (stems, identifiers whole and in parts, and the joins of
an identifier's parts), the terms of the whole knowledge, the questions each term is in, the words of the
documents' titles, and the knowledge's own words for mending typos.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.retrieval.spelling import Spelling
from bot.text.identifiers import QUERY_WORD
from bot.text.identifiers import parts as identifier_parts
from bot.text.normalise import fold, strip_accents
from bot.text.tokens import word_terms


class KnowledgeTerms:
    """The terms of the knowledge, per language and per question (or section), and its spelling words."""

    def __init__(self, texts: Iterable[tuple[object, str, str]], titles: Iterable[tuple[str, str]] = ()) -> None:
        """`texts`: (question key, language, text) for every chunk of the knowledge; `titles`: (language,
        title) of each knowledge document."""
        domain: dict[str, set[str]] = {}
        for lang, title in titles:
            domain.setdefault(lang, set()).update(t for word in word_terms(title, lang, frozenset()) for t in word)
        self.domain = {lang: frozenset(terms) for lang, terms in domain.items()}
        by_key: dict[object, dict[str, set[str]]] = {}
        everywhere: dict[str, set[str]] = {}
        surface: set[str] = set()
        for key, lang, text in texts:
            terms = {t for word in word_terms(text, lang, frozenset()) for t in word} | surfaces(text)
            by_key.setdefault(key, {}).setdefault(lang, set()).update(terms)
            everywhere.setdefault(lang, set()).update(terms)
            written = (fold(m.group(0)) for m in QUERY_WORD.finditer(strip_accents(text)))
            surface.update(w for w in written if len(w) >= 4)
        self.of_key = {key: {lang: frozenset(t) for lang, t in langs.items()} for key, langs in by_key.items()}
        self.everywhere = {lang: frozenset(t) for lang, t in everywhere.items()}
        keys_of: dict[str, dict[str, set[object]]] = {}
        for key, langs in by_key.items():
            for lang, terms in langs.items():
                for term in terms:
                    keys_of.setdefault(lang, {}).setdefault(term, set()).add(key)
        self.keys_of = {lang: {term: frozenset(keys) for term, keys in terms.items()}
                        for lang, terms in keys_of.items()}
        self.languages = sorted(self.everywhere)
        self.spelling = Spelling(surface)


def surfaces(text: str) -> set[str]:
    """Words as written (folded), and the joins of an identifier's parts: "SlurmNodeSet" gives
    "slurmnodeset", "slurmnode" and "nodeset", so "nodeset" finds it."""
    out: set[str] = set()
    for match in QUERY_WORD.finditer(strip_accents(text)):
        token = match.group(0).rstrip("/")
        out.add(fold(token))
        parts = [fold(p) for p in identifier_parts(token)]
        for i in range(len(parts)):
            for j in range(i + 2, len(parts) + 1):
                out.add("".join(parts[i:j]))
    return out
