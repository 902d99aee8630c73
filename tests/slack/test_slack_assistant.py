"""Slack's assistant view, end to end: the assistant events, signed, to the real app; what the bot did in the
(fake) Slack: suggested prompts, status, title and answers in the thread."""

from __future__ import annotations

import time
from typing import Any

from bot.services import Services
from tests.support.slack_fake import FakeSlack, SlackSender, assistant_thread_started_event, buttons, message_event
from tests.support.slack_helpers import context_text, eventually, sample

THREAD = "1700000200.000100"
BF16 = "Why is BF16 better than FP16 for training?"


def in_thread(text: str, ts: str, **extra: Any) -> dict[str, Any]:
    """A message of the person in the assistant thread (a direct-message thread)."""
    return message_event(text, kind="message", channel="D1", ts=ts, thread_ts=THREAD, parent_user_id="UBOT",
                         **extra)


def kinds(fake: FakeSlack) -> list[str]:
    return [c.kind for c in fake.calls() if c.kind not in ("auth.test",)]


def test_a_new_thread_gets_a_greeting_and_suggested_prompts(slack: SlackSender, fake: FakeSlack) -> None:
    slack.event(assistant_thread_started_event())
    prompts = fake.wait_for("assistant.threads.setSuggestedPrompts")[0].body
    assert (prompts["channel_id"], prompts["thread_ts"]) == ("D1", THREAD)
    assert [p["title"] for p in prompts["prompts"]][0] == "Ponme a prueba"  # the default language
    assert "¿Cómo hago que NCCL use EFA?" in [p["message"] for p in prompts["prompts"]]
    assert len(prompts["prompts"]) <= 4
    greeting = fake.wait_for("chat.postMessage")[0].body
    assert (greeting["channel"], greeting["thread_ts"]) == ("D1", THREAD) and "Ponme a prueba" in greeting["text"]


def test_a_question_gets_a_status_a_title_and_the_answer_blocks_once(slack: SlackSender, fake: FakeSlack) -> None:
    event = in_thread(BF16, "1700000200.000200")
    _, event_id = slack.event(event)
    slack.event(event, event_id=event_id, retry=1)
    answer = fake.wait_for("chat.postMessage")[0].body
    assert (answer["channel"], answer["thread_ts"]) == ("D1", THREAD)
    assert "Question 10" in context_text(answer)
    assert {b["action_id"] for b in buttons(answer)} == {"feedback_up", "feedback_down", "quiz_me"}
    status = fake.calls("assistant.threads.setStatus")[0].body
    assert (status["channel_id"], status["thread_ts"]) == ("D1", THREAD) and status["status"]
    assert fake.calls("assistant.threads.setTitle")[0].body["title"] == BF16
    order = kinds(fake)
    assert order.index("assistant.threads.setStatus") < order.index("chat.postMessage")
    eventually(lambda: sample(slack, "eksbot_slack_events_total", {"kind": "assistant", "outcome": "duplicate"}) == 1)
    assert len(fake.calls("chat.postMessage")) == 1


def test_a_follow_up_in_the_thread_is_read_with_it_and_the_title_stays(slack: SlackSender, fake: FakeSlack) -> None:
    slack.event(in_thread(BF16, "1700000200.000200"))
    fake.wait_for("chat.postMessage")
    slack.event(in_thread("which hardware supports it?", "1700000200.000300"))
    follow_up = fake.wait_for("chat.postMessage", 2)[1].body
    assert follow_up["thread_ts"] == THREAD and "Question 10" in context_text(follow_up)
    assert len(fake.calls("assistant.threads.setStatus")) == 2
    assert len(fake.calls("assistant.threads.setTitle")) == 1  # the thread keeps its first question as title


def test_quiz_me_puts_a_quiz_question_in_the_thread(slack: SlackSender, fake: FakeSlack) -> None:
    slack.event(in_thread("Quiz me", "1700000200.000200"))
    question = fake.wait_for("chat.postMessage")[0].body
    assert question["thread_ts"] == THREAD
    assert any(b["action_id"].startswith("quiz_answer_") for b in buttons(question))
    slack.event(in_thread("ponme a prueba sobre karpenter", "1700000200.000300"))
    on_topic = fake.wait_for("chat.postMessage", 2)[1].body
    assert "Karpenter" in on_topic["blocks"][0]["text"]["text"]


def test_the_person_is_answered_in_the_language_they_chose(
    slack: SlackSender, fake: FakeSlack, services: Services
) -> None:
    services.stores.people.set_language("T1", "U1", "en")
    slack.event(assistant_thread_started_event())
    prompts = fake.wait_for("assistant.threads.setSuggestedPrompts")[0].body["prompts"]
    assert prompts[0]["title"] == "Quiz me"
    slack.event(in_thread("¿Por qué BF16 es mejor que FP16 para entrenar?", "1700000200.000200"))
    answer = fake.wait_for("chat.postMessage", 2)[1].body
    assert "Question 10" in context_text(answer) and "Pregunta" not in context_text(answer)


def test_a_change_of_the_channel_being_viewed_calls_nothing(slack: SlackSender, fake: FakeSlack) -> None:
    changed = assistant_thread_started_event() | {"type": "assistant_thread_context_changed"}
    response, _ = slack.event(changed)
    assert response.status_code == 200
    slack.event(message_event("How do I enable EFA?", kind="message", channel="D9"))  # handled after it
    fake.wait_for("reactions.remove")
    time.sleep(0.1)
    assert [c.kind for c in fake.calls() if c.kind.startswith(("assistant.", "conversations.", "chat.update"))] == []


def test_a_thread_without_a_status_is_answered_all_the_same(slack: SlackSender, fake: FakeSlack) -> None:
    """A reply in an ordinary direct-message thread also comes to the assistant; Slack refuses a status there."""
    fake.fail("assistant.threads.setStatus", "not_allowed")
    fake.fail("assistant.threads.setTitle", "not_allowed")
    slack.event(in_thread(BF16, "1700000200.000200"))
    assert "Question 10" in context_text(fake.wait_for("chat.postMessage")[0].body)
