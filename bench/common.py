"""Shared pieces of the benchmarks: queries, percentiles and printing."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

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
