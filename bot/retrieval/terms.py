"""A question's words: what each means, how specific it is, and where the knowledge uses it.

Answering needs more than "is some chunk close to the question": the question's own subject has to be
in the knowledge. "How do I set up IRSA so pods can read S3?" shares "pods" and "S3" with the quiz, but
its subject, IRSA, appears nowhere. So every content word of a question gets

- its index terms in each edition's language (stems, identifiers whole and in parts), with the forms
  it may stand for: an abbreviation ("ckpt", "pa", "k8s"), a typo of a knowledge word ("karpeter"),
  letters run into digits ("zero3");
- a specificity in [0, 1] from how common the word is in general Spanish or English (Zipf frequency
  from `bot/data/word-frequencies.json.gz`): "how" or "set" weigh nothing, "cluster" a little, "IRSA",
  "DCGM" or `NCCL_IB_DISABLE` everything;
- whether it names a thing (an identifier, an acronym, a word no general word list knows): only those
  are reported as "not covered" to the person asking.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from bot.text import ALL_STOPWORDS, STOPWORDS, fold, strip_accents, word_terms

FREQUENCIES = Path(__file__).resolve().parent.parent / "data" / "word-frequencies.json.gz"
GLOSSARY = Path(__file__).resolve().parent.parent / "data" / "glossary-es-en.tsv"
COMMON_ZIPF = 5.0  # this common or more ("set", "price", "tiempo"): specificity 0
RARE_ZIPF = 2.5  # this rare or less, or in no word list ("karpenter", "irsa"): specificity 1
NAMED_ZIPF = 3.2  # rarer than this: not a common word (a typo of a knowledge word may be meant)
CAPITALISED_NAMED_ZIPF = 5.0  # a capitalised word inside a sentence, rarer than this, is part of a name
NUMBER_SPECIFICITY = 0.3
STEM_MIN_LENGTH = 6  # shorter words are looked up as written, not by stem
READ_CACHE = 20_000  # words kept once read
COMPOUND_MIN_LENGTH = 7  # two words read as one knowledge word ("node set": "nodeset") at least this long

Form = tuple[str, ...]  # index terms of one reading of a word: the main term, then an identifier's parts

# Chat abbreviations, read as what they stand for, and field slang, read as itself or what it stands for.
# General lexicons of how people write in chat, not rules for particular questions.
CHAT_ABBREVIATIONS: dict[str, dict[str, str]] = {
    "es": {
        "q": "que", "k": "que", "qe": "que", "xq": "porque", "pq": "porque", "porq": "porque", "x": "por",
        "xa": "para", "pa": "para", "pal": "para el", "tb": "también", "tmb": "también", "tbn": "también",
        "tambn": "también", "d": "de", "dnd": "donde", "cdo": "cuando", "cmo": "como", "porfa": "por favor",
        "xfa": "por favor", "plis": "por favor", "nd": "nada", "sq": "es que", "msj": "mensaje",
        "toy": "estoy", "tng": "tengo", "vdd": "verdad", "aprox": "aproximadamente", "info": "información",
        "finde": "fin de semana", "n": "en", "ps": "pues", "bn": "bien", "salu2": "saludos",
    },
    "en": {
        "u": "you", "ur": "your", "r": "are", "pls": "please", "plz": "please", "thx": "thanks", "ty": "thanks",
        "w/": "with", "w/o": "without", "b/c": "because", "bc": "because", "cuz": "because", "abt": "about",
        "rn": "right now", "idk": "i do not know", "smth": "something", "sth": "something", "btw": "by the way",
        "approx": "approximately", "info": "information", "ppl": "people", "thru": "through", "tho": "though",
        "imo": "in my opinion", "afaik": "as far as i know", "wdyt": "what do you think", "y": "why",
        # the halves of contractions ("isn't" is read as "isn", "t")
        "isn": "is not", "aren": "are not", "doesn": "does not", "don": "do not", "didn": "did not",
        "wasn": "was not", "weren": "were not", "hasn": "has not", "haven": "have not", "won": "will not",
        "wouldn": "would not", "shouldn": "should not", "couldn": "could not", "can": "can", "re": "are",
        "ve": "have", "ll": "will", "cant": "can not", "dont": "do not", "doesnt": "does not", "isnt": "is not",
        "shld": "should", "wld": "would", "cld": "could", "pkg": "package", "pkgs": "packages",
        "procs": "processes", "proc": "process",
    },
}
SLANG: dict[str, dict[str, str]] = {
    "*": {
        "k8s": "kubernetes", "ckpt": "checkpoint", "ckpts": "checkpoints", "chkpt": "checkpoint",
        "grad": "gradient", "grads": "gradients", "param": "parameter", "params": "parameters",
        "cfg": "configuration", "conf": "configuration", "config": "configuration", "mem": "memory",
        "perf": "performance", "dist": "distributed", "env": "environment", "envs": "environment variables",
        "var": "variable", "vars": "variables", "az": "availability zone", "azs": "availability zones",
        "lr": "learning rate", "oom": "out of memory", "dp": "data parallelism", "tp": "tensor parallelism",
        "pp": "pipeline parallelism", "bfloat16": "bf16", "float16": "fp16", "float32": "fp32",
        "repo": "repository", "deps": "dependencies", "multinode": "multi node", "diff": "difference",
        "hf": "huggingface", "configs": "configurations", "comms": "communication", "crds": "crd",
    },
    "es": {
        "az": "zona de disponibilidad", "azs": "zonas de disponibilidad", "mem": "memoria",
        "dp": "paralelismo de datos", "tp": "paralelismo de tensores", "pp": "paralelismo de canalización",
        "env": "entorno", "envs": "variables de entorno", "vars": "variables", "var": "variable",
        "param": "parámetro", "params": "parámetros", "grad": "gradiente", "grads": "gradientes",
        "dist": "distribuido", "perf": "rendimiento", "config": "configuración", "conf": "configuración",
        "cfg": "configuración", "multinodo": "multi nodo", "diff": "diferencia",
    },
}

# Words that frame a question rather than say what it is about ("para qué sirve X", "when should
# I use X", "does X work"): neither the subject nor what is asked of it.
FRAME_WORDS = frozenset(fold(w) for w in """
    sirve sirven servir conviene convienen convendría existe existen funciona funcionan funcionar recomiendas
    recomiendan recomendáis aconsejas aconsejan explica explícame explicame dime decime oye alguien sabe sabes
    saben sabría podrías podrias ayuda ayudar ayudame ayúdame hola gracias favor pregunta duda consulta
    exactamente realmente básicamente basicamente entonces pues bueno vale ok okay
    work works working mean means meaning recommend recommended suggest suggestion tell explain anyone
    someone know knows help hi hello thanks thank please question wondering wonder exactly actually really
    basically quick just still ok okay hey guys folks team vs versus
