"""BM25 over the chunks, one index per language (each with its own stemmer and stop words)."""

from __future__ import annotations

import logging
import math
from collections import Counter

import bm25s
import numpy as np

from bot.chunking import Chunk
from bot.text import ALL_STOPWORDS, tokens, word_terms

logging.getLogger("bm25s").setLevel(logging.WARNING)


class LexicalIndex:
    def __init__(self, chunks: list[Chunk], k1: float = 1.2, b: float = 0.75) -> None:
        self._n = len(chunks)
        self._by_lang: dict[str, tuple[np.ndarray, bm25s.BM25, dict[str, float], list[set[str]]]] = {}
        self._terms_of: dict[int, set[str]] = {}  # chunk id -> its terms (in its own language)
        for lang in sorted({c.lang for c in chunks}):
            ids = np.array([c.id for c in chunks if c.lang == lang], dtype=np.int64)
            corpus = [tokens(chunks[i].indexed_text, lang) for i in ids]
            engine = bm25s.BM25(k1=k1, b=b)
            engine.index([doc or [""] for doc in corpus], show_progress=False)
            df = Counter(term for doc in corpus for term in set(doc))
            n = len(corpus)
            idf = {term: math.log(1 + (n - count + 0.5) / (count + 0.5)) for term, count in df.items()}
            idf[""] = math.log(1 + (n + 0.5) / 0.5)  # what a word the knowledge never uses weighs
            self._by_lang[lang] = (ids, engine, idf, [set(doc) for doc in corpus])
            for chunk_id, doc in zip(ids, corpus, strict=True):
                self._terms_of[int(chunk_id)] = set(doc)

    @property
    def languages(self) -> list[str]:
        return list(self._by_lang)

    def scores(self, query: str) -> dict[str, np.ndarray]:
        """Per language, BM25 scores of every chunk (0 for chunks of other languages)."""
        out: dict[str, np.ndarray] = {}
        for lang, (ids, engine, _idf, _sets) in self._by_lang.items():
            full = np.zeros(self._n, dtype=np.float32)
            terms = tokens(query, lang)
            if terms:
                full[ids] = engine.get_scores(terms)
            out[lang] = full
        return out

    def coverage(self, query: str, chunk_ids: dict[str, list[int]], languages: list[str]) -> float:
        """Share of the query's weight (IDF) found in the given chunks, in the editions `languages`.

        Each word counts once, matched if its term appears in the chunks of any of those languages (a
        Spanish question uses English terms: pass both), weighted by its lowest IDF where it was found;
        a word the knowledge never uses weighs the most.
        """
        per_lang: dict[str, tuple[tuple[tuple[str, ...], ...], dict[str, float], set[str]]] = {}
        for lang in languages:
            if lang not in self._by_lang:
                continue
            idf = self._by_lang[lang][2]
            present: set[str] = set()
            for chunk_id in chunk_ids.get(lang, []):
                present |= self._terms_of[chunk_id]
            per_lang[lang] = (word_terms(query, lang, ALL_STOPWORDS), idf, present)
        if not per_lang:
            return 0.0
        n_words = min(len(words) for words, _, _ in per_lang.values())
        total = matched = 0.0
        for w in range(n_words):
            # A word found weighs its lowest IDF among the editions it was found in ("train" is common
            # in the English edition, rare in the Spanish one); a word not found weighs the most it
            # weighs anywhere.
            found: list[float] = []
            missed: list[float] = []
            for words, idf, present in per_lang.values():
                terms = words[w]
                weight = idf.get(terms[0], idf[""])
                parts = terms[1:]
                hit = terms[0] in present or bool(parts and all(p in present for p in parts))
                (found if hit else missed).append(weight)
            total += min(found) if found else max(missed)
            matched += min(found) if found else 0.0
        return matched / total if total else 0.0
