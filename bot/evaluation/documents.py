"""Measure answers from documents the answerability model was never fitted on, per source and per language.

A line is `{"q", "lang", "source", "answerable", "section"?, "answer_contains"?, "kind"?}`: `source` is the
document the question was written about (its path in the knowledge directory, as citations name it),
`answerable` whether that document answers it (`false`: no document and no quiz question does), `section` the
heading path of the section that does, `answer_contains` strings of the passage that answers it. The shape
`{"q", "lang", "doc", "expect_any"}` is read too (`doc`: the document's file name, `null` when none answers;
`expect_any`: the passage's strings). Per source and per language it counts, as a person would see them:

- quoted: answered from that document, and what the answer quotes first (the top citation's excerpt and code
  snippet) holds one of the passage's strings: the person reads the answer without opening the page;
- answered right: answered, citing that document first;
- right section: of the answerable questions that name their section, those citing it first (no figure when
  none names one);
- where the others went, an answerable question not quoted being in exactly one: another section of the right
  page (its section named and another cited), the right section but another passage of it (or, its section not
  named, the right page), another page (wrong source), or declined (false abstention);
- false abstention: an answerable question the bot declined; of those, "suggested" is the share whose suggestion
  (the closest section, offered with a one-click "show the answer") is of the right page: one click from it;
- wrong source: an answerable question answered from another document;
- declined right: an unanswerable question the bot declined;
- handled: an unanswerable question the bot declined, or answered opening with what the knowledge does not
  cover ("The knowledge base says nothing about “trn2.48xlarge”. …"): either way nobody takes the answer for
  one to what was asked.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bot.answering.assistant import Answer, Assistant
from bot.errors import InputError
from bot.evaluation.queries import EvalQuery

SHAPE = ('{"q": str, "lang": "es"|"en", "source": str, "answerable": bool, "section"?: str, '
         '"answer_contains"?: [str], "kind"?: str} or {"q": str, "lang": "es"|"en", "doc": str|null, '
         '"expect_any": [str]}')


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
    passage: str = ""  # what the answer quotes first: the top citation's excerpt and snippet
    uncovered: tuple[str, ...] = ()  # what the answer opens by saying the knowledge does not cover
    suggested: str | None = None  # declined: the source of the section offered as the closest (None when none)

    @property
    def handled(self) -> bool:
        """An unanswerable question declined, or answered naming what the knowledge does not cover."""
        return not self.question.answerable and (not self.answered or bool(self.uncovered))

    @property
    def right(self) -> bool:
        return self.question.answerable and self.answered and same_source(self.source, self.question.source)

    @property
    def quoted(self) -> bool:
        """Answered from the right document, quoting the passage that answers (one of its strings)."""
        if not self.right:
            return False
        passage = _comparable(self.passage)
        return any(_comparable(s) in passage or _row_quoted(s, self.passage) for s in self.question.answer_contains)

    @property
    def suggested_right(self) -> bool:
        """Declined, offering a section of the right page as the closest ("did you mean"): one click from it."""
        return self.question.answerable and not self.answered and same_source(self.suggested, self.question.source)

    @property
    def right_section(self) -> bool:
        return self.right and self.section == self.question.section

    @property
    def other_section(self) -> bool:
        """Answered from the right page, not quoted, citing another section than the one the question names."""
        return self.right and not self.quoted and bool(self.question.section) and not self.right_section

    @property
    def other_passage(self) -> bool:
        """Answered from the right page and section (or page, when the question names no section), quoting
        another passage of it."""
        return self.right and not self.quoted and not self.other_section

    def to_dict(self) -> dict[str, object]:
        return {"q": self.question.q, "lang": self.question.lang, "source": self.question.source,
                "answerable": self.question.answerable, "answered": self.answered, "confidence": self.confidence,
                "cited_source": self.source, "cited_section": self.section, "right": self.right,
                "right_section": self.right_section, "quoted": self.quoted, "passage": self.passage,
                "uncovered": list(self.uncovered), "suggested": self.suggested}


def same_source(cited: str | None, source: str) -> bool:
    """Whether a citation's source is the document a question names: the same path, or (a question that names
    only the file) the same file name."""
    if cited is None:
        return False
    return cited == source or ("/" not in source and cited.rsplit("/", 1)[-1] == source)


_MARKS = re.compile(r"[`*_\\]|&[a-z]+;")  # inline code, emphasis, escapes and entities: how a page writes, not what


def _comparable(text: str) -> str:
    return " ".join(_MARKS.sub("", text).casefold().split())


def _row_quoted(wanted: str, passage: str) -> bool:
    """Whether a table row written as on the page ("`subnetId` | string | Yes") is quoted: an answer shows a row
    with its header ("Parameter: `subnetId` · Type: string · Required: Yes"), so one line of the passage holds
    each of its cells, in order."""
    cells = [_comparable(c) for c in wanted.strip().strip("|").split("|")]
    if len(cells) < 2 or not all(cells):
        return False
    for line in passage.splitlines():
        at, line = 0, _comparable(line)
        for cell in cells:
            at = line.find(cell, at)
            if at < 0:
                break
            at += len(cell)
        else:
            return True
    return False


def is_document_set(path: Path) -> bool:
    """Whether an evaluation file's first line is of this shape (it names a `source`)."""
    try:
        with path.open(encoding="utf-8") as handle:
            first = next((line for line in handle if line.strip()), "")
        row = json.loads(first)
        return isinstance(row, dict) and (("source" in row and "answerable" in row) or ("doc" in row and "expect_any"
                                                                                         in row))
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
            if "doc" in row and "source" not in row:  # the other shape: a file name, or null when none answers
                row = {"q": row["q"], "lang": row["lang"], "source": row["doc"] or "", "answerable": bool(row["doc"]),
                       "answer_contains": row.get("expect_any") or [], "kind": row.get("kind", "")}
            question = DocQuestion(
                q=str(row["q"]), lang=str(row["lang"]), source=str(row["source"]), answerable=bool(row["answerable"]),
                section=str(row.get("section", "")), answer_contains=[str(s) for s in row.get("answer_contains", [])],
                kind=str(row.get("kind", "")),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{path}:{number}: expected {SHAPE} ({exc.__class__.__name__}: {exc})") from exc
        out.append(question)
    return out


def as_queries(questions: list[DocQuestion]) -> list[EvalQuery]:
    """Questions about documents as lines to fit the decision on: an answerable one is answered right when the
    best section is of its document; a near-domain one, when the bot declines."""
    return [EvalQuery(q.q, q.lang, [], q.kind or ("in-scope" if q.answerable else "near"),
                      source=q.source if q.answerable else "", page=q.source) for q in questions]


def evaluate_documents(assistant: Assistant, questions: list[DocQuestion], batch: int = 32) -> list[DocResult]:
    results: list[DocResult] = []
    for chunk in _batches(questions, batch):
        answers = assistant.answer_many([(q.q, q.lang) for q in chunk])
        results += [_result(q, a) for q, a in zip(chunk, answers, strict=True)]
    return results


def _result(question: DocQuestion, answer: Answer) -> DocResult:
    top = answer.citations[0] if answer.citations and answer.answered else None
    # What the answer quotes first: the top citation's excerpt and snippet, and those of the section quoted beside it.
    passage = "\n".join(part for c in ([top, *top.beside] if top else []) for part in (c.excerpt, c.snippet or "")
                        if part)
    return DocResult(question, answer.answered, answer.confidence, top.source if top else None,
                     top.section if top else None, passage,
                     tuple(answer.uncovered) if answer.answered and answer.caveat else (),
                     answer.suggestion.source if answer.suggestion and not answer.answered else None)


def _batches(items: list[DocQuestion], size: int) -> Iterator[list[DocQuestion]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def summarize_documents(results: list[DocResult]) -> dict[str, object]:
    """Per source, per language and overall: answerable and unanswerable counts, and the shares a person would
    see."""
    groups: dict[str, list[DocResult]] = defaultdict(list)
    for result in results:
        if result.question.source:
            groups[result.question.source].append(result)
        groups[f"all {result.question.lang}"].append(result)
        groups["all"].append(result)
    out: dict[str, object] = {}
    for source, rows in sorted(groups.items(), key=lambda item: (item[0].startswith("all"), item[0] == "all",
                                                                 item[0])):
        answerable = [r for r in rows if r.question.answerable]
        other = [r for r in rows if not r.question.answerable]
        sectioned = [r for r in answerable if r.question.section]
        out[source] = {
            "answerable": len(answerable), "unanswerable": len(other),
            "quoted": _share(sum(r.quoted for r in answerable), len(answerable)),
            "answered_right": _share(sum(r.right for r in answerable), len(answerable)),
            # of the questions that name their section: a set that names none has no figure ("—"), not 0
            "right_section": _share(sum(r.right_section for r in sectioned), len(sectioned)),
            # the answerable questions not quoted, by where the answer went (with the two below, they add up)
            "other_section": _share(sum(r.other_section for r in answerable), len(answerable)),
            "other_passage": _share(sum(r.other_passage for r in answerable), len(answerable)),
            "false_abstention": _share(sum(not r.answered for r in answerable), len(answerable)),
            # of those declined: the right page offered as the closest, one click from the answer
            "suggested": _share(sum(r.suggested_right for r in answerable), sum(not r.answered for r in answerable)),
            "wrong_source": _share(sum(r.answered and not r.right for r in answerable), len(answerable)),
            "declined_right": _share(sum(not r.answered for r in other), len(other)),
            "handled": _share(sum(r.handled for r in other), len(other)),
        }
    return out


def _share(count: int, total: int) -> float | None:
    return round(count / total, 3) if total else None
