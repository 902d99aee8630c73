"""Shared pieces of the benchmarks: queries, percentiles and printing."""

from __future__ import annotations

import json
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
    from start to /readyz 200)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    eksbot = eksbot or str(Path(sys.executable).parent / "eksbot")
    started = time.perf_counter()
    server = subprocess.Popen([eksbot, "serve", "--port", str(port)], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                return base, server, time.perf_counter() - started
        except httpx.HTTPError:
            pass
        if server.poll() is not None:
            raise SystemExit("the server exited during start-up")
        time.sleep(0.02)
