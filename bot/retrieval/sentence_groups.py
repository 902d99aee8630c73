"""The knowledge's sentence vectors grouped by question (or section) and edition, without a copy.

Retrieval compares a query with one question's sentences (both editions), excerpts with one edition's. An
edition's sentences are consecutive in the index (they come from one document), and so are a question's when
it has one edition (every section of a doc): both are read as views of the index's own array. Only a
question with two editions (the quiz's) has its rows gathered in a small array of its own, in the order
(language, then document order) the comparisons have always read them in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bot.retrieval.artifacts import LoadedIndex

EditionKey = tuple[str, int, str]  # (doc id, question or section number, language)


@dataclass(frozen=True)
class SentenceGroups:
    vectors: np.ndarray  # the index's sentence vectors (the same array, not a copy)
    ids: np.ndarray  # the index's sentence id of each row of `vectors`
    editions: dict[EditionKey, tuple[int, int]]  # rows of one edition of a question
    questions: dict[tuple[str, int], tuple[int, int]]  # rows of a question with one edition
    gathered: dict[tuple[str, int], np.ndarray]  # the rows of a question with several editions, together

    @classmethod
    def of(cls, index: LoadedIndex) -> SentenceGroups:
        rows_of: dict[EditionKey, list[int]] = {}  # each edition's sentences, in document order
        for i, s in enumerate(index.sentences):
            rows_of.setdefault((s.doc_id, s.question, s.lang), []).append(i)
        vectors = index.sentence_vectors
        if not all(rows[-1] - rows[0] + 1 == len(rows) for rows in rows_of.values()):
            # An edition in pieces (not from a loader of documents): its rows gathered in one array.
            order = [i for key in sorted(rows_of) for i in rows_of[key]]
            vectors = np.ascontiguousarray(vectors[np.array(order, dtype=np.int64)])
            start = 0
            moved: dict[EditionKey, list[int]] = {}
            for key in sorted(rows_of):
                moved[key] = list(range(start, start + len(rows_of[key])))
                start += len(rows_of[key])
            rows_of = moved
            ids = np.array(order, dtype=np.int64)
        else:
            ids = np.arange(len(index.sentences), dtype=np.int64)
        editions = {key: (rows[0], rows[-1] + 1) for key, rows in rows_of.items()}
        by_question: dict[tuple[str, int], list[EditionKey]] = {}
        for key in sorted(editions):
            by_question.setdefault((key[0], key[1]), []).append(key)
        questions: dict[tuple[str, int], tuple[int, int]] = {}
        gathered: dict[tuple[str, int], np.ndarray] = {}
        for question, keys in by_question.items():
            if len(keys) == 1:
                questions[question] = editions[keys[0]]
            else:
                gathered[question] = np.concatenate([vectors[slice(*editions[key])] for key in keys])
        return cls(vectors, ids, editions, questions, gathered)

    def of_question(self, key: tuple[str, int]) -> np.ndarray:
        found = self.gathered.get(key)
        if found is not None:
            return found
        start, end = self.questions.get(key, (0, 0))
        return self.vectors[start:end]

    def of_edition(self, key: EditionKey) -> tuple[list[int], np.ndarray]:
        """The index's sentence ids of one edition of a question, in document order, and their vectors."""
        start, end = self.editions.get(key, (0, 0))
        return [int(i) for i in self.ids[start:end]], self.vectors[start:end]
