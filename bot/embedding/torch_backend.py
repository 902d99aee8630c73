"""The `torch` backend: the model on PyTorch through sentence-transformers (needs the build tools)."""

from __future__ import annotations

import threading

import numpy as np

from bot.embedding.model import go_offline, model_identity, resolve_model
from bot.errors import ConfigError


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or the model named by the setting) on PyTorch, loaded from local files only."""

    backend = "torch"

    def __init__(self, name: str, device: str = "cpu") -> None:
        go_offline()
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigError(
                "EKSBOT_EMBEDDING_BACKEND=torch needs the build tools: pip install 'eksbot[build]'"
            ) from exc

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
        self.dimension = int(dim or 0)
        self.model_id = model_identity(name)
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> np.ndarray:
        import torch

        with self._lock, torch.inference_mode():
            vectors = self._model.encode(
                texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)
