"""A question's words: what each means, how specific it is, and where the knowledge uses it.

Answering needs more than "is some chunk close to the question": the question's own subject has to be
in the knowledge. "How do I set up IRSA so pods can read S3?" shares "pods" and "S3" with the quiz, but
its subject, IRSA, appears nowhere. So every content word of a question gets

- its index terms in each edition's language (stems, identifiers whole and in parts), with the forms
  it may stand for: an abbreviation ("ckpt", "pa", "k8s"), a typo of a knowledge word ("karpeter"),
  letters run into digits ("zero3");
- a specificity in [0, 1] from how common the word is in general Spanish or English (Zipf frequency
  from `bot/data/word-frequencies.npz`): "how" or "set" weigh nothing, "cluster" a little, "IRSA",
  "DCGM" or `NCCL_IB_DISABLE` everything;
- whether it names a thing (an identifier, an acronym, a word no general word list knows): only those
  are reported as "not covered" to the person asking.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from functools import reduce
from typing import Protocol

import numpy as np

from bot.reading.lexicon import (
    RARE_ZIPF,
    Glossary,
    WordFrequency,
    specificity,
)
from bot.reading.markup import MACHINE_SHARE, context_spans
from bot.reading.ordinary import forget_slips, meant, slipped_function_word
from bot.reading.postings import KeySet, Postings, union_ids
from bot.reading.questions import QUESTION_END, read_definition, referred_to_later
from bot.reading.rules import (
    claim_checks,
    cognates,
    comparison,
    counterparts,
    frame_phrases,
    frame_words,
    names_a_quiz_question,
    possessives,
    rules,
    segment_break,
    slang,
    superlative_adjectives,
    without_enclitics,
)
from bot.reading.spelled import spelled_names
from bot.reading.spelling import Spelling
from bot.reading.thresholds import THRESHOLDS
from bot.text.identifiers import QUERY_WORD, is_code_name, is_hyphenated_word, is_setting_name
from bot.text.normalise import fold, strip_accents
from bot.text.tokens import ALL_STOPWORDS, tokens, word_terms

NAMED_ZIPF = 3.2  # rarer than this: not a common word (a typo of a knowledge word may be meant)
EMPHASIS_ZIPF = 4.5  # a word in capitals this common, of at least EMPHASIS_LENGTH letters, is said loud ("EXCEPT")
EMPHASIS_LENGTH = 5
DERIVED_MIN_LENGTH = 5  # the word after a prefix ("configured" of "misconfigured") has at least this many letters
CAPITALISED_NAMED_ZIPF = 5.0  # a capitalised word inside a sentence, rarer than this, is part of a name
COGNATE_MIN_LENGTH = 6  # a shorter Spanish word is read as an English cognate never ("casa" is no "case")
NUMBER_SPECIFICITY = 0.3
# A lower-case word of two everyday words ("hard" + "coding"), each at least this common and this long, is made of
# everyday words (`of_everyday_words`).
EVERYDAY_PART_ZIPF = 3.5
EVERYDAY_PART_LENGTH = 3
STEM_MIN_LENGTH = 6  # shorter words are looked up as written, not by stem
READ_CACHE = 4096  # words kept once read (each with the sections it is in), the least recently asked dropped first
COMPOUND_MIN_LENGTH = 7  # two words read as one knowledge word ("node set": "nodeset") at least this long

Form = tuple[str, ...]  # index terms of one reading of a word: the main term, then an identifier's parts


def holds_any(terms: frozenset[str] | set[str], forms: tuple[Form, ...]) -> bool:
    """Whether terms (a passage's or a heading's) hold a word in any of its readings (`holds`)."""
    return any(holds(terms, form) for form in forms)


def holds(terms: frozenset[str] | set[str], form: Form) -> bool:
    """Whether terms hold a word's form: its main term, or all of its parts ("GPU quota" where a sentence says
    "quota" of GPUs)."""
    return form[0] in terms or (len(form) > 1 and all(part in terms for part in form[1:]))

_LETTERS_DIGITS = re.compile(r"(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")
_SENTENCE_OPENING = re.compile(r"[.?!:](?=\s)|[¿¡]|```")  # between two words: the second opens a sentence
_MACHINE = re.compile(r"\w[./:=]\w|^\d+$")  # "0/4", "p4d.24xlarge", "10:14:07", "8"
PASTED_MIN_TOKENS = 4
_SENTENCE_BREAK = re.compile(r"[.?!](?=\s)|[¿¡]")  # between two words: a new sentence of a scenario
# A quantity: "64", "120B", "400gbps", and a rate, per what it is counted in ("4/GPU-h", "30/TB", "100gb/s")
_QUANTITY = re.compile(r"^~?\d+(?:[.,]\d+)?(?:[kmbtg]|gb|tb|mb|gib|tib|gbps|ms|x|h|m|s|b-?params?)?"
                       r"(?:/[a-z][a-z-]{0,9})?$")


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
    where: KeySet = field(default_factory=KeySet)  # the quiz questions (keys) that use it, in either edition
    opens: bool = True  # it begins a sentence, where a capital letter names nothing
    offered: bool = False  # only a wrong option of the quiz writes it ("EBS gp3"): not knowledge, not unheard of
    # Named, but written in lower case and made of everyday words ("hardcoding", "preprocesado": `of_everyday_words`):
    # what the person does, no product's or feature's name
    everyday: bool = False

    @property
    def known(self) -> bool:
        """Whether the knowledge uses the word anywhere."""
        return self.where.ids.size > 0

    @property
    def unheard(self) -> bool:
        """Whether the quiz never writes the word, not even as an option: a thing the answer does not cover."""
        return not self.known and not self.offered

    @property
    def code_name(self) -> bool:
        """Whether it is written as a name in code or configuration (`FI_PROVIDER`, `PyTorchJob`), not as a
        hyphenated word ("multi-node")."""
        return is_code_name(self.text)

    @property
    def setting_name(self) -> bool:
        """Whether it is a name only code and configuration write (`FI_PROVIDER`, `slotsPerWorker`)."""
        return is_setting_name(self.text)

    def found_in(self, present: Mapping[str, AbstractSet[str]]) -> bool:
        """Whether any reading of the word is among the terms `present` (per language)."""
        for lang, forms in self.forms.items():
            terms = present.get(lang)
            if terms and any(_form_in(form, terms) for form in forms):
                return True
        return False


def _in_english(tokens: list[str], english: Mapping[int, list[str]], glossaries: Sequence[Glossary]) -> str:
    """A Spanish question word by word in English: each word's English equivalent (the one of the word's own
    entry in `glossaries`, when it has one: "ajuste" is "setting" before it is a form of "ajustar", "tune"; else its
    first), the words of an expression read as one, a word with none as written (a name, an identifier, an
    English word), function words left out."""
    said = []
    for position, token in enumerate(tokens):
        equivalents = english.get(position)
        word = fold(token)
        if equivalents is not None:
            own = (g for glossary in glossaries for g in glossary.entry(word) if g in equivalents)
            said.extend([next(own, equivalents[0])] if equivalents else [])
        elif word not in ALL_STOPWORDS:
            said.append(token)
    return " ".join(said)


def _form_in(form: Form, terms: AbstractSet[str]) -> bool:
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
    context: frozenset[int] = frozenset()  # positions of tokens read as context (pasted text, a scenario's telling)
    definition_acts: bool = False  # the definition asks what X does ("what does X do?"), not what it is
    # A Spanish question said in English, word by word (the glossary's reading of each word, names and
    # identifiers as written, function words left out): what the English embedding model reads well, and pages
    # written only in English are searched with. Empty for an English question.
    english_text: str = ""
    spaced: frozenset[int] = frozenset()  # positions of tokens a single space parts from the one before
    # Positions of tokens inside what the question compares with or comes from ("the EKS equivalent of X", "in X
    # we ran it on Y"): a name there the knowledge never mentions is not what is asked (`bot.reading.uncovered`).
    compared: frozenset[int] = frozenset()
    # The ordinary words of a scenario's telling ("we'd like to select on the *major* version."): not searched
    # with, nor weighed by the decision, but they tell a section's units apart (`bot.answering.units`).
    told: tuple[QueryWord, ...] = ()
    language: str = ""  # the language the question is read in ("" when not told)
    # Positions of tokens one or two words after "our", "my", "mi", "nuestro" (`possessives`): the person's own
    # thing ("our on-prem MinIO", "los pods de mi PyTorchJob"), their setting, which places what they ask.
    owned: frozenset[int] = frozenset()

    def search_terms(self, lang: str) -> list[str]:
        """The index terms of `search_text` in `lang`: what the knowledge's chunks and sentences are matched with
        (BM25, the excerpts). A Spanish question's English terms leave out the function words of either language:
        "los", "que", "se" are no English terms, and matched only the Spanish text of the pages written in Spanish
        alone, which the English index holds beside their English reading."""
        return tokens(self.search_text, lang, ALL_STOPWORDS if self.language == "es" and lang == "en" else None)


class KnowledgeWords(Protocol):
    """What reading a question needs of the knowledge's words, which the index builds
    (`bot.retrieval.knowledge_terms.KnowledgeTerms`): handed in, so the reading imports nothing of the index."""

    @property
    def domain(self) -> Mapping[str, AbstractSet[str]]:
        """Per language, the terms of the knowledge documents' titles."""

    @property
    def everywhere(self) -> Mapping[str, AbstractSet[str]]:
        """Per language, every term of the knowledge."""

    @property
    def keys_of(self) -> Mapping[str, Postings]:
        """Per language, each term's questions or sections."""

    @property
    def languages(self) -> list[str]:
        """The languages the knowledge is written in."""

    @property
    def spelling(self) -> Spelling:
        """The knowledge's own words, to mend a misspelt word with."""

    def where(self, ids: np.ndarray) -> KeySet:
        """The questions or sections of these numbers."""


