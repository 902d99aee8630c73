"""BM25 over the chunks (bm25s: Lucene's variant, k1 1.2, b 0.75), one index per language, each with its own
stemmer and stop words.

Each chunk's tokens are kept by its text, counted: (token number in the language's vocabulary, count) pairs,
each in 4 bytes (`_counted`).
An index made from an earlier one (`previous`) tokenises and counts only the chunks whose text changed, and
hands bm25s the rest as they were: bm25s's own indexing collects the vocabulary, numbers every token and counts
every chunk's tokens again, in Python, on each build (most of a change's time in BM25); `_Counted`
computes the same matrix from the counts at once, with bm25s's scoring functions, to the same bits. A
vocabulary only grows: the one of an earlier index is copied and extended, never changed, since the index in
use reads it while the next is made; the words of removed documents stay in it, with no document (a score
of 0).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

import bm25s
import numpy as np
from bm25s.scoring import _select_idf_scorer, _select_tfc_scorer

from bot.knowledge.chunks import Chunk
from bot.retrieval.knowledge_terms import TextKey, text_key
from bot.text.uncached import knowledge_tokens

logging.getLogger("bm25s").setLevel(logging.WARNING)

_NUMBER_BITS, _COUNT_BITS = 24, 8  # a pair in 4 bytes: the token's number (16.7 million a language), its count
_WIDE = b"\x00"  # opens a chunk's pairs written as two 4-byte ints each: a count of 256 or more, or a number
# past 2**24 (its length is then 1 more than a multiple of 8, where packed pairs make a multiple of 4)


class LexicalIndex:
    """`english`: chunk id -> the English reading of a Spanish-only chunk (`bot.retrieval.readings`), which
    is searched in the English index as well."""

    def __init__(self, chunks: list[Chunk], k1: float = 1.2, b: float = 0.75,
                 english: dict[int, str] | None = None, previous: LexicalIndex | None = None) -> None:
        """`previous`: the index of an earlier knowledge, whose tokens of unchanged chunks are reused."""
        self._n = len(chunks)
        self._by_lang: dict[str, tuple[np.ndarray, bm25s.BM25]] = {}
        known = previous._tokens if previous is not None else {}
        self._tokens: dict[TextKey, bytes] = {}  # each chunk's counted tokens (`_counted`), by its text
        self._vocab: dict[str, dict[str, int]] = {}  # per language: token -> its number ("" is 0)
        english = english or {}
        for lang in sorted({c.lang for c in chunks} | ({"en"} if english else set())):
            ids = np.array([c.id for c in chunks if c.lang == lang or (lang == "en" and c.id in english)],
                           dtype=np.int64)
            earlier = previous._vocab.get(lang) if previous is not None else None
            vocab = dict(earlier) if earlier else {"": 0}
            corpus: list[bytes] = []
            for i in ids:
                text = chunks[i].indexed_text if chunks[i].lang == lang else \
                    f"{chunks[i].indexed_text}\n{english[int(i)]}"
                key = text_key(lang, text)
                found = self._tokens.get(key) or known.get(key)
                if found is None:
                    found = _counted([vocab.setdefault(t, len(vocab)) for t in knowledge_tokens(text, lang) or [""]])
                self._tokens[key] = found
                corpus.append(found)
            engine = _Counted(k1=k1, b=b)
            engine.index((corpus, vocab), show_progress=False)  # a list and a dict: numbered tokens
            self._vocab[lang] = vocab
            self._by_lang[lang] = (ids, engine)

    @property
    def languages(self) -> list[str]:
        return list(self._by_lang)

    def scores(self, query_terms: Callable[[str], Sequence[str]]) -> dict[str, np.ndarray]:
        """Per language, BM25 scores of every chunk (0 for chunks of other languages) for a query's index terms
        in that language (`query_terms`: `Analysis.search_terms`, the reading of the question)."""
        out: dict[str, np.ndarray] = {}
        for lang, (ids, engine) in self._by_lang.items():
            full = np.zeros(self._n, dtype=np.float32)
            terms = list(query_terms(lang))
            if terms:
                full[ids] = engine.get_scores(terms)
            out[lang] = full
        return out


def _counted(numbers: list[int]) -> bytes:
    """A chunk's token numbers as (number, count) pairs: each in one little-endian 4-byte int, the number in its
    high 24 bits and the count in its low 8; or, when a pair does not fit (`_WIDE`), as two 4-byte ints each.
    One bytes object of the exact size (an `array` has a header of its own and grows in steps)."""
    counted = Counter(numbers)
    if max(counted) < 1 << _NUMBER_BITS and max(counted.values()) < 1 << _COUNT_BITS:
        return np.fromiter((n << _COUNT_BITS | c for n, c in counted.items()), dtype="<u4",
                           count=len(counted)).tobytes()
    return _WIDE + np.fromiter(chain.from_iterable(counted.items()), dtype="<i4", count=2 * len(counted)).tobytes()


def _pairs(corpus: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every chunk's token numbers and counts (`_counted`), one chunk after the other, and each chunk's number of
    pairs."""
    if all(len(doc) % 4 == 0 for doc in corpus):  # every pair packed (the usual case): read all at once
        numbers, counts = _unpacked(np.frombuffer(b"".join(corpus), dtype="<u4"))
        return numbers, counts, np.fromiter((len(doc) // 4 for doc in corpus), dtype=np.int64, count=len(corpus))
    read = [_unpacked(np.frombuffer(doc, dtype="<u4")) if len(doc) % 4 == 0 else
            tuple(np.frombuffer(doc, dtype="<i4", offset=len(_WIDE)).reshape(-1, 2).T) for doc in corpus]
    sizes = np.fromiter((len(numbers) for numbers, _ in read), dtype=np.int64, count=len(read))
    return (np.concatenate([numbers for numbers, _ in read]).astype(np.int32),
            np.concatenate([counts for _, counts in read]).astype(np.int32), sizes)


def _unpacked(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Packed pairs' numbers and counts."""
    return (words >> _COUNT_BITS).astype(np.int32), (words & ((1 << _COUNT_BITS) - 1)).astype(np.int32)


class _Counted(bm25s.BM25):
    """bm25s's BM25 (its scoring functions, its matrix and its search) over documents given as their tokens'
    counts (`_counted`). `build_index_from_ids` is bm25s's hook for building the index another way: this one
    computes every document's scores at once instead of one document at a time, with the same operations in
    the same order, so the matrix is the one bm25s makes from the token lists, to the bit."""

    def build_index_from_ids(self, unique_token_ids: list[int], corpus_token_ids: list[Any],
                             show_progress: bool = True, leave_progress: bool = False) -> dict[str, Any]:
        if self.method in self.methods_requiring_nonoccurrence:
            raise ValueError(f"BM25 method {self.method} is not built from counts")
        self.nonoccurrence_array = None
        n_docs, n_vocab = len(corpus_token_ids), len(unique_token_ids)
        numbers, counts, sizes = _pairs(corpus_token_ids)
        doc = np.repeat(np.arange(n_docs, dtype=np.int32), sizes)
        lengths = np.add.reduceat(counts.astype(np.int64), np.cumsum(sizes) - sizes)  # every doc has a token
        avg_doc_len = lengths.mean()
        # idf: bm25s's function, of each document frequency as a Python int, stored as `dtype`.
        frequencies = np.bincount(numbers, minlength=n_vocab)
        present = np.flatnonzero(frequencies)
        distinct, where = np.unique(frequencies[present], return_inverse=True)
        idf_of = _select_idf_scorer(self.idf_method)
        idf = np.zeros(n_vocab, dtype=self.dtype)
        idf[present] = np.array([idf_of(int(df), N=n_docs) for df in distinct], dtype=np.float64)[where]
        # tfc: bm25s's function, a document's length as a float64 (what its int becomes in the same expression).
        tfc = _select_tfc_scorer(self.method)(tf_array=counts.astype(self.dtype), l_d=lengths[doc].astype(np.float64),
                                              l_avg=avg_doc_len, k1=self.k1, b=self.b, delta=self.delta)
        scores = (idf[numbers] * tfc).astype(self.dtype)
        data, indices, indptr = self._np_csc(data=scores, rows=doc, cols=numbers.astype(self.int_dtype),
                                             shape=(n_docs, n_vocab))
        return {"data": data.astype(self.dtype), "indices": indices, "indptr": indptr, "num_docs": n_docs}
