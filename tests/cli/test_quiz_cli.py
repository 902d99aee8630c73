"""`eksbot quiz` in the terminal: the loop with scripted input, and the real command in a subprocess."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from bot.cli.quiz import parse_answer, run
from bot.cli.quiz_view import show_result
from bot.knowledge.entries import with_entries
from bot.knowledge.model import Note
from bot.quiz import QuizEngine, TopicMatcher
from bot.quiz.topics import names_a_topic
from bot.storage import Database, QuizStore, Stores
from tests.support.quiz_helpers import DOC, Clock, knowledge, wrong_letter

# The command as `eksbot` will run it: a parser with the `quiz` subcommand registered.
COMMAND = (
    "import argparse, sys\n"
    "from bot.cli.quiz import register\n"
    "parser = argparse.ArgumentParser(prog='eksbot')\n"
    "register(parser.add_subparsers(dest='command', required=True))\n"
    "args = parser.parse_args(sys.argv[1:])\n"
    "sys.exit(args.func(args))\n"
)


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    """SQLite only: the terminal quiz is the same engine the PostgreSQL tests run."""
    return sqlite_url


@pytest.fixture
def engine(store: Stores, clock: Clock) -> QuizEngine:
    return QuizEngine(knowledge(), store.quiz, clock=clock, rng=random.Random(5))


def scripted(lines: list[str], prompts: list[str]) -> Callable[[str], str]:
    """An input function that types `lines`, then presses Ctrl-D."""
    pending = iter(lines)

    def read(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(pending)
        except StopIteration:
            raise EOFError from None

    return read


def console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=120, color_system=None, force_terminal=False), out


def test_answer_one_question_see_the_result_and_stats_then_quit(engine: QuizEngine, store: Stores) -> None:
    term, out = console()
    prompts: list[str] = []
    code = run(engine, term, scripted(["", "Z", "a?", "s", "q", "never read"], prompts), user="tester")
    text = out.getvalue()
    assert code == 0
    assert prompts == ["Your answer > "] * 5  # empty line, Z refused, then the answer, stats, quit

    [attempt] = store.quiz.answered_attempts(user="tester")
    question = knowledge().question(DOC, attempt.question, "en")
    assert question.title.split()[0] in text and "A)" in text
    assert "Invalid answer 'Z': choose one of A, B, C, D." in text
    assert attempt.confidence == "guessed" and attempt.choice == attempt.option_order[0]  # shown A
    if attempt.correct:
        assert "✅ Correct!" in text
    else:
        right = question.correct_option
        assert right is not None
        letter = "ABCD"[attempt.option_order.index(right.key)]
        assert f"❌ Wrong: the answer is {letter}) {right.text}" in text
    assert question.blocks[0].text[:40] in text  # the explanation
    assert f"Question {question.number} · " in text and "[eks-training-quiz.en.md]" in text  # the citation
    assert "Stats for tester" in text and "Answered: 1" in text and "Not tried yet: " in text
    assert "See you next time" in text
    assert engine.stats("tester").answered == 1  # stored, not only shown


def test_a_snippet_is_shown_with_the_explanation(engine: QuizEngine) -> None:
    term, out = console()
    code = run(engine, term, scripted(["B!"], []), user="tester", topic="mpijob")  # question 13 has YAML
    assert code == 0
    assert "slotsPerWorker" in out.getvalue() and "kind: MPIJob" in out.getvalue()
    [attempt] = engine.store.answered_attempts(user="tester")
    assert (attempt.question, attempt.confidence) == (13, "sure")


def test_a_snippet_of_one_huge_line_is_shown_cut(engine: QuizEngine) -> None:
    """A quiz question written as an entry may hold a code block of one minified line of any length."""
    huge = "x" * 300_000
    result = engine.answer("tester", engine.next_question("tester", topic="mpijob").attempt_id, "B")
    citation = replace(result.citation, snippet=f'{{"manifest": "{huge}"}}', snippet_lang="json")
    term, out = console()
    show_result(term, replace(result, citation=citation), "en")
    shown = out.getvalue()
    assert "manifest" in shown and "…" in shown
    assert len(shown) < 10_000


def terminal(height: int = 40, width: int = 80) -> tuple[Console, io.StringIO]:
    """A terminal of a fixed size."""
    out = io.StringIO()
    return Console(file=out, width=width, height=height, force_terminal=True, color_system=None), out


def test_the_verdict_stays_in_view_on_a_40_row_terminal(engine: QuizEngine) -> None:
    term, out = terminal(height=40)
    screens: list[list[str]] = []

    def read(_prompt: str) -> str:
        """Answers A, then leaves; keeps what the terminal shows each time: 39 lines, then the input line."""
        screens.append(out.getvalue().splitlines()[-39:])
        if len(screens) > 1:
            raise EOFError
        return "A"

    run(engine, term, read, user="tester", topic="deepspeed")  # question 12: the longest explanation and code
    [attempt] = engine.store.answered_attempts(user="tester")
    assert attempt.question == 12
    screen = screens[1]
    verdict = "✅ Correct!" if attempt.correct else "❌ Wrong: the answer is"
    [at] = [i for i, line in enumerate(screen) if line.startswith(verdict)]
    top = max(i for i, line in enumerate(screen[:at]) if line.startswith("╭"))
    panel = "\n".join(screen[top:at])
    assert screen[at - 1].startswith("╰")  # the verdict comes right after the whole explanation panel
    question = knowledge().question(DOC, 12, "en")
    assert question.blocks[0].text[:40] in panel  # which starts with the explanation's first words
    assert "more lines in question 12" in panel and '"zero_optimization": {' in panel  # cut to fit, with a note
    assert screen[-1].startswith("╰") and "2 (1 in all) · score " in screen[-1]  # then the next question


def test_each_question_shows_its_place_the_score_and_what_is_due(engine: QuizEngine, clock: Clock) -> None:
    earlier = engine.next_question("tester")
    engine.answer("tester", earlier.attempt_id, wrong_letter(earlier))
    clock.advance(hours=1)  # that wrong answer is due again
    term, out = console()
    run(engine, term, scripted(["A"], []), user="tester")
    total = len(knowledge().questions("en"))
    [attempt] = [a for a in engine.store.answered_attempts(user="tester") if a.id != earlier.attempt_id]
    assert attempt.question == earlier.question  # the one due came first
    text = out.getvalue()
    assert f"{earlier.question} · " in text and " · due for review ─" in text
    assert f" 1/{total} · due for review: 1 ─╯" in text
    assert f" 2/{total} · score {int(bool(attempt.correct))}/1 · due for review: 0 ─╯" in text


def test_after_the_stats_the_question_is_shown_again(engine: QuizEngine) -> None:
    term, out = console()
    run(engine, term, scripted(["s"], []), user="tester")
    before, after = out.getvalue().split("Stats for tester")
    lines = before.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("╭─ "))
    question = "\n".join(lines[top:])
    assert "A) " in question and question.strip() in after


def test_ctrl_c_and_end_of_input_leave_cleanly_in_spanish(engine: QuizEngine, store: Stores) -> None:
    def interrupted(_prompt: str) -> str:
        raise KeyboardInterrupt

    for read in (interrupted, scripted([], [])):
        term, out = console()
        assert run(engine, term, read, user="tester", lang="es") == 0
        assert "Hasta la próxima: tu progreso está guardado." in out.getvalue()
    assert store.quiz.answered_attempts(user="tester") == []


@pytest.mark.parametrize(
    ("line", "parsed"),
    [("B", ("B", None)), ("b?", ("B", "guessed")), (" c ! ", ("C", "sure")), ("d", ("D", None))],
)
def test_a_question_mark_means_guessed(line: str, parsed: tuple[str, str | None]) -> None:
    assert parse_answer(line) == parsed


def test_only_topics_that_name_no_quiz_topic_need_the_model() -> None:
    assert names_a_topic(knowledge(), "Karpenter") and names_a_topic(knowledge(), "precision mixta")
    assert not names_a_topic(knowledge(), "offloading parameters to the CPU")


def test_a_free_text_topic_is_matched_by_the_assistant(store: Stores, fake_assistant: TopicMatcher) -> None:
    engine = QuizEngine(knowledge(), store.quiz, topics=fake_assistant)
    prompt = engine.next_question("tester", topic="offload optimizer states and parameters to CPU memory")
    assert prompt.question == 12


def test_the_command_keeps_progress_between_runs(tmp_path: Path, db_url: str) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("EKSBOT_DEFAULT_LANG", "LC_ALL", "LC_MESSAGES")},
        "LANG": "en_US.UTF-8",
        "EKSBOT_DATABASE_URL": db_url,
        "EKSBOT_DATA_DIR": str(tmp_path / "data"),
        # A topic name must not load the model: these would make loading it fail.
        "EKSBOT_EMBEDDING_MODEL": str(tmp_path / "no-model"),
        "EKSBOT_INDEX_DIR": str(tmp_path / "no-index"),
        "EKSBOT_AUTO_REBUILD": "false",
        "LOGNAME": "quiz-tester",
        "COLUMNS": "120",
    }

    def eksbot(*args: str, typed: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", COMMAND, "quiz", *args], input=typed, env=env,
                              capture_output=True, text=True, timeout=120)

    first = eksbot("--topic", "karpenter", "--lang", "es", typed="B!\nq\n")
    assert first.returncode == 0, first.stderr
    assert "Karpenter" in first.stdout and "Tu respuesta" in first.stdout
    assert "Hasta la próxima" in first.stdout

    second = eksbot(typed="s\n")  # in the language of the terminal's locale; then end of input
    assert second.returncode == 0, second.stderr
    assert "Stats for quiz-tester" in second.stdout and "Answered: 1" in second.stdout

    store = Database(db_url)
    try:
        [attempt] = QuizStore(store).answered_attempts(user="quiz-tester")
        assert (attempt.question, attempt.lang, attempt.confidence) == (15, "es", "sure")
    finally:
        store.close()



# -- maintainers' notes ------------------------------------------------------------------------------------

NOTE = "Since DeepSpeed 0.14 the config key is also accepted as zero_optimization.stage3_offload."


def noted(store: Stores, clock: Clock, *notes: Note) -> QuizEngine:
    return QuizEngine(with_entries(knowledge(), [], notes), store.quiz, clock=clock, rng=random.Random(5))


def test_a_result_shows_the_maintainers_notes_after_the_explanation(store: Stores, clock: Clock) -> None:
    engine = noted(store, clock, Note("n1", DOC, 12, "en", NOTE), Note("n2", DOC, 12, "es", "Solo en español."))
    term, out = console()
    run(engine, term, scripted(["A"], []), user="tester", topic="deepspeed")
    text = out.getvalue()
    lines = [line.strip("│ ") for line in text.splitlines()]
    [at] = [i for i, line in enumerate(lines) if line.startswith("Note from the maintainers:")]
    assert lines[at] == f"Note from the maintainers: {NOTE}"  # the attempt's language only
    explanation = knowledge().question(DOC, 12, "en").blocks[0].text[:40]
    assert next(i for i, line in enumerate(lines) if explanation in line) < at
    assert at < next(i for i, line in enumerate(lines) if line.startswith("· Question 12 · "))
    assert "Solo en español." not in text


def test_a_result_cut_to_fit_the_terminal_keeps_its_note(store: Stores, clock: Clock) -> None:
    engine = noted(store, clock, Note("n1", DOC, 12, "en", NOTE))
    prompt = engine.next_question("tester", question=12, lang="en")
    result = engine.answer("tester", prompt.attempt_id, "A")
    assert result.notes == (NOTE,)
    term, out = terminal(height=30)
    show_result(term, result, "en", room=26)
    text = out.getvalue()
    inside = " ".join(line.strip("│ ") for line in text.splitlines())  # the panel's lines, unwrapped
    assert "more lines in question 12" in text  # the explanation and the snippet were cut…
    assert f"Note from the maintainers: {NOTE}" in inside  # …the note was not
    assert len(text.splitlines()) <= 26


def test_a_note_in_spanish_and_without_control_characters(engine: QuizEngine) -> None:
    prompt = engine.next_question("tester", question=4, lang="es")
    result = replace(engine.answer("tester", prompt.attempt_id, "A"), notes=("Ahora es \x1b[31mNodeSet\x1b[0m.",))
    term, out = console()
    show_result(term, result, "es")
    assert "Nota de los mantenedores: Ahora es [31mNodeSet[0m." in out.getvalue()
    assert "\x1b" not in out.getvalue()