def singular_of_name(text: str) -> str | None:
    """The singular of a name written in the plural, folded ("NodePools": "nodepool", "A100s": "a100"): a name is
    read whole, never stemmed, so its plural is a word of its own. None for what is no plural ("GB/s", "class")."""
    folded = fold(text)
    if len(folded) < 3 or not folded.endswith("s") or folded.endswith("ss") or not folded[:-1].isalnum():
        return None
    return folded[:-1]


class Vocabulary:
    """The terms of the knowledge, per language and per question, and its words for mending typos."""

    def __init__(self, terms: KnowledgeWords, offered: Mapping[str, AbstractSet[str]] | None = None) -> None:
        """`offered`: per language, the terms of the quiz's wrong options (see `QueryWord.offered`)."""
        self.terms = terms
        self.offered = dict(offered or {})
        self.domain = terms.domain
        self.everywhere = terms.everywhere
        self._keys_of = terms.keys_of
        self.languages = terms.languages
        self._typos = terms.spelling
        self._read: OrderedDict[tuple[object, ...], QueryWord] = OrderedDict()  # words read (a question's recur)
        self._read_lock = threading.Lock()  # answers read words on several threads

    def prepare(self) -> None:
        """Build what reading a misspelt word needs (the misspelling index) before a question needs it."""
        self._typos.prepare()

    def forget_words(self) -> None:
        """Forget the words read so far and the slips found for them (they are read again when asked): what a
        benchmark of new questions needs."""
        with self._read_lock:
            self._read.clear()
        forget_slips()

    def questions_using(self, word: QueryWord) -> int:
        """In how many quiz questions the word appears (any edition)."""
        return len(word.where)

    def knows_the_singular(self, word: QueryWord) -> bool:
        """Whether the word is the plural of a name the knowledge writes ("A100s", "NodePools", "p5s"): a name is
        read whole, never stemmed, so its plural is a word of its own, but not a thing the knowledge does not
        cover."""
        singular = singular_of_name(word.text)
        return singular is not None and self._known(singular, list(word.forms) or self.languages)

    def names_the_domain(self, word: QueryWord) -> bool:
        """Whether the word is in a knowledge document's title ("EKS", "training"): it names what the
        whole knowledge is about, not one subject of it."""
        return word.found_in(self.domain)

    def writes(self, term: str) -> bool:
        """Whether the knowledge writes `term` (folded, as one word: "huggingface", "nccl") in some language."""
        return any(term in terms for terms in self.everywhere.values())

    def said_aloud(self, question: str, lang: str) -> str:
        """`question` with each name said aloud ("n c c l", "te pe ocho") written as the knowledge writes it
        (`bot.reading.spelled`), never as a function word ("a tee" is not "at")."""
        return spelled_names(question, lang, lambda name: name not in ALL_STOPWORDS and self.writes(name))

    def analyze(self, question: str, lang: str, frequency: WordFrequency, glossary: Glossary | None = None,
                *, cognates: bool = False) -> Analysis:
        """Read a question's words. `cognates`: a Spanish word neither glossary has is read as the English cognate the
        knowledge writes (`_english`), for a knowledge with pages written only in English: where every section has a
        Spanish edition, the Spanish word itself finds it."""
        langs = [lang] if lang == "en" else self.languages  # Spanish questions borrow English terms
        words: list[QueryWord] = []
        search: list[str] = []
        plain = strip_accents(question)
        shown = question if len(plain) == len(question) else plain  # show words with their accents
        matches = list(QUERY_WORD.finditer(plain))
        # A command-line flag ("--include-resources", "--max-restarts") is written as code, whatever its words
        flags = ["--" if _is_flag(plain, m) else "" for m in matches]
        raw_tokens = [flag + _token(m) for flag, m in zip(flags, matches, strict=True)]
        pasted = context_spans(plain)
        in_context = {p for p, m in enumerate(matches) if any(a <= m.start() < b for a, b in pasted)}
        checks = _within(matches, claim_checks(), plain)  # "is that right?": asks of what was told
        framed = _within(matches, frame_phrases(), plain) | checks  # and "in plain terms": neither is what is asked
        gaps = ["", *(plain[matches[p - 1].end() : matches[p].start()] for p in range(1, len(matches)))]
        starts = {p for p, gap in enumerate(gaps) if p == 0 or _SENTENCE_OPENING.search(gap)}
        breaks = [m.end() for m in segment_break().finditer(plain)]
        segments = tuple(sum(1 for b in breaks if b <= m.start()) for m in matches)
        displayed = [flag + _token(m, shown) for flag, m in zip(flags, matches, strict=True)]
        joined = self._compounds(raw_tokens)
        english = (self._english(raw_tokens, glossary, cognate=frequency if cognates else None)
                   if glossary is not None and lang == "es" else {})
        # Said in English, a word the glossary of technical questions lacks is read with everyday Spanish's
        # ("sigue", "a mano"): what the embedding model reads, not a word matched with the knowledge's.
        said = ({**self._english(raw_tokens, Glossary.everyday()), **english}
                if glossary is not None and lang == "es" else {})
        english_text = (_in_english(raw_tokens, said, (glossary, Glossary.everyday()))
                        if said and glossary is not None else "")
        for position, raw in enumerate(raw_tokens):
            if position - 1 in joined:
                continue  # the second half of "Hugging Face", read with the first
            if position in joined:
                whole = joined[position]
                word = self._word(f"{displayed[position]} {displayed[position + 1]}", frequency, langs,
                                  extra=[whole], position=position, opens=position in starts)
                search.append(f"{raw} {raw_tokens[position + 1]} {whole}")
                words.append(word)
                continue
            folded = fold(raw)
            chat = rules(lang).chat_abbreviations.get(folded)
            if chat is not None and not (position and raw_tokens[position - 1].isdigit()):  # "1 TB" is no "tb"
                search.append(chat)
                if all(w in ALL_STOPWORDS for w in QUERY_WORD.findall(fold(chat))):
                    continue  # "pa", "q", "tb": function words
                words.append(self._word(raw, frequency, langs, extra=[chat], position=position,
                                        opens=position in starts))
                continue
            meaning = slang(lang, folded)
            if meaning is not None:
                word = self._word(raw, frequency, langs, extra=[meaning], position=position, opens=position in starts)
                search.append(f"{raw} {meaning}")
                words.append(word)
                continue
            if folded in ALL_STOPWORDS or folded in frame_words() or position in framed or (
                    len(folded) == 1 and not folded.isdigit()) or (
                    slipped_function_word(raw, lang, frequency) and not self._known(folded, langs)):
                search.append(" ".join([raw, *english.get(position, [])]))
                continue
            word = self._word(displayed[position], frequency, langs, position=position,
                              english=english.get(position), opens=position in starts)
            search.append(" ".join([raw, *word.readings]))
            words.append(word)
        # Pasted code, logs and link labels are context: what the knowledge has of them is evidence; the rest
        # is not what the person asks about.
        sentence_breaks = {p for p, gap in enumerate(gaps) if p and _SENTENCE_BREAK.search(gap)}
        scenario = _scenario(plain, matches, sentence_breaks, raw_tokens, checks, {w.position for w in words})
        evidence = [w.known and w.specificity >= THRESHOLDS.specific for w in words]  # kept though context
        telling = scenario - in_context  # the scenario's sentences, pasted text aside
        told = tuple(w for w, kept in zip(words, evidence, strict=True) if w.position in telling and not kept)
        in_context |= scenario
        words = [w for w, kept in zip(words, evidence, strict=True) if w.position not in in_context or kept]
        definition = read_definition(question)
        return Analysis(
            words=tuple(words), tokens=tuple(raw_tokens), spans=tuple(m.span() for m in matches),
            segments=segments, search_text=" ".join(search),
            definition_of=_subject_words(definition.subject, words), definition_acts=definition.acts,
            comparison=bool(comparison().search(question)),
            questions=max(1, len(QUESTION_END.findall(question))), context=frozenset(in_context),
            english_text=english_text, spaced=frozenset(p for p, gap in enumerate(gaps) if p and gap == " "),
            compared=frozenset(_within(matches, counterparts(), plain)),
            told=told, language=lang, owned=_owned(raw_tokens),
        )

    def _english(self, tokens: list[str], glossary: Glossary, *, cognate: WordFrequency | None = None
                 ) -> dict[int, list[str]]:
        """English equivalents of a Spanish question's words, by token: an expression ("ancho de banda")
        goes to its last word, its other words to none (an empty list); an English word in the Spanish
        question ("data parallelism") gets none. With `cognate` (English's word frequencies), a word the glossary
        lacks is read as its English cognate ("licencia": "license", `bot.reading.rules.cognates`) that the knowledge
        writes in English, the most common in English of those its endings give."""
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
                    out.update((i, []) for i in span)
                    out[start + size - 1] = found
                    covered.update(span)
        english, spanish = self.everywhere.get("en", frozenset()), self.everywhere.get("es", frozenset())
        for i, word in enumerate(folded):
            if i in covered or word in ALL_STOPWORDS or not word.isalpha():
                continue
            if word in english and word not in spanish:
                continue  # already English
            found = [gloss for gloss in glossary.word(word) if fold(gloss) != word]
            if not found and cognate is not None and len(word) >= COGNATE_MIN_LENGTH:
                written = [c for c in cognates(word, "es") if self._known(c, ["en"])]
                # as common as the word itself (never its stem: "redundance" is as common as "redundancy" by it)
                found = [max(written, key=lambda c: cognate.zipf(c, "\x00", "en"))] if written else []
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
            if len(whole) >= COMPOUND_MIN_LENGTH and self.writes(whole):
                out[i] = whole
        return out

    def _word(self, raw: str, frequency: WordFrequency, langs: list[str], extra: list[str] | None = None,
              position: int = 0, english: list[str] | None = None, opens: bool | None = None) -> QueryWord:
        opens = position == 0 if opens is None else opens
        key = (raw, tuple(langs), tuple(extra or ()), tuple(english or ()), opens)
        with self._read_lock:
            word = self._read.get(key)
            if word is not None:
                self._read.move_to_end(key)  # now the most recently asked
        if word is None:
            word = self._read_word(raw, frequency, langs, extra, position, english, opens)
            with self._read_lock:
                self._read[key] = word
                if len(self._read) > READ_CACHE:
                    self._read.popitem(last=False)
        return word if word.position == position else replace(word, position=position)

    def _where(self, forms: dict[str, tuple[Form, ...]]) -> KeySet:
        """The quiz questions whose terms hold a form (a main term, or every part of an identifier)."""
        found: list[np.ndarray] = []
        for lang, lang_forms in forms.items():
            keys_of = self._keys_of.get(lang) or Postings()
            for main, *parts in lang_forms:
                if main in keys_of:
                    found.append(keys_of[main])
                if parts and all(p in keys_of for p in parts):
                    found.append(reduce(np.intersect1d, [keys_of[p] for p in parts]))
        return self.terms.where(union_ids(found))

    def _read_word(self, raw: str, frequency: WordFrequency, langs: list[str], extra: list[str] | None,
                   position: int, english: list[str] | None, opens: bool) -> QueryWord:
        folded = fold(raw)
        readings = [raw, *(extra or [])]
        identifier = is_code_name(raw)
        if not extra and not identifier:
            langs = self._borrowed(folded, langs, frequency)
        written = self._known(folded, langs)  # the knowledge writes the word as it is
        if not extra and not identifier and not written:
            correction = self._typos.closest(folded) or self._typos.ending(folded)
            if correction and not _is_common(folded, langs, frequency):
                readings.append(correction)
        spaced = _LETTERS_DIGITS.sub(" ", raw)
        if spaced != raw and not written and all(
                len(piece) > 1 or piece.isdigit() for piece in spaced.split()):
            # "zero3" -> "zero 3", found where both are; never "g5" -> "g 5", which a lone "5" would find
            readings.append(spaced)
        zipf = max(_zipf(fold(reading), langs, frequency) for reading in readings)
        if (zipf < RARE_ZIPF and not extra and not identifier and len(readings) == 1 and (opens or raw.islower())
                and not written):  # a word the knowledge writes ("karpenter") is no slip
            slip = meant(folded, langs, frequency)  # a misspelt ordinary word: "modle", "nesesito"
            if slip is not None:
                readings.append(slip[0])
                zipf = slip[1]
        if (zipf < NAMED_ZIPF and len(readings) == 1 and not extra and not identifier and (opens or raw.islower())
                and not written and not _is_acronym(raw)):
            # Common in none of the question's languages but in a neighbouring one ("treinamento", "coisa", "esse",
            # "doncs"): as common as it is there, an everyday word and no name. Not in capitals: "MIG" opening a
            # question is NVIDIA's MIG, not Catalan "mig".
            neighbour = frequency.neighbour_zipf(folded)
            zipf = neighbour if neighbour >= NAMED_ZIPF else zipf
        readings += english or []  # an English equivalent finds the English edition's word
        forms = {
            lang: tuple(dict.fromkeys(
                form for reading in readings
                for form in (_reading_form(reading, lang), (fold(reading),)) if form and form[0]
            ))
            for lang in langs
        }
        commonness = 0.0 if (identifier and len(readings) == 1) else zipf
        quiz_number = names_a_quiz_question(raw)  # "Q9": the quiz's own numbering, no named thing
        if folded.isdigit() or _QUANTITY.match(folded) or quiz_number:
            spec = NUMBER_SPECIFICITY
        elif identifier and len(readings) == 1:
            spec = 1.0
        else:
            spec = specificity(zipf)
        capitalised = not opens and raw[:1].isupper() and zipf < CAPITALISED_NAMED_ZIPF  # "S3 Connector"
        quantity = folded.isdigit() or bool(_QUANTITY.match(folded)) or quiz_number  # "64", "120B", "400gbps"
        # An ordinary word written in capitals for emphasis ("EXCEPT") is no acronym. Nor does a rare word the
        # knowledge writes, made of a prefix and a common word ("misconfigured", "preprocesado"), name a thing: it
        # is matched like any other word, never taken for a neighbouring feature's name. One it never writes
        # ("overfitting") is still said to be not covered.
        acronym = _is_acronym(raw) and not (len(folded) >= EMPHASIS_LENGTH and zipf >= EMPHASIS_ZIPF)
        rare = zipf < RARE_ZIPF and not (written and not identifier and (opens or raw.islower())
                                         and derived_zipf(folded, langs, frequency) >= NAMED_ZIPF)
        named = not quantity and (identifier or acronym or capitalised or rare)
        where = self._where(forms)
        offered = not where.ids.size and any(_form_in(form, self.offered.get(lang, frozenset()))
                                             for lang, lang_forms in forms.items() for form in lang_forms)
        return QueryWord(text=raw, readings=tuple(readings[1:]), forms=forms, specificity=spec, named=named,
                         position=position, zipf=commonness, where=where, opens=opens, offered=offered,
                         everyday=named and of_everyday_words(raw, langs, frequency))

    def _borrowed(self, folded: str, langs: list[str], frequency: WordFrequency) -> list[str]:
        """The languages to read a word of an English question in: Spanish too when it is an ordinary Spanish
        word the English edition does not use ("how do I turn on gradient checkpointing, se queda sin
        *memoria*"): a mixed message's Spanish words are read as Spanish, never as unknown names."""
        if langs != ["en"] or "es" not in self.languages or self._known(folded, langs):
            return langs
        if _zipf(folded, ["es"], frequency) >= NAMED_ZIPF > _zipf(folded, langs, frequency):
            return [*langs, "es"]
        return langs

    def _known(self, folded: str, langs: list[str]) -> bool:
        return any(
            any(_form_in(form, self.everywhere.get(lang, frozenset())) for form in _forms(folded, lang))
            for lang in langs
        )


