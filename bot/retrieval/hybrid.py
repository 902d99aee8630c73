"""Hybrid retrieval: dense (FAISS), lexical (BM25, per language) and specific-word evidence, fused per question.

All three are needed: the embedding model is English, so dense alone misses Spanish wording; BM25 alone
misses English paraphrases; and both reward a question that repeats a common word ("memory") over the
one that names the question's subject ("BF16"). Per question, the best chunk cosine, the best normalised
BM25 score and the share of the question's specificity (see `bot.reading.terms`) its words find there
are added with weights (the dense weight is lower for Spanish questions). Whether the best question
answers at all is decided afterwards, by `bot.answering.answerability`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from sys import intern

import faiss
import numpy as np

from bot.knowledge import KnowledgeBase
from bot.knowledge.chunks import Chunk
from bot.lang import LANGUAGES, Lang
from bot.reading.lexicon import Glossary, WordFrequency, page_initials
from bot.reading.terms import Analysis, Vocabulary
from bot.reading.uncovered import read_question
from bot.retrieval.artifacts import LoadedIndex, english_of
from bot.retrieval.knowledge_terms import KnowledgeTerms, text_key
from bot.retrieval.lexical import LexicalIndex
from bot.retrieval.sentence_groups import SentenceGroups
from bot.text.normalise import fold
from bot.text.tokens import word_terms

QuestionKey = tuple[str, int]
_LONGER_WORD = re.compile(r"[^\W\d_]{3,}")  # the words `bot.text.language.edition_vocabulary` reads
DENSE_CANDIDATES = 2048  # chunks the dense search returns (all of a knowledge this size or smaller)
RANKED = 100  # questions and sections ranked in a retrieval, best first

# The dense search runs one query at a time, on one thread: FAISS splits a large flat search over its OpenMP
# threads, and on a small shared node the threads wait on each other far longer than one thread takes alone
# (docs/scale.md). Below the size where FAISS splits, one thread gives the same scores as two; above it, the
# scores' last bits depend on the number of threads (they already did on the number of cores).
faiss.omp_set_num_threads(1)


@dataclass(frozen=True)
class Tuning:
    """Fusion constants, chosen on our own evaluation set (never per query)."""

    lexical_weight: float = 1.0
    # The embedding model is English: its rankings and cosines mean less for Spanish questions.
    dense_weight: dict[str, float] = field(default_factory=lambda: {"en": 1.0, "es": 0.5})
    other_edition_weight: float = 0.5  # BM25 on the edition in the other language counts half
    specific_weight: float = 1.0  # the share of the question's specificity that a quiz question uses
    # In that share, a word of what the person pasted or told as background (`Analysis.context`: a log, "we
    # already use bf16") weighs half one of their own question: "Ya usamos bf16 … ¿qué técnica ahorra memoria de
    # activaciones?" asks about the activations, not about BF16.
    context_weight: float = 0.5


@dataclass(frozen=True)
class ScoredQuestion:
    key: QuestionKey
    score: float  # fused score, higher is better
    dense: float  # best cosine of its chunks
    lexical: float  # best BM25 of its chunks (any language), normalised
    specific: float  # share of the question's specificity found in this quiz question, in [0, 1]


@dataclass(frozen=True)
class Retrieval:
    analysis: Analysis
    language: Lang
    ranked: list[ScoredQuestion]
    vector: np.ndarray  # the query's embedding
    chunk_dense: np.ndarray
    chunk_lexical: np.ndarray
    # the ids of each question's chunks, in order (the retriever's grouping: no pass over every chunk)
    chunks_of: Callable[[QuestionKey], Iterable[int]] | None = field(default=None, repr=False, compare=False)
    # the embedding of a Spanish question said in English (`Analysis.english_text`), when it was searched with
    english_vector: np.ndarray | None = field(default=None, repr=False, compare=False)

    def led_by(self, keys: frozenset[QuestionKey]) -> Retrieval:
        """This retrieval with one of `keys` first (the best ranked of them; one not ranked at all, with no
        score, when none is), the others in their order."""
        scored = next((s for s in self.ranked if s.key in keys), None)
        if scored is None:
            scored = ScoredQuestion(key=min(keys), score=0.0, dense=0.0, lexical=0.0, specific=0.0)
        return replace(self, ranked=[scored, *(s for s in self.ranked if s.key != scored.key)])

    def cosines(self, vectors: np.ndarray, *, english_only: bool) -> np.ndarray:
        """The query's cosines with some vectors of one question or section (its sentences): a section written
        only in English is read against the question said in English as well, as it was searched (`retrieve`)."""
        cosines = vectors @ self.vector
        if english_only and self.english_vector is not None:
            cosines = np.maximum(cosines, vectors @ self.english_vector)
        return cosines

    def best_chunk(self, chunks: list[Chunk], key: QuestionKey, kinds: tuple[str, ...]) -> Chunk | None:
        """The chunk of that question and kind that matches the query best (dense and lexical)."""
        lexical_max = float(self.chunk_lexical.max()) or 1.0
        best: tuple[float, int] | None = None
        candidates = chunks if self.chunks_of is None else (chunks[i] for i in self.chunks_of(key))
        for chunk in candidates:
            if (chunk.doc_id, chunk.question) != key or chunk.kind not in kinds:
                continue
            score = float(self.chunk_dense[chunk.id]) + float(self.chunk_lexical[chunk.id]) / lexical_max
            if best is None or score > best[0]:
                best = (score, chunk.id)
        return chunks[best[1]] if best else None


class HybridRetriever:
    lexical: LexicalIndex
    terms: KnowledgeTerms
    vocabulary: Vocabulary
    _edition_words: _EditionWords

    def __init__(self, index: LoadedIndex, tuning: Tuning | None = None,
                 frequency: WordFrequency | None = None, previous: HybridRetriever | None = None) -> None:
        """`previous`: the retriever of an earlier index, whose work on the chunks that did not change is
        reused (the tokens of BM25, the terms of each question or section)."""
        self.index = index
        self.tuning = tuning or Tuning()
        self.chunks = index.chunks
        self.frequency = frequency or WordFrequency.bundled()
        self.glossary = Glossary.bundled()
        english = english_of(index)
        self.lexical = LexicalIndex(index.chunks, english=english, previous=previous.lexical if previous else None)
        keys = sorted({(c.doc_id, c.question) for c in self.chunks})
        self.keys: list[QuestionKey] = keys
        position = {key: i for i, key in enumerate(keys)}
        self._position: dict[object, int] = dict(position)
        owner = np.array([position[(c.doc_id, c.question)] for c in self.chunks], dtype=np.int64)
        self._by_owner = np.argsort(owner, kind="stable")  # chunk ids grouped by question
        self._group_starts = np.searchsorted(owner[self._by_owner], np.arange(len(keys)))
        chunks, by_owner, starts = self.chunks, self._by_owner, self._group_starts  # not `self`: no cycle

        def chunks_in(key: object) -> list[Chunk]:
            at = position.get(key)  # type: ignore[call-overload]
            return [chunks[i] for i in _members(at, by_owner, starts)]

        # A page is named by its path's words and by the initials of its title ("NTH" for "AWS Node Termination
        # Handler": `page_initials`): its readers shorten it so, and the page itself writes the name out.
        names = {d.doc_id: " ".join([page_name(d.doc_id), *sorted(page_initials(d.title))])
                 for d in index.knowledge.documents if d.kind == "doc"}

        def texts_of(key: object) -> list[tuple[str, str]]:
            """A key's texts: its chunks', then, for a Spanish-only chunk, the same in English, as written
            (names, identifiers) and as read; and a doc section's page name (`page_name`)."""
            of_key = chunks_in(key)
            name = names.get(of_key[0].doc_id) if of_key else None
            return [*((c.lang, _knowledge_text(c)) for c in of_key),
                    *(("en", f"{_knowledge_text(c)}\n{english[c.id]}") for c in of_key if c.id in english),
                    *(((of_key[0].lang, name),) if name else ())]

        in_order = list(dict.fromkeys((c.doc_id, c.question) for c in self.chunks))  # as the chunks come
        self.terms = KnowledgeTerms(  # where the knowledge uses each term, which a question's words are read with
            titles=[(d.lang, d.title) for d in index.knowledge.documents],
            previous=previous.terms if previous else None, texts_of=texts_of, keys=in_order,
        )
        self.vocabulary = Vocabulary(self.terms, offered=_offered_terms(index.knowledge))
        table = self.terms.table  # each key's place in `keys`, by its number in the vocabulary
        self._place_of = np.full(len(table.keys), -1, dtype=np.int64)
        self._place_of[[table.id_of[key] for key in keys]] = np.arange(len(keys))
        # BM25 in the other language than the question's counts `other_edition_weight`, where the same
        # knowledge has an edition in the question's language too; a document written in one language only
        # counts in full, whatever the question's language.
        editions: dict[QuestionKey, set[str]] = {}
        for c in self.chunks:
            editions.setdefault((c.doc_id, c.question), set()).add(c.lang)
        # A section written only in English is searched with a Spanish question said in English as well: the
        # embedding model is English, and such a section has no Spanish edition that the question's own words
        # would find. A section with both editions (the quiz) is searched as before.
        self._english_only = np.array([c.lang == "en" and "es" not in editions[(c.doc_id, c.question)]
                                       for c in self.chunks], dtype=bool)
        self._reads_in_english = bool(self._english_only.any())
        english_only = {(c.doc_id, c.question) for c, only in zip(self.chunks, self._english_only, strict=True) if only}
        self._english_only_sections = np.array([key in english_only for key in keys], dtype=bool)  # in `keys` order
        self._lexical_weight = {
            lang: np.array([1.0 if c.lang == lang or lang not in editions[(c.doc_id, c.question)]
                            else self.tuning.other_edition_weight for c in self.chunks], dtype=np.float32)
            for lang in LANGUAGES
        }
        self.sentences = SentenceGroups.of(index)  # each question's sentence vectors together, held once
        self._edition_words = _EditionWords(in_order, chunks_in, previous._edition_words if previous else None)

    @property
    def edition_words(self) -> dict[str, frozenset[str]]:
        """Folded words found in one language's chunks and not in the other's: what
        `bot.text.language.edition_vocabulary` makes of every chunk's text, kept per question or section so
        that a retriever made from another reads only the changed ones."""
        return self._edition_words.words

    def analyze(self, question: str, language: str) -> Analysis:
        """Read a clean question with this knowledge's words (`bot.reading.uncovered.read_question`): its content
        words, their specificity, and the text to search with, a named thing the knowledge never mentions asked
        about beside one it explains set aside."""
        return read_question(self.vocabulary, question, language, self.frequency, self.glossary,
                             cognates=self._reads_in_english)

    def _per_question_max(self, values: np.ndarray) -> np.ndarray:
        """The largest value of each question's chunks (chunks grouped by question once, at load)."""
        return np.maximum.reduceat(values[self._by_owner], self._group_starts)

    def retrieve(self, analysis: Analysis, query_vector: np.ndarray, language: Lang,
                 english_vector: np.ndarray | None = None) -> Retrieval:
        """Rank every question for the analysed query (in `language`, 'es' or 'en'). `english_vector`: the
        embedding of a Spanish question said in English (`Analysis.english_text`), which sections written only
        in English are searched with too."""
        t = self.tuning
        chunk_dense = self._dense(query_vector)
        if english_vector is not None and self._reads_in_english:
            np.maximum(chunk_dense, self._dense(english_vector), out=chunk_dense, where=self._english_only)
        else:
            english_vector = None
        lexical_by_lang = self.lexical.scores(analysis.search_terms)
        # Each language's BM25 on its own scale: normalise by that language's best before merging. A chunk
        # searched in two languages (a Spanish-only one, also in English) keeps the better of its two.
        chunk_lexical = np.zeros(len(self.chunks), dtype=np.float32)
        for scores in lexical_by_lang.values():
            top = float(scores.max())
            if top > 0:
                np.maximum(chunk_lexical, self._lexical_weight[language] * scores / top, out=chunk_lexical)
        q_dense = self._per_question_max(chunk_dense)
        q_lexical = self._per_question_max(chunk_lexical)
        q_specific = self.specific_shares(analysis)
        dense_weight: float | np.ndarray = t.dense_weight.get(language, 1.0)
        if english_vector is not None:  # said in English, it is read as an English question is
            dense_weight = np.where(self._english_only_sections, t.dense_weight.get("en", 1.0), dense_weight)
        fused = (dense_weight * q_dense + t.lexical_weight * q_lexical
                 + t.specific_weight * q_specific)
        order = np.argsort(-fused, kind="stable")[:RANKED]  # the best; the rest is never read
        ranked = [
            ScoredQuestion(self.keys[i], float(fused[i]), float(q_dense[i]), float(q_lexical[i]), float(q_specific[i]))
            for i in order
        ]
        return Retrieval(analysis, language, ranked, query_vector, chunk_dense, chunk_lexical, self.chunks_of,
                         english_vector)

    @property
    def reads_in_english(self) -> bool:
        """Whether some section is written only in English: then a Spanish question is searched said in English
        too (`retrieve`'s `english_vector`)."""
        return self._reads_in_english

    def _dense(self, vector: np.ndarray) -> np.ndarray:
        """Each chunk's cosine with `vector`: the closest chunks only (a chunk further than the
        DENSE_CANDIDATES closest adds no dense evidence), the others 0."""
        n = len(self.chunks)
        scores, ids = self.index.faiss_index.search(vector.reshape(1, -1).astype(np.float32), min(n, DENSE_CANDIDATES))
        chunk_dense = np.zeros(n, dtype=np.float32)
        found = ids[0] >= 0
        chunk_dense[ids[0][found]] = scores[0][found]
        return chunk_dense

    def chunks_of(self, key: QuestionKey) -> list[int]:
        """The ids of the chunks of a question or section, in order."""
        return _members(self._position.get(key), self._by_owner, self._group_starts)

    def specific_shares(self, analysis: Analysis) -> np.ndarray:
        """Per question (in `keys` order), the share of the query's specificity whose words it uses (the words of
        its context weigh `Tuning.context_weight`)."""
        shares = np.zeros(len(self.keys), dtype=np.float32)
        context = self.tuning.context_weight
        weight = {w.position: w.specificity * (context if w.position in analysis.context else 1.0)
                  for w in analysis.words}
        total = sum(weight.values())
        if not total:
            return shares
        for word in analysis.words:
            if word.where.ids.size:
                shares[self._place_of[word.where.ids]] += weight[word.position]
        return shares / total

    def sentence_similarity(self, retrieval: Retrieval, key: QuestionKey) -> tuple[float, float] | None:
        """The query's cosine with the closest explanation sentence of the quiz question or section `key`, and the
        mean cosine over its sentences (`Retrieval.cosines`); None when it has no sentences (a section that is a
        table or a code block)."""
        vectors = self.sentences.of_question(key)
        if not len(vectors):
            return None
        at = self._position.get(key)
        cosines = retrieval.cosines(vectors, english_only=at is not None and bool(self._english_only_sections[at]))
        return float(cosines.max()), float(cosines.mean())


