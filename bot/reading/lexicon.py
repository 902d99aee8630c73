"""What words mean in general, apart from any knowledge: how common each word is in Spanish and English,
chat abbreviations and field slang, the words that frame a question, and a Spanish–English glossary.

General resources, not rules for particular questions: the frequencies come from `wordfreq`'s lists
(`bot/data/word-frequencies.npz`, remade by `scripts/make_word_frequencies.py`), the glossary is the
usual English of technical Spanish (`bot/data/glossary-es-en.tsv`).
"""

from __future__ import annotations

import hashlib
from array import array
from bisect import bisect_left
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import numpy as np

from bot.text.identifiers import WORD
from bot.text.normalise import fold, strip_accents
from bot.text.tokens import STOPWORDS, initials
from bot.text.words import index_words

FREQUENCIES = Path(__file__).resolve().parent.parent / "data" / "word-frequencies.npz"
GLOSSARY = Path(__file__).resolve().parent.parent / "data" / "glossary-es-en.tsv"
# Everyday Spanish ("quedar", "tardar", "a mano", "puse"): read only to say a Spanish question in English for the
# embedding model (`Analysis.english_text`), never to match a question's words with the knowledge's.
EVERYDAY_GLOSSARY = GLOSSARY.with_name("glossary-es-en-everyday.tsv")
COMMON_ZIPF = 5.0  # this common or more ("set", "price", "tiempo"): specificity 0
RARE_ZIPF = 2.5  # this rare or less, or in no word list ("karpenter", "irsa"): specificity 1
# Less common than this (Zipf 3: once per million words) is a word of low frequency, as the scale's authors divide
# it: initials this rare in every language spell no word a question would mean ("NTH"; not "ran", "toe").
LOW_FREQUENCY_ZIPF = 3.0
# A generated inflection this much more common than its lemma (a hundred times: "puede" of "podar", "sobre" of
# "sobrar") is another, commoner word's form ("poder", the preposition), not the lemma's.
OTHER_WORD_ZIPF_GAP = 2.0
# Languages no question is read in whose everyday words a Spanish speaker mixes into one ("treinamento",
# "alguma coisa"; from Barcelona, "doncs", "ostres"): such a word is an ordinary word, never the name of a thing
# the knowledge does not cover.
NEIGHBOUR_LANGUAGES = ("pt", "ca")

