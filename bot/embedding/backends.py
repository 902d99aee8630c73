"""The choice of embedding backend: the one module that knows every backend.

Backends (`EKSBOT_EMBEDDING_BACKEND`): `onnx` and `onnx-int8` run an export of the model with ONNX Runtime
(`bot.embedding.onnx_backend`; no PyTorch in the process); `torch` runs the model with sentence-transformers
(`bot.embedding.torch_backend`). Each backend is imported only when chosen. An ONNX export is made by a
process of its own (`python -m bot.embedding.export`), so that PyTorch never enters the process that serves.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from typing import TYPE_CHECKING

from bot.embedding.model import local_model, model_identity
from bot.errors import IndexArtifactError

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.embedding.embedder import Embedder

log = logging.getLogger(__name__)

# The module run as `python -m` to make an export. PyTorch, once imported, stays in a process (hundreds of
# megabytes of libraries and the model's weights): a server that made its own export at its first start would
# serve with all of it loaded. In a child process it is gone when the export is written.
EXPORTER = "bot.embedding.export"


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
        try:
            export_model(settings)
        except IndexArtifactError as exc:
            raise IndexArtifactError(f"{reason}, and {exc}") from exc
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
    """Export the configured model for the configured ONNX backend, next to the index (needs the build tools),
    in a child process (`EXPORTER`); IndexArtifactError with the child's last line when it fails."""
    from bot.embedding.onnx_backend import export_dir

    directory = export_dir(settings.index_dir, settings.embedding_backend)
    # -P: the working directory is not put first on the child's path, where a folder named like one of ours
    # would be imported instead.
    command = [sys.executable, "-P", "-m", EXPORTER, settings.embedding_model, str(directory)]
    if settings.embedding_backend == "onnx-int8":
        command.append("--quantize")
    # Its output is kept, not shown: the build tools' own warnings and progress are not in the service's log
    # format. Its last line is the reason when it fails.
    result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace",
                            check=False)
    if result.returncode != 0:
        lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
        said = lines[-1] if lines else f"exit code {result.returncode}"
        raise IndexArtifactError(f"exporting the model to ONNX failed: {said}")
    log.info("model exported to ONNX", extra={"backend": settings.embedding_backend, "directory": str(directory)})
