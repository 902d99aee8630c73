"""Hybrid retrieval: dense (FAISS) and lexical (BM25, per language) rankings fused per question.

Both are needed: the embedding model is English, so dense alone misses Spanish wording; BM25 alone
misses English paraphrases. Per question, the best chunk cosine and the best normalised BM25 score are
added with weights (the dense weight is lower for Spanish questions), and a separate confidence (how
close the best question is in meaning, and how much of the question's weight its words cover) decides
whether to answer at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bot.chunking import Chunk
from bot.retrieval.artifacts import LoadedIndex
from bot.retrieval.lexical import LexicalIndex

QuestionKey = tuple[str, int]


@dataclass(frozen=True)
class Tuning:
    """Fusion and confidence constants; measured on the evaluation sets, not per query."""

    lexical_weight: float = 1.0
    # The embedding model is English: its rankings and cosines mean less for Spanish questions.
    dense_weight: dict[str, float] = field(default_factory=lambda: {"en": 1.0, "es": 0.5})
    other_edition_weight: float = 0.5  # BM25 on the edition in the other language counts half
    dense_floor: dict[str, float] = field(default_factory=lambda: {"en": 0.30, "es": 0.45})
    dense_span: float = 0.30  # cosine above the floor that means "clearly related"


@dataclass(frozen=True)
class ScoredQuestion:
    key: QuestionKey
    score: float  # fused score, higher is better
    dense: float  # best cosine of its chunks
    lexical: float  # best BM25 of its chunks (any language)


@dataclass(frozen=True)
class Retrieval:
    ranked: list[ScoredQuestion]
    confidence: float
    chunk_dense: np.ndarray
    chunk_lexical: np.ndarray

    def best_chunk(self, chunks: list[Chunk], key: QuestionKey, kinds: tuple[str, ...]) -> Chunk | None:
        """The chunk of that question and kind that matches the query best (dense and lexical)."""
        lexical_max = float(self.chunk_lexical.max()) or 1.0
        best: tuple[float, int] | None = None
        for chunk in chunks:
            if (chunk.doc_id, chunk.question) != key or chunk.kind not in kinds:
                continue
            score = float(self.chunk_dense[chunk.id]) + float(self.chunk_lexical[chunk.id]) / lexical_max
            if best is None or score > best[0]:
                best = (score, chunk.id)
        return chunks[best[1]] if best else None


class HybridRetriever:
    def __init__(self, index: LoadedIndex, tuning: Tuning | None = None) -> None:
        self.index = index
        self.tuning = tuning or Tuning()
        self.chunks = index.chunks
        self.lexical = LexicalIndex(index.chunks)
        keys = sorted({(c.doc_id, c.question) for c in self.chunks})
        self.keys: list[QuestionKey] = keys
        position = {key: i for i, key in enumerate(keys)}
        self._owner = np.array([position[(c.doc_id, c.question)] for c in self.chunks], dtype=np.int64)
        self._chunks_of: dict[QuestionKey, dict[str, list[int]]] = {}
        for c in self.chunks:
            self._chunks_of.setdefault((c.doc_id, c.question), {}).setdefault(c.lang, []).append(c.id)

    def _per_question_max(self, values: np.ndarray) -> np.ndarray:
        out = np.full(len(self.keys), -np.inf, dtype=np.float32)
        np.maximum.at(out, self._owner, values)
        return out

    def retrieve(self, query: str, query_vector: np.ndarray, language: str) -> Retrieval:
        """Rank every question for `query` (in `language`, 'es' or 'en') and rate the best one."""
        t = self.tuning
        n = len(self.chunks)
        dense_scores, ids = self.index.faiss_index.search(query_vector.reshape(1, -1).astype(np.float32), n)
        chunk_dense = np.zeros(n, dtype=np.float32)
        chunk_dense[ids[0]] = dense_scores[0]
        lexical_by_lang = self.lexical.scores(query)
        # Each language's BM25 on its own scale: normalise by that language's best before merging.
        chunk_lexical = np.zeros(n, dtype=np.float32)
        for lang, scores in lexical_by_lang.items():
            top = float(scores.max())
            if top > 0:
                weight = 1.0 if lang == language else t.other_edition_weight
                chunk_lexical += weight * scores / top
        q_dense = self._per_question_max(chunk_dense)
        q_lexical = self._per_question_max(chunk_lexical)
        fused = t.dense_weight.get(language, 1.0) * q_dense + t.lexical_weight * q_lexical
        order = np.argsort(-fused, kind="stable")
        ranked = [
            ScoredQuestion(self.keys[i], float(fused[i]), float(q_dense[i]), float(q_lexical[i])) for i in order
        ]
        confidence = self._confidence(query, language, ranked[0], float(q_dense.max())) if ranked else 0.0
        return Retrieval(ranked, confidence, chunk_dense, chunk_lexical)

    def _confidence(self, query: str, language: str, top: ScoredQuestion, best_dense: float) -> float:
        """max(semantic closeness, share of the query's words the best question covers), in [0, 1]."""
        t = self.tuning
        floor = t.dense_floor.get(language, max(t.dense_floor.values()))
        semantic = min(1.0, max(0.0, (best_dense - floor) / t.dense_span))
        # Spanish questions borrow English terms ("checkpoint", "pipeline"): look in both editions.
        # English ones are read in English only, so a word is not matched through a Spanish stem
        # ("docker" stemmed as "dock").
        editions = [language] if language == "en" else self.lexical.languages
        lexical = self.lexical.coverage(query, self._chunks_of[top.key], editions)
        return max(semantic, lexical)

