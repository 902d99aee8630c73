"""What the index needs of an embedding model, whatever runs it."""

from __future__ import annotations

import hashlib
from typing import Protocol

import numpy as np

CUSTOM_BACKEND = "custom"  # what an index built by any other Embedder implementation records


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def encode(self, texts: list[str]) -> np.ndarray: ...


def backend_of(embedder: Embedder) -> str:
    """The backend an embedder runs on ("onnx", "onnx-int8", "torch"); "custom" for other implementations."""
    return str(getattr(embedder, "backend", CUSTOM_BACKEND))


def model_digest(embedder: Embedder) -> str:
    """Names the vectors an embedder gives: its model (whose id names the model's files), the backend that runs
    it (int8 weights give other vectors) and their dimension. Two embedders with the same digest give the same
    vector for the same text, so a vector kept under it serves any of them (64 hex digits)."""
    named = f"{embedder.model_id}\n{backend_of(embedder)}\n{embedder.dimension}"
    return hashlib.sha256(named.encode()).hexdigest()
