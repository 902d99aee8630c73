"""How the terminal quiz looks: the question with the session's progress, the result (fitted to the
terminal's height, with the verdict last) and the stats."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from bot.cli.texts import maintainers_note, printable, say
from bot.knowledge.citations import SNIPPET_LINES, cut_snippet
from bot.messages import say as bot_say
from bot.quiz import QuizPrompt, QuizResult, UserStats

MIN_CODE = 4  # a snippet cut shorter than this says too little: its note alone stands for it
MIN_EXPLANATION = 3


@dataclass
class Session:
    """What happened since `eksbot quiz` started."""

    asked: int = 0
    answered: int = 0
    correct: int = 0

    def count(self, result: QuizResult) -> None:
        if not result.already_answered:
            self.answered += 1
            self.correct += int(result.correct)


def prompt_panel(prompt: QuizPrompt, session: Session) -> Panel:
    """The question and its options; on its lower border, where the session is ("3/15 · score 2/2 · …")."""
    body = Text()
    body.append(printable(prompt.prompt), style="bold")
    for option in prompt.options:
        body.append("\n  ")
        body.append(f"{option.key})", style="bold cyan")
        body.append(f" {printable(option.text)}")
    reason = say(prompt.lang, f"reason_{prompt.reason}")
    title = f"{prompt.question} · {escape(printable(prompt.topic))} · {reason}"
    return Panel(body, title=title, title_align="left", subtitle=escape(progress(prompt, session)),
                 subtitle_align="right", border_style="cyan")


def progress(prompt: QuizPrompt, session: Session) -> str:
    """This question's place in the session over the questions there are, the score, and what is due."""
    lang = prompt.lang
    if session.asked <= prompt.pool:
        position = f"{session.asked}/{prompt.pool}"
    else:
        position = say(lang, "past_pool", n=session.asked, pool=prompt.pool)
    score = say(lang, "score", correct=session.correct, answered=session.answered) if session.answered else ""
    return say(lang, "progress", position=position, score=score, due=prompt.due)


def show_result(console: Console, result: QuizResult, lang: str, *, now: datetime | None = None,
                room: int | None = None) -> None:
    """The explanation, snippet, the maintainers' notes and the citation in a panel, then the verdict, last,
    where it stays in view. With `room` (the terminal lines the result may take), the explanation and the
    snippet are cut to fit, each with a note of the lines left out; the maintainers' notes are never cut."""
    verdict = _verdict(result, lang, now)
    body = _Body(console, result, lang)
    space = None if room is None else room - 3 - body.height(verdict)  # a blank line and the panel's borders
    console.print()
    console.print(Panel(Group(*body.fitted(space)), border_style="green" if result.correct else "red"))
    console.print(verdict)


