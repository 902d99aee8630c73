"""Measure how follow-ups are read, on a JSONL set of short conversations.

Each line is {"turns": [str, ...], "lang": "es"|"en", "expect": [question numbers], "kind": str}: the last
turn is answered given the earlier ones (`bot.answering.conversation`), and `expect` lists the quiz questions that
answer it in that context (`[]`: the bot must say it does not know). Kinds: "elliptic" (means something
only with the earlier turns), "self-contained" (to be read alone) and "off-topic" (outside the knowledge,
whatever the thread was about). The same last turns answered alone are the baseline.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bot.answering.assistant import Assistant
from bot.answering.conversation import Conversation, Reading
from bot.errors import InputError
from bot.evaluation.queries import EvalQuery, EvalResult, summarize

SHAPE = '{"turns": [str, ...], "lang": "es"|"en", "expect": [int], "kind": str}'
BATCH = 32


@dataclass(frozen=True)
class ConversationResult:
    turns: list[str]
    reading: Reading
    in_context: EvalResult  # the last turn answered as read with the earlier turns
    alone: EvalResult  # the last turn answered by itself

    def to_dict(self) -> dict[str, object]:
        return {
            "turns": self.turns, "lang": self.in_context.query.lang, "kind": self.in_context.query.group,
            "expect": self.in_context.query.expect, "read_as": self.reading.text,
            "followup": self.reading.followup, "reason": self.reading.reason,
            "ranked": self.in_context.ranked[:3], "answered": self.in_context.answered,
            "alone_ranked": self.alone.ranked[:3], "alone_answered": self.alone.answered,
        }


def is_conversation_file(path: Path) -> bool:
    """Whether the file's first line is a conversation (it has "turns") rather than a single query."""
    try:
        with path.open(encoding="utf-8") as lines:
            first = next((line for line in lines if line.strip()), "")
        return isinstance(json.loads(first), dict) and "turns" in json.loads(first)
    except (OSError, UnicodeDecodeError, ValueError):
        return False


def read_conversations(path: Path) -> list[tuple[list[str], EvalQuery]]:
    """(earlier turns and last turn, the last turn as a query) for every line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the evaluation file ({exc})") from exc
    out: list[tuple[list[str], EvalQuery]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            turns, lang, expect, kind = data["turns"], data.get("lang", "en"), data["expect"], data.get("kind", "")
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise InputError(f"{path}:{number}: expected {SHAPE} ({exc})") from exc
        if (not isinstance(turns, list) or len(turns) < 2 or not all(isinstance(t, str) for t in turns)
                or not isinstance(expect, list) or not all(isinstance(n, int) for n in expect)
                or not isinstance(kind, str)):
            raise InputError(f"{path}:{number}: 'turns' must be two or more strings, 'expect' a list of "
                             "integers and 'kind' a string")
        out.append((turns, EvalQuery(turns[-1], str(lang), expect, kind)))
    return out


def evaluate_conversations(assistant: Assistant, conversations: list[tuple[list[str], EvalQuery]]
                           ) -> Iterator[ConversationResult]:
    reader = Conversation(assistant)
    for start in range(0, len(conversations), BATCH):
        part = conversations[start : start + BATCH]
        readings = [reader.read(turns[-1], turns[:-1]) for turns, _ in part]
        in_context = assistant.answer_many([(r.text, r.language) for r in readings])
        # As `Answers.ask` does: a self-contained message declined alone is answered with the earlier turns.
        again = [(i, f) for i, (r, a) in enumerate(zip(readings, in_context, strict=True))
                 if (f := reader.fallback_for(r, a)) is not None]
        for (i, _), answer in zip(again, assistant.answer_many([(f.text, f.language) for _, f in again]),
                                  strict=True):
            in_context[i], readings[i] = reader.settle(readings[i], in_context[i], answer)
        alone = assistant.answer_many([(query.q, None) for _, query in part])
        for (turns, query), reading, read, single in zip(part, readings, in_context, alone, strict=True):
            yield ConversationResult(
                turns, reading,
                EvalResult(query, read.ranked, read.answered, read.confidence, list(read.uncovered)),
                EvalResult(query, single.ranked, single.answered, single.confidence, list(single.uncovered)),
            )


def summarize_conversations(results: list[ConversationResult]) -> dict[str, object]:
    """Figures for the last turns read in context and alone, and how often each kind was read as a
    follow-up."""
    kinds = sorted({r.in_context.query.group for r in results})
    return {
        "conversations": len(results),
        "in_context": summarize([r.in_context for r in results]),
        "alone": summarize([r.alone for r in results]),
        "read_as_followup": {
            kind: round(sum(r.reading.followup for r in rows) / len(rows), 4)
            for kind in kinds if (rows := [r for r in results if r.in_context.query.group == kind])
        },
    }
