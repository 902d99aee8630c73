"""BM25 over the chunks (bm25s: Lucene's variant, k1 1.2, b 0.75), one index per language, each with its own
stemmer and stop words.

Each chunk's tokens are kept by its text: an index made from an earlier one (`previous`) tokenises only the
chunks whose text changed, and hands bm25s the rest as they were (tokenising every chunk was most of a
rebuild's lexical side; bm25s's own indexing of the token lists takes under a second at 10,000 sections).
"""

from __future__ import annotations

import logging
import sys

import bm25s
import numpy as np

from bot.knowledge.chunks import Chunk
from bot.retrieval.knowledge_terms import TextKey, text_key
from bot.text.tokens import tokens

logging.getLogger("bm25s").setLevel(logging.WARNING)


class LexicalIndex:
    """`english`: chunk id -> the English reading of a Spanish-only chunk (`bot.retrieval.readings`), which
    is searched in the English index as well."""

    def __init__(self, chunks: list[Chunk], k1: float = 1.2, b: float = 0.75,
                 english: dict[int, str] | None = None, previous: LexicalIndex | None = None) -> None:
        """`previous`: the index of an earlier knowledge, whose tokens of unchanged chunks are reused."""
        self._n = len(chunks)
        self._by_lang: dict[str, tuple[np.ndarray, bm25s.BM25]] = {}
        known = previous._tokens if previous is not None else {}
        self._tokens: dict[TextKey, list[str]] = {}  # each chunk's tokens, by its text
        english = english or {}
        for lang in sorted({c.lang for c in chunks} | ({"en"} if english else set())):
            ids = np.array([c.id for c in chunks if c.lang == lang or (lang == "en" and c.id in english)],
                           dtype=np.int64)
            corpus: list[list[str]] = []
            for i in ids:
                text = chunks[i].indexed_text if chunks[i].lang == lang else \
                    f"{chunks[i].indexed_text}\n{english[int(i)]}"
                key = text_key(lang, text)
                found = self._tokens.get(key) or known.get(key)
                if found is None:
                    found = [sys.intern(t) for t in tokens(text, lang)] or [""]  # one string per distinct token
                self._tokens[key] = found
                corpus.append(found)
            engine = bm25s.BM25(k1=k1, b=b)
            engine.index(corpus, show_progress=False)
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
