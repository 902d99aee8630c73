"""BM25 over the chunks, one index per language (each with its own stemmer and stop words)."""

from __future__ import annotations

import logging

import bm25s
import numpy as np

from bot.knowledge.chunks import Chunk
from bot.text.tokens import tokens

logging.getLogger("bm25s").setLevel(logging.WARNING)


class LexicalIndex:
    """`english`: chunk id -> the English reading of a Spanish-only chunk (`bot.retrieval.readings`), which
    is searched in the English index as well."""

    def __init__(self, chunks: list[Chunk], k1: float = 1.2, b: float = 0.75,
                 english: dict[int, str] | None = None) -> None:
        self._n = len(chunks)
        self._by_lang: dict[str, tuple[np.ndarray, bm25s.BM25]] = {}
        english = english or {}
        for lang in sorted({c.lang for c in chunks} | ({"en"} if english else set())):
            ids = np.array([c.id for c in chunks if c.lang == lang or (lang == "en" and c.id in english)],
                           dtype=np.int64)
            corpus = [tokens(chunks[i].indexed_text if chunks[i].lang == lang
                             else f"{chunks[i].indexed_text}\n{english[int(i)]}", lang) for i in ids]
            engine = bm25s.BM25(k1=k1, b=b)
            engine.index([doc or [""] for doc in corpus], show_progress=False)
            self._by_lang[lang] = (ids, engine)

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
                full[ids] = engine.get_scores(terms)
            out[lang] = full
        return out
