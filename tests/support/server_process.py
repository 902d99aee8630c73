"""Run `eksbot serve` as a real process (as in production) for restart and multi-replica tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.api_helpers import free_port, wait_ready

EKSBOT = str(Path(sys.executable).parent / "eksbot")


def start_server(env: dict[str, str], log: Path) -> tuple[str, subprocess.Popen[bytes]]:
    """Start `eksbot serve` on a free port (not yet ready); returns its base URL and process."""
    port = free_port()
    full_env = {**os.environ, "EKSBOT_RATE_LIMIT": "0", **env}
    with log.open("ab") as out:
        process = subprocess.Popen([EKSBOT, "serve", "--port", str(port)], env=full_env, stdout=out, stderr=out)
    return f"http://127.0.0.1:{port}", process


def stop_server(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def server_process(env: dict[str, str], log: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    base, process = start_server(env, log)
    try:
        wait_ready(base, timeout=120, database=True)
        yield base, process
    finally:
        stop_server(process)
