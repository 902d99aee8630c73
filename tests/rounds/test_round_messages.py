"""Team rounds' Slack messages and commands, without a server: Block Kit limits, escaping, reading
`/quiz round` and `/quiz schedule`, and the round runner through a database outage."""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import UTC, datetime, time
from typing import Any

import pytest

from bot.errors import InputError, StorageUnavailableError
from bot.quiz import QuizOption
from bot.quiz.explain import citation
from bot.rounds import OptionCount, QuestionReveal, QuestionView, Reveal, RoundRunner, RoundView, Standing
from bot.rounds.lifecycle import MAX_QUESTIONS
from bot.slack.round_blocks import reveal_message, round_message
from bot.slack.round_commands import (
    AddSchedule,
    ChangeSchedule,
    EndRound,
    ListSchedules,
    RoundHelp,
    StartRound,
    is_round_command,
    parse,
    split_command,
)
from tests.support.block_kit import check_limits
from tests.support.quiz_helpers import DOC, knowledge
from tests.support.slack_fake import SPECIAL_MENTIONS, texts

HOSTILE = "<!channel> <@U999> & <https://evil.example|click>"
ENDS = datetime(2025, 3, 3, 10, 0, tzinfo=UTC)


def view(count: int = MAX_QUESTIONS, *, closed: bool = False, topic: str = HOSTILE) -> RoundView:
    questions = []
    for i in range(count):
        q = knowledge().question(DOC, i % 15 + 1, "en")
        options = [QuizOption(letter, f"{o.text} {HOSTILE}") for letter, o in zip("ABCD", q.options, strict=True)]
        questions.append(QuestionView(position=i, number=q.number, title=q.title + " " * 3000, topic=topic,
                                      options=options))
    return RoundView(id="r" * 16, team="T1", channel="C1", lang="en", started_by="U1", scheduled=False,
                     message_ts="1.2", ends_at=ENDS, minutes=60, people=3, closed=closed, questions=questions)


def reveal(count: int = MAX_QUESTIONS) -> Reveal:
    shown = view(count, closed=True)
    questions = []
    for q in shown.questions:
        question = knowledge().question(DOC, q.number, "en")
        options = [OptionCount(o.key, o.text, 7, o.key == "B") for o in q.options]
        questions.append(QuestionReveal(position=q.position, number=q.number, title=q.title, answer_letter="B",
                                        answer_text=options[1].text, options=options, answered=28, right=7,
                                        sentence=HOSTILE * 100, citation=citation(question)))
    standings = [Standing(f"U{i:03d}", 10 - i % 10, 10) for i in range(60)]
    return Reveal(round=shown, questions=questions, standings=standings, people=60, ended_by="U2")


def check_fits_and_escapes(message: dict[str, Any]) -> None:
    """Block Kit's limits (tests.support.block_kit), and no mention or link of the hostile text shown live."""
    check_limits(message)
    shown = " ".join(texts(message))
    assert not any(s in shown for s in SPECIAL_MENTIONS) and "<https://evil" not in shown and "<@U999>" not in shown


def test_a_round_of_ten_questions_fits_slack_and_escapes_knowledge_text() -> None:
    message = round_message(view())
    check_fits_and_escapes(message)
    assert len([b for b in message["blocks"] if b["type"] == "actions"]) == MAX_QUESTIONS
    assert "&lt;!channel&gt;" in " ".join(texts(message))
    closed = round_message(view(closed=True))
    check_fits_and_escapes(closed)
    assert not [b for b in closed["blocks"] if b["type"] == "actions"]
    assert "Round over" in " ".join(texts(closed))


def test_a_reveal_of_ten_questions_and_sixty_people_fits_slack() -> None:
    message = reveal_message(reveal())
    check_fits_and_escapes(message)
    text = " ".join(texts(message))
    assert "ended early by <@U2>" in text and "60 people have answered" in text
    assert "10. <@U009>" in text and "11. " not in text  # the top ten


