"""`/quiz`, its buttons, sharing and feedback, end to end: signed requests to the real app over HTTP.

What a person sees arrives at the (fake) `response_url` or through the (fake) Web API.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx
import pytest

from bot.config import Settings
from bot.quiz import QuizPrompt
from bot.services import Services
from tests.support.quiz_helpers import right_letter, wrong_letter
from tests.support.slack_fake import (
    BOT_USER,
    SPECIAL_MENTIONS,
    FakeSlack,
    SlackSender,
    bot_server,
    button,
    buttons,
    message_event,
    texts,
)
from tests.support.slack_helpers import answer_button, ask, click, header, prompt_of


def attempt_of(message: dict[str, Any]) -> str:
    values = {json.loads(b["value"])["a"] for b in buttons(message) if b["action_id"].startswith("quiz_answer_")}
    assert len(values) == 1
    return values.pop()


# -- a question --------------------------------------------------------------------------------------


def test_quiz_shows_a_private_question_with_letter_buttons_and_no_answer(
    slack: SlackSender, fake: FakeSlack, services: Services
) -> None:
    reply = ask(slack, fake)
    assert reply["response_type"] == "ephemeral"
    choices = [b for b in buttons(reply) if b["action_id"].startswith("quiz_answer_")]
    letters = [b["text"]["text"] for b in choices]
    assert letters == ["A", "B", "C", "D"]
    assert [b["action_id"] for b in choices] == [f"quiz_answer_{x}" for x in letters]
    attempt_id = attempt_of(reply)
    for b in choices:  # a button says which attempt and which letter, nothing else
        assert json.loads(b["value"]) == {"a": attempt_id, "c": b["text"]["text"]}

    record = services.stores.quiz.get_attempt(attempt_id)
    assert record is not None and record.user == "U1" and record.team == "T1" and record.answered_at is None
    question = services.assistant.knowledge.question(record.doc_id, record.question, record.lang)
    body = " ".join(texts(reply))
    assert all(o.text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in body
               for o in question.options)
    # Nothing in the whole payload gives the answer away.
    dumped = json.dumps(reply, ensure_ascii=False)
    explanation = [b.text for b in question.blocks if b.kind == "text"][0]
    assert explanation[:60] not in dumped
    for word in ("Respuesta", "Answer", "✅", "❌"):
        assert word not in dumped


def test_full_click_through_right_wrong_next_and_share(
    slack: SlackSender, fake: FakeSlack, services: Services
) -> None:
    question = ask(slack, fake, "en")
    attempt_id = attempt_of(question)
    right = right_letter(prompt_of(question))
    result = click(slack, fake, answer_button(question, right))
    assert result["replace_original"] is True
    assert result["text"].startswith("✅") and "Correct" in result["text"]
    body = "\n".join(texts(result))
    record = services.stores.quiz.get_attempt(attempt_id)
    assert record is not None
    cited = services.assistant.knowledge.question(record.doc_id, record.question, "en")
    assert f"📖 Question {cited.number}" in body
    assert cited.title.split("(")[0].strip()[:40] in body
    assert any(b["type"] == "section" and b["text"]["text"].startswith("```") for b in result["blocks"]) \
        == bool(cited.code_blocks)
    assert [b["text"]["text"] for b in buttons(result)] == ["Next question", "Share result"]

    following = click(slack, fake, button(result, "quiz_next"))
    assert following["replace_original"] is False and following["response_type"] == "ephemeral"
    assert attempt_of(following) != attempt_id and header(following).startswith("*Question")
    wrong = wrong_letter(prompt_of(following))
    missed = click(slack, fake, answer_button(following, wrong))
    assert missed["text"].startswith("❌") and f"You chose *{wrong}*" in " ".join(texts(missed))

    assert slack.click(button(result, "quiz_share"))[0].status_code == 200
    shared = fake.wait_for("chat.postMessage")[0].body
    assert shared["channel"] == "C1"
    assert shared["text"].startswith("<@U1> got quiz question") and "✅" in shared["text"]
    stats = services.quiz.stats("U1", team="T1")
    assert (stats.answered, stats.correct) == (2, 1)


def test_double_click_is_graded_once(slack: SlackSender, fake: FakeSlack, services: Services) -> None:
    question = ask(slack, fake)
    choice = answer_button(question, "A")
    _, first = slack.click(choice)
    _, second = slack.click(choice)
    replies = [fake.wait_for("response", path=path)[0].body for path in (first, second)]
    already = [r for r in replies if "Ya habías respondido" in " ".join(texts(r))]
    assert len(already) == 1
    assert all(r["replace_original"] is True for r in replies)
    assert services.quiz.stats("U1", team="T1").answered == 1


def test_click_on_an_old_message_shows_the_first_answer(
    slack: SlackSender, fake: FakeSlack, services: Services
) -> None:
    question = ask(slack, fake, "en")
    right, wrong = right_letter(prompt_of(question)), wrong_letter(prompt_of(question))
    first = click(slack, fake, answer_button(question, wrong))
    later = click(slack, fake, answer_button(question, right))
    assert first["text"].startswith("❌") and later["text"].startswith("❌")
    assert "You had already answered" in " ".join(texts(later))
    stats = services.quiz.stats("U1", team="T1")
    assert (stats.answered, stats.correct) == (1, 0)


def test_someone_elses_question_is_not_graded(slack: SlackSender, fake: FakeSlack, services: Services) -> None:
    question = ask(slack, fake, "en")
    reply = click(slack, fake, answer_button(question, "A"), user="U2")
    assert reply["replace_original"] is False and "someone else" in reply["text"]
    assert services.quiz.stats("U1", team="T1").answered == 0
    assert services.quiz.stats("U2", team="T1").answered == 0


def test_a_forged_button_value_gets_a_short_note(slack: SlackSender, fake: FakeSlack) -> None:
    forged = {"action_id": "quiz_answer_A", "text": {"type": "plain_text", "text": "A"}, "value": "{not json"}
    reply = click(slack, fake, forged)
    assert reply["response_type"] == "ephemeral" and "/quiz" in reply["text"]
    unknown = forged | {"value": json.dumps({"a": "no-such-attempt", "c": "A"})}
    assert "ask for a new one" in click(slack, fake, unknown)["text"]


def test_quiz_me_with_a_forged_number_is_refused_not_served(slack: SlackSender, fake: FakeSlack) -> None:
    for number in (True, "5", 2.0):  # JSON's true is an int to Python: no question 1 for it
        forged = {"action_id": "quiz_me", "text": {"type": "plain_text", "text": "Quiz me"},
                  "value": json.dumps({"q": number, "l": "en"})}
        reply = click(slack, fake, forged)
        assert reply["response_type"] == "ephemeral" and "no longer valid" in reply["text"]


# -- /quiz words -------------------------------------------------------------------------------------


def test_quiz_stats_and_top(slack: SlackSender, fake: FakeSlack, services: Services) -> None:
    assert "Aún no has respondido" in ask(slack, fake, "stats")["text"]
    assert "Nobody has answered yet" in ask(slack, fake, "top en")["text"]
    question = ask(slack, fake)  # in English from now on: `en` is remembered
    click(slack, fake, answer_button(question, right_letter(prompt_of(question))))
    stats = ask(slack, fake, "stats")
    assert stats["response_type"] == "ephemeral"
    assert "Answered: 1 · Correct: 1 · Accuracy: 100%" in stats["text"]
    shown = "\n".join(texts(stats))
    assert "Not tried yet: " in shown and "0/0" not in shown  # topics never tried have no accuracy
    assert "Respondidas: *1*" in " ".join(texts(ask(slack, fake, "stats es")))
    top = ask(slack, fake, "top")
    assert "1. <@U1> · 1 correctas (100%)" in top["text"]


def test_quiz_help_lists_the_commands_and_topics(slack: SlackSender, fake: FakeSlack) -> None:
    spanish = ask(slack, fake, "help")["text"]
    assert "/quiz stats" in spanish and "Slinky y Slurm" in spanish and "Karpenter" in spanish
    assert "/quiz round" in spanish
    english = ask(slack, fake, "help en")["text"]
    assert "/quiz stats" in english and "Slinky and Slurm" in english


@pytest.mark.parametrize(("text", "start"), [("en", "*Question "), ("es", "*Pregunta "), ("", "*Pregunta ")])
def test_quiz_language(slack: SlackSender, fake: FakeSlack, text: str, start: str) -> None:
    assert header(ask(slack, fake, text)).startswith(start)


@pytest.mark.parametrize(("text", "topic"), [("slurm", "Slinky y Slurm"), ("en karpenter", "Karpenter"),
                                             ("en storage", "Storage (FSx for Lustre)")])
def test_quiz_on_a_topic(slack: SlackSender, fake: FakeSlack, text: str, topic: str) -> None:
    for _ in range(2):  # whichever question of the topic is drawn
        assert topic in header(ask(slack, fake, text))


def test_quiz_by_question_number(slack: SlackSender, fake: FakeSlack) -> None:
    assert header(ask(slack, fake, "5")).startswith("*Pregunta 5 ·")
    assert header(ask(slack, fake, "en 12")).startswith("*Question 12 ·")
    missing = ask(slack, fake, "99")
    assert "99" in missing["text"] and "Karpenter" in missing["text"] and not buttons(missing)


@pytest.mark.parametrize("text", ["²", "5²", "٥"])
def test_quiz_with_digits_that_are_no_number_is_a_topic(
    slack: SlackSender, fake: FakeSlack, caplog: pytest.LogCaptureFixture, text: str
) -> None:
    reply = ask(slack, fake, text)
    # A question on that free-text topic, or the list of topics: never the apology of a failure.
    assert buttons(reply) or (text in reply["text"] and "Karpenter" in reply["text"])
    assert "Lo siento" not in reply["text"]
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


def test_quiz_on_an_unknown_topic_lists_the_topics(slack: SlackSender, fake: FakeSlack) -> None:
    reply = ask(slack, fake, "paella")
    assert "paella" in reply["text"] and "Karpenter" in reply["text"] and "Slinky y Slurm" in reply["text"]
    assert not buttons(reply)


def test_quiz_echoes_hostile_text_escaped(slack: SlackSender, fake: FakeSlack) -> None:
    reply = ask(slack, fake, "<!channel> @here <script> & paella")
    shown = " ".join(texts(reply))
    assert "&lt;script&gt;" in shown and "&amp;" in shown
    assert "<script>" not in shown and not any(s in shown for s in SPECIAL_MENTIONS)


def test_command_is_acknowledged_before_the_question_is_drawn(
    slack: SlackSender, fake: FakeSlack, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate, started = threading.Event(), threading.Event()
    draw = services.quiz.next_question

    def slow(*args: Any, **kwargs: Any) -> QuizPrompt:
        started.set()
        assert gate.wait(10), "the test never opened the gate"
        return draw(*args, **kwargs)

    engine = slack.app.state.services.quiz
    monkeypatch.setattr(engine, "next_question", slow)
    response, path = slack.command("")
    assert response.status_code == 200 and response.text == ""  # the empty acknowledgement
    assert started.wait(10) and not fake.calls("response")
    gate.set()
    assert buttons(fake.wait_for("response", path=path)[0].body)


def test_failure_in_a_command_gets_a_private_apology(
    slack: SlackSender, fake: FakeSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("database on fire")

    monkeypatch.setattr(slack.app.state.services.quiz, "stats", broken)
    reply = ask(slack, fake, "stats en")
    assert reply["response_type"] == "ephemeral" and reply["text"].startswith("Sorry")
    assert "fire" not in json.dumps(reply)


def test_while_the_database_is_down_a_command_gets_a_short_private_note(
    settings: Settings, services_without_database: Services, fake: FakeSlack
) -> None:
    with bot_server(settings, services_without_database, fake) as slack:
        reply = ask(slack, fake, "stats en")
    assert reply["response_type"] == "ephemeral" and "database is unavailable" in reply["text"]
    assert "secret_user" not in json.dumps(reply) and "Sorry" not in reply["text"]


# -- answers' buttons: feedback, quiz me; sharing ----------------------------------------------------


def answered_in_channel(slack: SlackSender, fake: FakeSlack, question: str) -> tuple[dict[str, Any], str]:
    slack.event(message_event(f"<@{BOT_USER}> {question}", ts="1700000100.000200"))
    call = fake.wait_for("chat.postMessage")[0]
    fake.wait_for("reactions.remove")
    return call.body, "1700000001.000100"  # the ts the fake gave the first message


def test_feedback_is_stored_once_per_person_and_counted_in_metrics(
    slack: SlackSender, fake: FakeSlack, services: Services
) -> None:
    answer, ts = answered_in_channel(slack, fake, "How do I enable EFA for NCCL?")
    up, down = button(answer, "feedback_up"), button(answer, "feedback_down")
    assert "Thanks" in click(slack, fake, up, message_ts=ts, ephemeral=False)["text"]
    assert services.stores.feedback.counts() == {"up": 1, "down": 0}
    metrics = httpx.get(f"{slack.base}/metrics").text
    assert 'eksbot_feedback_total{vote="up"} 1.0' in metrics

    click(slack, fake, down, message_ts=ts, ephemeral=False)  # changed their mind
    assert services.stores.feedback.counts() == {"up": 0, "down": 1}
    click(slack, fake, down, message_ts=ts, ephemeral=False)  # and clicked again
    click(slack, fake, up, user="U2", message_ts=ts, ephemeral=False)
    assert services.stores.feedback.counts() == {"up": 1, "down": 1}
    metrics = httpx.get(f"{slack.base}/metrics").text
    assert 'eksbot_feedback_total{vote="up"} 1.0' in metrics and 'eksbot_feedback_total{vote="down"} 1.0' in metrics


def test_quiz_me_on_this_asks_the_answers_question(slack: SlackSender, fake: FakeSlack) -> None:
    answer, ts = answered_in_channel(slack, fake, "¿Qué variables de entorno necesito para que NCCL use EFA?")
    reply = click(slack, fake, button(answer, "quiz_me"), message_ts=ts, ephemeral=False)
    assert reply["response_type"] == "ephemeral" and reply["replace_original"] is False
    assert header(reply).startswith("*Pregunta 5 ·") and len(buttons(reply)) == 4


def test_share_falls_back_to_the_response_url_outside_the_bots_channels(
    slack: SlackSender, fake: FakeSlack, services: Services
) -> None:
    question = ask(slack, fake)
    result = click(slack, fake, answer_button(question, "A"))
    fake.fail("chat.postMessage", "not_in_channel")
    shared = click(slack, fake, button(result, "quiz_share"))
    assert shared["response_type"] == "in_channel" and shared["text"].startswith("<@U1> ")
    assert "cuestionario" in shared["text"]


def test_only_the_person_who_answered_can_share_it(slack: SlackSender, fake: FakeSlack) -> None:
    question = ask(slack, fake)
    result = click(slack, fake, answer_button(question, "A"))
    reply = click(slack, fake, button(result, "quiz_share"), user="U2")
    assert reply["response_type"] == "ephemeral" and "/quiz" in reply["text"]
    assert not fake.calls("chat.postMessage")
