"""Index terms: stemmed words without stop words (`bot/data/rules/index-words.yaml`), identifiers whole and in
their parts."""

from __future__ import annotations

import re
import threading
from functools import lru_cache

import Stemmer

from bot.text.identifiers import WORD, is_identifier, parts
from bot.text.normalise import fold, strip_accents
from bot.text.words import index_words

STOPWORDS = index_words().stop_words  # per language (`bot/data/rules/index-words.yaml`)
_STEMMERS = {"es": "spanish", "en": "english"}


_local = threading.local()


def _stemmer(lang: str) -> Stemmer.Stemmer:
    """A Snowball stemmer for `lang`, one per thread (stemmer objects are not thread-safe)."""
    stemmers: dict[str, Stemmer.Stemmer] = _local.__dict__.setdefault("stemmers", {})
    if lang not in stemmers:
        stemmers[lang] = Stemmer.Stemmer(_STEMMERS[lang])
    return stemmers[lang]


def tokens(text: str, lang: str, stop: frozenset[str] | None = None) -> list[str]:
    """Index terms of `text`: stemmed words without stop words (`lang`'s, or `stop`), identifiers whole plus their
    parts.

    `FI_PROVIDER` gives `fi_provider`, `fi`, `provider`; `slotsPerWorker` gives `slotsperworker`,
    `slots`, `per`, `worker` (parts stemmed like words).
    """
    return [term for word in word_terms(text, lang, stop) for term in word]


ALL_STOPWORDS = index_words().any_stop_words


@lru_cache(maxsize=8192)
def word_terms(text: str, lang: str, stop: frozenset[str] | None = None) -> tuple[tuple[str, ...], ...]:
    """The terms of each word of `text`, word by word; the first term is the word's main term.

    Cached: one question is tokenized several times while it is answered (BM25, coverage, excerpt).
    """
    stop = STOPWORDS[lang] if stop is None else stop
    stem = _stemmer(lang).stemWord
    out: list[tuple[str, ...]] = []
    for match in WORD.finditer(strip_accents(text)):
        raw = match.group(0)
        if is_identifier(raw):
            terms = [fold(raw)]
            pieces = parts(raw)
            if len(pieces) > 1:
                for part in pieces:
                    folded = fold(part)
                    if folded not in stop and not folded.isdigit():
                        terms.append(stem(folded))
            out.append(tuple(terms))
            continue
        word = fold(raw)
        if word in stop or (len(word) == 1 and not word.isdigit()):
            continue
        out.append((word if word.isdigit() else stem(word),))
    return tuple(out)


_NAME_WORD = re.compile(r"[^\W\d_]+")  # a name's words: letters only


def initials(name: str) -> frozenset[str]:
    """The initials of each run of two or more of a name's words ("AWS Node Termination Handler": "NTH", "ANTH";
    "Kubernetes Cluster Autoscaler": "CA"), as a page's readers shorten it: a question that says "NTH" on that
    page names the page, not one of its parts. Function words start no run and end none."""
    words = [fold(w) for w in _NAME_WORD.findall(name)]
    out: set[str] = set()
    for start, first in enumerate(words):
        if first in ALL_STOPWORDS:
            continue
        letters = first[0]
        for word in words[start + 1 :]:
            letters += word[0]
            if word not in ALL_STOPWORDS and letters not in ALL_STOPWORDS:
                out.add(letters)
    return frozenset(out)
