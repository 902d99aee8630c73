"""The choice of embedding backend: the one module that knows every backend.

Backends (`EKSBOT_EMBEDDING_BACKEND`): `onnx` and `onnx-int8` run an export of the model with ONNX Runtime
(`bot.embedding.onnx_backend`; no PyTorch in the process); `torch` runs the model with sentence-transformers
(`bot.embedding.torch_backend`). Each backend is imported only when chosen.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from bot.embedding.model import local_model, model_identity
from bot.errors import IndexArtifactError

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.embedding.embedder import Embedder

log = logging.getLogger(__name__)


def configured_model_id(settings: Settings) -> str:
    """The model id the settings ask for, without loading the model. Where the model's files are not on this
    machine, an ONNX export made from a model of that name stands for it."""
    if settings.embedding_backend == "torch" or local_model(settings.embedding_model) is not None:
        return model_identity(settings.embedding_model)
    from bot.embedding.onnx_backend import ExportRecord, export_dir

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
        from bot.embedding.torch_backend import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(settings.embedding_model)
    from bot.embedding.onnx_backend import OnnxEmbedder, export_dir, stale_export_reason

    directory = export_dir(settings.index_dir, settings.embedding_backend)
    reason = stale_export_reason(directory, settings.embedding_model, settings.embedding_backend)
    if reason is not None:
        if not settings.auto_rebuild:
            raise IndexArtifactError(f"{reason}; run 'eksbot index build'")
        log.warning("exporting the model to ONNX: %s", reason)
        export_model(settings)
    return OnnxEmbedder(directory)


def export_problem(settings: Settings) -> str | None:
    """What is wrong with the ONNX export the settings' backend reads (its files' sha256 included); None when
    it serves, and for the torch backend, which reads the model itself."""
    if settings.embedding_backend == "torch":
        return None
    from bot.embedding.onnx_backend import damaged_export_files, export_dir, stale_export_reason

    directory = export_dir(settings.index_dir, settings.embedding_backend)
    reason = stale_export_reason(directory, settings.embedding_model, settings.embedding_backend)
    if reason is None and (damaged := damaged_export_files(directory)):
        reason = f"the ONNX export in {directory} has damaged files: {', '.join(damaged)}"
    return reason


def export_model(settings: Settings) -> None:
    """Export the configured model for the configured ONNX backend, next to the index (needs the build tools)."""
    try:
        from bot.embedding.export import export_onnx
    except ImportError as exc:
        raise IndexArtifactError(
            f"exporting the model to ONNX needs the build tools ({exc.name} is missing): "
            "pip install 'eksbot[build]', or build the index where they are installed"
        ) from exc
    from bot.embedding.onnx_backend import export_dir

    export_onnx(settings.embedding_model, export_dir(settings.index_dir, settings.embedding_backend),
                quantize=settings.embedding_backend == "onnx-int8")
