"""BM25 over the chunks, one index per language (each with its own stemmer and stop words).

The scores are those of bm25s (Lucene's variant, k1 1.2, b 0.75, float32), computed with whole-array
arithmetic from each chunk's token counts. The counts are kept by the chunk's text: an index made from an
earlier one (`previous`) tokenises only the chunks whose text changed, and the rest of a rebuild (document
frequencies, lengths, the score of each term in each chunk) takes a fraction of a second at 10,000 sections.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from bot.knowledge.chunks import Chunk
from bot.retrieval.knowledge_terms import TextKey, text_key
from bot.text.tokens import tokens


@dataclass(frozen=True)
class _Counted:
    """One chunk's tokens: each distinct one (as a vocabulary id) with how often it occurs, and its length."""

    ids: np.ndarray  # int32
    counts: np.ndarray  # float32
    length: int


class _Bm25:
    """The BM25 score of every vocabulary term in every document, by term (a compressed sparse column
    matrix), as bm25s computes and sums it."""

    def __init__(self, docs: list[_Counted], vocabulary: int, k1: float, b: float) -> None:
        self.n = len(docs)
        lengths = np.array([d.length for d in docs])
        average = lengths.mean() if len(docs) else 1.0
        term = np.concatenate([d.ids for d in docs]) if docs else np.zeros(0, np.int32)
        counts = np.concatenate([d.counts for d in docs]).astype(np.float64) if docs else np.zeros(0)
        doc = np.repeat(np.arange(self.n, dtype=np.int32), [len(d.ids) for d in docs])
        frequency = np.bincount(term, minlength=vocabulary)  # documents each term is in
        idf = np.zeros(vocabulary, dtype=np.float32)
        present = np.flatnonzero(frequency)
        distinct, where = np.unique(frequency[present], return_inverse=True)
        idf[present] = np.array([_idf(int(df), self.n) for df in distinct], dtype=np.float64)[where]
        norm = k1 * ((1 - b) + b * lengths / average)
        scores = (idf[term].astype(np.float64) * (counts / (norm[doc] + counts))).astype(np.float32)
        order = np.argsort(term, kind="stable")
        self.data = scores[order]
        self.docs = doc[order]
        self.starts = np.concatenate([[0], np.cumsum(frequency)])

    def scores(self, ids: list[int]) -> np.ndarray:
        """The summed scores of the query's terms (vocabulary ids, in the query's order) in every document."""
        out = np.zeros(self.n, dtype=np.float32)
        for i in ids:
            if i + 1 < len(self.starts):
                start, end = self.starts[i], self.starts[i + 1]
                np.add.at(out, self.docs[start:end], self.data[start:end])
        return out


def _idf(df: int, n: int) -> float:
    """Lucene's inverse document frequency."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


class LexicalIndex:
    """`english`: chunk id -> the English reading of a Spanish-only chunk (`bot.retrieval.readings`), which
    is searched in the English index as well."""

    def __init__(self, chunks: list[Chunk], k1: float = 1.2, b: float = 0.75,
                 english: dict[int, str] | None = None, previous: LexicalIndex | None = None) -> None:
        """`previous`: the index of an earlier knowledge, whose token counts of unchanged chunks are reused."""
        self._n = len(chunks)
        self._by_lang: dict[str, tuple[np.ndarray, _Bm25]] = {}
        known = previous._counted if previous is not None else {}
        # Token -> id, shared by the languages and kept from index to index (a term no chunk has any more
        # scores nothing).
        self._vocabulary: dict[str, int] = dict(previous._vocabulary) if previous is not None else {}
        self._counted: dict[TextKey, _Counted] = {}  # each chunk's counted tokens, by its text
        english = english or {}
        for lang in sorted({c.lang for c in chunks} | ({"en"} if english else set())):
            ids = np.array([c.id for c in chunks if c.lang == lang or (lang == "en" and c.id in english)],
                           dtype=np.int64)
            docs: list[_Counted] = []
            for i in ids:
                text = chunks[i].indexed_text if chunks[i].lang == lang else \
                    f"{chunks[i].indexed_text}\n{english[int(i)]}"
                key = text_key(lang, text)
                found = self._counted.get(key) or known.get(key)
                if found is None:
                    found = self._count(tokens(text, lang) or [""])
                self._counted[key] = found
                docs.append(found)
            self._by_lang[lang] = (ids, _Bm25(docs, len(self._vocabulary), k1, b))

    def _count(self, words: list[str]) -> _Counted:
        vocabulary = self._vocabulary
        counted = Counter(vocabulary.setdefault(w, len(vocabulary)) for w in words)
        return _Counted(np.fromiter(counted.keys(), dtype=np.int32, count=len(counted)),
                        np.fromiter(counted.values(), dtype=np.float32, count=len(counted)), len(words))

    @property
    def languages(self) -> list[str]:
        return list(self._by_lang)

    def scores(self, query: str) -> dict[str, np.ndarray]:
        """Per language, BM25 scores of every chunk (0 for chunks of other languages)."""
        out: dict[str, np.ndarray] = {}
        for lang, (ids, engine) in self._by_lang.items():
            full = np.zeros(self._n, dtype=np.float32)
            terms = tokens(query, lang)
            if terms:
                full[ids] = engine.scores([self._vocabulary[t] for t in terms if t in self._vocabulary])
            out[lang] = full
        return out