class _EditionWords:
    """The words of each language's chunks (`edition_vocabulary`'s reading), counted per question or section."""

    _counts: dict[str, Counter[str]]  # per language, each word with how many questions or sections use it

    def __init__(self, keys: list[QuestionKey], chunks_of: Callable[[object], list[Chunk]],
                 previous: _EditionWords | None) -> None:
        """`keys`: the questions and sections, `chunks_of`: the chunks of one. A key's words are not kept: a
        change reads the changed keys' earlier chunks again to take their words out, which costs less than
        holding every key's words for the rare key that changes."""
        self._chunks_of = chunks_of
        before = previous._digests if previous is not None else {}
        self._digests: dict[QuestionKey, bytes] = {}
        counts: dict[str, Counter[str]] = {
            lang: Counter(previous._counts.get(lang, {})) if previous is not None else Counter() for lang in LANGUAGES}
        for key in keys:
            of_key = chunks_of(key)
            digest = text_key("", "\0".join(f"{c.lang}\0{c.indexed_text}" for c in of_key))
            self._digests[key] = digest
            if previous is not None and before.get(key) == digest:
                continue
            if previous is not None and key in before:
                for lang, words in _words_of(previous._chunks_of(key)).items():
                    counts[lang].subtract(words)
            for lang, words in _words_of(of_key).items():
                counts.setdefault(lang, Counter()).update(words)
        if previous is not None:
            for key in before:
                if key not in self._digests:
                    for lang, words in _words_of(previous._chunks_of(key)).items():
                        counts[lang].subtract(words)
        self._counts = {lang: +count for lang, count in counts.items()}
        self.words = {lang: frozenset(own.keys() - set().union(*(w.keys() for other, w in self._counts.items()
                                                                  if other != lang)))
                      for lang, own in self._counts.items()}


