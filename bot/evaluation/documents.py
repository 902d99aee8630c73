"""Measure answers from documents the answerability model was never fitted on, per source.

A line is `{"q", "lang", "source", "answerable", "section"?, "answer_contains"?, "kind"?}`: `source` is the
document the question was written about (its path in the knowledge directory, as citations name it),
`answerable` whether that document answers it (`false`: no document and no quiz question does), `section` the
heading path of the section that does. Per source it counts, as a person would see them:

- answered right: answered, citing that document first;
- right section: of those, citing the named section first;
- false abstention: an answerable question the bot declined;
- wrong source: an answerable question answered from another document;
- declined right: an unanswerable question the bot declined.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bot.answering.assistant import Answer, Assistant
from bot.errors import InputError

SHAPE = ('{"q": str, "lang": "es"|"en", "source": str, "answerable": bool, "section"?: str, '
         '"answer_contains"?: [str], "kind"?: str}')


@dataclass(frozen=True)
class DocQuestion:
    q: str
    lang: str
    source: str
    answerable: bool
    section: str = ""
    answer_contains: list[str] = field(default_factory=list)
    kind: str = ""


@dataclass(frozen=True)
class DocResult:
    question: DocQuestion
    answered: bool
    confidence: float
    source: str | None  # the source the answer cites first (None when it cites nothing)
    section: str | None

    @property
    def right(self) -> bool:
        return self.question.answerable and self.answered and self.source == self.question.source

    @property
    def right_section(self) -> bool:
        return self.right and self.section == self.question.section

    def to_dict(self) -> dict[str, object]:
        return {"q": self.question.q, "lang": self.question.lang, "source": self.question.source,
                "answerable": self.question.answerable, "answered": self.answered, "confidence": self.confidence,
                "cited_source": self.source, "cited_section": self.section, "right": self.right,
                "right_section": self.right_section}


def is_document_set(path: Path) -> bool:
    """Whether an evaluation file's first line is of this shape (it names a `source`)."""
    try:
        with path.open(encoding="utf-8") as handle:
            first = next((line for line in handle if line.strip()), "")
        return isinstance(row := json.loads(first), dict) and "source" in row and "answerable" in row
    except (OSError, UnicodeDecodeError, ValueError):
        return False


def read_document_questions(path: Path) -> list[DocQuestion]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the evaluation file ({exc})") from exc
    out: list[DocQuestion] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            question = DocQuestion(
                q=str(row["q"]), lang=str(row["lang"]), source=str(row["source"]), answerable=bool(row["answerable"]),
                section=str(row.get("section", "")), answer_contains=[str(s) for s in row.get("answer_contains", [])],
                kind=str(row.get("kind", "")),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{path}:{number}: expected {SHAPE} ({exc.__class__.__name__}: {exc})") from exc
        out.append(question)
    return out


def evaluate_documents(assistant: Assistant, questions: list[DocQuestion], batch: int = 32) -> list[DocResult]:
    results: list[DocResult] = []
    for chunk in _batches(questions, batch):
        answers = assistant.answer_many([(q.q, q.lang) for q in chunk])
        results += [_result(q, a) for q, a in zip(chunk, answers, strict=True)]
    return results


def _result(question: DocQuestion, answer: Answer) -> DocResult:
    top = answer.citations[0] if answer.citations and answer.answered else None
    return DocResult(question, answer.answered, answer.confidence, top.source if top else None,
                     top.section if top else None)


def _batches(items: list[DocQuestion], size: int) -> Iterator[list[DocQuestion]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def summarize_documents(results: list[DocResult]) -> dict[str, object]:
    """Per source and overall: answerable and unanswerable counts, and the shares a person would see."""
    groups: dict[str, list[DocResult]] = defaultdict(list)
    for result in results:
        groups[result.question.source].append(result)
        groups["all"].append(result)
    out: dict[str, object] = {}
    for source, rows in sorted(groups.items(), key=lambda item: (item[0] == "all", item[0])):
        answerable = [r for r in rows if r.question.answerable]
        other = [r for r in rows if not r.question.answerable]
        out[source] = {
            "answerable": len(answerable), "unanswerable": len(other),
            "answered_right": _share(sum(r.right for r in answerable), len(answerable)),
            "right_section": _share(sum(r.right_section for r in answerable), len(answerable)),
            "false_abstention": _share(sum(not r.answered for r in answerable), len(answerable)),
            "wrong_source": _share(sum(r.answered and not r.right for r in answerable), len(answerable)),
            "declined_right": _share(sum(not r.answered for r in other), len(other)),
        }
    return out


def _share(count: int, total: int) -> float | None:
    return round(count / total, 3) if total else None
