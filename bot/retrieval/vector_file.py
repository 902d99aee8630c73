"""Sentence vectors read from a file on demand (memory-mapped) instead of held in the process's memory.

An answer compares the question with the sentences of a few sections (`bot.retrieval.sentence_groups`): at
10,000 sections of docs the 50,000 sentence vectors are 78 MB, of which an answer reads a few KB. Mapped from a
file, only the pages read are in the process's memory, and the system's page cache keeps or drops the rest as
memory allows. The index's own file is mapped at start; the vectors of a knowledge changed while serving are
written to an unnamed temporary file (`TMPDIR`, gone when the index using it goes) and mapped from there.

Arrays under `MAPPED_MIN_BYTES` (today's knowledge: 0.35 MB) are simply held in memory.
"""

from __future__ import annotations

import logging
import mmap
import tempfile
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

MAPPED_MIN_BYTES = 16 * 2**20
_BLOCK_ROWS = 8192  # rows checked at a time when a mapped file is read


def read_vectors(path: Path) -> np.ndarray:
    """A float32 matrix saved with `np.save`; mapped when large. ValueError when the file holds anything else
    or a value that is not finite."""
    with path.open("rb") as file:
        version = np.lib.format.read_magic(file)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(file)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(file)
        offset = file.tell()
        if fortran or dtype != np.float32 or len(shape) != 2 or shape[0] * shape[1] * 4 < MAPPED_MIN_BYTES:
            vectors = np.load(path, allow_pickle=False)
            if vectors.dtype == np.float32 and not np.isfinite(vectors).all():
                raise ValueError("sentence vectors that are not finite")
            return vectors
        mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    if len(mapped) < offset + shape[0] * shape[1] * 4:
        raise ValueError(f"{path.name} is shorter than its header says")
    vectors = np.frombuffer(mapped, dtype=np.float32, count=shape[0] * shape[1], offset=offset).reshape(shape)
    for start in range(0, shape[0], _BLOCK_ROWS):
        if not np.isfinite(vectors[start : start + _BLOCK_ROWS]).all():
            raise ValueError("sentence vectors that are not finite")
    _drop_resident(mapped)
    return vectors


def on_file(vectors: np.ndarray) -> np.ndarray:
    """`vectors` as a read-only matrix mapped from an unnamed temporary file, when large (else as it is)."""
    if vectors.nbytes < MAPPED_MIN_BYTES:
        return vectors
    try:
        with tempfile.TemporaryFile(prefix="eksbot-vectors-") as file:
            np.ascontiguousarray(vectors, dtype=np.float32).tofile(file)
            file.flush()
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)  # the mapping keeps the file
    except OSError as exc:  # no room in TMPDIR: the vectors stay in memory, as they are
        log.warning("sentence vectors kept in memory: no temporary file for them (%s)", exc.__class__.__name__)
        return vectors
    return np.frombuffer(mapped, dtype=np.float32).reshape(vectors.shape)


def _drop_resident(mapped: mmap.mmap) -> None:
    """Unmap the pages a check has read: they stay in the page cache, not in the process's memory."""
    if hasattr(mmap, "MADV_DONTNEED"):
        mapped.madvise(mmap.MADV_DONTNEED)
