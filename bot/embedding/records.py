"""JSON records kept beside the index (its manifest, the ONNX export's record), read back as dataclasses."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any, TypeVar

from bot.errors import IndexArtifactError

T = TypeVar("T")


def read_record(cls: type[T], path: Path, *, missing: str, fix: str = "") -> T:
    """The dataclass `cls` from the JSON file at `path`; IndexArtifactError with `missing` when there is no
    file, or with what is wrong when it cannot be read as one (both with `fix`)."""
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return cls(**{f.name: data[f.name] for f in fields(cls)})  # type: ignore[arg-type]
    except FileNotFoundError as exc:
        raise IndexArtifactError(missing, fix=fix) from exc
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise IndexArtifactError(f"{path} is unreadable ({exc})", fix=fix) from exc