""".split())

_WORD = re.compile(r"[A-Za-z0-9]+(?:[_.\-/][A-Za-z0-9]+)*/?")
_LETTERS_DIGITS = re.compile(r"(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")
_CAMEL = re.compile(r"[a-z][A-Z]")
_SUPERLATIVE = re.compile(r"\b(\w{3,}?)[ií]sim[oa]s?\b")  # "lentísimo" is as common as "lento"
_QUANTITY = re.compile(r"^~?\d+(?:[.,]\d+)?(?:[kmbtg]|gb|tb|mb|gib|tib|gbps|ms|x|h|m|s|b-?params?)?$")
_PARTS = re.compile(r"[_.\-/]|(?<=[a-z])(?=[A-Z])")


class WordFrequency:
    """Zipf frequency of folded words and of their Snowball stems, per language (absent: rare)."""

    def __init__(self, table: dict[str, dict[str, dict[str, int]]]) -> None:
        self._words = {lang: table[lang]["w"] for lang in STOPWORDS}
        self._stems = {lang: table[lang]["s"] for lang in STOPWORDS}

    @classmethod
    @cache
    def bundled(cls) -> WordFrequency:
        return cls(json.loads(gzip.decompress(FREQUENCIES.read_bytes())))

    def zipf(self, word: str, stem: str, lang: str) -> float:
        """How common `word` (folded) or its stem is in general `lang`; 0.0 when no list has it."""
        return max(self._words[lang].get(word, 0), self._stems[lang].get(stem, 0)) / 10


class Glossary:
    """Spanish words and expressions of technical questions with their usual English equivalent
    (`bot/data/glossary-es-en.tsv`): a Spanish question is also read in English, so it finds the
    English edition's words ("pida" → "request") and the English embedding model reads it better.

    Entries are lemmas; their common inflections are generated (`_spanish_forms`), including the
    stem changes of verbs such as pedir → pida, so a short word never matches by a stem it only
    happens to share ("pod" is not a form of "poder")."""

    def __init__(self, rows: Iterable[tuple[str, str]]) -> None:
        self._words: dict[str, list[str]] = {}  # a folded Spanish form -> English
        self._phrases: dict[tuple[str, ...], list[str]] = {}  # folded Spanish words -> English
        for spanish, english in rows:
            words = tuple(fold(w) for w in spanish.split())
            if len(words) == 1:
                for form in _spanish_forms(words[0]):
                    known = self._words.setdefault(form, [])
                    if english not in known:
                        known.append(english)
            else:
                self._phrases.setdefault(words, []).append(english)
        self.longest = max((len(p) for p in self._phrases), default=1)

    @classmethod
    @cache
    def bundled(cls) -> Glossary:
        rows = []
        for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                spanish, english = line.split("\t")
                rows.append((spanish.strip(), english.strip()))
        return cls(rows)

    def word(self, folded: str) -> list[str]:
        return self._words.get(folded, [])

    def phrase(self, words: tuple[str, ...]) -> list[str]:
        return self._phrases.get(words, [])


_AR = "o as a amos ais an e es emos eis en aste aron aba abas aban ando ado ada ados adas ar arlo arla arlos arlas " \
      "arse ara aran ase asen are".split()
_ER_IR = "o es e emos imos eis en a as amos an i iste io ieron ia ias ian iendo ido ida idos idas iera ieran iese " \
         "er ir erlo irlo erla irla erse irse ere".split()


def _spanish_forms(lemma: str) -> set[str]:
    """A folded lemma and its common inflections: plurals and genders for nouns and adjectives, the
    frequent tenses for verbs (with e → i, e → ie and o → ue stem changes: pida, quiere, puede)."""
    forms = {lemma}
    base = lemma[:-2] if lemma.endswith("se") and len(lemma) > 5 else lemma  # "caerse"
    if len(base) > 3 and base[-2:] in ("ar", "er", "ir"):
        stem, endings = base[:-2], _AR if base.endswith("ar") else _ER_IR
        stems = {stem}
        vowel = max(stem.rfind("e"), stem.rfind("o"), stem.rfind("u"))
        if vowel >= 0:
            head, tail = stem[:vowel], stem[vowel + 1 :]
            stems |= {head + v + tail for v in {"e": ("i", "ie"), "o": ("ue",), "u": ("ue",)}[stem[vowel]]}
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


def specificity(zipf: float) -> float:
    return min(1.0, max(0.0, (COMMON_ZIPF - zipf) / (COMMON_ZIPF - RARE_ZIPF)))


@dataclass(frozen=True)
class QueryWord:
    """One content word of a question, with the readings it may have in each edition's language."""

    text: str  # as written (shown back when the knowledge does not cover it)
    readings: tuple[str, ...]  # what it may stand for besides itself: "checkpoint" for "ckpt"
    forms: dict[str, tuple[Form, ...]]  # language -> readings, the word as written first
    specificity: float
    named: bool  # an identifier, an acronym, a capitalised or rare word: a thing that can be "not covered"
    position: int = 0  # its token's place in the question (see `Analysis.tokens`)
    zipf: float = 0.0  # how common it is in general language (Zipf scale; 0 for names and identifiers)
    where: frozenset[object] = frozenset()  # the quiz questions (keys) that use it, in either edition

    @property
    def known(self) -> bool:
        """Whether the knowledge uses the word anywhere."""
        return bool(self.where)

    def found_in(self, present: dict[str, frozenset[str]]) -> bool:
        """Whether any reading of the word is among the terms `present` (per language)."""
        for lang, forms in self.forms.items():
            terms = present.get(lang)
            if terms and any(_form_in(form, terms) for form in forms):
                return True
        return False


