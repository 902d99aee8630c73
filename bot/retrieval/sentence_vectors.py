"""The knowledge's sentence vectors, without a copy of the index's file in memory.

Sentences are most of the knowledge's vectors, and an answer reads the rows of two to four questions or
sections. So the index's `sentences.npy` is not read into memory: an answer reads the rows it needs from the
file (`os.pread`, from the system's page cache, which is not the process's memory). Mapping the file was tried:
the system maps a whole block of the file's cache at each first touch, so a few answers brought far more of it
into the process's memory than they read (docs/scale.md). A refresh does not make a new
array either: an unchanged document's rows stay where they are in that base, and only the rows of documents
changed since the start (embedded again, or moved) are held in a small array of their own, `delta`. So a
change copies none of the base, and a replica holds in memory the vectors of what changed since it started,
not of all it knows.
"""

from __future__ import annotations

import os
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

DTYPE = np.float16


@dataclass(frozen=True)
class SentenceVectors:
    """Sentence i's vector is row `rows[i]` of `base` followed by `delta`."""

    base: np.ndarray | OnDisk
    delta: np.ndarray
    rows: np.ndarray  # int64, one per sentence

    @classmethod
    def of(cls, vectors: np.ndarray) -> SentenceVectors:
        """Vectors held as one array, in the sentences' order."""
        width = vectors.shape[1] if vectors.ndim == 2 else 0
        return cls(vectors, np.zeros((0, width), dtype=vectors.dtype), np.arange(len(vectors), dtype=np.int64))

    @classmethod
    def on_disk(cls, path: Path) -> SentenceVectors:
        """The vectors of an index's `sentences.npy`, read from the file when asked when they are half floats
        (read into memory, and converted, when an older index wrote float32)."""
        rows = OnDisk.of(path)
        if rows is not None:
            return cls(rows, np.zeros((0, rows.shape[1]), dtype=DTYPE), np.arange(len(rows), dtype=np.int64))
        vectors = np.load(path, allow_pickle=False)
        return cls.of(vectors.astype(DTYPE) if vectors.dtype == np.float32 else vectors)

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), int(self.base.shape[1]) if self.base.ndim == 2 else 0

    @property
    def dtype(self) -> np.dtype:
        return self.base.dtype

    def __len__(self) -> int:
        return len(self.rows)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """Every sentence's vector, in order, in one array (what the index's file is written from)."""
        out = self.take(self.rows)
        return out if dtype is None else out.astype(dtype)

    def take(self, rows: np.ndarray) -> np.ndarray:
        """The vectors of `rows` (of base followed by delta), copied."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.empty((len(rows), self.base.shape[1]), dtype=self.base.dtype)
        in_base = rows < len(self.base)
        if isinstance(self.base, OnDisk):
            out[in_base] = self.base.read_rows(rows[in_base])
        else:
            out[in_base] = self.base[rows[in_base]]
        out[~in_base] = self.delta[rows[~in_base] - len(self.base)]
        return out

    def __getitem__(self, sentence: int) -> np.ndarray:
        return self.take(self.rows[sentence : sentence + 1])[0]

    def span(self, first: int, end: int) -> np.ndarray:
        """Rows first..end-1 of base followed by delta, all in one of them: a view of an array in memory, or
        read from the file."""
        base = len(self.base)
        if first >= base:
            return self.delta[first - base : end - base]
        if isinstance(self.base, OnDisk):
            return self.base.read(first, end)
        return self.base[first:end]

    def runs(self) -> Runs:
        """What tells, for any sentences start..end-1, whether their rows follow each other in one part."""
        return Runs(self)

    def is_finite(self) -> bool:
        """Whether every value is finite (a file's rows read a block at a time)."""
        if isinstance(self.base, OnDisk):
            finite = all(bool(np.isfinite(self.base.read(start, min(start + 16_384, len(self.base)))).all())
                         for start in range(0, len(self.base), 16_384))
        else:
            finite = bool(np.isfinite(self.base).all())
        return finite and bool(np.isfinite(self.delta).all())


class Runs:
    """The rows of consecutive sentences, read at once where they follow each other (every document's
    sentences, as loaded or refreshed)."""

    def __init__(self, vectors: SentenceVectors) -> None:
        self._vectors = vectors
        # breaks[i]: how many times the rows of sentences 0..i do not follow each other
        self._breaks = np.concatenate([[0], np.cumsum(np.diff(vectors.rows) != 1)])

    def together(self, start: int, end: int) -> bool:
        """Whether the rows of sentences start..end-1 follow each other in the base or in the delta."""
        if end <= start:
            return False
        first, last, base = int(self._vectors.rows[start]), int(self._vectors.rows[end - 1]), len(self._vectors.base)
        return self._breaks[end - 1] == self._breaks[start] and (last < base or first >= base)

    def read(self, start: int, end: int) -> np.ndarray:
        """The vectors of sentences start..end-1, whose rows are `together`."""
        first = int(self._vectors.rows[start])
        return self._vectors.span(first, first + end - start)


class OnDisk:
    """The rows of a 2-D `.npy` file of half floats, read when asked: each read is a copy of those rows only."""

    def __init__(self, path: Path, shape: tuple[int, int], offset: int) -> None:
        self.shape = shape
        self.dtype = np.dtype(DTYPE)
        self.ndim = 2
        self._offset = offset
        self._row_bytes = shape[1] * self.dtype.itemsize
        self._fd = os.open(path, os.O_RDONLY)  # the file as it is now: one written in its place is another
        weakref.finalize(self, os.close, self._fd)

    @classmethod
    def of(cls, path: Path) -> OnDisk | None:
        """The file's rows, or None when it does not hold a C-ordered 2-D array of half floats."""
        with path.open("rb") as f:
            version = np.lib.format.read_magic(f)
            reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, fortran, dtype = reader(f)
            offset = f.tell()
        size = path.stat().st_size
        if fortran or dtype != DTYPE or len(shape) != 2 or size < offset + shape[0] * shape[1] * dtype.itemsize:
            return None
        return cls(path, (int(shape[0]), int(shape[1])), offset)

    def __len__(self) -> int:
        return self.shape[0]

    def read(self, start: int, end: int) -> np.ndarray:
        """Rows start..end-1."""
        count = max(0, min(end, self.shape[0]) - start)
        data = os.pread(self._fd, count * self._row_bytes, self._offset + start * self._row_bytes)
        if len(data) != count * self._row_bytes:
            raise OSError(f"the sentence vectors' file ends before row {end}")
        return np.frombuffer(data, dtype=self.dtype).reshape(count, self.shape[1])

    def read_rows(self, rows: np.ndarray) -> np.ndarray:
        """The rows `rows`, in that order (a read for each run of consecutive ones)."""
        out = np.empty((len(rows), self.shape[1]), dtype=self.dtype)
        at = 0
        while at < len(rows):
            end = at + 1
            while end < len(rows) and rows[end] == rows[end - 1] + 1:
                end += 1
            out[at:end] = self.read(int(rows[at]), int(rows[end - 1]) + 1)
            at = end
        return out


def refreshed(earlier: SentenceVectors, count: int, blocks: list[tuple[int, int, int]],
              fill: np.ndarray, filled_rows: np.ndarray) -> SentenceVectors:
    """The vectors of `count` sentences made from `earlier`: `blocks` (now, then, how many) of unchanged
    documents, whose rows in the base are kept where they are (rows in `earlier.delta` are copied into the
    new delta), and the vectors `fill` of the sentences `filled_rows` (every other one, ascending)."""
    rows = np.full(count, -1, dtype=np.int64)
    pieces: list[np.ndarray] = []
    base = len(earlier.base)
    at = base
    for now, then, many in blocks:
        taken = earlier.rows[then : then + many]
        if many and int(taken.max()) < base:
            rows[now : now + many] = taken
        else:
            pieces.append(earlier.take(taken))
            rows[now : now + many] = np.arange(at, at + many)
            at += many
    if len(filled_rows):
        pieces.append(np.asarray(fill, dtype=DTYPE))
        rows[filled_rows] = np.arange(at, at + len(filled_rows))
    assert (rows >= 0).all(), "every sentence has a vector"
    width = earlier.base.shape[1]
    delta = np.concatenate(pieces) if pieces else np.zeros((0, width), dtype=DTYPE)
    return SentenceVectors(earlier.base, delta, rows)
