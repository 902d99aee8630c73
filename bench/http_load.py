"""The HTTP service under load, against the bare model measured in the same run (on the configured embedding
backend; bench/backends.py compares the backends, with wrk as the load generator).

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
import json
import os
import statistics
import sys
import time
from http.client import HTTPConnection
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import percentile, queries, rss_mib, start_server, summary  # noqa: E402


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
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    qs = queries()
    env = {**os.environ, "EKSBOT_RATE_LIMIT": "0", "EKSBOT_LOG_LEVEL": "WARNING"}
    base, server, cold = start_server(env)
    port = int(base.rsplit(":", 1)[1])
    try:
        from bot.config import load_settings
        from bot.embedding.backends import load_embedder

        embedder = load_embedder(load_settings())  # the server's backend (EKSBOT_EMBEDDING_BACKEND)
        for q in qs[:10]:
            embedder.encode([q])
        batches = [qs[i : i + 16] for i in range(0, len(qs) - 15, 16)]

        def bare_batched() -> float:
            t0 = time.perf_counter()
            for batch in batches:
                embedder.encode(batch)
            return sum(len(b) for b in batches) / (time.perf_counter() - t0)

        # One keep-alive client on the standard library's http.client: the lightest client, so the
        # figure is the server's.
        http = HTTPConnection("127.0.0.1", port, timeout=60)
        headers = {"content-type": "application/json"}

        def post(question: str) -> int:
            http.request("POST", "/v1/query", body=json.dumps({"question": question}), headers=headers)
            response = http.getresponse()
            response.read()
            return response.status

        for q in qs[:10]:
            post(q)
        rss_10 = rss_mib(server.pid)
        # Bare encode and the served query alternate, query by query, so both see the same machine.
        encode: list[float] = []
        single: list[float] = []
        for q in qs:
            t0 = time.perf_counter()
            embedder.encode([q])
            t1 = time.perf_counter()
            status = post(q)
            single.append(time.perf_counter() - t1)
            encode.append(t1 - t0)
            assert status == 200
        http.close()
        # Bare and served throughput alternate, `--rounds` times each; medians are compared.
        bare_runs: list[float] = []
        served_runs: list[float] = []
        latencies: list[float] = []
        errors = 0
        for _ in range(args.rounds):
            bare_runs.append(bare_batched())
            elapsed, round_latencies, round_errors = asyncio.run(
                run_clients(base, qs, args.requests, args.clients))
            served_runs.append(args.requests / elapsed)
            latencies += round_latencies
            errors += round_errors
        bare_throughput = statistics.median(bare_runs)
        throughput = statistics.median(served_runs)
        served = len(qs) + 10 + args.requests * args.rounds
        if served < 1000:
            asyncio.run(run_clients(base, qs, 1000 - served, args.clients))
        rss_1000 = rss_mib(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=20)

    print(f"cold start (process start to /readyz 200): {cold:.2f} s")
    print(f"bare encode, 1 query:        {summary(encode)}")
    print(f"POST /v1/query, 1 client:    {summary(single)}")
    print(f"  p50 ratio = {percentile(single, 50) / percentile(encode, 50):.3f} (target <= 1.5)")
    print(f"bare batched encode (16):    {bare_throughput:.1f} queries/s (median of {args.rounds}: "
          f"{', '.join(f'{x:.0f}' for x in bare_runs)})")
    print(f"HTTP, {args.clients} clients:            {throughput:.1f} requests/s (median of {args.rounds}: "
          f"{', '.join(f'{x:.0f}' for x in served_runs)}), {errors} errors, {summary(latencies)}")
    print(f"  throughput ratio = {throughput / bare_throughput:.3f} (target >= 0.5)")
    print(f"server RSS after 10 queries: {rss_10:.1f} MiB, after 1000: {rss_1000:.1f} MiB "
          f"({(rss_1000 / rss_10 - 1) * 100:+.1f}%, target within 10%)")


if __name__ == "__main__":
    main()
