"""Deterministic fakes of the core's small interfaces, reusable across tests."""

from __future__ import annotations

import hashlib
import threading

import numpy as np

from bot.text import fold


class FakeEmbedder:
    """Bag of hashed words: the same text always gives the same unit vector; shared words mean closeness."""

    def __init__(self, dimension: int = 64, model_id: str = "fake-embedder@1") -> None:
        self._dimension = dimension
        self._model_id = model_id
        self.calls: list[list[str]] = []
        self.threads: list[str] = []  # the thread each call ran on

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        return self._dimension

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        self.threads.append(threading.current_thread().name)
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in fold(text).split():
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little")
                out[row, h % self._dimension] += 1.0
            norm = np.linalg.norm(out[row])
            out[row] = out[row] / norm if norm else out[row]
            if not norm:
                out[row, 0] = 1.0
        return out
