"""Misspelt ordinary words: "modle" is "model", "paralelism" "parallelism", "nesesito" "necesito".

A word no word list knows may be a name ("Kueue", "IRSA") or a slip of the keyboard. It is read as a slip
when a few edits of the kinds people make turn it into a common word (`bot/data/rules/<lang>.yaml`,
`typos`): two neighbouring letters swapped, a letter doubled or undoubled, one vowel for another or a vowel
left out, or letters each language confuses (Spanish "s" for "c", "b" for "v"; English "ph" for "f"). Edits
of other kinds (a "k" for a "q") make names, and are not tried: "kueue" stays a name, "irsa" too.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

import numpy as np

from bot.reading.lexicon import WordFrequency, term_key
from bot.reading.rules import rules
from bot.text.normalise import fold
from bot.text.tokens import STOPWORDS

VOWELS = "aeiou"
MIN_LENGTH = 5  # shorter words are too close to too many others
TWO_EDITS_LENGTH = 8  # words this long may hold two slips ("reccomended")
CACHED = 20_000
SLIPPED_FUNCTION_LENGTHS = (3, 4)  # "teh", "taht": a function word with two neighbouring letters swapped
SLIPPED_FUNCTION_ZIPF = 3.5  # ... and no word of its own as common as this ("form" is no "from")


def meant(folded: str, langs: Sequence[str], frequency: WordFrequency) -> tuple[str, float] | None:
    """The common word (and its Zipf frequency) a misspelt ordinary word stands for, or None."""
    if len(folded) < MIN_LENGTH or not folded.isalpha():
        return None
    return _meant(folded, tuple(langs), frequency)


@lru_cache(maxsize=CACHED)
def _meant(folded: str, langs: tuple[str, ...], frequency: WordFrequency) -> tuple[str, float] | None:
    best: tuple[float, str] | None = None
    keys: dict[str, int] = {}  # each candidate hashed once, whichever languages propose it
    for lang in langs:
        typos = rules(lang).typos
        first = set(_edits(folded, typos.swaps))
        candidates = sorted((first | ({e for word in first for e in _edits(word, typos.swaps)}
                                      if len(folded) >= TWO_EDITS_LENGTH else set())) - {folded})
        for candidate in candidates:
            if candidate not in keys:
                keys[candidate] = term_key(candidate)
        hashed = np.fromiter((keys[c] for c in candidates), dtype=np.uint64, count=len(candidates))
        zipfs = frequency.words_zipf(hashed, lang)  # the word itself: a stem is shared too widely
        for i in np.flatnonzero(zipfs >= typos.common_zipf):
            zipf, candidate = float(zipfs[i]), candidates[i]
            if best is None or (zipf, candidate) > best:
                best = (zipf, candidate)
    return (best[1], best[0]) if best else None


def slipped_function_word(raw: str, lang: str, frequency: WordFrequency) -> str | None:
    """The function word a short lowercase word stands for when two neighbouring letters are swapped ("teh":
    "the", "taht": "that", "qeu": "que"), or None. Read as that word, it is no rare word of the question's: "tear
    down teh trainium blueprint" asks about the blueprint, not about "teh"."""
    folded = fold(raw)
    if raw != raw.lower() or not folded.isalpha() or len(folded) not in SLIPPED_FUNCTION_LENGTHS:
        return None
    stop = STOPWORDS[lang]
    if folded in stop or frequency.zipf(folded, folded, lang) >= SLIPPED_FUNCTION_ZIPF:
        return None
    for i in range(len(folded) - 1):
        swapped = folded[:i] + folded[i + 1] + folded[i] + folded[i + 2 :]
        if swapped != folded and swapped in stop:
            return swapped
    return None


def forget_slips() -> None:
    """Forget the slips found so far (each word is searched again when read)."""
    _meant.cache_clear()


def _edits(word: str, swaps: tuple[tuple[str, str], ...]) -> Iterator[str]:
    for i in range(len(word) - 1):
        if word[i] != word[i + 1]:
            yield word[:i] + word[i + 1] + word[i] + word[i + 2 :]  # "modle" -> "model"
        else:
            yield word[:i] + word[i + 1 :]  # "reccomended" -> "recomended"
    for i, letter in enumerate(word):
        if letter not in VOWELS and (i == 0 or word[i - 1] != letter):
            yield word[:i] + letter + word[i:]  # "paralelism" -> "parallelism"
        if letter in VOWELS:
            for vowel in VOWELS:
                if vowel != letter:
                    yield word[:i] + vowel + word[i + 1 :]  # "gradiant" -> "gradient"
    for i in range(1, len(word)):
        for vowel in VOWELS:
            yield word[:i] + vowel + word[i:]  # "funcona" -> "funciona"
    for a, b in swaps:
        for x, y in ((a, b), (b, a)):
            start = word.find(x)
            while start != -1:
                yield word[:start] + y + word[start + len(x) :]  # "nesesito" -> "necesito"
                start = word.find(x, start + 1)
