"""Index terms: stemmed words without stop words, identifiers whole and in their parts."""

from __future__ import annotations

import threading
from functools import lru_cache

import Stemmer

from bot.text.identifiers import WORD, is_identifier, parts
from bot.text.normalise import fold, strip_accents

STOPWORDS = {
    "es": frozenset(
        """a al algo algun alguna algunas alguno algunos ante antes asi aun bajo bien cada como con contra cual
        cuales cuando cuanto cuanta cuantos cuantas de del desde donde dos el ella ellas ellos en entre era es esa esas
        ese eso esos esta estan estas este esto estos fue ha hace hacen hacer hay la las le les lo los mas me mi
        mis mucho muy nada ni no nos o otra otro otros para pero poco por porque que quien se sea ser si sin
        sobre son su sus tambien tengo tan te tiene tienen todo todos tu tus un una unas uno unos usar uso y ya yo
        puedo debo necesito quiero hago mejor qué cómo cuál""".split()
    ),
    "en": frozenset(
        """a about after all also an and any are as at be been before being between both but by can could
        did do does doing done for from had has have how i if in into is it its just me more most my no not of
        on or our should so some such than that the their them then there these they this those to too under
        up us use used using very was we were what when where which while who why will with would you your
        get need want""".split()
    ),
}
_STEMMERS = {"es": "spanish", "en": "english"}


_local = threading.local()


def _stemmer(lang: str) -> Stemmer.Stemmer:
    """A Snowball stemmer for `lang`, one per thread (stemmer objects are not thread-safe)."""
    stemmers: dict[str, Stemmer.Stemmer] = _local.__dict__.setdefault("stemmers", {})
    if lang not in stemmers:
        stemmers[lang] = Stemmer.Stemmer(_STEMMERS[lang])
    return stemmers[lang]


def tokens(text: str, lang: str) -> list[str]:
    """Index terms of `text`: stemmed words without stop words, identifiers whole plus their parts.

    `FI_PROVIDER` gives `fi_provider`, `fi`, `provider`; `slotsPerWorker` gives `slotsperworker`,
    `slots`, `per`, `worker` (parts stemmed like words).
    """
    return [term for word in word_terms(text, lang) for term in word]


ALL_STOPWORDS = STOPWORDS["es"] | STOPWORDS["en"]


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
