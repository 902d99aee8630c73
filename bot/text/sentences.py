"""Prose cut into sentences and list items."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZÁÉÍÓÚÑ¿¡])")
_ITEM_MARK = re.compile(r"^\s*(?:[-*•]|\d+\.)\s+")


def sentences(text: str) -> list[str]:
    """Split prose into sentences and list items; keeps each item whole."""
    out: list[str] = []
    for line in text.split("\n"):
        line = _ITEM_MARK.sub("", line).strip()
        if not line:
            continue
        out.extend(part.strip() for part in _SENTENCE_END.split(line) if part.strip())
    return out
