"""Mending misspelt words with the knowledge's own words (SymSpell's idea: index words by their deletions)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable


class Spelling:
    """Knowledge words by their deletions, to find the one a misspelt word meant (SymSpell's idea).

    The index is built the first time it is needed, or by `prepare` in the background after a start, so a start
    does not wait for it."""

    def __init__(self, words: Iterable[str], stems: Callable[[str], set[str]] | None = None) -> None:
        """`stems`: a word's stems (in each language the knowledge is written in); two closest words with a
        stem in common are forms of one word ("checkpoint", "checkpoints" for "checkpoins"), not a tie."""
        self._words = [w for w in words if w.isalpha()]
        self._stems = stems
        self._built = False
        self._lock = threading.Lock()
        # A deletion -> the word that has it, or a list of the words when several do (most have one, and a set
        # for each took several times the memory).
        self._index: dict[str, str | list[str]] = {}
        self._endings: dict[str, str | list[str]] = {}  # the last 3 to n-3 letters of a long word -> the word

    @property
    def ready(self) -> bool:
        """Whether the index is built."""
        return self._built

    def prepare(self) -> None:
        """Build the index now (off the request path: `Assistant.warm`), so no question waits for it."""
        if not self._built:
            self._build()

    def _build(self) -> None:
        with self._lock:
            if self._built:
                return
            for word in self._words:
                for variant in _deletions(word, _max_distance(word)):
                    _add(self._index, variant, word)
                for start in range(3, len(word) - 2):
                    _add(self._endings, word[start:], word)
            self._built = True

    def ending(self, word: str) -> str | None:
        """The one longer knowledge word that `word` ends ("dbd" for "slurmdbd", "ctld" for "slurmctld")."""
        if len(word) < 3 or not word.isalpha():
            return None
        if not self._built:
            self._build()
        found = self._endings.get(word)
        return found if isinstance(found, str) else None

    def closest(self, word: str) -> str | None:
        """The one knowledge word within edit distance 1 (2 for long words) of `word`, if only one is."""
        if len(word) < 5 or not word.isalpha():
            return None
        if not self._built:
            self._build()
        limit = _max_distance(word)
        candidates: set[str] = set()
        for variant in _deletions(word, limit):
            found = self._index.get(variant)
            if isinstance(found, str):
                candidates.add(found)
            elif found:
                candidates.update(found)
        scored = sorted((_distance(word, c), c) for c in candidates if c != word)
        scored = [(d, c) for d, c in scored if d <= limit]
        if not scored:
            return None
        best = [c for d, c in scored if d == scored[0][0]]
        if len(best) > 1 and not (self._stems is not None and set.intersection(*map(self._stems, best))):
            return None
        return min(best, key=lambda c: (len(c), c))


def _add(table: dict[str, str | list[str]], key: str, word: str) -> None:
    found = table.get(key)
    if found is None:
        table[key] = word
    elif isinstance(found, str):
        if found != word:
            table[key] = [found, word]
    elif word not in found:
        found.append(word)


def _max_distance(word: str) -> int:
    return 2 if len(word) >= 9 else 1


def _deletions(word: str, distance: int) -> set[str]:
    out = {word}
    frontier = {word}
    for _ in range(distance):
        frontier = {w[:i] + w[i + 1:] for w in frontier for i in range(len(w))}
        out |= frontier
    return out


def _distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (adjacent transpositions count one)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]
