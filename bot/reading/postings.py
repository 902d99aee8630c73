"""Where the knowledge uses a word, as numbers: each question's or section's number (`KeyTable`), the sorted
numbers of the questions or sections each term is in (`Postings`), and the ones a word of a question is in
(`KeySet`, what `bot.reading.terms.QueryWord.where` holds).

The index builds them (`bot.retrieval.knowledge_terms`); the reading of a question looks its words up in them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np


class KeyTable:
    """A number for each question or section key, kept by the tables made from this one: a key keeps its
    number across refreshes, so sets of numbers made over two of them can be compared."""

    def __init__(self, keys: Iterable[object], previous: KeyTable | None = None) -> None:
        self.keys: list[object] = list(previous.keys) if previous is not None else []
        self.id_of: dict[object, int] = dict(previous.id_of) if previous is not None else {}
        for key in keys:
            if key not in self.id_of:
                self.id_of[key] = len(self.keys)
                self.keys.append(key)


_NO_IDS = np.zeros(0, dtype=np.int32)
_SMALL = 32  # a set of at most this many is looked in as a list


def union_ids(arrays: list[np.ndarray]) -> np.ndarray:
    """The sorted numbers in any of `arrays` (each sorted, without repeats)."""
    found = [a for a in arrays if a.size]
    if len(found) <= 1:
        return found[0] if found else _NO_IDS
    return np.unique(np.concatenate(found))


class Postings(dict[str, bytes]):
    """Each term of one language with the sorted numbers of its questions or sections, read as an array.
    Stored as the bytes of the numbers: a numpy array costs a fixed overhead besides its numbers, paid once per
    term, and the terms grow with the knowledge (docs/scale.md). A term in one question
    only shares that question's."""

    def __getitem__(self, term: str) -> np.ndarray:  # type: ignore[override]
        return np.frombuffer(dict.__getitem__(self, term), dtype=np.int32)

    def get(self, term: str, default: np.ndarray = _NO_IDS) -> np.ndarray:  # type: ignore[override]
        stored = dict.get(self, term)
        return default if stored is None else np.frombuffer(stored, dtype=np.int32)

    def set(self, term: str, ids: bytes) -> None:
        dict.__setitem__(self, term, ids)

    def arrays(self) -> Iterator[tuple[str, np.ndarray]]:
        return ((term, np.frombuffer(ids, dtype=np.int32)) for term, ids in dict.items(self))


class KeySet:
    """The questions or sections a word is in: their numbers in a `KeyTable`, sorted, as one small array
    (a common word is in thousands of sections; as a `frozenset` of keys each would take ten times more)."""

    __slots__ = ("ids", "_table")

    def __init__(self, ids: np.ndarray = _NO_IDS, table: KeyTable | None = None) -> None:
        self.ids = ids
        self._table = table

    @classmethod
    def union(cls, *sets: KeySet) -> KeySet:
        return cls(union_ids([s.ids for s in sets]), next((s._table for s in sets if s._table is not None), None))

    def __contains__(self, key: object) -> bool:
        number = self._table.id_of.get(key) if self._table is not None else None
        if number is None:
            return False
        ids = self.ids
        if ids.size <= _SMALL:  # most words are in a few sections: a list is quicker to look in
            return number in ids.tolist()
        at = int(ids.searchsorted(number))
        return at < ids.size and int(ids[at]) == number

    def __len__(self) -> int:
        return int(self.ids.size)

    def __bool__(self) -> bool:
        return self.ids.size > 0

    def __iter__(self) -> Iterator[object]:
        keys = self._table.keys if self._table is not None else []
        return (keys[i] for i in self.ids.tolist())

    def __and__(self, other: KeySet) -> KeySet:
        return KeySet(np.intersect1d(self.ids, other.ids, assume_unique=True), self._table or other._table)

    def __or__(self, other: KeySet) -> KeySet:
        return KeySet.union(self, other)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, KeySet):
            return set(self) == set(other)
        if isinstance(other, (set, frozenset)):
            return set(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"KeySet({sorted(map(repr, self))})"
