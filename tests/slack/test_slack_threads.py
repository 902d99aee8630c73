"""Follow-ups in Slack threads, end to end: read with what the thread was about, answered in the thread, once.

With a mention, always; without one, only with EKSBOT_SLACK_THREAD_REPLIES on, and only in threads the bot
answered in.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bot.config import Settings
from bot.services import Services
from tests.support.slack_fake import BOT_USER, FakeSlack, SlackSender, bot_server, message_event
from tests.support.slack_helpers import context_text, eventually, sample

ROOT = "1700000100.000100"
BF16 = "Why is BF16 better than FP16 for training?"
FOLLOW_UP = "which hardware supports it?"  # alone, the knowledge has no answer; after BF16, question 10


@pytest.fixture
def replies(settings: Settings, services: Services, fake: FakeSlack) -> Iterator[SlackSender]:
    """The app with EKSBOT_SLACK_THREAD_REPLIES on."""
    with bot_server(settings.model_copy(update={"slack_thread_replies": True}), services, fake) as sender:
        yield sender


def start_thread(slack: SlackSender, fake: FakeSlack, question: str = BF16) -> None:
    slack.event(message_event(f"<@{BOT_USER}> {question}", ts=ROOT))
    fake.wait_for("reactions.remove")


def reply(text: str, ts: str, **extra: Any) -> dict[str, Any]:
    return message_event(text, kind="message", channel="C1", ts=ts, thread_ts=ROOT, **extra)


def test_alone_the_follow_up_is_not_answered(slack: SlackSender, fake: FakeSlack) -> None:
    slack.event(message_event(f"<@{BOT_USER}> {FOLLOW_UP}"))
    assert "I don't know" in fake.wait_for("chat.postMessage")[0].body["text"]


def test_a_follow_up_mention_in_the_thread_is_read_with_the_thread(slack: SlackSender, fake: FakeSlack) -> None:
    start_thread(slack, fake)
    slack.event(message_event(f"<@{BOT_USER}> {FOLLOW_UP}", ts="1700000100.000200", thread_ts=ROOT))
    posts = fake.wait_for("chat.postMessage", 2)
    assert posts[1].body["thread_ts"] == ROOT and posts[1].body["channel"] == "C1"
    assert "Question 10" in context_text(posts[1].body)


def test_without_the_setting_a_reply_without_mention_is_left_alone(slack: SlackSender, fake: FakeSlack) -> None:
    start_thread(slack, fake)
    slack.event(reply(FOLLOW_UP, "1700000100.000200"))
    slack.event(message_event("How do I enable EFA?", kind="message", channel="D9"))  # answered after it
    eventually(lambda: len(fake.calls("reactions.remove")) == 2)
    assert [c.body["channel"] for c in fake.calls("chat.postMessage")] == ["C1", "D9"]


def test_a_reply_in_the_bots_thread_is_answered_in_context_once(replies: SlackSender, fake: FakeSlack) -> None:
    start_thread(replies, fake)
    event = reply(FOLLOW_UP, "1700000100.000200")
    _, event_id = replies.event(event)
    replies.event(event, event_id=event_id, retry=1)  # redelivered
    # A reply that mentions the bot comes as two events (message and app_mention): one answer.
    mention = reply(f"<@{BOT_USER}> and does it need loss scaling?", "1700000100.000300")
    replies.event(mention)
    replies.event(mention | {"type": "app_mention"})
    eventually(lambda: len(fake.calls("reactions.remove")) == 3)
    eventually(lambda: sample(replies, "eksbot_slack_events_total", {"kind": "message", "outcome": "duplicate"})
               + sample(replies, "eksbot_slack_events_total", {"kind": "app_mention", "outcome": "duplicate"})
               + sample(replies, "eksbot_slack_events_total", {"kind": "message", "outcome": "ignored"}) >= 2)
    posts = [c.body for c in fake.calls("chat.postMessage")]
    assert len(posts) == 3 and all(p["thread_ts"] == ROOT for p in posts)
    assert "Question 10" in context_text(posts[1]) and "Question 10" in context_text(posts[2])


def test_a_reply_to_somebody_else_is_left_alone(replies: SlackSender, fake: FakeSlack) -> None:
    start_thread(replies, fake)
    replies.event(reply(f"<@U2> {FOLLOW_UP}", "1700000100.000200"))
    replies.event(message_event("How do I enable EFA?", kind="message", channel="D9"))  # answered after it
    eventually(lambda: len(fake.calls("reactions.remove")) == 2)
    assert [c.body["channel"] for c in fake.calls("chat.postMessage")] == ["C1", "D9"]


def test_replies_elsewhere_are_left_alone(replies: SlackSender, fake: FakeSlack) -> None:
    replies.event(reply(FOLLOW_UP, "1700000100.000200"))  # a thread the bot never answered in
    replies.event(message_event(BF16, kind="message", channel="C1", ts="1700000100.000300"))  # not a reply
    replies.event(message_event("How do I enable EFA?", kind="message", channel="D9"))
    eventually(lambda: len(fake.calls("reactions.remove")) == 1)
    assert [c.body["channel"] for c in fake.calls("chat.postMessage")] == ["D9"]


def test_an_off_topic_reply_in_the_thread_still_gets_i_dont_know(replies: SlackSender, fake: FakeSlack) -> None:
    start_thread(replies, fake)
    replies.event(reply("and what is the best recipe for paella?", "1700000100.000200"))
    posts = fake.wait_for("chat.postMessage", 2)
    assert posts[1].body["thread_ts"] == ROOT and "I don't know" in posts[1].body["text"]
    replies.event(reply(FOLLOW_UP, "1700000100.000300"))  # the thread's subject is still BF16
    assert "Question 10" in context_text(fake.wait_for("chat.postMessage", 3)[2].body)


def test_a_thread_that_began_with_i_dont_know_is_still_the_bots(replies: SlackSender, fake: FakeSlack) -> None:
    start_thread(replies, fake, "What is the best recipe for paella?")
    replies.event(reply(BF16, "1700000100.000200"))
    assert "Question 10" in context_text(fake.wait_for("chat.postMessage", 2)[1].body)