def _form_in(form: Form, terms: frozenset[str]) -> bool:
    main, *parts = form
    return main in terms or bool(parts and all(p in terms for p in parts))


@dataclass(frozen=True)
class Analysis:
    """A question read for matching: its content words and the text to search with."""

    words: tuple[QueryWord, ...]
    tokens: tuple[str, ...]  # the question's tokens as written, stop words included
    spans: tuple[tuple[int, int], ...]  # where each token is in the question
    segments: tuple[int, ...]  # for each token, which sentence or question of the message it is in
    search_text: str  # the question with abbreviations spelt out and typos mended
    definition_of: tuple[QueryWord, ...]  # "what is X?": the words of X; empty for other questions
    comparison: bool  # "X vs Y", "diferencia entre", "or ... ?": asks about two things
    questions: int = 1  # how many questions the message asks ("...? and ...?")
    set_aside: tuple[str, ...] = ()  # named things the knowledge never mentions, left out of this reading


class Vocabulary:
    """The terms of the knowledge, per language and per question, and its words for mending typos."""

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
            terms = {t for word in word_terms(text, lang, frozenset()) for t in word} | _surfaces(text)
            by_key.setdefault(key, {}).setdefault(lang, set()).update(terms)
            everywhere.setdefault(lang, set()).update(terms)
            surface.update(w for w in (fold(m.group(0)) for m in _WORD.finditer(strip_accents(text))) if len(w) >= 4)
        self.of_key = {key: {lang: frozenset(t) for lang, t in langs.items()} for key, langs in by_key.items()}
        self.everywhere = {lang: frozenset(t) for lang, t in everywhere.items()}
        keys_of: dict[str, dict[str, set[object]]] = {}
        for key, langs in by_key.items():
            for lang, terms in langs.items():
                for term in terms:
                    keys_of.setdefault(lang, {}).setdefault(term, set()).add(key)
        self._keys_of = {lang: {term: frozenset(keys) for term, keys in terms.items()}
                         for lang, terms in keys_of.items()}
        self._read: dict[tuple[object, ...], QueryWord] = {}  # words already read (a question's words recur)
        self.languages = sorted(self.everywhere)
        self._typos = _DeletionIndex(surface)

    def questions_using(self, word: QueryWord) -> int:
        """In how many quiz questions the word appears (any edition)."""
        return len(word.where)

    def names_the_domain(self, word: QueryWord) -> bool:
        """Whether the word is in a knowledge document's title ("EKS", "training"): it names what the
        whole knowledge is about, not one subject of it."""
        return word.found_in(self.domain)

    def analyze(self, question: str, lang: str, frequency: WordFrequency, glossary: Glossary | None = None
                ) -> Analysis:
        langs = [lang] if lang == "en" else self.languages  # Spanish questions borrow English terms
        words: list[QueryWord] = []
        search: list[str] = []
        plain = strip_accents(question)
        shown = question if len(plain) == len(question) else plain  # show words with their accents
        matches = list(_WORD.finditer(plain))
        raw_tokens = [_token(m) for m in matches]
        breaks = [m.end() for m in _SEGMENT_BREAK.finditer(plain)]
        segments = tuple(sum(1 for b in breaks if b <= m.start()) for m in matches)
        displayed = [_token(m, shown) for m in _WORD.finditer(plain)]
        joined = self._compounds(raw_tokens)
        english = self._english(raw_tokens, glossary) if glossary is not None and lang == "es" else {}
        for position, raw in enumerate(raw_tokens):
            if position - 1 in joined:
                continue  # the second half of "Hugging Face", read with the first
            if position in joined:
                whole = joined[position]
                word = self._word(f"{displayed[position]} {displayed[position + 1]}", frequency, langs,
                                  extra=[whole], position=position)
                search.append(f"{raw} {raw_tokens[position + 1]} {whole}")
                words.append(word)
                continue
            folded = fold(raw)
            chat = CHAT_ABBREVIATIONS[lang].get(folded)
            if chat is not None and not (position and raw_tokens[position - 1].isdigit()):  # "1 TB" is no "tb"
                search.append(chat)
                if all(w in ALL_STOPWORDS for w in _WORD.findall(fold(chat))):
                    continue  # "pa", "q", "tb": function words
                words.append(self._word(raw, frequency, langs, extra=[chat], position=position))
                continue
            slang = SLANG.get(lang, {}).get(folded) or SLANG["*"].get(folded)
            if slang is not None:
                word = self._word(raw, frequency, langs, extra=[slang], position=position)
                search.append(f"{raw} {slang}")
                words.append(word)
                continue
            if folded in ALL_STOPWORDS or folded in FRAME_WORDS or (len(folded) == 1 and not folded.isdigit()):
                search.append(" ".join([raw, *english.get(position, [])]))
                continue
            word = self._word(displayed[position], frequency, langs, position=position,
                              english=english.get(position))
            search.append(" ".join([raw, *word.readings]))
            words.append(word)
        return Analysis(
            words=tuple(words), tokens=tuple(raw_tokens), spans=tuple(m.span() for m in matches),
            segments=segments, search_text=" ".join(search),
            definition_of=tuple(_definition_words(question, words)), comparison=bool(_COMPARISON.search(question)),
            questions=max(1, len(_QUESTION_END.findall(question))),
        )

    def _english(self, tokens: list[str], glossary: Glossary) -> dict[int, list[str]]:
        """English equivalents of a Spanish question's words, by token: an expression ("ancho de banda")
        goes to its last word; an English word in the Spanish question ("data parallelism") gets none."""
        folded = [fold(t) for t in tokens]
        out: dict[int, list[str]] = {}
        covered: set[int] = set()
        for size in range(glossary.longest, 1, -1):
            for start in range(len(folded) - size + 1):
                span = range(start, start + size)
                if covered.intersection(span):
                    continue
                found = glossary.phrase(tuple(folded[start : start + size]))
                if found:
                    out[start + size - 1] = found
                    covered.update(span)
        english, spanish = self.everywhere.get("en", frozenset()), self.everywhere.get("es", frozenset())
        for i, word in enumerate(folded):
            if i in covered or word in ALL_STOPWORDS or not word.isalpha():
                continue
            if word in english and word not in spanish:
                continue  # already English
            found = [gloss for gloss in glossary.word(word) if fold(gloss) != word]
            if found:
                out[i] = found
        return out

    def _compounds(self, tokens: list[str]) -> dict[int, str]:
        """Two words the knowledge writes as one: "Hugging Face" is "HuggingFace", "node set" "NodeSet"."""
        out: dict[int, str] = {}
        for i in range(len(tokens) - 1):
            first, second = fold(tokens[i]), fold(tokens[i + 1])
            if (i - 1) in out or not (first.isalpha() and second.isalpha()):
                continue
            whole = first + second
            if len(whole) >= COMPOUND_MIN_LENGTH and any(whole in terms for terms in self.everywhere.values()):
                out[i] = whole
        return out

    def _word(self, raw: str, frequency: WordFrequency, langs: list[str], extra: list[str] | None = None,
              position: int = 0, english: list[str] | None = None) -> QueryWord:
        key = (raw, tuple(langs), tuple(extra or ()), tuple(english or ()), position > 0)
        word = self._read.get(key)
        if word is None:
            word = self._read_word(raw, frequency, langs, extra, position, english)
            if len(self._read) < READ_CACHE:
                self._read[key] = word
        return word if word.position == position else replace(word, position=position)

    def _where(self, forms: dict[str, tuple[Form, ...]]) -> frozenset[object]:
        """The quiz questions whose terms hold a form (a main term, or every part of an identifier)."""
        found: set[object] = set()
        for lang, lang_forms in forms.items():
            keys_of = self._keys_of.get(lang, {})
            for main, *parts in lang_forms:
                found |= keys_of.get(main, frozenset())
                if parts:
                    found |= frozenset.intersection(*(keys_of.get(p, frozenset()) for p in parts))
        return frozenset(found)

    def _read_word(self, raw: str, frequency: WordFrequency, langs: list[str], extra: list[str] | None,
                   position: int, english: list[str] | None) -> QueryWord:
        folded = fold(raw)
        readings = [raw, *(extra or [])]
        identifier = _is_identifier(raw)
        if not extra and not identifier and not self._known(folded, langs):
            correction = self._typos.closest(folded) or self._typos.ending(folded)
            if correction and not _is_common(folded, langs, frequency):
                readings.append(correction)
        if _LETTERS_DIGITS.search(raw) and not self._known(folded, langs):
            readings.append(_LETTERS_DIGITS.sub(" ", raw))  # "zero3" -> "zero 3"
        zipf = max(_zipf(fold(reading), langs, frequency) for reading in readings)
        readings += english or []  # an English equivalent finds the English edition's word
        forms = {
            lang: tuple(dict.fromkeys(
                form for reading in readings
                for form in (_reading_form(reading, lang), (fold(reading),)) if form and form[0]
            ))
            for lang in langs
        }
        commonness = 0.0 if (identifier and len(readings) == 1) else zipf
        if folded.isdigit() or _QUANTITY.match(folded):
            spec = NUMBER_SPECIFICITY
        elif identifier and len(readings) == 1:
            spec = 1.0
        else:
            spec = specificity(zipf)
        capitalised = position > 0 and raw[:1].isupper() and zipf < CAPITALISED_NAMED_ZIPF  # "S3 Connector"
        quantity = folded.isdigit() or bool(_QUANTITY.match(folded))  # "64", "120B", "400gbps"
        named = not quantity and (identifier or _is_acronym(raw) or capitalised or zipf < RARE_ZIPF)
        return QueryWord(text=raw, readings=tuple(readings[1:]), forms=forms, specificity=spec, named=named,
                         position=position, zipf=commonness, where=self._where(forms))

    def _known(self, folded: str, langs: list[str]) -> bool:
        return any(
            any(_form_in(form, self.everywhere.get(lang, frozenset())) for form in _forms(folded, lang))
            for lang in langs
        )