def term_key(term: str) -> int:
    """A 64-bit key for a term, the same in every process (no string is kept for it)."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest(), "little")


class WordFrequency:
    """Zipf frequency of folded words and of their Snowball stems, per language (absent: rare), kept as
    sorted arrays of term keys and Zipf × 10."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        # array('Q') and bytes: compact, and bisect on them is faster than numpy on one scalar at a time.
        # Words, stems and inflections; of a neighbouring language no stems (`neighbour_zipf`)
        kinds = {**dict.fromkeys(STOPWORDS, ("w", "s", "l")), **dict.fromkeys(NEIGHBOUR_LANGUAGES, ("w", "l"))}
        self._tables = {
            (lang, kind): (array("Q", arrays[f"{lang}_{kind}_keys"].astype(np.uint64).tobytes()),
                           arrays[f"{lang}_{kind}_zipf"].astype(np.uint8).tobytes())
            for lang, lang_kinds in kinds.items() for kind in lang_kinds
        }
        # The same memory as numpy arrays, for looking many words up at once (`words_zipf`).
        self._arrays = {name: (np.frombuffer(keys, dtype=np.uint64), np.frombuffer(zipfs, dtype=np.uint8))
                        for name, (keys, zipfs) in self._tables.items()}

    @classmethod
    @cache
    def bundled(cls) -> WordFrequency:
        with np.load(FREQUENCIES) as data:
            return cls({name: data[name] for name in data.files})

    def zipf(self, word: str, stem: str, lang: str) -> float:
        """How common `word` (folded), its stem or its lemma (an inflected form: "priorice", of "priorizar") is
        in general `lang`; 0.0 when no list has it."""
        return max(self._lookup(lang, "w", word), self._lookup(lang, "s", stem), self._lookup(lang, "l", word)) / 10

    def word_zipf(self, word: str, lang: str) -> float:
        """How common `word` (folded) or the word it is a form of is in general `lang`, stems aside."""
        return max(self._lookup(lang, "w", word), self._lookup(lang, "l", word)) / 10

    def neighbour_zipf(self, word: str) -> float:
        """How common `word` (folded) or the word it is a form of is in the most common of the
        `NEIGHBOUR_LANGUAGES` (stems aside: a short stem of one language is another's word)."""
        return max(self.word_zipf(word, lang) for lang in NEIGHBOUR_LANGUAGES)

    def words_zipf(self, keys: np.ndarray, lang: str) -> np.ndarray:
        """How common each word (by its `term_key`, uint64) or the word it is a form of is in general `lang`,
        stems aside: `zipf` without the stem, for many words at once (the misspelling search looks up
        thousands)."""
        out = np.zeros(len(keys), dtype=np.float64)
        for kind in ("w", "l"):
            known, zipfs = self._arrays[(lang, kind)]
            if not len(known):
                continue
            at = np.minimum(np.searchsorted(known, keys), len(known) - 1)
            out = np.maximum(out, np.where(known[at] == keys, zipfs[at], 0) / 10)
        return out

    def _lookup(self, lang: str, kind: str, term: str) -> int:
        keys, zipfs = self._tables[(lang, kind)]
        key = term_key(term)
        at = bisect_left(keys, key)
        return zipfs[at] if at < len(keys) and keys[at] == key else 0


class Glossary:
    """Spanish words and expressions of technical questions with their usual English equivalent
    (`bot/data/glossary-es-en.tsv`): a Spanish question is also read in English, so it finds the
    English edition's words ("pida" → "request") and the English embedding model reads it better.

    Entries are lemmas; their common inflections are generated (`spanish_forms`), including the
    stem changes of verbs such as pedir → pida, so a short word never matches by a stem it only
    happens to share ("pod" is not a form of "poder"); but a generated form far commoner than its lemma is another
    word's (`_own_forms`: "puede" is "poder"'s, not "podar"'s)."""

    def __init__(self, rows: Iterable[tuple[str, str]]) -> None:
        self._words: dict[str, list[str]] = {}  # a folded Spanish form -> English
        self._phrases: dict[tuple[str, ...], list[str]] = {}  # folded Spanish words -> English
        self._entries: dict[str, list[str]] = {}  # a word that is an entry of its own -> its English
        for spanish, english in rows:
            words = tuple(fold(w) for w in spanish.split())
            if len(words) == 1:
                own = self._entries.setdefault(words[0], [])
                if english not in own:
                    own.append(english)
                for form in _own_forms(words[0]):
                    self._add(form, english)
            else:
                self._phrases.setdefault(words, []).append(english)
        self.longest = max((len(p) for p in self._phrases), default=1)

    def _add(self, form: str, english: str) -> None:
        known = self._words.setdefault(form, [])
        if english not in known:
            known.append(english)

    @classmethod
    @cache
    def bundled(cls) -> Glossary:
        return cls(_rows(GLOSSARY))

    @classmethod
    @cache
    def everyday(cls) -> Glossary:
        """The everyday words around technical terms (`EVERYDAY_GLOSSARY`), for saying a question in English."""
        return cls(_rows(EVERYDAY_GLOSSARY))

    def word(self, folded: str) -> list[str]:
        return self._words.get(folded, [])

    def entry(self, folded: str) -> list[str]:
        """The English of the word's own entry (none when it is only an inflection of another's: "ajuste" is an
        entry, "setting", and a form of "ajustar", "tune")."""
        return self._entries.get(folded, [])

    def reading(self, text: str) -> str:
        """The English equivalents of a Spanish text's words and expressions, in order, each once: what an
        English question finds a Spanish-only document by."""
        folded = [fold(w) for w in WORD.findall(strip_accents(text))]
        out: dict[str, None] = {}
        i = 0
        while i < len(folded):
            for size in range(min(self.longest, len(folded) - i), 1, -1):
                found = self.phrase(tuple(folded[i:i + size]))
                if found:
                    out.update(dict.fromkeys(found))
                    i += size
                    break
            else:
                if folded[i] not in STOPWORDS["es"]:
                    out.update(dict.fromkeys(g for g in self.word(folded[i]) if fold(g) != folded[i]))
                i += 1
        return " ".join(out)

    def phrase(self, words: tuple[str, ...]) -> list[str]:
        return self._phrases.get(words, [])