def _members(at: int | None, by_owner: np.ndarray, starts: np.ndarray) -> list[int]:
    """The chunk ids of the question or section at place `at` (of `keys`), in order."""
    if at is None:
        return []
    end = starts[at + 1] if at + 1 < len(starts) else len(by_owner)
    return [int(i) for i in by_owner[starts[at] : end]]


def _words_of(chunks: list[Chunk]) -> dict[str, tuple[str, ...]]:
    """The longer words of some chunks (folded), per language, each once."""
    found: dict[str, set[str]] = {}
    for c in chunks:
        found.setdefault(c.lang, set()).update(intern(fold(w)) for w in _LONGER_WORD.findall(c.indexed_text))
    return {lang: tuple(words) for lang, words in found.items()}


_OPTION_LINE = re.compile(r"^[A-Z]\)\s")
_NAME_PARTS = re.compile(r"[/_.\s-]+")


def page_name(doc_id: str) -> str:
    """A page's name as its path says it ("argo-workflows/synchronization" → "argo workflows synchronization"): a
    team names a page, and the folder it keeps it in, by what it is about, and a question names that ("Argo"
    where the page itself only says "workflow")."""
    return " ".join(part for part in _NAME_PARTS.split(doc_id) if part)


def _offered_terms(knowledge: KnowledgeBase) -> dict[str, frozenset[str]]:
    """Per language, the terms of the quiz's wrong options ("Amazon EBS gp3", "consolidationPolicy: WhenEmpty"):
    not knowledge, but words the quiz writes, which a question about an option repeats."""
    out: dict[str, set[str]] = {}
    for document in knowledge.documents:
        for question in document.questions:
            for option in question.options:
                if option.key != question.answer:
                    out.setdefault(question.lang, set()).update(
                        t for word in word_terms(option.text, question.lang) for t in word)
    return {lang: frozenset(terms) for lang, terms in out.items()}


def _knowledge_text(chunk: Chunk) -> str:
    """What a chunk says as knowledge, under its header (`knowledge_body`)."""
    return f"{chunk.header}\n{knowledge_body(chunk)}"


def knowledge_body(chunk: Chunk) -> str:
    """What a chunk says as knowledge: a question chunk without its wrong options (a distractor such
    as "GPU monitoring and metrics collection" is not something the knowledge covers), a snippet with
    its language ("yaml")."""
    text = chunk.text
    if chunk.kind == "question":
        lines = text.split("\n")
        text = "\n".join(line for i, line in enumerate(lines) if not _OPTION_LINE.match(line) or i == len(lines) - 1)
    if chunk.code_lang:
        text += f"\n{chunk.code_lang}"
    return text