def _owned(tokens: Sequence[str]) -> frozenset[int]:
    """The positions one or two words after a possessive (`Analysis.owned`); the "s" of "our team's" is no word."""
    own = possessives()
    return frozenset(after for at, token in enumerate(tokens) if fold(token) in own
                     for after in [p for p in range(at + 1, min(len(tokens), at + 5)) if fold(tokens[p]) != "s"][:2])


def _within(matches: list[re.Match[str]], patterns: Sequence[re.Pattern[str]], text: str) -> set[int]:
    """The tokens inside a match of one of `patterns` ("in plain terms", "is that right")."""
    spans = [m.span() for pattern in patterns for m in pattern.finditer(text)]
    if not spans:  # most messages: none of the phrases
        return set()
    return {p for p, m in enumerate(matches) if any(a <= m.start() < b for a, b in spans)}


def _scenario(text: str, matches: list[re.Match[str]], starts: set[int], tokens: list[str],
              checks: AbstractSet[int] = frozenset(), content: AbstractSet[int] = frozenset()) -> set[int]:
    """The tokens of the sentences that tell a scenario around the person's question ("We run 4 p5 nodes.
    NCCL logs show TCP sockets. What is missing in the pods?"): with a question sentence ("?", "¿") and others
    that are not, the others are context, unless the question points back into them ("Can *it* do gang
    scheduling?"), where what they name is what is asked about, or only checks a claim told before it ("Me dicen
    que X. ¿Es cierto?": `checks`, the tokens of such a check; `content`, those of the question's own words)."""
    sentence: list[int] = []
    for position in range(len(matches)):
        sentence.append(len(sentence) and sentence[-1] + (position in starts))
    if not sentence or sentence[-1] == 0:
        return set()
    bounds: dict[int, tuple[int, int]] = {}
    for position, number in enumerate(sentence):
        start, _ = bounds.get(number, (matches[position].start(), 0))
        bounds[number] = (start, matches[position].end())
    # A sentence asks when a "?" follows its words, or a "¿" opens it (in the gap before its first word).
    ends = {n: (bounds[n + 1][0] if n + 1 in bounds else len(text)) for n in bounds}
    leads = {n: (bounds[n - 1][1] if n - 1 in bounds else 0) for n in bounds}
    asking = {n for n, (start, last) in bounds.items()
              if "?" in text[last : ends[n]] or "¿" in text[leads[n] : start]}
    if not asking or len(asking) == len(bounds):
        return set()
    folded = [fold(t) for t in tokens]
    if referred_to_later(folded, sentence, min(asking) - 1):
        return set()
    asked = [p for p, n in enumerate(sentence) if n in asking]
    if any(p in checks for p in asked) and not any(p in content for p in asked):
        return set()  # the question checks what was told: it is what is asked
    # Context is a statement (it ends with "." or "!") or pasted output (machine tokens: "0/4",
    # "vpc.amazonaws.com/efa", "10:14:07"); "Slinky vs HyperPod: ¿…?" is one question.
    told = {n for n in bounds if n not in asking and (
        re.search(r"[.!]", text[bounds[n][1] : ends[n]])
        or _pasted([t for t, s in zip(tokens, sentence, strict=True) if s == n]))}
    return {p for p, n in enumerate(sentence) if n in told}