def _token(match: re.Match[str], text: str | None = None) -> str:
    token = (text or match.string)[match.start() : match.end()]
    return token if token.lower().endswith("w/") else token.rstrip("/")


def _reading_form(reading: str, lang: str) -> Form:
    """One reading as a single form: a multi-word expansion counts as its content words together.

    An identifier with separators is also found through its parts (`FI_PROVIDER`: "fi", "provider");
    a camel-case one only whole: "PyTorchJob" is not "PyTorch" plus "Job"."""
    terms = [t for word in word_terms(reading, lang, ALL_STOPWORDS) for t in word[:1]]
    parts = [t for word in word_terms(reading, lang, ALL_STOPWORDS) for t in word[1:]] if any(
        c in reading for c in "_.-/") else []
    if not terms:
        return ()
    if len(terms) == 1:
        return (terms[0], *parts)
    return ("\x00" + " ".join(terms), *terms)  # found when every word of the expansion is found


def _surfaces(text: str) -> set[str]:
    """Words as written (folded), and the joins of an identifier's parts: "SlurmNodeSet" gives
    "slurmnodeset", "slurmnode" and "nodeset", so "nodeset" finds it."""
    out: set[str] = set()
    for match in _WORD.finditer(strip_accents(text)):
        token = match.group(0).rstrip("/")
        out.add(fold(token))
        parts = [fold(p) for p in _PARTS.split(token) if p]
        for i in range(len(parts)):
            for j in range(i + 2, len(parts) + 1):
                out.add("".join(parts[i:j]))
    return out


