"""Shared pieces of the benchmarks: queries, percentiles and printing."""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
DEV_SET = ROOT.parent / "shared" / "eval" / "dev-queries.jsonl"
DEV_NEAR_NEGATIVES = ROOT.parent / "shared" / "eval" / "dev-near-negatives.jsonl"
OWN_SET = ROOT / "tests" / "eval" / "queries.jsonl"


def queries() -> list[str]:
    """The questions of the development set (if present) and of our own evaluation set."""
    out: list[str] = []
    for path in (DEV_SET, OWN_SET):
        if path.exists():
            out.extend(json.loads(line)["q"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return out


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def summary(values: list[float]) -> str:
    return f"p50 {ms(percentile(values, 50))}  p95 {ms(percentile(values, 95))}  mean {ms(statistics.fmean(values))}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start_server(env: dict[str, str], eksbot: str | None = None) -> tuple[str, subprocess.Popen[bytes], float]:
    """`eksbot serve` (this environment's, or `eksbot`) on a free loopback port: (base URL, process, seconds
    from start to /readyz 200). Its log is not kept (`start_logged_server` keeps it)."""
    return start_logged_server(env, Path(os.devnull), eksbot, timeout=None)


def proc_status_mb(pid: int, key: str = "VmRSS") -> float:
    """A memory figure of /proc/PID/status (VmRSS, VmHWM: the peak) in MB (10^6 bytes)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) * 1024 / 1e6
    return float("nan")


def start_logged_server(env: dict[str, str], log: Path, eksbot: str | None = None, *,
                        timeout: float | None = 900.0) -> tuple[str, subprocess.Popen[bytes], float]:
    """`eksbot serve` on a free loopback port with its stderr (its log) written to `log`: (base URL, process,
    seconds from start to /readyz 200). Gives up after `timeout` seconds (None: never), or when the log says
    the start-up failed."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    eksbot = eksbot or str(Path(sys.executable).parent / "eksbot")
    started = time.perf_counter()
    with log.open("ab") as stderr:
        server = subprocess.Popen([eksbot, "serve", "--port", str(port)], cwd=ROOT, env=env,
                                  stdout=subprocess.DEVNULL, stderr=stderr)
    while timeout is None or time.perf_counter() - started < timeout:
        try:
            if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                return base, server, time.perf_counter() - started
        except httpx.HTTPError:
            pass
        failed = [line for line in log.read_text(errors="replace").splitlines() if "start-up failed" in line]
        if server.poll() is not None:  # a server that cannot load its model or index says why, then exits
            reason = f": {failed[-1]}" if failed else ""
            raise SystemExit(f"the server exited during start-up{reason} (its log: {log})")
        if failed:
            stop_server(server)
            raise SystemExit(f"the server did not start: {failed[-1]}")
        time.sleep(0.02)
    stop_server(server)
    raise SystemExit(f"the server was not ready within {timeout:.0f} s (its log: {log})")


def stop_server(server: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """Terminate a server started here, killing it if it does not stop within `timeout` seconds."""
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


class LogTail:
    """The lines a log file gained since the last look."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def json_lines(self) -> list[dict[str, object]]:
        """The new complete lines that are JSON objects (others are skipped)."""
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            data = handle.read()
        end = data.rfind(b"\n") + 1
        self.offset += end
        out = []
        for line in data[:end].decode("utf-8", errors="replace").splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                out.append(value)
        return out