def _pasted(tokens: list[str]) -> bool:
    """Whether a sentence reads as pasted output: a good share of its tokens are numbers, paths, hosts or
    other machine tokens."""
    machine = sum(1 for t in tokens if _MACHINE.search(t))
    return len(tokens) >= PASTED_MIN_TOKENS and machine >= MACHINE_SHARE * len(tokens)


def _is_flag(text: str, match: re.Match[str]) -> bool:
    """Whether a word is written as a command-line flag: "--" right before it, after a space, a backtick, a bracket,
    a quote or an equals sign, or opening the text ("--max-restarts")."""
    start = match.start()
    return (match.group(0)[0].isalpha() and text[max(0, start - 2) : start] == "--"
            and (start == 2 or (start > 2 and text[start - 3] in " \t\n`([\"'=")))


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


def _forms(folded: str, lang: str) -> list[Form]:
    return [word for word in word_terms(folded, lang, frozenset())]


def _zipf(text: str, langs: list[str], frequency: WordFrequency) -> float:
    """How common the words of `text` are in general language: the rarest word decides. A superlative is as
    common as its adjective ("larguísima": "larga"), a hyphenated word as its rarest part ("fine-tune")."""
    zipfs = []
    for word in QUERY_WORD.findall(text):
        if word in ALL_STOPWORDS:
            continue
        if is_hyphenated_word(word):
            zipfs.append(min((_word_zipf(part, langs, frequency) for part in word.split("-") if part), default=0.0))
        else:
            zipfs.append(max(_word_zipf(form, langs, frequency) for form in [word, *superlative_adjectives(word)]))
    return min(zipfs, default=10.0)


