"""Large sentence vectors are read from a file on demand (memory-mapped): the same values, read-only, and a file
that holds anything else is refused as it is read."""

from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np
import pytest

from bot.retrieval import vector_file
from bot.retrieval.vector_file import on_file, read_vectors


def mapped(array: np.ndarray) -> bool:
    base = array.base
    while isinstance(base, np.ndarray):
        base = base.base
    return isinstance(base.obj if isinstance(base, memoryview) else base, mmap.mmap)


@pytest.fixture
def vectors() -> np.ndarray:
    return np.random.default_rng(3).standard_normal((300, 16)).astype(np.float32)


@pytest.fixture(autouse=True)
def small_files_mapped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_file, "MAPPED_MIN_BYTES", 1024)


def test_a_saved_matrix_is_mapped_with_its_values(tmp_path: Path, vectors: np.ndarray) -> None:
    np.save(tmp_path / "v.npy", vectors)
    read = read_vectors(tmp_path / "v.npy")
    assert np.array_equal(read, vectors) and not read.flags.writeable and mapped(read)


def test_a_small_matrix_stays_in_memory(tmp_path: Path, vectors: np.ndarray) -> None:
    np.save(tmp_path / "v.npy", vectors[:4])
    assert not mapped(read_vectors(tmp_path / "v.npy"))


def test_a_value_that_is_not_finite_is_refused(tmp_path: Path, vectors: np.ndarray) -> None:
    vectors[250, 3] = np.nan
    np.save(tmp_path / "v.npy", vectors)
    with pytest.raises(ValueError, match="not finite"):
        read_vectors(tmp_path / "v.npy")


def test_a_file_shorter_than_its_header_is_refused(tmp_path: Path, vectors: np.ndarray) -> None:
    np.save(tmp_path / "v.npy", vectors)
    data = (tmp_path / "v.npy").read_bytes()
    (tmp_path / "v.npy").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError):
        read_vectors(tmp_path / "v.npy")


def test_vectors_put_on_file_keep_their_values(vectors: np.ndarray) -> None:
    on_disk = on_file(vectors)
    assert np.array_equal(on_disk, vectors) and not on_disk.flags.writeable and mapped(on_disk)
    assert not mapped(on_file(vectors[:4]))


def test_without_room_for_the_file_the_vectors_stay_in_memory(vectors: np.ndarray, monkeypatch: pytest.MonkeyPatch,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    def no_room(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(vector_file.tempfile, "TemporaryFile", no_room)
    kept = on_file(vectors)
    assert kept is vectors and "kept in memory" in caplog.text