def test_a_round_button_carries_only_the_round_question_and_letter() -> None:
    message = round_message(view(2))
    values = [json.loads(e["value"]) for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert values[:4] == [{"r": "r" * 16, "p": 0, "c": letter} for letter in "ABCD"]


# -- reading the commands -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("round", StartRound()),
    ("round 5", StartRound(count=5)),
    ("round 5 slurm for 30m", StartRound(count=5, topic="slurm", minutes=30)),
    ("ronda gang scheduling durante 1h30 es", StartRound(topic="gang scheduling", minutes=90)),
    ("en round for 2h 4 storage", StartRound(count=4, topic="storage", minutes=120)),
    ("round end", EndRound()),
    ("ronda fin", EndRound()),
    ("round help", RoundHelp()),
    ("schedule", ListSchedules()),
    ("schedule list", ListSchedules()),
    ("schedule weekly mon 10:00", AddSchedule(0, time(10))),
    ("schedule weekly fri 16:30 5 karpenter for 45m Europe/Madrid",
     AddSchedule(4, time(16, 30), 5, "karpenter", 45, "Europe/Madrid")),
    ("programar semanal miércoles 9:00 2", AddSchedule(2, time(9), 2)),
    ("schedule cancel", ChangeSchedule("cancel", None)),
    ("schedule cancel #12", ChangeSchedule("cancel", 12)),
    ("schedule resume 3", ChangeSchedule("resume", 3)),
])
def test_round_commands_are_read(text: str, expected: object) -> None:
    lang, words = split_command(text)
    assert is_round_command(words)
    assert parse(words, lang or "es") == expected


@pytest.mark.parametrize(("text", "message"), [
    ("round for soon", "Invalid duration"),
    ("schedule weekly mon", "Say the day and time"),
    ("schedule weekly someday 10:00", "Say the day and time"),
    ("schedule weekly mon 25:00", "Say the day and time"),
    ("schedule weekly mon 10:00 Atlantis/Capital", "Unknown time zone"),
    ("schedule cancel three", "Which scheduled round"),
])
def test_a_wrong_round_command_says_what_is_wrong(text: str, message: str) -> None:
    lang, words = split_command(f"{text} en")
    assert lang == "en"
    with pytest.raises(InputError, match=message):
        parse(words, lang)


def test_other_quiz_commands_are_not_rounds() -> None:
    for text in ("", "slurm", "stats", "5", "en round-robin scheduling"):
        assert not is_round_command(split_command(text)[1])


# -- the runner ----------------------------------------------------------------------------------------------


class FlakyWork:
    """A RoundWork whose database is down for its first `down` passes."""

    def __init__(self, down: int) -> None:
        self.down = down
        self.calls = 0

    async def due(self, *, only: str | None = None) -> int:
        self.calls += 1
        if self.calls <= self.down:
            raise StorageUnavailableError("database unavailable (OperationalError)", "connection refused")
        return 0


def test_the_runner_waits_out_a_database_outage_and_logs_it_once(caplog: pytest.LogCaptureFixture) -> None:
    work = FlakyWork(down=4)
    runner = RoundRunner(lambda: work, poll=0.001)  # type: ignore[arg-type, return-value]
    with caplog.at_level(logging.INFO, logger="bot.rounds.runner"):
        delays = [asyncio.run(runner.tick()) for _ in range(6)]
    assert delays[:4] == sorted(delays[:4]) and delays[0] > 0.001 and delays[4:] == [0.001, 0.001]
    messages = [r.getMessage() for r in caplog.records if r.name == "bot.rounds.runner"]
    assert messages == ["rounds wait for the database: database unavailable (OperationalError)",
                        "rounds: the database is back"]
    assert "connection refused" not in caplog.text


def test_the_runner_waits_for_the_services_and_stops_cleanly(caplog: pytest.LogCaptureFixture) -> None:
    work = FlakyWork(down=0)
    ready: list[FlakyWork] = []

    async def scenario() -> None:
        runner = RoundRunner(lambda: ready[0] if ready else None, poll=0.01)  # type: ignore[arg-type, return-value]
        runner.start()
        await asyncio.sleep(0.05)
        assert work.calls == 0  # still loading
        ready.append(work)
        await asyncio.sleep(0.1)
        await runner.stop()
        calls = work.calls
        await asyncio.sleep(0.05)
        assert calls > 0 and work.calls == calls

    with caplog.at_level(logging.WARNING):
        asyncio.run(scenario())
    assert not caplog.records


def test_the_runner_has_no_work_until_the_database_is_opened(services: Any, settings: Any) -> None:
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.slack.rounds import round_runner
    from bot.storage.startup import DatabaseStartup

    loaded: list[Any] = []
    runner = round_runner(AsyncWebClient(token="xoxb-unused"), lambda: loaded[0] if loaded else None, settings)
    assert runner.get_work() is None  # the services are loading
    loaded.append(services)
    assert runner.get_work() is not None
    services.database = DatabaseStartup(services.stores.database, migrate=False)  # still connecting
    assert runner.get_work() is None
