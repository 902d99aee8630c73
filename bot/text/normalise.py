"""Folding text for comparison: no accents, lower case; and text cut to a length to be shown back."""

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


def shortened(text: str, limit: int) -> str:
    """At most `limit` characters, ending with "…" when cut (the spaces before the cut left out)."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
