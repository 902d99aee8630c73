"""Run `eksbot serve` as a real process (as in production) for restart and multi-replica tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.api_helpers import free_port, wait_ready

EKSBOT = str(Path(sys.executable).parent / "eksbot")


@contextmanager
def server_process(env: dict[str, str], log: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    full_env = {**os.environ, "EKSBOT_RATE_LIMIT": "0", **env}
    with log.open("ab") as out:
        process = subprocess.Popen([EKSBOT, "serve", "--port", str(port)], env=full_env, stdout=out, stderr=out)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(base, timeout=120)
        yield base, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
