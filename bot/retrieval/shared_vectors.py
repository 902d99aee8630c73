"""Vectors shared through a store outside the process (the database every replica uses): an index build reads
the vector of each text some build embedded before, with the same model, instead of embedding it again, and
keeps there the vectors it embedded. So a new replica embeds only the text no replica embedded before.

A vector is kept under the model's digest (`bot.embedding.embedder.model_digest`) and the sha256 of the exact
text embedded, as `dimension` little-endian float32: what the model gave, exactly.

The store is a help, never a need: each call to it is bounded by a timeout, and the first one that fails or
times out is logged (one warning) and ends the sharing for the rest of that build, which embeds what it lacks as
it would without a store. The retrieval does not know the database: the wiring (`bot.services`) hands it any
object with the two methods of `VectorSource` (`bot.storage.VectorStore` is one).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import Protocol, TypeVar

import numpy as np

from bot.embedding.embedder import Embedder, model_digest

log = logging.getLogger(__name__)

READ_CALL = 2000  # text digests asked for in one call (one query)
KEEP_CALL = 1000  # vectors written in one call
TIMEOUT = 10.0  # seconds one call may take before the build goes on without the store
STORED = np.dtype("<f4")  # how a vector is kept: little-endian float32

T = TypeVar("T")


class VectorSource(Protocol):
    """Where vectors are shared: rows of (text digest, dimension, float32 bytes) under a model's digest."""

    def vectors(self, model: str, digests: Sequence[str]) -> Sequence[tuple[str, int, bytes]]: ...

    def keep(self, model: str, rows: Sequence[tuple[str, int, bytes]]) -> None: ...


def text_digest(text: str) -> str:
    """The key of a text's vector: the sha256 of the exact text embedded."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SharedVectors:
    """The vectors of `source`, for index builds: `session(embedder)` for each build. `timeout` bounds each call
    to the source; `where` names it in the warning when it fails."""

    def __init__(self, source: VectorSource, *, timeout: float = TIMEOUT, where: str = "the database") -> None:
        self.source = source
        self.timeout = timeout
        self.where = where

    def session(self, embedder: Embedder) -> VectorSharing:
        return VectorSharing(self, embedder)


class VectorSharing:
    """The sharing of one build: reads and writes under `embedder`'s model digest, until a call fails."""

    def __init__(self, shared: SharedVectors, embedder: Embedder) -> None:
        self.shared = shared
        self.model = model_digest(embedder)
        self.dimension = embedder.dimension
        self.failed: str | None = None  # why the store was given up for this build
        self.read = 0  # vectors read from the store
        self.kept = 0  # vectors written to it

    def known(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vector (float32) of each of `texts` that has one; empty once the store has failed. A
        stored row of another width, or not finite, is left out (its text is embedded again)."""
        out: dict[str, np.ndarray] = {}
        for first in range(0, len(texts), READ_CALL):
            wanted = {text_digest(text): text for text in texts[first : first + READ_CALL]}
            ok, rows = self._call("reading", partial(self.shared.source.vectors, self.model, list(wanted)))
            if not ok or rows is None:
                break
            for digest, dimension, blob in rows:
                text = wanted.get(digest)
                if text is None or dimension != self.dimension or len(blob) != dimension * STORED.itemsize:
                    continue
                vector = np.frombuffer(blob, dtype=STORED).astype(np.float32)
                if np.isfinite(vector).all():
                    out[text] = vector
        self.read += len(out)
        return out

    def keep(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Write the vectors of `texts` (rows of `vectors`, as the model gave them) to the store; nothing once
        it has failed."""
        for first in range(0, len(texts), KEEP_CALL):
            if self.failed is not None:
                return
            rows = [(text_digest(text), self.dimension, np.asarray(vector, dtype=STORED).tobytes())
                    for text, vector in zip(texts[first : first + KEEP_CALL], vectors[first : first + KEEP_CALL],
                                            strict=True)]
            if not self._call("writing", partial(self.shared.source.keep, self.model, rows))[0]:
                return
            self.kept += len(rows)

    def _call(self, doing: str, call: Callable[[], T]) -> tuple[bool, T | None]:
        """`call()` on a thread of its own, waited for at most the timeout: (True, what it returned), or
        (False, None) when it fails or is late (the first time, said in one warning; then the store is not asked
        again in this build)."""
        if self.failed is not None:
            return False, None
        done = threading.Event()
        returned: list[T] = []
        raised: list[Exception] = []

        def run() -> None:
            try:
                returned.append(call())
            except Exception as exc:  # noqa: BLE001 - whatever the store raises, the build goes on without it
                raised.append(exc)
            finally:
                done.set()

        threading.Thread(target=run, name="shared-vectors", daemon=True).start()
        if not done.wait(self.shared.timeout):
            reason = f"no answer in {self.shared.timeout:g} s"
        elif raised or not returned:
            reason = str(raised[0]) if raised else "it stopped"
        else:
            return True, returned[0]
        self.failed = f"{doing} {self.shared.where} failed: {reason}"
        log.warning("vectors are not shared in this build (%s): the texts are embedded here", self.failed)
        return False, None
