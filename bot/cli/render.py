"""Render the core's objects for a terminal."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.style import Style
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from bot.answering.assistant import Answer
from bot.cli.texts import maintainers_note, printable
from bot.evaluation.conversations import ConversationResult
from bot.evaluation.documents import DocResult
from bot.evaluation.queries import EvalResult
from bot.knowledge.citations import SNIPPET_CHARS, SNIPPET_LINES, Citation, Part, cut_snippet
from bot.messages import say

_PLAIN_URL = re.compile(r"https?://[!-~]+", re.IGNORECASE)  # printable ASCII, no spaces or control characters


def render_answer(console: Console, answer: Answer) -> None:
    if not answer.answered:
        console.print(Panel(Text(printable(answer.text)), border_style="yellow", title="?"))
        return
    top = answer.citations[0]
    parts: list[object] = []
    same_page = [c for c in answer.citations[1:] if c.section and c.doc_id == top.doc_id]
    if top.section:  # from a document: where it comes from first (heading path, source and link)
        parts.append(citation_text(answer.language, top))
    if answer.caveat:
        parts.append(Text(printable(answer.caveat), style="yellow"))
    # The answer's text ends with the maintainers' notes: they are shown once, after the reference.
    if top.parts:
        parts += quoted_parts(answer.language, top)
    else:
        parts.append(Text(printable(top.excerpt or answer.text.removesuffix(notes_suffix(answer.language,
                                                                                           top.notes)))))
        parts += snippet_parts(answer.language, top)
    for beside in top.beside:  # a section of the same part of the page, quoted under its own heading
        parts.append(Text("\n" + printable(beside.section), style="bold"))
        parts += quoted_parts(answer.language, beside)
    if answer.reference:
        parts.append(Text("\n" + printable(answer.reference)))
    parts.extend(maintainers_note(answer.language, note) for note in top.notes)
    if same_page:  # the next-best sections of the same page, by their own headings
        headings = "; ".join(c.section.rsplit(" › ", 1)[-1] for c in same_page)
        parts.append(Text("\n" + printable(say(answer.language, "more_in_page", sections=headings)), style="dim"))
    cites = Text()
    shown: set[str] = {top.url or ""} if top.section else set()
    for citation in answer.citations:
        if citation in same_page or (citation is top and top.section):
            continue
        cites.append_text(citation_text(answer.language, citation, with_url=citation.url not in shown))
        shown.add(citation.url or "")
    if cites.plain:
        parts.append(cites)
    console.print(Panel(Group(*parts), border_style="green", title=escape(printable(answer.answer_line or ""))))  # type: ignore[arg-type]


def quoted_parts(lang: str, citation: Citation) -> list[object]:
    """What a citation quotes: its excerpt, then its snippet; or, when it shows several code blocks, each text with
    the block it leads into, in the section's order."""
    if not citation.parts:
        return [Text(printable(citation.excerpt)), *snippet_parts(lang, citation)]
    out: list[object] = []
    for part in citation.parts:
        if part.text:
            out.append(Text(printable(part.text)))
        out += snippet_parts(lang, citation, part)
    return out


def snippet_parts(lang: str, citation: Citation, part: Part | None = None) -> list[object]:
    """A citation's snippet (the excerpt may end on the sentence that introduces it), or the block of one of its
    `part`s, cut at a sensible line when long, with a note of what is left out."""
    snippet, snippet_lang = (part.snippet, part.snippet_lang) if part else (citation.snippet, citation.snippet_lang)
    if not snippet:
        return []
    code, left = cut_snippet(printable(snippet), SNIPPET_LINES, SNIPPET_CHARS)
    parts: list[object] = [Syntax(code, snippet_lang or "text", theme="ansi_dark", word_wrap=True)]
    if left:
        more = (say(lang, "more_lines_section", count=left, title=citation.title) if citation.section
                else say(lang, "more_lines", count=left, number=citation.question))
        parts.append(Text(printable(more), style="dim"))
    return parts


def notes_suffix(lang: str, notes: Sequence[str]) -> str:
    """What the assistant appends to an answer's text for the notes of its top citation."""
    return "".join(f"\n\n{say(lang, 'maintainers_note', text=note)}" for note in notes)


def citation_text(lang: str, citation: Citation, *, with_url: bool = True) -> Text:
    """`· Question 5 · title  [source, score]` for a quiz question; `· Title › Heading  [source, score]` for a
    document's section; then, when the knowledge gives one (and `with_url`), the document's URL on a line of
    its own."""
    name = citation.section or say(lang, "citation", number=citation.question, title=citation.title)
    text = Text("\n· " + printable(name), style="dim")
    text.append(f"  [{printable(citation.source)}, {citation.score:.2f}]", style="dim")
    if citation.url and with_url:
        text.append("\n  ")
        # A terminal hyperlink only for a plain http(s) URL: its text goes into an escape sequence as it is.
        link = citation.url if _PLAIN_URL.fullmatch(citation.url) else None
        text.append(printable(citation.url), style=Style(dim=True, link=link))
    return text


def render_document_eval(console: Console, results: list[DocResult], summary: dict[str, object]) -> None:
    """Per source and language: the passage quoted, answered right (and in the right section); where the answers
    not quoted went (another section of the right page, another passage of the right section, another page:
    wrong source, declined: false abstention, and of those the share offered the right page as the closest);
    declined right, handled (declined, or answered naming what is not covered)."""
    table = Table(title="Answers from documents, per source and language")
    for column in ("source", "answerable", "quoted", "answered right", "right section", "other section",
                   "other passage", "wrong source", "false abstention", "suggested", "unanswerable", "declined right",
                   "handled"):
        table.add_column(column, justify="left" if column == "source" else "right")
    for source, stats in summary.items():
        assert isinstance(stats, dict)
        table.add_row(source, *(_figure(stats[key]) for key in (
            "answerable", "quoted", "answered_right", "right_section", "other_section", "other_passage",
            "wrong_source", "false_abstention", "suggested", "unanswerable", "declined_right", "handled")))
    console.print(table)
    misses = [r for r in results if r.question.answerable != r.answered or (r.answered and not r.right
                                                                            and r.question.answerable)]
    for r in misses:
        console.print(f"  {'declined' if not r.answered else 'answered'} ({r.confidence:.2f}): {r.question.q[:100]}",
                      style="dim", markup=False, highlight=False)


def _figure(value: object) -> str:
    return "—" if value is None else (f"{value:.3f}" if isinstance(value, float) else str(value))


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
    keys = ["queries", "recall@1", "recall@3", "mrr", "abstention", "handled", "false_abstention",
            "suggested_right", "suggested_out", "uncovered_recall"]
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
