"""The knowledge's sentence vectors kept once, grouped by question (or section) and edition.

Retrieval compares a query with one question's sentences (both editions), excerpts with one edition's: both
read views into this one array, so the vectors are held once beside the index's own copy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bot.retrieval.artifacts import LoadedIndex

EditionKey = tuple[str, int, str]  # (doc id, question or section number, language)


@dataclass(frozen=True)
class SentenceGroups:
    vectors: np.ndarray  # every sentence's vector, grouped by (doc, number, language), in document order
    ids: np.ndarray  # the index's sentence id of each row
    editions: dict[EditionKey, tuple[int, int]]  # rows of one edition of a question
    questions: dict[tuple[str, int], tuple[int, int]]  # rows of a question in every edition

    @classmethod
    def of(cls, index: LoadedIndex) -> SentenceGroups:
        rows_of: dict[EditionKey, list[int]] = {}  # each edition's sentences, in document order
        for i, s in enumerate(index.sentences):
            rows_of.setdefault((s.doc_id, s.question, s.lang), []).append(i)
        editions: dict[EditionKey, tuple[int, int]] = {}
        questions: dict[tuple[str, int], tuple[int, int]] = {}
        order: list[int] = []
        for key in sorted(rows_of):
            doc, number, _ = key
            start = len(order)
            order += rows_of[key]
            editions[key] = (start, len(order))
            first, _ = questions.get((doc, number), (start, start))
            questions[(doc, number)] = (first, len(order))
        ids = np.array(order, dtype=np.int64)
        vectors = np.ascontiguousarray(index.sentence_vectors[ids]) if len(ids) else np.zeros(
            (0, index.sentence_vectors.shape[1] if index.sentence_vectors.ndim == 2 else 0), dtype=np.float32)
        return cls(vectors, ids, editions, questions)

    def of_question(self, key: tuple[str, int]) -> np.ndarray:
        start, end = self.questions.get(key, (0, 0))
        return self.vectors[start:end]

    def of_edition(self, key: EditionKey) -> tuple[list[int], np.ndarray]:
        """The index's sentence ids of one edition of a question, in document order, and their vectors."""
        start, end = self.editions.get(key, (0, 0))
        return [int(i) for i in self.ids[start:end]], self.vectors[start:end]
