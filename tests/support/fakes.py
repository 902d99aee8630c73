"""Deterministic fakes of the core's small interfaces, reusable across tests."""

from __future__ import annotations

import hashlib
import re
import threading
from functools import lru_cache

import numpy as np

from bot.answering.answerability import FEATURES, Model
from bot.text.normalise import fold
from bot.text.tokens import ALL_STOPWORDS

_WORD = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=65536)
def _word_vector(word: str, dimension: int) -> np.ndarray:
    """A fixed random direction per word (seeded by the word): two different words are nearly orthogonal."""
    seed = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
    return np.random.default_rng(seed).standard_normal(dimension).astype(np.float32)


class FakeEmbedder:
    """An `Embedder` (bot/embedding/embedder.py) for tests: the sum of a random direction per content word,
    L2-normalised float32.

    The same text always gives the same vector; texts that share words (stop words aside) are close, texts
    that share none are nearly orthogonal. It loads nothing and takes microseconds."""

    def __init__(self, dimension: int = 384, model_id: str = "fake-embedder@1", backend: str = "custom") -> None:
        self.backend = backend  # what an index built with it records ("custom", as any other implementation)
        self.dimension = dimension
        self.model_id = model_id
        self.calls: list[list[str]] = []
        self.threads: list[str] = []  # the thread each call ran on


    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        self.threads.append(threading.current_thread().name)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(fold(text)):
                if word not in ALL_STOPWORDS:
                    out[row] += _word_vector(word, self.dimension)
            norm = float(np.linalg.norm(out[row]))
            if norm:
                out[row] /= norm
            else:
                out[row, 0] = 1.0  # no content word: still a unit vector
        return out


def lexical_model() -> Model:
    """An answerability `Model` for the fake embedder, whose cosines mean nothing: it answers when the
    best quiz question uses most of the question's words (`broad_found`), unless the question asks what
    something is and the quiz only mentions it, or it names things the knowledge never mentions."""
    weights = dict.fromkeys(FEATURES, 0.0)
    weights.update(broad_found=12.0, named_unknown=-8.0, undefined=-12.0)
    return Model(
        features=FEATURES, mean=tuple(0.0 for _ in FEATURES), scale=tuple(1.0 for _ in FEATURES),
        weights=tuple(weights[name] for name in FEATURES), bias=-6.0, threshold=0.5,
    )
