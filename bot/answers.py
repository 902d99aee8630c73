"""Turn a question into an answer object that every surface (CLI, HTTP, Slack) renders as it is.

The bot answers only from the knowledge: the most relevant explanation sentences of the best question,
its best matching code snippet, and citations. Below the confidence threshold it says it does not know
and lists what it does cover.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

import numpy as np

from bot.chunking import Chunk
from bot.citations import Citation  # also importable from here, as before
from bot.config import Settings
from bot.embeddings import Embedder, SentenceTransformerEmbedder
from bot.errors import InputError
from bot.knowledge import KnowledgeBase, Question, load_knowledge
from bot.lang import LANGUAGES, Lang, check_lang
from bot.messages import say
from bot.retrieval.artifacts import LoadedIndex, load_index
from bot.retrieval.hybrid import HybridRetriever, Retrieval, ScoredQuestion, Tuning
from bot.text import clean_question, detect_language, edition_vocabulary, fold, tokens

EXCERPT_SENTENCES = 3
EXCERPT_MARGIN = 0.15  # sentences this far below the best one are left out
ROW_ORDER = 10_000  # table rows come after the explanation's sentences
RELATED_RATIO = 0.85  # other questions cited when their score is this close to the best one's
MAX_CITATIONS = 3

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    answered: bool
    language: Lang
    text: str
    citations: list[Citation]
    answer_line: str | None = None  # e.g. "B) FI_PROVIDER=efa", the cited quiz question's answer
    topics: list[str] = field(default_factory=list)  # what the knowledge covers, shown when not answered
    confidence: float = 0.0
    ranked: list[int] = field(default_factory=list)  # question numbers, best first

    def to_dict(self) -> dict[str, object]:
        """The public shape: the same for `eksbot ask --json` and `POST /v1/query`."""
        return {
            "answered": self.answered, "language": self.language, "text": self.text,
            "citations": [c.to_dict() for c in self.citations],
        }


class Assistant:
    """The core: knowledge, index, model and retrieval, loaded once, answering any number of questions."""

    def __init__(self, index: LoadedIndex, embedder: Embedder, *, threshold: float, max_chars: int = 2000,
                 tuning: Tuning | None = None) -> None:
        self.index = index
        self.embedder = embedder
        self.threshold = threshold
        self.max_chars = max_chars
        self.retriever = HybridRetriever(index, tuning)
        self.knowledge: KnowledgeBase = index.knowledge
        self.vocabulary = edition_vocabulary(
            {lang: [c.indexed_text for c in index.chunks if c.lang == lang] for lang in LANGUAGES}
        )
        # Per (document, question, language): sentence ids and table-row chunks, with their terms.
        self._sentences_of: dict[tuple[str, int, str], list[int]] = {}
        for i, s in enumerate(index.sentences):
            self._sentences_of.setdefault((s.doc_id, s.question, s.lang), []).append(i)
        self._sentence_terms = [frozenset(tokens(s.text, s.lang)) for s in index.sentences]
        self._rows_of: dict[tuple[str, int, str], list[tuple[Chunk, frozenset[str]]]] = {}
        for c in index.chunks:
            if c.kind == "table_row":
                self._rows_of.setdefault((c.doc_id, c.question, c.lang), []).append(
                    (c, frozenset(tokens(c.text, c.lang)))
                )

    @classmethod
    def from_settings(cls, settings: Settings, embedder: Embedder | None = None) -> Assistant:
        embedder = embedder or SentenceTransformerEmbedder(settings.embedding_model)
        index = load_index(load_knowledge(settings.knowledge_dir), settings.index_dir, embedder,
                           rebuild=settings.auto_rebuild)
        return cls(index, embedder, threshold=settings.abstain_threshold, max_chars=settings.max_question_chars)

    # -- public API ---------------------------------------------------------------------------------

    def prepare(self, question: str, lang: str | None = None) -> tuple[str, Lang]:
        """Validate and clean a question; returns (clean text, language). Raises InputError."""
        asked = check_lang(lang)
        if len(question) > self.max_chars:
            raise InputError(say(asked or "en", "too_long", length=len(question), limit=self.max_chars))
        text = clean_question(question)
        if not text:
            raise InputError(say(asked or "en", "empty_question"))
        return text, asked or self.language_of(text)

    def language_of(self, text: str) -> Lang:
        """The language a question is written in, read with the words of each edition of the knowledge."""
        return detect_language(text, self.vocabulary)

    def answer(self, question: str, lang: str | None = None) -> Answer:
        return self.answer_many([(question, lang)])[0]

    def answer_many(self, questions: list[tuple[str, str | None]]) -> list[Answer]:
        """Answer several questions with one call to the model (what concurrent requests share)."""
        prepared = [self.prepare(q, lang) for q, lang in questions]
        vectors = self.embedder.encode([text for text, _ in prepared])
        return [
            self.answer_prepared(text, lang, vector)
            for (text, lang), vector in zip(prepared, vectors, strict=True)
        ]

    def retrieve(self, text: str, lang: Lang, vector: np.ndarray) -> Retrieval:
        return self.retriever.retrieve(text, vector, lang)

    def answer_prepared(self, text: str, lang: Lang, vector: np.ndarray) -> Answer:
        retrieval = self.retrieve(text, lang, vector)
        ranked = [s.key[1] for s in retrieval.ranked]
        if not retrieval.ranked or retrieval.confidence < self.threshold:
            return self._dont_know(lang, retrieval, ranked)
        best = retrieval.ranked[0]
        related = [
            s for s in retrieval.ranked[1:MAX_CITATIONS]
            if s.score >= RELATED_RATIO * best.score
        ]
        citations = [self._citation(text, lang, vector, s, retrieval) for s in [best, *related]]
        question = self.knowledge.question(best.key[0], best.key[1], lang)
        top = citations[0]
        if question.answer:
            reference = say(lang, "quiz_ref", number=question.number, title=question.title,
                            answer=question.answer_line)
        else:
            reference = say(lang, "section_ref", title=question.title, source=top.source)
        return Answer(
            answered=True, language=lang, text=f"{top.excerpt}\n\n{reference}", citations=citations,
            answer_line=question.answer_line or None, confidence=round(retrieval.confidence, 4), ranked=ranked,
        )

    def topics(self, lang: str) -> list[str]:
        return self.knowledge.topics(lang)

    def match_topic(self, topic: str, lang: str) -> list[tuple[str, int]]:
        """Questions about `topic` ("slurm", "almacenamiento"): by topic name, else through retrieval."""
        wanted = fold(clean_question(topic))
        if not wanted:
            return []
        named = [
            (q.doc_id, q.number) for q in self.knowledge.questions(lang)
            if wanted in fold(q.topic) or fold(q.topic) in wanted
        ]
        if named:
            return named
        text, detected = self.prepare(topic, None)
        retrieval = self.retrieve(text, detected, self.embedder.encode([text])[0])
        if not retrieval.ranked or retrieval.confidence < self.threshold:
            return []
        best = retrieval.ranked[0].score
        return [s.key for s in retrieval.ranked if s.score >= RELATED_RATIO * best]

    # -- pieces ------------------------------------------------------------------------------------

    def _dont_know(self, lang: Lang, retrieval: Retrieval, ranked: list[int]) -> Answer:
        topics = self.topics(lang)
        suggestions: list[Citation] = []
        if retrieval.ranked and retrieval.confidence >= self.threshold / 2:
            for scored in retrieval.ranked[:MAX_CITATIONS]:
                q = self.knowledge.question(scored.key[0], scored.key[1], lang)
                suggestions.append(Citation(
                    question=q.number, title=q.title, excerpt="", snippet=None, source=q.source,
                    score=round(scored.score, 4), topic=q.topic, doc_id=q.doc_id,
                ))
        text = say(lang, "dont_know") + "\n" + say(lang, "covers", topics=", ".join(topics))
        if suggestions:
            text += "\n" + say(lang, "did_you_mean", titles="; ".join(f"{s.question}. {s.title}" for s in suggestions))
        return Answer(
            answered=False, language=lang, text=text, citations=suggestions, topics=topics,
            confidence=round(retrieval.confidence, 4), ranked=ranked,
        )

    def _citation(self, text: str, lang: str, vector: np.ndarray, scored: ScoredQuestion,
                  retrieval: Retrieval) -> Citation:
        doc_id, number = scored.key
        question = self.knowledge.question(doc_id, number, lang)
        snippet_chunk = retrieval.best_chunk(self.index.chunks, scored.key, ("code",))
        return Citation(
            question=number, title=question.title,
            excerpt=self._excerpt(text, question, vector, retrieval),
            snippet=snippet_chunk.text if snippet_chunk else None, source=question.source,
            score=round(scored.score, 4), snippet_lang=snippet_chunk.code_lang if snippet_chunk else None,
            topic=question.topic, doc_id=doc_id,
        )

    def _excerpt(self, text: str, question: Question, vector: np.ndarray, retrieval: Retrieval) -> str:
        """The explanation sentences (or table rows) closest to the question, in document order."""
        key = (question.doc_id, question.number, question.lang)
        ids = self._sentences_of.get(key, [])
        terms = set(tokens(text, question.lang))
        candidates: list[tuple[float, int, str]] = []
        if ids:
            sims = self.index.sentence_vectors[ids] @ vector
            for order, (i, sim) in enumerate(zip(ids, sims, strict=True)):
                score = float(sim) + _overlap(terms, self._sentence_terms[i])
                candidates.append((score, order, self.index.sentences[i].text))
        for c, row_terms in self._rows_of.get(key, []):
            score = float(retrieval.chunk_dense[c.id]) + _overlap(terms, row_terms)
            candidates.append((score, ROW_ORDER + c.id, _row_sentence(c)))
        if not candidates:
            return question.answer_line
        ordered = sorted(candidates, reverse=True)
        top_score = ordered[0][0]
        best: list[tuple[float, int, str]] = []
        rows_taken = 0
        for candidate in ordered:
            if len(best) == EXCERPT_SENTENCES or candidate[0] < top_score - EXCERPT_MARGIN:
                break
            is_row = candidate[1] >= ROW_ORDER
            if is_row and rows_taken:
                continue  # rows of one table look alike: the best one says it
            rows_taken += is_row
            best.append(candidate)
        # The lead sentence states the point of the explanation: add it when it is close.
        lead = min(candidates, key=lambda c: c[1])
        if lead not in best and lead[0] >= top_score - EXCERPT_MARGIN:
            best = [*best[: EXCERPT_SENTENCES - 1], lead]
        return " ".join(_as_sentence(s) for _, _, s in sorted(best, key=lambda c: c[1]))


def _overlap(terms: set[str], sentence_terms: frozenset[str]) -> float:
    """Half a point for a sentence holding every word of the question."""
    if not terms:
        return 0.0
    return 0.5 * len(terms & sentence_terms) / len(terms)


def _row_sentence(chunk: Chunk) -> str:
    return chunk.text.replace("; ", " · ")


def _as_sentence(text: str) -> str:
    text = text.strip()
    return text if re.search(r"[.!?:)]$", text) else text + "."


