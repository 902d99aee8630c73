"""`eksbot quiz`: the quiz in the terminal, with the same engine and the same saved progress.

Type a letter to answer (`B?` when guessing, `B!` when sure), `s` for stats, `q` (or Ctrl-C, Ctrl-D)
to leave. The model is loaded only for a topic that names no quiz topic (it is then matched by meaning).
"""

from __future__ import annotations

import argparse
import getpass
from collections.abc import Callable
from datetime import datetime, timedelta

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from bot.cli.common import settings_from_args
from bot.cli.texts import say
from bot.config import Settings
from bot.errors import AlreadyAnsweredError, InvalidChoiceError
from bot.knowledge import KnowledgeBase, load_knowledge
from bot.lang import LANGUAGES
from bot.messages import say as bot_say
from bot.quiz import QuizEngine, QuizPrompt, QuizResult, TopicMatcher, UserStats
from bot.quiz.topics import matches
from bot.storage import Store, open_store

ReadLine = Callable[[str], str]
QUIT = ("q", "quit", "exit", "salir")
STATS = ("s", "stats", "estadisticas", "estadísticas")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("quiz", help="practise with the quiz in the terminal (progress is saved)")
    parser.add_argument("--topic", help="only questions on this topic (a topic name, or words about it)")
    parser.add_argument("--lang", choices=LANGUAGES, default=None,
                        help="language of the questions (default: EKSBOT_DEFAULT_LANG)")
    parser.add_argument("--user", default=None, help="whose progress (default: your login name)")
    parser.set_defaults(func=cmd_quiz)


def cmd_quiz(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    store = open_store(settings)
    try:
        engine = build_engine(settings, store, args.topic)
        console = Console()
        return run(engine, console, console.input, user=args.user or login_name(), topic=args.topic,
                   lang=args.lang or settings.default_lang)
    finally:
        store.close()


def build_engine(settings: Settings, store: Store, topic: str | None) -> QuizEngine:
    """The engine; with the assistant as topic matcher only when the topic names no quiz topic."""
    knowledge = load_knowledge(settings.knowledge_dir)
    matcher: TopicMatcher | None = None
    if topic and topic.strip() and not names_a_topic(knowledge, topic):
        from bot.answers import Assistant

        matcher = Assistant.from_settings(settings)
    return QuizEngine(knowledge, store, topics=matcher)


def names_a_topic(knowledge: KnowledgeBase, topic: str) -> bool:
    return any(matches(topic, q.topic) for d in knowledge.documents if d.kind == "quiz" for q in d.questions)


def login_name() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "me"


def run(engine: QuizEngine, console: Console, read: ReadLine, *, user: str, topic: str | None = None,
        lang: str = "en", team: str = "default") -> int:
    """Ask questions until the person leaves; every answer is stored as soon as it is given. An unknown
    topic raises UnknownTopicError before anything is shown."""
    prompt = engine.next_question(user, team=team, topic=topic, lang=lang)
    console.print(Text(say(lang, "intro", user=user), style="bold"))
    console.print(Text(say(lang, "help"), style="dim"))
    while True:
        show_prompt(console, prompt)
        while True:
            try:
                line = read(f"{say(lang, 'answer')} > ").strip()
            except (EOFError, KeyboardInterrupt):
                console.print()
                console.print(Text(say(lang, "bye"), style="dim"))
                return 0
            command = line.lower()
            if command in QUIT:
                console.print(Text(say(lang, "bye"), style="dim"))
                return 0
            if command in STATS:
                show_stats(console, engine.stats(user, team=team, lang=lang), lang)
                continue
            if not command:
                continue
            letter, confidence = parse_answer(line)
            try:
                result = engine.answer(user, prompt.attempt_id, letter, confidence=confidence)
            except InvalidChoiceError as exc:
                console.print(Text(str(exc), style="yellow"))
                continue
            except AlreadyAnsweredError as exc:
                result = exc.result
            show_result(console, result, lang, now=engine.clock())
            break
        prompt = engine.next_question(user, team=team, topic=topic, lang=lang)


def parse_answer(line: str) -> tuple[str, str | None]:
    """'B' -> ('B', None); 'b?' -> ('B', 'guessed'); 'B!' -> ('B', 'sure')."""
    text = line.strip()
    if text.endswith("?"):
        return text[:-1].strip().upper(), "guessed"
    if text.endswith("!"):
        return text[:-1].strip().upper(), "sure"
    return text.upper(), None


def show_prompt(console: Console, prompt: QuizPrompt) -> None:
    body = Text()
    body.append(prompt.prompt, style="bold")
    for option in prompt.options:
        body.append("\n  ")
        body.append(f"{option.key})", style="bold cyan")
        body.append(f" {option.text}")
    reason = say(prompt.lang, f"reason_{prompt.reason}")
    title = f"{prompt.question} · {escape(prompt.topic)} · {reason}"
    console.print()
    console.print(Panel(body, title=title, title_align="left", border_style="cyan"))


def show_result(console: Console, result: QuizResult, lang: str, *, now: datetime | None = None) -> None:
    if result.correct:
        head = Text(say(lang, "correct"), style="bold green")
    else:
        wrong = say(lang, "wrong", letter=result.correct_choice, text=result.correct_text)
        head = Text(wrong, style="bold red")
    parts: list[RenderableType] = [head]
    if result.already_answered:
        parts.append(Text(say(lang, "again", letter=result.choice), style="yellow"))
    parts += [Text(), Text(result.explanation)]
    cite = result.citation
    if cite.snippet:
        code = Syntax(cite.snippet, cite.snippet_lang or "text", theme="ansi_dark", word_wrap=True)
        parts += [Text(), code]
    source = bot_say(lang, "citation", number=cite.question, title=cite.title)
    parts += [Text(), Text(f"· {source}  [{cite.source}]", style="dim")]
    if result.next_review is not None and now is not None:
        wait = wait_text(result.next_review - now, lang)
        parts.append(Text(say(lang, "next", wait=wait), style="dim"))
    console.print(Panel(Group(*parts), border_style="green" if result.correct else "red"))


def show_stats(console: Console, stats: UserStats, lang: str) -> None:
    figures = say(lang, "figures", answered=stats.answered, correct=stats.correct, due=stats.due,
                  accuracy=stats.accuracy, current=stats.current_streak, best=stats.best_streak)
    console.print()
    console.print(Text(say(lang, "stats", user=stats.user), style="bold"))
    console.print(figures)
    if not stats.answered:
        return
    table = Table()
    table.add_column(say(lang, "topic"))
    for column in ("✓", "#", "%"):
        table.add_column(column, justify="right")
    for topic, values in stats.per_topic.items():
        if values["answered"]:
            table.add_row(escape(topic), str(values["correct"]), str(values["answered"]),
                          f"{values['accuracy']:.0%}")
    console.print(table)


def wait_text(wait: timedelta, lang: str) -> str:
    minutes = max(1, round(wait.total_seconds() / 60))
    if minutes < 90:
        return say(lang, "minutes", n=minutes)
    if minutes < 36 * 60:
        return say(lang, "hours", n=round(minutes / 60))
    return say(lang, "days", n=round(minutes / (24 * 60)))


