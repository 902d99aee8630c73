"""The HTTP service under load, against the bare model measured in the same run.

    .venv/bin/python bench/http_load.py [--requests 400] [--clients 16]

Starts `eksbot serve` on a free loopback port (rate limit off) and prints:
cold start (process start to /readyz 200); p50 of POST /v1/query at 1 client vs the bare
`model.encode` p50 of the same queries (target <= 1.5x); throughput at 16 concurrent clients vs bare
batched encode throughput at batch 16 (target >= 0.5x, no errors); server RSS after 10 and after
1,000 queries (target: within 10%).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, percentile, queries, summary  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def run_clients(base: str, qs: list[str], total: int, clients: int) -> tuple[float, list[float], int]:
    """`clients` concurrent keep-alive clients (aiohttp: a light client, to leave the cores to the server)."""
    latencies: list[float] = []
    errors = 0
    counter = iter(range(total))

    async def client(http: aiohttp.ClientSession) -> None:
        nonlocal errors
        for i in counter:
            t0 = time.perf_counter()
            async with http.post(f"{base}/v1/query", json={"question": qs[i % len(qs)]}) as response:
                await response.read()
                if response.status != 200:
                    errors += 1
            latencies.append(time.perf_counter() - t0)

    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(connector=connector) as http:
        started = time.perf_counter()
        await asyncio.gather(*(client(http) for _ in range(clients)))
        elapsed = time.perf_counter() - started
    return elapsed, latencies, errors


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    qs = queries()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "EKSBOT_RATE_LIMIT": "0", "EKSBOT_LOG_LEVEL": "WARNING"}
    eksbot = str(Path(sys.executable).parent / "eksbot")
    started = time.perf_counter()
    server = subprocess.Popen([eksbot, "serve", "--port", str(port)], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None:
                raise SystemExit("server exited during start-up")
            time.sleep(0.05)
        cold = time.perf_counter() - started

        from bot.config import load_settings
        from bot.embeddings import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder(load_settings().embedding_model)
        for q in qs[:10]:
            embedder.encode([q])
        encode = []
        for q in qs:
            t0 = time.perf_counter()
            embedder.encode([q])
            encode.append(time.perf_counter() - t0)
        batches = [qs[i : i + 16] for i in range(0, len(qs) - 15, 16)]
        t0 = time.perf_counter()
        for batch in batches:
            embedder.encode(batch)
        bare_throughput = sum(len(b) for b in batches) / (time.perf_counter() - t0)

        with httpx.Client(base_url=base, timeout=60) as http:
            for q in qs[:10]:
                http.post("/v1/query", json={"question": q})
            rss_10 = rss_mib(server.pid)
            single = []
            for q in qs:
                t0 = time.perf_counter()
                response = http.post("/v1/query", json={"question": q})
                single.append(time.perf_counter() - t0)
                assert response.status_code == 200, response.text
        elapsed, latencies, errors = asyncio.run(run_clients(base, qs, args.requests, args.clients))
        served = len(qs) + 10 + args.requests
        if served < 1000:
            asyncio.run(run_clients(base, qs, 1000 - served, args.clients))
        rss_1000 = rss_mib(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=20)

    throughput = args.requests / elapsed
    print(f"cold start (process start to /readyz 200): {cold:.2f} s")
    print(f"bare encode, 1 query:        {summary(encode)}")
    print(f"POST /v1/query, 1 client:    {summary(single)}")
    print(f"  p50 ratio = {percentile(single, 50) / percentile(encode, 50):.3f} (target <= 1.5)")
    print(f"bare batched encode (16):    {bare_throughput:.1f} queries/s")
    print(f"HTTP, {args.clients} clients:            {throughput:.1f} requests/s, {errors} errors, "
          f"{summary(latencies)}")
    print(f"  throughput ratio = {throughput / bare_throughput:.3f} (target >= 0.5)")
    print(f"server RSS after 10 queries: {rss_10:.1f} MiB, after 1000: {rss_1000:.1f} MiB "
          f"({(rss_1000 / rss_10 - 1) * 100:+.1f}%, target within 10%)")


if __name__ == "__main__":
    main()