def _forms(folded: str, lang: str) -> list[Form]:
    return [word for word in word_terms(folded, lang, frozenset())]


def _zipf(text: str, langs: list[str], frequency: WordFrequency) -> float:
    """How common the words of `text` are in general language: the rarest word decides."""
    zipfs = []
    for word in _WORD.findall(_SUPERLATIVE.sub(r"\1o", text)):
        if word in ALL_STOPWORDS:
            continue
        best = 0.0
        for lang in langs:
            stems = word_terms(word, lang, frozenset())
            # A short word's stem may be another word's ("pod" is the stem of Spanish "poder").
            stem = stems[0][0] if stems and len(word) >= STEM_MIN_LENGTH else "\x00"
            best = max(best, frequency.zipf(word, stem, lang))
        zipfs.append(best)
    return min(zipfs, default=10.0)


def _is_common(folded: str, langs: list[str], frequency: WordFrequency) -> bool:
    return _zipf(folded, langs, frequency) >= NAMED_ZIPF


def _is_identifier(raw: str) -> bool:
    return bool(_CAMEL.search(raw)) or any(c in raw for c in "_./") or (
        any(c.isdigit() for c in raw) and any(c.isalpha() for c in raw)
    ) or ("-" in raw and not raw.replace("-", "").isalpha())


