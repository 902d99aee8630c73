"""Where the knowledge uses each term: built from every chunk once per index, read by every question.

`bot.retrieval.terms` reads a question's words; this module holds the knowledge side they are looked up in:
each quiz question's or section's terms per language (stems, identifiers whole and in parts, and the joins of
an identifier's parts), the terms of the whole knowledge, the questions each term is in, the words of the
documents' titles, and the knowledge's own words for mending typos.

Built from the terms of an earlier knowledge (`previous`), only the questions or sections whose text changed
are read again: the others keep their terms, and the maps from each term to its questions are changed for
those terms only. The result is the same as built from scratch.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from sys import intern

from bot.retrieval.spelling import Spelling
from bot.text.identifiers import QUERY_WORD
from bot.text.identifiers import parts as identifier_parts
from bot.text.normalise import fold, strip_accents
from bot.text.tokens import word_terms

TextKey = bytes  # names a text (with its language) without holding it: see `text_key`


def text_key(lang: str, text: str) -> TextKey:
    """A short digest of a text in a language: what is derived from a text is kept by it between indexes."""
    return hashlib.blake2b(f"{lang}\0{text}".encode(), digest_size=16).digest()


class KnowledgeTerms:
    """The terms of the knowledge, per language and per question (or section), and its spelling words."""

    keys_of: dict[str, dict[str, frozenset[object]]]  # per language, each term's questions
    everywhere: dict[str, frozenset[str]]  # per language, every term of the knowledge
    languages: list[str]
    spelling: Spelling
    _words: Counter[str]  # each spelling word, with how many questions use it

    def __init__(self, texts: Iterable[tuple[object, str, str]], titles: Iterable[tuple[str, str]] = (),
                 previous: KnowledgeTerms | None = None) -> None:
        """`texts`: (question key, language, text) for every chunk of the knowledge; `titles`: (language,
        title) of each knowledge document; `previous`: the terms of an earlier knowledge, whose work on the
        texts that did not change is reused."""
        domain: dict[str, set[str]] = {}
        for lang, title in titles:
            domain.setdefault(lang, set()).update(t for word in word_terms(title, lang, frozenset()) for t in word)
        self.domain = {lang: frozenset(terms) for lang, terms in domain.items()}
        inputs: dict[object, list[tuple[str, str]]] = {}
        for key, lang, text in texts:
            inputs.setdefault(key, []).append((lang, text))
        before = previous._inputs if previous is not None else {}
        self._inputs: dict[object, TextKey] = {}  # what each key's terms were read from
        self.of_key: dict[object, dict[str, frozenset[str]]] = {}
        self._surface_of: dict[object, tuple[str, ...]] = {}  # each key's spelling words
        changed: list[object] = []
        for key, read in inputs.items():
            digest = text_key("", "\0".join(f"{lang}\0{text}" for lang, text in read))
            self._inputs[key] = digest
            if previous is not None and before.get(key) == digest:
                self.of_key[key] = previous.of_key[key]
                self._surface_of[key] = previous._surface_of[key]
                continue
            changed.append(key)
            langs: dict[str, set[str]] = {}
            surface: set[str] = set()
            for lang, text in read:
                terms, written = _read_text(lang, text)
                langs.setdefault(lang, set()).update(terms)
                surface |= written
            self.of_key[key] = {lang: frozenset(t) for lang, t in langs.items()}
            self._surface_of[key] = tuple(surface)
        removed = [key for key in before if key not in inputs]
        self._count_terms(previous, changed, removed)

    def _count_terms(self, previous: KnowledgeTerms | None, changed: list[object], removed: list[object]) -> None:
        """The maps from terms to questions, and the spelling words, changed for the questions that changed
        (made from nothing without `previous`)."""
        leaving: dict[str, dict[str, set[object]]] = {}  # per language, term -> the keys it leaves
        coming: dict[str, dict[str, set[object]]] = {}
        words: Counter[str] = Counter(previous._words) if previous is not None else Counter()
        for key in [*changed, *removed]:
            if previous is not None and key in previous.of_key:
                for lang, terms in previous.of_key[key].items():
                    for term in terms:
                        leaving.setdefault(lang, {}).setdefault(term, set()).add(key)
                words.subtract(previous._surface_of[key])
        for key in changed:
            for lang, terms in self.of_key[key].items():
                for term in terms:
                    coming.setdefault(lang, {}).setdefault(term, set()).add(key)
            words.update(self._surface_of[key])
        keys_of: dict[str, dict[str, frozenset[object]]] = {
            lang: dict(terms) for lang, terms in (previous.keys_of.items() if previous is not None else ())}
        # Most terms are in one question only: those share one set per question instead of one per term.
        singles = previous._singles if previous is not None else {}
        self._singles: dict[object, frozenset[object]] = {key: singles.get(key) or frozenset((key,))
                                                          for key in self.of_key}
        for lang in {*leaving, *coming}:
            terms_of = keys_of.setdefault(lang, {})
            gone, new = leaving.get(lang, {}), coming.get(lang, {})
            for term in {*gone, *new}:
                keys = (terms_of.get(term, frozenset()) - gone.get(term, set())) | new.get(term, set())
                if len(keys) == 1:
                    terms_of[term] = self._singles[next(iter(keys))]
                elif keys:
                    terms_of[term] = keys
                else:
                    terms_of.pop(term, None)
        self.keys_of = {lang: terms for lang, terms in keys_of.items() if terms}
        self.everywhere = {lang: frozenset(terms) for lang, terms in self.keys_of.items()}
        self.languages = sorted(self.everywhere)
        self._words = +words
        if previous is not None and not changed and not removed:
            self.spelling = previous.spelling
        else:
            self.spelling = Spelling(w for w in self._words if len(w) >= 4)


def _read_text(lang: str, text: str) -> tuple[set[str], set[str]]:
    """A chunk's index terms in its language (with the surfaces of its words), and its words as written
    (folded, at least 4 letters: the spelling words); each term held once however many sections use it."""
    terms = {t for word in word_terms(text, lang, frozenset()) for t in word} | surfaces(text)
    written = (fold(m.group(0)) for m in QUERY_WORD.finditer(strip_accents(text)))
    return {intern(t) for t in terms}, {intern(w) for w in written if len(w) >= 4}


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
