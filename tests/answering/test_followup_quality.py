"""Follow-up questions on the real model: `eksbot eval` on our two-turn conversations
(`tests/eval/followups.jsonl`), the last turn answered as read with the first and alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.answering.assistant import Assistant
from bot.cli.main import main
from bot.evaluation.conversations import evaluate_conversations
from bot.evaluation.queries import EvalQuery
from tests.conftest import FOLLOWUPS, KNOWLEDGE

pytestmark = pytest.mark.slow


def test_follow_ups_are_answered_in_context_and_off_topic_ones_are_not(
    index_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--knowledge-dir", str(KNOWLEDGE), "--index-dir", str(index_dir), "eval", str(FOLLOWUPS), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    summary = lines[-1]["summary"]
    figures = json.dumps(summary, indent=1)
    assert len(lines) - 1 == summary["conversations"] == len(FOLLOWUPS.read_text().splitlines())
    context, alone = summary["in_context"], summary["alone"]
    assert set(context["by_language"]) == {"es", "en"}
    kinds = context["by_kind"]
    assert kinds["elliptic"]["recall@1"] >= 0.95 and kinds["elliptic"]["false_abstention"] <= 0.05, figures
    assert kinds["self-contained"]["recall@1"] >= 0.95 and kinds["self-contained"]["false_abstention"] == 0, figures
    assert kinds["off-topic"]["abstention"] == 1.0, figures  # the thread's subject never answers them
    # Read alone, the elliptic ones lose much: what the context adds is measured, not assumed.
    assert kinds["elliptic"]["recall@1"] - alone["by_kind"]["elliptic"]["recall@1"] >= 0.2, figures
    assert alone["by_kind"]["elliptic"]["false_abstention"] >= 0.2, figures
    rows = lines[:-1]
    assert all(r["read_as"].startswith(r["turns"][-1]) for r in rows)
    assert not [r["turns"] for r in rows if r["kind"] == "off-topic" and r["followup"]]


@pytest.mark.parametrize(("turns", "number"), [
    (["How does gradient checkpointing save memory?", "is the recomputation cost worth paying?"], 11),
    (["¿Para qué sirve optimum-neuron?", "¿qué clase de HuggingFace sustituye?"], 7),
    (["Which DeepSpeed ZeRO stage offloads parameters to CPU?", "how often should we rotate the AWS access keys?"],
     None),
])
def test_a_message_declined_alone_is_answered_with_the_earlier_turns_only_when_it_keeps_to_them(
        assistant: Assistant, turns: list[str], number: int | None) -> None:
    """A message that reads as self-contained but says what it is about only with the thread: declined alone,
    answered with the earlier turns; one about something else stays declined."""
    (result,) = evaluate_conversations(assistant, [(turns, EvalQuery(turns[-1], "en", [number] if number else []))])
    assert not result.alone.answered
    assert result.in_context.answered == (number is not None)
    if number is not None:
        assert result.reading.reason == "declined-alone" and result.in_context.ranked[0] == number
