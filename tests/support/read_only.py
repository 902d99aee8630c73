"""A directory made read-only for real, whoever runs the tests.

Permission bits stop a user, not root (the suite runs as root in CI): there the directory is bind-mounted on
itself read-only, so every write fails with EROFS as on a read-only volume. Skipped with the reason when root
may not mount.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def read_only(directory: Path) -> Iterator[str]:
    """`directory` (and what is in it) read-only until the block ends; yields what a write fails with."""
    if os.geteuid() != 0:
        modes = {path: path.stat().st_mode for path in [directory, *directory.rglob("*")] if path.is_dir()}
        for path, mode in modes.items():
            path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        try:
            yield "Permission denied"
        finally:
            for path, mode in modes.items():
                path.chmod(mode)
        return
    try:
        subprocess.run(["mount", "--bind", str(directory), str(directory)], check=True, capture_output=True,
                       text=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"root cannot mount here, and permission bits do not stop root: {exc}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(directory)], check=True, capture_output=True,
                       text=True)
        yield "Read-only file system"
    finally:
        subprocess.run(["umount", "-l", str(directory)], check=False, capture_output=True)