class _Body:
    """The inside of the result panel, measured at the panel's width."""

    def __init__(self, console: Console, result: QuizResult, lang: str) -> None:
        self.console = console
        self.options: ConsoleOptions = console.options.update(width=max(console.width - 4, 20))
        self.result = result
        self.lang = lang
        cite = result.citation
        source = bot_say(lang, "citation", number=cite.question, title=cite.title)
        self.source = Text(printable(f"· {source}  [{cite.source}]"), style="dim")
        self.notes: list[RenderableType] = [maintainers_note(lang, note) for note in result.notes]

    def height(self, renderable: RenderableType) -> int:
        return len(self.console.render_lines(renderable, self.options, pad=False))

    def fitted(self, space: int | None) -> list[RenderableType]:
        """Explanation, snippet, notes and citation in `space` lines (all of them when None)."""
        lines = list(Text(printable(self.result.explanation)).wrap(self.console, self.options.max_width))
        code = self._code(SNIPPET_LINES)
        tail: list[RenderableType] = [*self.notes, Text(), self.source]
        if space is None or len(lines) + self._height_of(code + tail) <= space:
            return [Text("\n").join(lines), *code, *tail]
        space -= self._height_of(tail)
        # The snippet gets what the explanation leaves, or a third of the space; at least MIN_CODE lines.
        budget = max(space - len(lines), space // 3)
        limit = SNIPPET_LINES
        while self._height_of(code) > budget and limit >= MIN_CODE:
            limit -= 1
            code = self._code(limit if limit >= MIN_CODE else 0)
        explanation = self._explanation(lines, max(space - self._height_of(code), MIN_EXPLANATION + 1))
        return [*explanation, *code, *tail]

    def _height_of(self, parts: list[RenderableType]) -> int:
        return sum(self.height(part) for part in parts)

    def _code(self, limit: int) -> list[RenderableType]:
        """The snippet cut to `limit` lines (0: none of it), after a blank line, with a note of what is left."""
        cite = self.result.citation
        if not cite.snippet:
            return []
        snippet = printable(cite.snippet)
        code, left = cut_snippet(snippet, limit) if limit else ("", len(snippet.rstrip("\n").split("\n")))
        parts: list[RenderableType] = [Text()]
        if code:
            parts.append(Syntax(code, cite.snippet_lang or "text", theme="ansi_dark", word_wrap=True))
        if left:
            parts.append(self._note(left))
        return parts

    def _explanation(self, lines: list[Text], space: int) -> list[RenderableType]:
        """The wrapped explanation in `space` lines: cut, with a note, at a paragraph's end when one is in
        the second half of what fits (not after a line that introduces what follows), else at a line's end."""
        if len(lines) <= space:
            return [Text("\n").join(lines)]
        keep = space - 1
        end = next((j for j in range(keep, keep // 2, -1)
                    if not lines[j].plain.strip() and not lines[j - 1].plain.rstrip().endswith(":")), keep)
        while end > 1 and not lines[end - 1].plain.strip():
            end -= 1
        kept = lines[:end]
        left = sum(1 for line in lines[end:] if line.plain.strip())
        return [Text("\n").join(kept), self._note(left)]

    def _note(self, left: int) -> Text:
        return Text(bot_say(self.lang, "more_lines", count=left, number=self.result.citation.question), style="dim")


def _verdict(result: QuizResult, lang: str, now: datetime | None) -> Group:
    if result.correct:
        lines = [Text(say(lang, "correct"), style="bold green")]
    else:
        wrong = say(lang, "wrong", letter=result.correct_choice, text=result.correct_text)
        lines = [Text(printable(wrong), style="bold red")]
    if result.already_answered:
        lines.append(Text(say(lang, "again", letter=result.choice), style="yellow"))
    if result.next_review is not None and now is not None:
        lines.append(Text(say(lang, "next", wait=wait_text(result.next_review - now, lang)), style="dim"))
    return Group(*lines)


def show_stats(console: Console, stats: UserStats, lang: str) -> None:
    figures = say(lang, "figures", answered=stats.answered, correct=stats.correct, due=stats.due,
                  accuracy="—" if stats.accuracy is None else f"{stats.accuracy:.0%}", current=stats.current_streak,
                  best=stats.best_streak)
    console.print()
    console.print(Text(say(lang, "stats", user=stats.user), style="bold"))
    console.print(figures)
    if not stats.answered:
        return
    table = Table()
    table.add_column(say(lang, "topic"))
    for column in ("✓", "#", "%"):
        table.add_column(column, justify="right")
    untried = []
    for topic, values in stats.per_topic.items():
        accuracy = values["accuracy"]
        if accuracy is None:
            untried.append(topic)
        else:
            table.add_row(escape(topic), str(values["correct"]), str(values["answered"]), f"{accuracy:.0%}")
    console.print(table)
    if untried:
        console.print(Text(say(lang, "not_tried", topics=", ".join(untried)), style="dim"))


def wait_text(wait: timedelta, lang: str) -> str:
    minutes = max(1, round(wait.total_seconds() / 60))
    if minutes < 90:
        return say(lang, "minutes", n=minutes)
    if minutes < 36 * 60:
        return say(lang, "hours", n=round(minutes / 60))
    return say(lang, "days", n=round(minutes / (24 * 60)))
