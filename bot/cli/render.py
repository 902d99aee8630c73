"""Render the core's objects for a terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from bot.answering.assistant import Answer
from bot.evaluation.conversations import ConversationResult
from bot.evaluation.queries import EvalResult
from bot.knowledge.citations import SNIPPET_LINES, cut_code
from bot.messages import say


def render_answer(console: Console, answer: Answer) -> None:
    if not answer.answered:
        console.print(Panel(Text(answer.text), border_style="yellow", title="?"))
        return
    top = answer.citations[0]
    parts: list[object] = []
    if answer.caveat:
        parts.append(Text(answer.caveat, style="yellow"))
    parts.append(Text(top.excerpt or answer.text))
    if top.snippet:  # the excerpt may end on the sentence that introduces it
        code, left = cut_code(top.snippet, SNIPPET_LINES)
        parts.append(Syntax(code, top.snippet_lang or "text", theme="ansi_dark", word_wrap=True))
        if left:
            parts.append(Text(say(answer.language, "more_lines", count=left, number=top.question), style="dim"))
    if answer.reference:
        parts.append(Text("\n" + answer.reference))
    cites = Text()
    for citation in answer.citations:
        cites.append("\n· " + say(answer.language, "citation", number=citation.question, title=citation.title),
                     style="dim")
        cites.append(f"  [{citation.source}, {citation.score:.2f}]", style="dim")
    parts.append(cites)
    console.print(Panel(Group(*parts), border_style="green", title=escape(answer.answer_line or "")))  # type: ignore[arg-type]


def render_eval(console: Console, results: list[EvalResult], summary: dict[str, object]) -> None:
    table = Table(title="Retrieval evaluation", show_lines=False)
    for column in ("", "query", "expect", "ranked", "answered"):
        table.add_column(column)
    for r in results:
        expect = r.query.expect
        ok = (r.ranked[:1] and r.ranked[0] in expect and r.answered) if expect else not r.answered
        table.add_row(
            "[green]✓[/]" if ok else "[red]✗[/]", escape(r.query.q), str(expect or "abstain"),
            str(r.ranked[:3]), "yes" if r.answered else "no",
        )
    console.print(table)
    figures = Table(title="Summary")
    figures.add_column("scope")
    keys = ["queries", "recall@1", "recall@3", "mrr", "abstention", "false_abstention", "uncovered_recall"]
    for key in keys:
        figures.add_column(key.replace("_", " "), justify="right")
    _figure_rows(figures, summary, keys)
    console.print(figures)


def _figure_rows(figures: Table, summary: dict[str, object], keys: list[str], prefix: str = "") -> None:
    by_language = summary.get("by_language", {})
    by_kind = summary.get("by_kind", {})
    scopes: dict[str, Any] = {
        "all": summary, **(by_language if isinstance(by_language, dict) else {}),
        **({f"kind: {k}": v for k, v in by_kind.items()} if isinstance(by_kind, dict) else {}),
    }
    for scope, values in scopes.items():
        figures.add_row(prefix + scope, *(str(values.get(k, "-")) for k in keys))


def render_conversation_eval(console: Console, results: list[ConversationResult], summary: dict[str, object]) -> None:
    """Each conversation's last turn as read, and the figures of the last turns read in context and alone."""
    table = Table(title="Follow-up evaluation (the last turn of each conversation)")
    for column in ("", "kind", "last turn", "read as", "expect", "ranked", "answered", "alone"):
        table.add_column(column)
    for r in results:
        row, expect = r.in_context, r.in_context.query.expect
        ok = (row.ranked[:1] and row.ranked[0] in expect and row.answered) if expect else not row.answered
        alone = f"{r.alone.ranked[:1]} {'yes' if r.alone.answered else 'no'}"
        table.add_row(
            "[green]✓[/]" if ok else "[red]✗[/]", row.query.group, escape(row.query.q),
            escape(r.reading.text if r.reading.followup else "(alone)"), str(expect or "abstain"),
            str(row.ranked[:3]), "yes" if row.answered else "no", alone,
        )
    console.print(table)
    keys = ["queries", "recall@1", "recall@3", "mrr", "abstention", "false_abstention"]
    figures = Table(title="Summary: in context, then alone")
    figures.add_column("scope")
    for key in keys:
        figures.add_column(key.replace("_", " "), justify="right")
    for name in ("in_context", "alone"):
        part = summary.get(name)
        if isinstance(part, dict):
            _figure_rows(figures, part, keys, prefix=f"{name.replace('_', ' ')}: ")
    console.print(figures)
    console.print(f"read as a follow-up, per kind: {summary.get('read_as_followup')}")
