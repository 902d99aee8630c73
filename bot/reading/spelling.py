"""Mending misspelt words with the knowledge's own words (SymSpell's idea: index words by their deletions)."""

from __future__ import annotations

import threading
from array import array
from collections.abc import Callable, Iterable

import numpy as np


class Spelling:
    """Knowledge words by their deletions, to find the one a misspelt word meant (SymSpell's idea).

    The index is built the first time it is needed, or by `prepare` in the background after a start, so a start
    does not wait for it."""

    def __init__(self, words: Iterable[str], stems: Callable[[str], set[str]] | None = None) -> None:
        """`stems`: a word's stems (in each language the knowledge is written in); two closest words with a
        stem in common are forms of one word ("checkpoint", "checkpoints" for "checkpoins"), not a tie."""
        self._words = [w for w in words if w.isalpha()][: 1 << NUMBER_BITS]  # each numbered in `_Table`
        self._stems = stems
        self._built = False
        self._lock = threading.Lock()
        self._index = _Table()  # a deletion -> the words that have it
        self._endings = _Table()  # the last 3 to n-3 letters of a long word -> the word

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
            deletions, endings = array("Q"), array("Q")
            for number, word in enumerate(self._words):
                deletions.extend(_entry(variant, number) for variant in _deletions(word, _max_distance(word)))
                endings.extend(_entry(word[start:], number) for start in range(3, len(word) - 2))
            self._index, self._endings = _Table(deletions), _Table(endings)
            self._built = True

    def ending(self, word: str) -> str | None:
        """The one longer knowledge word that `word` ends ("dbd" for "slurmdbd", "ctld" for "slurmctld")."""
        if len(word) < 3 or not word.isalpha():
            return None
        if not self._built:
            self._build()
        found = [self._words[number] for number in self._endings.get([word])]
        return found[0] if len(found) == 1 and found[0].endswith(word) else None  # (a hash shared by two: none)

    def closest(self, word: str) -> str | None:
        """The one knowledge word within edit distance 1 (2 for long words) of `word`, if only one is."""
        if len(word) < 5 or not word.isalpha():
            return None
        if not self._built:
            self._build()
        limit = _max_distance(word)
        candidates = {self._words[number] for number in self._index.get(_deletions(word, limit))}
        scored = sorted((_distance(word, c), c) for c in candidates if c != word)
        scored = [(d, c) for d, c in scored if d <= limit]
        if not scored:
            return None
        best = [c for d, c in scored if d == scored[0][0]]
        if len(best) > 1 and not (self._stems is not None and set.intersection(*map(self._stems, best))):
            return None
        return min(best, key=lambda c: (len(c), c))


NUMBER_BITS = 24  # a word's number in the low bits of a table's entry (16 million words), its key's hash above


class _Table:
    """Strings -> the numbers of the words that have them, as one sorted array of 64-bit entries (`_entry`): a
    string's hash (in this process) in the high bits, a word's number in the low ones. A tenth of the memory of a
    dict of the strings (at 10,000 sections of docs, hundreds of thousands of deletions). A hash shared by two
    strings only adds a candidate, which the edit distance then rules out."""

    def __init__(self, entries: array[int] | None = None) -> None:
        """`entries` are sorted where they are (no copy of them is made) and kept."""
        self._sorted = np.frombuffer(array("Q") if entries is None else entries, dtype=np.uint64)
        self._sorted.sort()

    def get(self, texts: Iterable[str]) -> set[int]:
        """The numbers of the words that have any of `texts` (a misspelt word's deletions: most have none)."""
        low = np.array([_entry(text, 0) for text in texts], dtype=np.uint64)
        starts = np.searchsorted(self._sorted, low)
        ends = np.searchsorted(self._sorted, low + np.uint64(1 << NUMBER_BITS))
        found = ends > starts
        return {number for start, end in zip(starts[found].tolist(), ends[found].tolist(), strict=True)
                for number in (self._sorted[start:end] & np.uint64(_NUMBER)).tolist()}


_NUMBER = (1 << NUMBER_BITS) - 1


def _entry(text: str, number: int) -> int:
    """A table's entry for a string and a word's number: the string's hash above the number, with one bit to spare
    (so that the next hash's first entry is a 64-bit number too)."""
    return (hash(text) & ((1 << (63 - NUMBER_BITS)) - 1)) << NUMBER_BITS | number


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