def _word_zipf(word: str, langs: list[str], frequency: WordFrequency) -> float:
    best = 0.0
    for lang in langs:
        stems = word_terms(word, lang, frozenset())
        # A short word's stem may be another word's ("pod" is the stem of Spanish "poder").
        stem = stems[0][0] if stems and len(word) >= STEM_MIN_LENGTH else "\x00"
        best = max(best, frequency.zipf(word, stem, lang))
        if best < NAMED_ZIPF:  # a verb with pronouns joined to it is as common as the verb ("explícamelo")
            best = max(best, *(frequency.zipf(verb, verb, lang) for verb in without_enclitics(word, lang)), 0.0)
    return best


def derived_zipf(folded: str, langs: list[str], frequency: WordFrequency) -> float:
    """How common the word after one of the languages' prefixes is (`LanguageRules.prefixes`: "misconfigured" ->
    "configured"), at least `DERIVED_MIN_LENGTH` letters of it; 0.0 when the word has no such prefix."""
    return max((_word_zipf(folded[len(prefix):], [lang], frequency) for lang in langs for prefix in rules(lang).prefixes
                if folded.startswith(prefix) and len(folded) - len(prefix) >= DERIVED_MIN_LENGTH), default=0.0)


def of_everyday_words(raw: str, langs: list[str], frequency: WordFrequency) -> bool:
    """Whether a word written in lower case is made of everyday words: joined ("hardcoding", "backoff", "autoscale"),
    hyphenated or slashed ("allow-overwrite", "question/answer"), or an everyday word after a prefix
    ("preprocesado", "hiperparámetros", "reintenta"). Such a word says what the person does or has, in the
    domain's words; it is no product's or feature's name (which is written with capitals, digits or underscores:
    "Toolkit", "g5", "max_failures")."""
    if not raw.islower() or any(not (c.isalpha() or c in "-/") for c in raw):
        return False
    folded = fold(raw)
    parts = [p for p in re.split(r"[-/]", folded) if p]
    if len(parts) > 1:
        return all(max(_word_zipf(p, langs, frequency), derived_zipf(p, langs, frequency)) >= EVERYDAY_PART_ZIPF
                   for p in parts)
    if derived_zipf(folded, langs, frequency) >= NAMED_ZIPF:
        return True
    return any(_word_zipf(folded[:i], langs, frequency) >= EVERYDAY_PART_ZIPF
               and _word_zipf(folded[i:], langs, frequency) >= EVERYDAY_PART_ZIPF
               for i in range(EVERYDAY_PART_LENGTH, len(folded) - EVERYDAY_PART_LENGTH + 1))


def _is_common(folded: str, langs: list[str], frequency: WordFrequency) -> bool:
    return _zipf(folded, langs, frequency) >= NAMED_ZIPF


def _subject_words(wanted: frozenset[str], words: Iterable[QueryWord]) -> tuple[QueryWord, ...]:
    """The words of X in "what is X?" (`wanted`, its folded words); () for any other question."""
    return tuple(w for w in words if wanted and set(fold(w.text).split()) <= wanted)


def _is_acronym(raw: str) -> bool:
    letters = [c for c in raw if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)
