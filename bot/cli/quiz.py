"""`eksbot quiz`: the quiz in the terminal, with the same engine and the same saved progress.

Type a letter to answer (`B?` when guessing, `B!` when sure), `s` for stats, `q` (or Ctrl-C, Ctrl-D)
to leave. The model is loaded only for a topic that names no quiz topic (it is then matched by meaning).
The questions are those of the knowledge files and of the database (quiz questions added as entries), with
the maintainers' notes of both, as a server asks them.
"""

from __future__ import annotations

import argparse
import getpass
from collections.abc import Callable

from rich.console import Console, RenderableType
from rich.text import Text

from bot.cli.common import services_from_args
from bot.cli.quiz_view import Session, prompt_panel, show_result, show_stats
from bot.cli.texts import say
from bot.errors import InvalidChoiceError
from bot.lang import LANGUAGES
from bot.quiz import DEFAULT_TEAM, QuizEngine, QuizResult

ReadLine = Callable[[str], str]
QUIT = ("q", "quit", "exit", "salir")
STATS = ("s", "stats", "estadisticas", "estadísticas")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("quiz", help="practise with the quiz in the terminal (progress is saved)")
    parser.add_argument("--topic", help="only questions on this topic (a topic name, or words about it)")
    parser.add_argument("--lang", choices=LANGUAGES, default=None,
                        help="language of the questions (default: EKSBOT_DEFAULT_LANG, else the locale's)")
    parser.add_argument("--user", default=None, help="whose progress (default: your login name)")
    parser.set_defaults(func=cmd_quiz)


def cmd_quiz(args: argparse.Namespace) -> int:
    with services_from_args(args) as services:
        engine = services.quiz(args.topic)
        console = Console()
        return run(engine, console, console.input, user=args.user or login_name(), topic=args.topic,
                   lang=args.lang or services.settings.default_lang)


def login_name() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "me"


def run(engine: QuizEngine, console: Console, read: ReadLine, *, user: str, topic: str | None = None,
        lang: str = "en", team: str = DEFAULT_TEAM) -> int:
    """Ask questions until the person leaves; every answer is stored as soon as it is given. An unknown
    topic raises UnknownTopicError before anything is shown.

    After an answer the next question is drawn first, so that the result can be fitted above it: the
    verdict, printed last, stays in view with the next question under it."""
    prompt = engine.next_question(user, team=team, topic=topic, lang=lang)
    console.print(Text(say(lang, "intro", user=user), style="bold"))
    console.print(Text(say(lang, "help"), style="dim"))
    session = Session(asked=1)
    question = prompt_panel(prompt, session)
    while True:
        console.print()
        console.print(question)
        result = answer(engine, console, read, prompt.attempt_id, question, user=user, team=team, lang=lang)
        if result is None:
            console.print(Text(say(lang, "bye"), style="dim"))
            return 0
        session.count(result)
        prompt = engine.next_question(user, team=team, topic=topic, lang=lang)
        session.asked += 1
        question = prompt_panel(prompt, session)
        # On a terminal the result gets the lines above a blank line, the next question and the input line.
        below = len(console.render_lines(question, pad=False)) + 2
        room = console.height - below if console.is_terminal else None
        show_result(console, result, lang, now=engine.clock(), room=room)


def answer(engine: QuizEngine, console: Console, read: ReadLine, attempt_id: str, question: RenderableType, *,
           user: str, team: str, lang: str) -> QuizResult | None:
    """Read lines until one answers the question (None: the person leaves); `s` shows the stats, then the
    question again."""
    while True:
        try:
            line = read(f"{say(lang, 'answer')} > ").strip()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return None
        command = line.lower()
        if command in QUIT:
            return None
        if command in STATS:
            show_stats(console, engine.stats(user, team=team, lang=lang), lang)
            console.print()
            console.print(question)
            continue
        if not command:
            continue
        letter, confidence = parse_answer(line)
        try:
            return engine.answer(user, attempt_id, letter, confidence=confidence)
        except InvalidChoiceError as exc:
            console.print(Text(str(exc), style="yellow"))


def parse_answer(line: str) -> tuple[str, str | None]:
    """'B' -> ('B', None); 'b?' -> ('B', 'guessed'); 'B!' -> ('B', 'sure')."""
    text = line.strip()
    if text.endswith("?"):
        return text[:-1].strip().upper(), "guessed"
    if text.endswith("!"):
        return text[:-1].strip().upper(), "sure"
    return text.upper(), None