def _rows(path: Path) -> list[tuple[str, str]]:
    """A glossary file's (Spanish, English) pairs: one per line, split by a tab; `#` opens a comment line."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            spanish, english = line.split("\t")
            rows.append((spanish.strip(), english.strip()))
    return rows


def spanish_forms(lemma: str) -> set[str]:
    """A folded lemma and its common inflections: plurals and genders for nouns and adjectives, the
    frequent tenses for verbs (with e → i, e → ie and o → ue stem changes: pida, quiere, puede)."""
    forms = {lemma}
    base = lemma[:-2] if lemma.endswith("se") and len(lemma) > 5 else lemma  # "caerse"
    if len(base) > 3 and base[-2:] in ("ar", "er", "ir"):
        verbs = index_words()  # the endings and stem changes of `bot/data/rules/index-words.yaml`
        stem, endings = base[:-2], verbs.ar_endings if base.endswith("ar") else verbs.er_ir_endings
        stems = {stem}
        vowel = max(stem.rfind(v) for v in verbs.stem_changes)
        if vowel >= 0:
            head, tail = stem[:vowel], stem[vowel + 1 :]
            stems |= {head + v + tail for v in verbs.stem_changes[stem[vowel]]}
        forms |= {s + e for s in stems for e in endings} | {base}
        return forms
    forms |= {lemma + "s", lemma + "es"}
    if lemma.endswith("o"):
        forms |= {lemma[:-1] + "a", lemma[:-1] + "os", lemma[:-1] + "as"}
    if lemma.endswith("z"):
        forms.add(lemma[:-1] + "ces")
    if lemma.endswith("on"):
        forms.add(lemma + "es")
    return forms


def _own_forms(lemma: str) -> set[str]:
    """`spanish_forms` of a lemma, but those far more common than the lemma in general Spanish: the regular endings
    and stem changes generate them for any verb, and they are another word's ("puede", "pueden" of "podar" are
    "poder"'s; "una" of "unir" is the article). A lemma no word list has keeps every form (no evidence either way)."""
    frequency = WordFrequency.bundled()
    own = frequency.word_zipf(lemma, "es")
    return {form for form in spanish_forms(lemma)
            if not own or form == lemma or frequency.word_zipf(form, "es") - own < OTHER_WORD_ZIPF_GAP}


def specificity(zipf: float) -> float:
    return min(1.0, max(0.0, (COMMON_ZIPF - zipf) / (COMMON_ZIPF - RARE_ZIPF)))


def page_initials(title: str) -> frozenset[str]:
    """The initials a page's readers shorten its title to (`bot.text.tokens.initials`: "NTH" for "AWS Node
    Termination Handler"), but those that spell a word of general language ("ran" for "Retry and notify", "toe"
    for "Trainium on EKS"): a question that writes such a word means the word, not the page."""
    frequency = WordFrequency.bundled()
    return frozenset(i for i in initials(title)
                     if max(frequency.zipf(i, i, lang) for lang in STOPWORDS) < LOW_FREQUENCY_ZIPF)
