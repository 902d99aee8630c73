"""Folding text for comparison: no accents, lower case."""

from __future__ import annotations

import unicodedata


def strip_accents(text: str) -> str:
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def fold(text: str) -> str:
    """Lower case without accents: 'Paralelismo de canalización' -> 'paralelismo de canalizacion'."""
    return strip_accents(text).lower()
