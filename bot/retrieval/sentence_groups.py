"""The knowledge's sentence vectors grouped by question (or section) and edition.

Retrieval compares a query with one question's sentences (both editions), excerpts with one edition's. An
edition's sentences are consecutive in the index (they come from one document), and their rows follow each
other in the index's base or in the rows made since (`bot.retrieval.sentence_vectors`): they are read at once
when asked (a view of an array in memory, or a read of the index's file). Only a question with two editions
(the quiz's), or an edition in pieces (not from a loader of documents), has its rows gathered in a small array
of its own, in the order (language, then document order) the comparisons have always read them in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bot.retrieval.artifacts import LoadedIndex
from bot.retrieval.sentence_vectors import Runs

EditionKey = tuple[str, int, str]  # (doc id, question or section number, language)
_NONE = np.zeros((0, 0), dtype=np.float16)


@dataclass(frozen=True)
class SentenceGroups:
    runs: Runs
    editions: dict[EditionKey, range | list[int]]  # each edition's sentence ids, in document order
    held: dict[object, np.ndarray]  # the vectors gathered of an edition in pieces, or of a quiz question
    questions: dict[tuple[str, int], EditionKey]  # a question with one edition: that edition

    @classmethod
    def of(cls, index: LoadedIndex) -> SentenceGroups:
        ids_of: dict[EditionKey, list[int]] = {}  # each edition's sentences, in document order
        for i, (doc_id, lang, number) in enumerate(index.sentences.owners()):
            ids_of.setdefault((doc_id, number, lang), []).append(i)
        vectors = index.sentence_vectors
        runs = vectors.runs()
        editions: dict[EditionKey, range | list[int]] = {}
        held: dict[object, np.ndarray] = {}
        for key, ids in ids_of.items():
            if ids[-1] - ids[0] + 1 == len(ids) and runs.together(ids[0], ids[-1] + 1):
                editions[key] = range(ids[0], ids[-1] + 1)
            else:
                editions[key] = ids
                held[key] = vectors.take(vectors.rows[ids])
        by_question: dict[tuple[str, int], list[EditionKey]] = {}
        for key in sorted(editions):
            by_question.setdefault((key[0], key[1]), []).append(key)
        groups = cls(runs, editions, held, {})
        for question, keys in by_question.items():
            if len(keys) == 1:
                groups.questions[question] = keys[0]
            else:
                held[question] = np.concatenate([groups.of_edition(key)[1] for key in keys])
        return groups

    def of_question(self, key: tuple[str, int]) -> np.ndarray:
        found = self.held.get(key)
        if found is not None:
            return found
        edition = self.questions.get(key)
        return self.of_edition(edition)[1] if edition is not None else _NONE

    def of_edition(self, key: EditionKey) -> tuple[list[int], np.ndarray]:
        """The index's sentence ids of one edition of a question, in document order, and their vectors."""
        ids = self.editions.get(key)
        if ids is None:
            return [], _NONE
        found = self.held.get(key)
        if found is not None:
            return list(ids), found
        assert isinstance(ids, range)
        return list(ids), self.runs.read(ids.start, ids.stop)
