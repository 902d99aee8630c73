"""Measure answers on a JSONL set of {"q", "lang", "expect", "kind"?, "uncovered"?} lines.

`expect` lists the quiz questions that answer `q` (`[]`: the bot must say it does not know). `kind` names
the sort of question ("in-scope", "partial", "near", "generic", "far", ...; by default "in-scope" or
"out-of-scope" from `expect`), and `uncovered` the terms of a partly covered question that the knowledge
never mentions. Figures come overall, per language and per kind.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bot.answering.assistant import Assistant
from bot.errors import InputError

SHAPE = '{"q": str, "lang": "es"|"en", "expect": [int], "kind"?: str, "uncovered"?: [str]}'


@dataclass(frozen=True)
class EvalQuery:
    q: str
    lang: str
    expect: list[int]
    kind: str = ""
    uncovered: list[str] = field(default_factory=list)
    source: str = ""  # a question about a document: the document (its path) that answers it, `expect` empty
    page: str = ""  # a question written about a document (answered by it or not): that document

    @property
    def answerable(self) -> bool:
        return bool(self.expect or self.source)

    @property
    def group(self) -> str:
        return self.kind or ("in-scope" if self.answerable else "out-of-scope")


@dataclass(frozen=True)
class EvalResult:
    query: EvalQuery
    ranked: list[int]
    answered: bool
    confidence: float = 0.0
    uncovered: list[str] = field(default_factory=list)
    suggestion: int | None = None  # when declined: the question offered as the closest

    def to_dict(self) -> dict[str, object]:
        return {
            "q": self.query.q, "lang": self.query.lang, "kind": self.query.group, "expect": self.query.expect,
            "ranked": self.ranked, "answered": self.answered, "confidence": self.confidence,
            "uncovered": self.uncovered, "suggestion": self.suggestion,
        }


def read_queries(path: Path) -> list[EvalQuery]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the evaluation file ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid UTF-8") from exc
    queries: list[EvalQuery] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            q, lang, expect = data["q"], data.get("lang", "en"), data["expect"]
            kind, uncovered = data.get("kind", ""), data.get("uncovered", [])
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise InputError(f"{path}:{number}: expected {SHAPE} ({exc})") from exc
        if not isinstance(q, str) or not isinstance(expect, list) or not all(isinstance(n, int) for n in expect):
            raise InputError(f"{path}:{number}: 'q' must be a string and 'expect' a list of integers")
        if not isinstance(kind, str) or not isinstance(uncovered, list) or not all(
                isinstance(t, str) for t in uncovered):
            raise InputError(f"{path}:{number}: 'kind' must be a string and 'uncovered' a list of strings")
        queries.append(EvalQuery(q, str(lang), expect, kind, uncovered))
    return queries


def evaluate(assistant: Assistant, queries: list[EvalQuery], batch: int = 32) -> Iterator[EvalResult]:
    for start in range(0, len(queries), batch):
        part = queries[start : start + batch]
        answers = assistant.answer_many([(q.q, None) for q in part])
        for query, answer in zip(part, answers, strict=True):
            yield EvalResult(query, answer.ranked, answer.answered, answer.confidence, list(answer.uncovered),
                             answer.suggestion.question if answer.suggestion else None)


def summarize(results: list[EvalResult]) -> dict[str, object]:
    summary: dict[str, object] = dict(_stats(results))
    summary["by_language"] = {
        lang: _stats([r for r in results if r.query.lang == lang]) for lang in sorted({r.query.lang for r in results})
    }
    kinds = sorted({r.query.group for r in results})
    if len(kinds) > 1 or any(r.query.kind for r in results):
        summary["by_kind"] = {
            kind: _stats([r for r in results if r.query.group == kind]) for kind in kinds
        }
    return summary


def _stats(rows: list[EvalResult]) -> dict[str, float | int]:
    inside = [r for r in rows if r.query.expect]
    outside = [r for r in rows if not r.query.expect]
    out: dict[str, float | int] = {"queries": len(rows), "in_domain": len(inside), "out_of_domain": len(outside)}
    if inside:
        n = len(inside)
        out["recall@1"] = round(sum(bool(r.ranked) and r.ranked[0] in r.query.expect for r in inside) / n, 4)
        out["recall@3"] = round(sum(any(k in r.query.expect for k in r.ranked[:3]) for r in inside) / n, 4)
        out["mrr"] = round(sum(_reciprocal_rank(r) for r in inside) / n, 4)
        out["false_abstention"] = round(sum(not r.answered for r in inside) / n, 4)
        declined = [r for r in inside if not r.answered]
        if declined:  # of the in-scope questions declined, the share offered the right one as the closest
            out["suggested_right"] = round(sum(r.suggestion in r.query.expect for r in declined) / len(declined), 4)
    if outside:
        out["abstention"] = round(sum(not r.answered for r in outside) / len(outside), 4)
        # Handled: declined, or answered with what the knowledge does not cover named ("says nothing about X").
        out["handled"] = round(sum(not r.answered or bool(r.uncovered) for r in outside) / len(outside), 4)
        declined = [r for r in outside if not r.answered]
        if declined:  # of the out-of-scope questions declined, the share that still got a suggestion
            out["suggested_out"] = round(sum(r.suggestion is not None for r in declined) / len(declined), 4)
    labelled = [r for r in rows if r.query.uncovered and r.answered]
    if labelled:
        expected = sum(len(r.query.uncovered) for r in labelled)
        out["uncovered_recall"] = round(
            sum(_matched(term, r.uncovered) for r in labelled for term in r.query.uncovered) / expected, 4)
    return out


def _words(term: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[\w.\-/]+", term)} - {"for", "de", "of", "the", "el", "la"}


def _matched(term: str, reported: list[str]) -> bool:
    """A labelled term counts as named when a reported term shares a word with it."""
    return any(_words(term) & _words(found) for found in reported)


def _reciprocal_rank(result: EvalResult) -> float:
    for position, number in enumerate(result.ranked, start=1):
        if number in result.query.expect:
            return 1.0 / position
    return 0.0
