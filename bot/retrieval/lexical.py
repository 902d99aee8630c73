"""BM25 over the chunks (bm25s: Lucene's variant, k1 1.2, b 0.75), one index per language, each with its own
stemmer and stop words.

Each chunk's tokens are kept by its text, as numbers in the language's vocabulary (4 bytes a token, where a
list of strings took 8): an index made from an earlier one (`previous`) tokenises only the chunks whose text
changed, and hands bm25s the rest as they were, already numbered, so bm25s neither collects the vocabulary nor
looks up every token again (tokenising every chunk was most of a rebuild's lexical side). A vocabulary only
grows: the one of an earlier index is copied and extended, never changed, since the index in use reads it
while the next is made; the words of removed documents stay in it, with no document (a score of 0).
"""

from __future__ import annotations

import logging
from array import array

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
        self._tokens: dict[TextKey, array[int]] = {}  # each chunk's tokens (numbers in `_vocab`), by its text
        self._vocab: dict[str, dict[str, int]] = {}  # per language: token -> its number ("" is 0)
        english = english or {}
        for lang in sorted({c.lang for c in chunks} | ({"en"} if english else set())):
            ids = np.array([c.id for c in chunks if c.lang == lang or (lang == "en" and c.id in english)],
                           dtype=np.int64)
            earlier = previous._vocab.get(lang) if previous is not None else None
            vocab = dict(earlier) if earlier else {"": 0}
            corpus: list[array[int]] = []
            for i in ids:
                text = chunks[i].indexed_text if chunks[i].lang == lang else \
                    f"{chunks[i].indexed_text}\n{english[int(i)]}"
                key = text_key(lang, text)
                found = self._tokens.get(key) or known.get(key)
                if found is None:
                    found = array("i", [vocab.setdefault(t, len(vocab)) for t in tokens(text, lang) or [""]])
                self._tokens[key] = found
                corpus.append(found)
            engine = bm25s.BM25(k1=k1, b=b)
            engine.index((corpus, vocab), show_progress=False)  # a list and a dict: numbered tokens
            self._vocab[lang] = vocab
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