def _is_acronym(raw: str) -> bool:
    letters = [c for c in raw if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


class _DeletionIndex:
    """Knowledge words by their deletions, to find the one a misspelt word meant (SymSpell's idea)."""

    def __init__(self, words: Iterable[str]) -> None:
        self._index: dict[str, set[str]] = {}
        self._endings: dict[str, set[str]] = {}  # the last 3 to n-3 letters of a long word -> the word
        for word in words:
            if word.isalpha():
                for variant in _deletions(word, _max_distance(word)):
                    self._index.setdefault(variant, set()).add(word)
                for start in range(3, len(word) - 2):
                    self._endings.setdefault(word[start:], set()).add(word)

    def ending(self, word: str) -> str | None:
        """The one longer knowledge word that `word` ends ("dbd" for "slurmdbd", "ctld" for "slurmctld")."""
        if len(word) < 3 or not word.isalpha():
            return None
        found = self._endings.get(word, set())
        return next(iter(found)) if len(found) == 1 else None

    def closest(self, word: str) -> str | None:
        """The one knowledge word within edit distance 1 (2 for long words) of `word`, if only one is."""
        if len(word) < 5 or not word.isalpha():
            return None
        limit = _max_distance(word)
        candidates: set[str] = set()
        for variant in _deletions(word, limit):
            candidates |= self._index.get(variant, set())
        scored = sorted((_distance(word, c), c) for c in candidates if c != word)
        scored = [(d, c) for d, c in scored if d <= limit]
        if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
            return None
        return scored[0][1]


def _max_distance(word: str) -> int:
    return 2 if len(word) >= 9 else 1


def _deletions(word: str, distance: int) -> set[str]:
    out = {word}
    frontier = {word}
    for _ in range(distance):
        frontier = {w[:i] + w[i + 1:] for w in frontier for i in range(len(w))}
        out |= frontier
    return out


def _distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (adjacent transpositions count one)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


_DEFINITION = re.compile(
    r"^\s*(?:¿\s*)?(?:(?:me\s+)?(?:explicas|puedes\s+explicar(?:me)?|podr[ií]as\s+explicar(?:me)?|"
    r"can\s+you\s+explain|could\s+you\s+explain|(?:can|could)\s+you\s+tell\s+me)\s+)?(?:"
    r"what(?:'s|\s+is|\s+are|\s+was)|whats|define|definition\s+of|explain|describe|who\s+is|"
    r"(?:que|qué)\s+(?:es|son|significa)|define|definici[oó]n\s+de|explica(?:me)?|describe"
    r")\s+(?:(?:an?|the|el|la|los|las|un|una|unos|unas|lo)\s+)?(?P<subject>[^?.!,;:]+)",
    re.IGNORECASE,
)
# "What does X mean?", "what does X stand for?", "X, ¿qué es?", "X qué significa?"
_MEANING = re.compile(
    r"^\s*(?:what\s+does\s+(?P<subject>[^?.!,;:]+?)\s+(?:mean|stand\s+for)|"
    r"¿?\s*(?P<first>[^?.!,;:¿]+?)\s*,?\s*¿?\s*(?:qu[eé]\s+(?:es|son|significa)|what\s+is\s+(?:it|that))"
    r")\s*\??\s*$",
    re.IGNORECASE,
)
_NOT_A_SUBJECT = frozenset(fold(w) for w in """
    difference differences diferencia diferencias best mejor purpose proposito point punto way forma manera
    reason razon benefit benefits beneficio ventaja ventajas use uso role papel problem problema recommended
    recomendado recomendada right correct correcto good bueno buena better peor worst limit limite max maximo
    min minimo default value valor lo que this that esto eso
""".split())
# What may follow X in a definition question ("what is X in Kubernetes?"), and what makes it a question
# about X's purpose or use instead ("what is X for?", "what is X used for?"), which is no definition.
_QUALIFIER_TAIL = re.compile(
    r"\b(?:en\s+(?:kubernetes|k8s|aws|eks|general)|in\s+(?:kubernetes|k8s|aws|eks|general|simple\s+terms|"
    r"general\s+terms|a\s+nutshell)|exactly|exactamente|again|otra\s+vez)\b.*$",
    re.IGNORECASE,
)
_PURPOSE = re.compile(r"\b(?:for|used|good|do|does|para|sirve|usa|utiliza|needed|necesario)\b", re.IGNORECASE)
# Where a message goes on to another question: "?", ";", a new sentence, "¿", or a clause joined on with
# ", and" / ", y" / "+" / "—" / "also".
_SEGMENT_BREAK = re.compile(
    r"[?!;]+|\.(?=\s)|\s[¿¡]|,\s*(?:and|y|e|plus|but|pero|also|tambi[eé]n|and also|y tambi[eé]n)\b|\s[+—–]\s|"
    r"\s-\s|\b(?:and also|y tambi[eé]n|plus|also)\b",
    re.IGNORECASE,
)
_QUESTION_END = re.compile(r"\?+(?=\s*\S)|\?+\s*$")
_COMPARISON = re.compile(
    r"\b(?:vs\.?|versus|compared\s+(?:to|with)|difference|differences|differ|diferencia[s]?|diferencian?|"
    r"comparad[oa]s?|compara(?:r|ción|cion)?|frente\s+a|better\s+than|mejor\s+que|instead\s+of|en\s+vez\s+de|"
    r"en\s+lugar\s+de|or\s+should|o\s+mejor)\b",
    re.IGNORECASE,
)


def _definition_words(question: str, words: list[QueryWord]) -> list[QueryWord]:
    """For "what is X?" questions, the content words of X; [] for any other question."""
    plain = strip_accents(question)
    meaning = _MEANING.match(plain)
    match = meaning or _DEFINITION.match(plain)
    if not match:
        return []
    subject = _QUALIFIER_TAIL.sub("", match.group("subject") or match.group("first") or "").strip()
    if not subject or _PURPOSE.search(subject) or fold(subject.split()[0]) in _NOT_A_SUBJECT:
        return []  # "what is X for?", "what's the difference between…": not a definition
    wanted = {fold(w) for w in _WORD.findall(subject)}
    if not wanted or len(wanted) > 4:
        return []
    return [w for w in words if set(fold(w.text).split()) <= wanted]
