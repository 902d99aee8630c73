"""Where the knowledge uses each term: built from every chunk once per index, read by every question.

`bot.reading.terms` reads a question's words; this module holds the knowledge side they are looked up in:
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
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from sys import intern

import numpy as np

from bot.lang import LANGUAGES
from bot.reading.postings import KeySet, KeyTable, Postings
from bot.reading.spelling import Spelling
from bot.text.identifiers import QUERY_WORD
from bot.text.identifiers import parts as identifier_parts
from bot.text.normalise import fold, strip_accents
from bot.text.tokens import word_terms

TextKey = bytes  # names a text (with its language) without holding it: see `text_key`


def text_key(lang: str, text: str) -> TextKey:
    """A short digest of a text in a language: what is derived from a text is kept by it between indexes."""
    return hashlib.blake2b(f"{lang}\0{text}".encode(), digest_size=16).digest()


class KnowledgeTerms:
    """The terms of the knowledge, per language and per question (or section), and its spelling words.

    Held compactly, since they grow with the knowledge (a pair for each term of each section): each section's
    terms are a sorted tuple of interned strings, and each term's sections a sorted array of their numbers in
    `table` (`KeySet` reads them)."""

    keys_of: dict[str, Postings]  # per language, each term's questions (numbers in `table`)
    everywhere: dict[str, AbstractSet[str]]  # per language, every term of the knowledge
    languages: list[str]
    spelling: Spelling
    table: KeyTable
    _words: Counter[str]  # each spelling word, with how many questions use it

    def __init__(self, texts: Iterable[tuple[object, str, str]] = (), titles: Iterable[tuple[str, str]] = (),
                 previous: KnowledgeTerms | None = None,
                 texts_of: Callable[[object], list[tuple[str, str]]] | None = None,
                 keys: Iterable[object] = ()) -> None:
        """`texts`: (question key, language, text) for every chunk of the knowledge; `titles`: (language,
        title) of each knowledge document; `previous`: the terms of an earlier knowledge, whose work on the
        texts that did not change is reused. Or, instead of `texts`, `keys` and `texts_of`, a key's (language,
        text) pairs made when asked: then no text is kept, nor all of them made at once. A key's terms are not
        kept either: a change reads the changed keys' earlier texts again to take their terms out, which costs
        less than holding every key's terms for the rare key that changes."""
        domain: dict[str, set[str]] = {}
        for lang, title in titles:
            domain.setdefault(lang, set()).update(t for word in word_terms(title, lang, frozenset()) for t in word)
        self.domain = {lang: frozenset(terms) for lang, terms in domain.items()}
        if texts_of is None:
            inputs: dict[object, list[tuple[str, str]]] = {}
            for key, lang, text in texts:
                inputs.setdefault(key, []).append((lang, text))
            texts_of, keys = (lambda key: inputs.get(key, [])), list(inputs)
        else:
            keys = list(keys)
        self._texts_of = texts_of
        self.table = KeyTable(keys, previous.table if previous is not None else None)
        before = previous._inputs if previous is not None else {}
        self._inputs: dict[object, TextKey] = {}  # what each key's terms were read from
        read: dict[object, tuple[dict[str, set[str]], set[str]]] = {}  # the terms of the keys that changed
        for key in keys:
            of_key = texts_of(key)
            digest = text_key("", "\0".join(f"{lang}\0{text}" for lang, text in of_key))
            self._inputs[key] = digest
            if previous is None or before.get(key) != digest:
                read[key] = _read_key(of_key)
        removed = [key for key in before if key not in self._inputs]
        self._count_terms(previous, read, removed)

    @property
    def keys(self) -> list[object]:
        """The questions and sections of this knowledge."""
        return list(self._inputs)

    def terms_of(self, key: object) -> dict[str, frozenset[str]]:
        """A question's or section's terms, per language (read again from its texts)."""
        if key not in self._inputs:
            return {}
        return {lang: frozenset(terms) for lang, terms in _read_key(self._texts_of(key))[0].items()}

    def postings(self, lang: str) -> dict[str, frozenset[object]]:
        """Each term of a language with the keys of its questions or sections (for comparing two terms)."""
        keys = self.table.keys
        postings = self.keys_of.get(lang, Postings())
        return {term: frozenset(keys[i] for i in ids.tolist()) for term, ids in postings.arrays()}

    def where(self, ids: np.ndarray) -> KeySet:
        return KeySet(ids, self.table)

    def _count_terms(self, previous: KnowledgeTerms | None, read: dict[object, tuple[dict[str, set[str]], set[str]]],
                     removed: list[object]) -> None:
        """The maps from terms to questions, and the spelling words, changed for the questions that changed
        (`read`: their terms now) or left (made from nothing without `previous`)."""
        number = self.table.id_of
        leaving: dict[str, dict[str, list[int]]] = {}  # per language, term -> the keys it leaves
        coming: dict[str, dict[str, list[int]]] = {}
        words: Counter[str] = Counter(previous._words) if previous is not None else Counter()
        for key in [*read, *removed]:
            if previous is not None and key in previous._inputs:
                terms_before, surface_before = _read_key(previous._texts_of(key))
                for lang, terms in terms_before.items():
                    for term in sorted(terms):
                        leaving.setdefault(lang, {}).setdefault(term, []).append(number[key])
                words.subtract(surface_before)
        for key, (terms_now, surface_now) in read.items():
            for lang, terms in terms_now.items():
                for term in sorted(terms):
                    coming.setdefault(lang, {}).setdefault(term, []).append(number[key])
            words.update(surface_now)
        changed = bool(read)
        earlier = previous.keys_of.items() if previous is not None else ()
        keys_of = {lang: Postings(dict.items(terms)) for lang, terms in earlier}  # the earlier bytes, shared
        # Most terms are in one question only: those share one array per question instead of one per term.
        singles = previous._singles if previous is not None else {}
        self._singles: dict[int, bytes] = {}
        for key in self._inputs:
            at = number[key]
            self._singles[at] = singles[at] if at in singles else np.array([at], dtype=np.int32).tobytes()
        for lang in {*leaving, *coming}:
            terms_of = keys_of.setdefault(lang, Postings())
            gone, new = leaving.get(lang, {}), coming.get(lang, {})
            for term in {*gone, *new}:
                ids = terms_of.get(term)
                if term in gone:
                    ids = np.setdiff1d(ids, np.array(gone[term], dtype=np.int32), assume_unique=True)
                if term in new:
                    ids = np.union1d(ids, np.array(new[term], dtype=np.int32))
                if len(ids) == 1:
                    terms_of.set(term, self._singles[int(ids[0])])
                elif len(ids):
                    terms_of.set(term, ids.astype(np.int32, copy=False).tobytes())
                else:
                    terms_of.pop(term, None)
        self.keys_of = {lang: terms for lang, terms in keys_of.items() if terms}
        self.everywhere = {lang: terms.keys() for lang, terms in self.keys_of.items()}
        self.languages = sorted(self.everywhere)
        self._words = +words
        if previous is not None and not changed and not removed:
            self.spelling = previous.spelling
        else:
            self.spelling = Spelling((w for w in self._words if len(w) >= 4), stems=_stems)


def _stems(word: str) -> set[str]:
    """A word's stems in the knowledge's languages (what tells two spellings apart as one word or two)."""
    return {terms[0] for lang in LANGUAGES for terms in word_terms(word, lang, frozenset())[:1]}


def _read_key(texts: list[tuple[str, str]]) -> tuple[dict[str, set[str]], set[str]]:
    """A key's index terms per language, and its spelling words, from its (language, text) pairs."""
    langs: dict[str, set[str]] = {}
    surface: set[str] = set()
    for lang, text in texts:
        terms, written = _read_text(lang, text)
        langs.setdefault(lang, set()).update(terms)
        surface |= written
    return langs, surface


def _read_text(lang: str, text: str) -> tuple[set[str], set[str]]:
    """A chunk's index terms in its language (with the surfaces of its words), and its words as written
    (folded, at least 4 letters: the spelling words); each term held once however many sections use it."""
    # Past the cache of the questions' words, which each knowledge text, read once, would only fill.
    terms = {t for word in word_terms.__wrapped__(text, lang, frozenset()) for t in word} | surfaces(text)
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
