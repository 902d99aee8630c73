"""Measure retrieval on a JSONL set of {"q", "lang", "expect"} lines (`[]`: the bot must abstain)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bot.answers import Assistant
from bot.errors import InputError


@dataclass(frozen=True)
class EvalQuery:
    q: str
    lang: str
    expect: list[int]


@dataclass(frozen=True)
class EvalResult:
    query: EvalQuery
    ranked: list[int]
    answered: bool

    def to_dict(self) -> dict[str, object]:
        return {"q": self.query.q, "expect": self.query.expect, "ranked": self.ranked, "answered": self.answered}


def read_queries(path: Path) -> list[EvalQuery]:
    queries: list[EvalQuery] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            q, lang, expect = data["q"], data.get("lang", "en"), data["expect"]
        except (ValueError, KeyError, TypeError) as exc:
            shape = '{"q": str, "lang": str, "expect": [int]}'
            raise InputError(f"{path}:{number}: expected {shape} ({exc})") from exc
        if not isinstance(q, str) or not isinstance(expect, list) or not all(isinstance(n, int) for n in expect):
            raise InputError(f"{path}:{number}: 'q' must be a string and 'expect' a list of integers")
        queries.append(EvalQuery(q, str(lang), expect))
    return queries


def evaluate(assistant: Assistant, queries: list[EvalQuery], batch: int = 32) -> Iterator[EvalResult]:
    for start in range(0, len(queries), batch):
        part = queries[start : start + batch]
        answers = assistant.answer_many([(q.q, None) for q in part])
        for query, answer in zip(part, answers, strict=True):
            yield EvalResult(query, answer.ranked, answer.answered)


def summarize(results: list[EvalResult]) -> dict[str, object]:
    def stats(rows: list[EvalResult]) -> dict[str, float | int]:
        inside = [r for r in rows if r.query.expect]
        outside = [r for r in rows if not r.query.expect]
        out: dict[str, float | int] = {"queries": len(rows), "in_domain": len(inside), "out_of_domain": len(outside)}
        if inside:
            n = len(inside)
            out["recall@1"] = round(sum(bool(r.ranked) and r.ranked[0] in r.query.expect for r in inside) / n, 4)
            out["recall@3"] = round(sum(any(k in r.query.expect for k in r.ranked[:3]) for r in inside) / n, 4)
            out["mrr"] = round(sum(_reciprocal_rank(r) for r in inside) / len(inside), 4)
            out["false_abstention"] = round(sum(not r.answered for r in inside) / len(inside), 4)
        if outside:
            out["abstention"] = round(sum(not r.answered for r in outside) / len(outside), 4)
        return out

    summary: dict[str, object] = dict(stats(results))
    summary["by_language"] = {
        lang: stats([r for r in results if r.query.lang == lang])
        for lang in sorted({r.query.lang for r in results})
    }
    return summary


def _reciprocal_rank(result: EvalResult) -> float:
    for position, number in enumerate(result.ranked, start=1):
        if number in result.query.expect:
            return 1.0 / position
    return 0.0
