"""The embedding backends side by side: bare encode, the served HTTP API, cold start, `eksbot ask`, memory, image.

    .venv/bin/python bench/backends.py [--backends torch,onnx,onnx-int8] [--seconds 5] [--image eksbot:lean]

Per backend, in one run: an index (with its ONNX export) built in a temporary directory; bare encode in this
process (1 query: p50; batch of 16: queries/s, median of rounds); `eksbot serve` started on it: cold start
(process start to /readyz 200), RSS idle, HTTP p50 at 1 client and throughput at 16 clients from `wrk` (a load
generator in C that costs little CPU; the Debian package `wrk`), RSS after 1,000 queries or more; `eksbot ask`
wall time; and the image's size when one is present (docker, podman or buildah). Then the targets, as ratios
measured in the same run. The machine may be shared: compare ratios, not absolute figures.

The ONNX backends are served, and `eksbot ask` run, by the serving install when there is one
(`scripts/bootstrap.sh runtime` makes `.venv-runtime` from requirements/runtime.lock, as the image installs):
the development environment also holds PyTorch, SciPy and the test tools, and a library that finds SciPy
imports it (about 40 MiB more resident memory than the image's process).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import percentile, queries, rss_mib, start_server  # noqa: E402

EKSBOT = str(Path(sys.executable).parent / "eksbot")
RUNTIME_EKSBOT = Path(__file__).resolve().parent.parent / ".venv-runtime" / "bin" / "eksbot"
MIN_QUERIES = 1000


@dataclass
class Figures:
    load: float = float("nan")  # s, embedder load in this process
    encode_1: float = float("nan")  # s, p50
    encode_16: float = float("nan")  # queries/s
    cold_start: float = float("nan")  # s
    rss_idle: float = float("nan")  # MiB
    http_p50: float = float("nan")  # s
    http_16: float = float("nan")  # requests/s
    http_errors: int = 0
    rss_after: float = float("nan")  # MiB
    served: int = 0
    ask: float = float("nan")  # s
    notes: list[str] = field(default_factory=list)


def build(backend: str, index_dir: Path) -> None:
    env = {**os.environ, "EKSBOT_EMBEDDING_BACKEND": backend, "EKSBOT_INDEX_DIR": str(index_dir)}
    subprocess.run([EKSBOT, "index", "build"], env=env, check=True, capture_output=True, timeout=600)


def bare(backend: str, index_dir: Path, qs: list[str], rounds: int, figures: Figures) -> None:
    from bot.config import load_settings
    from bot.embedding.backends import load_embedder

    started = time.perf_counter()
    embedder = load_embedder(load_settings(index_dir=index_dir, embedding_backend=backend, auto_rebuild=False))
    figures.load = time.perf_counter() - started
    for q in qs[:10]:
        embedder.encode([q])
    single = []
    for q in qs:
        t0 = time.perf_counter()
        embedder.encode([q])
        single.append(time.perf_counter() - t0)
    figures.encode_1 = percentile(single, 50)
    batches = [qs[i : i + 16] for i in range(0, len(qs) - 15, 16)]
    runs = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for batch in batches:
            embedder.encode(batch)
        runs.append(16 * len(batches) / (time.perf_counter() - t0))
    figures.encode_16 = statistics.median(runs)


def lua_script(qs: list[str], directory: Path) -> Path:
    """A wrk script POSTing the questions in turn."""
    bodies = ",\n".join(f"[==[{json.dumps({'question': q}, ensure_ascii=False)}]==]" for q in qs)
    path = directory / "post.lua"
    path.write_text(
        f"local bodies = {{\n{bodies}\n}}\nlocal i = 0\n"
        "request = function()\n  i = i + 1\n"
        '  return wrk.format("POST", "/v1/query", {["Content-Type"] = "application/json"}, bodies[(i % #bodies) + 1])\n'
        "end\n", encoding="utf-8")
    return path


def wrk(base: str, script: Path, *, clients: int, seconds: int) -> tuple[float, float, int, int]:
    """(p50 latency s, requests/s, requests, non-2xx or socket errors) from one wrk run."""
    threads = min(clients, 2)
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{clients}", f"-d{seconds}s", "--latency", "-s", str(script), base],
        capture_output=True, text=True, check=True, timeout=seconds + 60).stdout
    p50 = re.search(r"^\s+50%\s+([\d.]+)(us|ms|s)\b", out, re.M)
    rate = re.search(r"^Requests/sec:\s+([\d.]+)", out, re.M)
    total = re.search(r"^\s+(\d+) requests in", out, re.M)
    if not (p50 and rate and total):
        raise RuntimeError(f"cannot read wrk's output:\n{out}")
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1.0}[p50.group(2)]
    errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", out))
    errors += sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    return float(p50.group(1)) * scale, float(rate.group(1)), int(total.group(1)), errors


def serving_eksbot(backend: str) -> str:
    """The install that serves `backend`: the serving one (no PyTorch) when present, for the ONNX backends."""
    return str(RUNTIME_EKSBOT) if backend != "torch" and RUNTIME_EKSBOT.exists() else EKSBOT


def served(backend: str, index_dir: Path, data_dir: Path, script: Path | None, args: argparse.Namespace,
           figures: Figures) -> None:
    env = {**os.environ, "EKSBOT_EMBEDDING_BACKEND": backend, "EKSBOT_INDEX_DIR": str(index_dir),
           "EKSBOT_DATA_DIR": str(data_dir), "EKSBOT_AUTO_REBUILD": "false", "EKSBOT_RATE_LIMIT": "0",
           "EKSBOT_LOG_LEVEL": "WARNING"}
    base, server, figures.cold_start = start_server(env, serving_eksbot(backend))
    try:
        httpx.post(f"{base}/v1/query", json={"question": "warm up"}, timeout=60)
        figures.rss_idle = rss_mib(server.pid)
        if script is None:
            figures.notes.append("no wrk: HTTP figures skipped (apt-get install wrk)")
            return
        figures.http_p50, _, count, errors = wrk(base, script, clients=1, seconds=args.seconds)
        figures.served += count
        figures.http_errors += errors
        rates = []
        for _ in range(args.rounds):
            _, rate, count, errors = wrk(base, script, clients=16, seconds=args.seconds)
            rates.append(rate)
            figures.served += count
            figures.http_errors += errors
        figures.http_16 = statistics.median(rates)
        while figures.served < MIN_QUERIES:
            _, _, count, errors = wrk(base, script, clients=16, seconds=2)
            figures.served += count
            figures.http_errors += errors
        figures.rss_after = rss_mib(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)


def ask(backend: str, index_dir: Path, figures: Figures) -> None:
    env = {**os.environ, "EKSBOT_EMBEDDING_BACKEND": backend, "EKSBOT_INDEX_DIR": str(index_dir),
           "EKSBOT_AUTO_REBUILD": "false"}
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([serving_eksbot(backend), "ask", "--json", "How do I request EFA devices in a pod spec?"],
                       env=env, check=True, capture_output=True, timeout=300)
        runs.append(time.perf_counter() - t0)
    figures.ask = statistics.median(runs)


def image_size(name: str) -> tuple[str, float] | None:
    """(engine, MB) of the image `name`, from the first engine that has it."""
    for engine, command in (("docker", ["docker", "image", "inspect", name, "--format", "{{.Size}}"]),
                            ("podman", ["podman", "--storage-driver", "vfs", "image", "inspect", name,
                                        "--format", "{{.Size}}"])):
        if shutil.which(engine) is None:
            continue
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
        if result.returncode == 0 and result.stdout.strip().isdigit():
            return engine, int(result.stdout.strip()) / 1e6
    return None


def fmt(value: float, unit: str) -> str:
    if value != value:  # nan
        return "—"
    return {"s": f"{value:.2f} s", "ms": f"{value * 1000:.1f} ms", "q/s": f"{value:.0f}/s",
            "MiB": f"{value:.0f} MiB"}[unit]


def report(results: dict[str, Figures], image: tuple[str, float] | None, serving: str) -> None:
    rows = [
        ("load in process", "load", "s"), ("bare encode, 1 query (p50)", "encode_1", "ms"),
        ("bare encode, batch of 16", "encode_16", "q/s"), ("cold start to /readyz 200", "cold_start", "s"),
        ("`eksbot ask` wall", "ask", "s"), ("RSS idle", "rss_idle", "MiB"),
        ("HTTP p50, 1 client", "http_p50", "ms"), ("HTTP, 16 clients", "http_16", "q/s"),
        ("RSS after 1,000+ queries", "rss_after", "MiB"),
    ]
    names = list(results)
    print(f"| what | {' | '.join(names)} |")
    print(f"|---|{'---|' * len(names)}")
    for label, attr, unit in rows:
        print(f"| {label} | " + " | ".join(fmt(getattr(results[n], attr), unit) for n in names) + " |")
    print("| queries served (errors) | " + " | ".join(
        f"{results[n].served} ({results[n].http_errors})" for n in names) + " |")
    print(f"image: {f'{image[1]:.0f} MB ({image[0]})' if image else 'none found'}")
    for name in names:
        for note in results[name].notes:
            print(f"{name}: {note}")
    if serving not in results:
        return
    s = results[serving]
    torch = results.get("torch")
    checks = [
        ("cold start <= 1.5 s", s.cold_start, s.cold_start <= 1.5),
        ("eksbot ask <= 1.5 s", s.ask, s.ask <= 1.5),
        ("RSS idle <= 300 MiB", s.rss_idle, s.rss_idle <= 300),
    ]
    if torch is not None:
        checks += [
            ("HTTP p50 / bare torch encode (1) <= 0.5", s.http_p50 / torch.encode_1,
             s.http_p50 / torch.encode_1 <= 0.5),
            ("HTTP 16 clients / bare torch batch of 16 >= 1.5", s.http_16 / torch.encode_16,
             s.http_16 / torch.encode_16 >= 1.5),
        ]
    checks.append((f"HTTP 16 clients / bare {serving} batch of 16 >= 0.7", s.http_16 / s.encode_16,
                   s.http_16 / s.encode_16 >= 0.7))
    if image is not None:
        checks.append(("image <= 600 MB", image[1], image[1] <= 600))
    print(f"\ntargets for the serving backend ({serving}):")
    for label, value, ok in checks:
        print(f"  {'ok  ' if ok else 'MISS'} {label}: {value:.3g}")


def main() -> None:
    from bot.config import Settings

    parser = argparse.ArgumentParser()
    parser.add_argument("--backends", default="torch,onnx,onnx-int8")
    parser.add_argument("--seconds", type=int, default=5, help="length of each wrk run")
    parser.add_argument("--rounds", type=int, default=3, help="throughput runs per backend (median)")
    parser.add_argument("--image", default="eksbot:lean", help="image whose size is reported, if present")
    args = parser.parse_args()
    serving = os.environ.get("EKSBOT_EMBEDDING_BACKEND") or Settings.model_fields["embedding_backend"].default
    qs = queries()
    print(f"{len(qs)} queries; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start "
          "(a shared machine: figures move with its load, ratios less)")
    print("served by", RUNTIME_EKSBOT.parent.parent if RUNTIME_EKSBOT.exists() else
          f"{Path(EKSBOT).parent.parent} (the development install: run scripts/bootstrap.sh runtime for the "
          "serving one)", "(torch: the development install)")
    has_wrk = shutil.which("wrk") is not None
    if not has_wrk:
        print("wrk is missing: HTTP latency and throughput are not measured (apt-get install wrk)")
    results: dict[str, Figures] = {}
    with tempfile.TemporaryDirectory() as tmp:
        script = lua_script(qs, Path(tmp)) if has_wrk else None
        for backend in args.backends.split(","):
            index_dir = Path(tmp) / f"index-{backend}"
            build(backend, index_dir)
            figures = results[backend] = Figures()
            bare(backend, index_dir, qs, args.rounds, figures)
            served(backend, index_dir, Path(tmp) / f"data-{backend}", script, args, figures)
            ask(backend, index_dir, figures)
    print(f"load average {os.getloadavg()[0]:.2f} at the end\n")
    report(results, image_size(args.image), serving)


if __name__ == "__main__":
    main()
