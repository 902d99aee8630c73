"""Mentions and direct messages, end to end: signed requests to the real app over HTTP, the Web API faked.

Every assertion reads what the bot sent to (the fake) Slack: what a person in Slack would see.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from bot.config import Settings
from bot.services import Services
from bot.storage import Database
from tests.support.slack_fake import (
    BOT_ID,
    BOT_TOKEN,
    BOT_USER,
    SIGNING_SECRET,
    SPECIAL_MENTIONS,
    FakeSlack,
    SlackSender,
    bot_server,
    buttons,
    message_event,
    sign,
    texts,
)
from tests.support.slack_helpers import context_text, eventually, sample

EFA_ES = "¿Qué variables de entorno necesito para que NCCL use EFA?"
EFA_EN = "How do I request EFA devices in a pod spec?"
TITLE_5_ES = "¿Qué variable de entorno habilita EFA (Elastic Fabric Adapter) en NCCL para entrenamiento distribuido?"
TITLE_5_EN = "Which environment variable enables EFA (Elastic Fabric Adapter) in NCCL for distributed training?"


def code_blocks(message: dict[str, Any]) -> list[str]:
    return [b["text"]["text"] for b in message["blocks"]
            if b["type"] == "section" and b["text"]["text"].startswith("```")]


def spy_questions(monkeypatch: pytest.MonkeyPatch, services: Services) -> list[str]:
    """Record the questions the assistant is asked (it still answers them), batch by batch."""
    asked: list[str] = []
    answer_many = services.assistant.answer_many

    def spy(questions: list[tuple[str, str | None]]) -> Any:
        asked.extend(question for question, _ in questions)
        return answer_many(questions)

    monkeypatch.setattr(services.assistant, "answer_many", spy)
    return asked


# -- answers ---------------------------------------------------------------------------------------


def test_spanish_mention_is_answered_in_its_thread_with_the_citation(
    slack: SlackSender, fake: FakeSlack, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = spy_questions(monkeypatch, services)
    response, _ = slack.event(message_event(f"<@{BOT_USER}> {EFA_ES}", ts="1700000100.000200"))
    assert response.status_code == 200

    post = fake.wait_for("chat.postMessage")[0].body
    fake.wait_for("reactions.remove")
    assert post["channel"] == "C1" and post["thread_ts"] == "1700000100.000200"
    assert asked == [EFA_ES]  # the mention is not part of the question
    assert "Pregunta 5" in context_text(post) and TITLE_5_ES in context_text(post)
    assert any("FI_PROVIDER=efa" in code for code in code_blocks(post))
    assert "B) FI_PROVIDER=efa" in post["text"]
    assert {b["action_id"] for b in buttons(post)} == {"feedback_up", "feedback_down", "quiz_me"}

    order = [c.kind for c in fake.calls() if c.kind != "auth.test"]
    assert order == ["reactions.add", "chat.postMessage", "reactions.remove"]
    for call in fake.calls("reactions.add") + fake.calls("reactions.remove"):
        assert call.body | {"channel": "C1", "timestamp": "1700000100.000200", "name": "eyes"} == call.body


@pytest.mark.slow
def test_on_the_real_model_a_spanish_mention_cites_question_5_with_its_snippet(
    settings: Settings, real_services: Services, fake: FakeSlack
) -> None:
    with bot_server(settings, real_services, fake) as slack:
        slack.event(message_event(f"<@{BOT_USER}> {EFA_ES}", ts="1700000100.000200"))
        post = fake.wait_for("chat.postMessage")[0].body
    assert "Pregunta 5" in context_text(post) and TITLE_5_ES in context_text(post)
    assert any("FI_PROVIDER=efa" in code for code in code_blocks(post))


def test_english_mention_is_answered_in_english(slack: SlackSender, fake: FakeSlack) -> None:
    slack.event(message_event(f"<@{BOT_USER}> {EFA_EN}"))
    post = fake.wait_for("chat.postMessage")[0].body
    assert "Question 5" in context_text(post) and TITLE_5_EN in context_text(post)
    assert any("vpc.amazonaws.com/efa" in code for code in code_blocks(post))
    assert "Pregunta" not in json.dumps(post, ensure_ascii=False)


def test_follow_up_inside_a_thread_stays_in_that_thread(slack: SlackSender, fake: FakeSlack) -> None:
    slack.event(message_event(f"<@{BOT_USER}> {EFA_EN}", ts="1700000300.000300", thread_ts="1700000000.000001"))
    post = fake.wait_for("chat.postMessage")[0].body
    assert post["thread_ts"] == "1700000000.000001"
    fake.wait_for("reactions.remove")
    assert fake.calls("reactions.add")[0].body["timestamp"] == "1700000300.000300"


def test_direct_message_is_answered_in_the_conversation(slack: SlackSender, fake: FakeSlack) -> None:
    slack.event(message_event(EFA_ES, kind="message", channel="D1"))
    post = fake.wait_for("chat.postMessage")[0].body
    assert post["channel"] == "D1" and "thread_ts" not in post
    assert "Pregunta 5" in context_text(post)


def test_out_of_domain_question_gets_one_short_i_dont_know(slack: SlackSender, fake: FakeSlack) -> None:
    slack.event(message_event(f"<@{BOT_USER}> What is the best recipe for paella valenciana?"))
    fake.wait_for("reactions.remove")
    posts = fake.calls("chat.postMessage")
    assert len(posts) == 1
    post = posts[0].body
    assert "I don't know" in post["text"] and "Karpenter" in post["text"]
    assert len(post["blocks"]) == 1 and not buttons(post)
    assert "📖" not in json.dumps(post, ensure_ascii=False) and not code_blocks(post)


def test_empty_mention_says_what_it_can_do(slack: SlackSender, fake: FakeSlack) -> None:
    slack.event(message_event(f"<@{BOT_USER}>  "))
    post = fake.wait_for("chat.postMessage")[0].body
    assert "Karpenter" in post["text"] and not buttons(post)


def test_too_long_question_is_told_the_limit(slack: SlackSender, fake: FakeSlack) -> None:
    slack.event(message_event(f"<@{BOT_USER}> " + "EFA " * 600))
    post = fake.wait_for("chat.postMessage")[0].body
    assert "2000" in post["text"] and not buttons(post)


@pytest.mark.parametrize("event", [
    message_event("How do I enable EFA?", kind="message", channel="D1", bot_id="B2", subtype="bot_message"),
    message_event("How do I enable EFA?", kind="message", channel="D1", user=BOT_USER, bot_id=BOT_ID),
    message_event("x", kind="message", channel="D1", subtype="message_changed",
                  message={"type": "message", "user": "U1", "text": "How do I enable EFA?", "ts": "1.2"}),
    message_event("<@U1> has joined the channel", kind="message", channel="C1", subtype="channel_join"),
    message_event("How do I enable EFA?", kind="message", channel="C1"),
    message_event(f"<@{BOT_USER}> How do I enable EFA?", edited={"user": "U1", "ts": "1700000100.000999"}),
    message_event(f"<@{BOT_USER}> How do I enable EFA?", bot_id="B2"),
], ids=["other-bot", "itself", "edit", "join", "channel-message", "edited-mention", "bot-mention"])
def test_bots_edits_joins_and_channel_chatter_are_ignored(
    slack: SlackSender, fake: FakeSlack, event: dict[str, Any]
) -> None:
    response, _ = slack.event(event | {"ts": "1700000500.000500"})
    assert response.status_code == 200
    # A question sent after it is answered: had the first one been answered, it would be there too.
    slack.event(message_event(EFA_EN, kind="message", channel="D9", ts="1700000600.000600"))
    fake.wait_for("reactions.remove")
    assert [c.body["channel"] for c in fake.calls("chat.postMessage")] == ["D9"]
    assert [c.body["timestamp"] for c in fake.calls("reactions.add")] == ["1700000600.000600"]


@pytest.mark.parametrize(("status", "retry_after"), [(429, 1), (503, None), (500, None)])
def test_web_api_calls_are_retried_on_rate_limits_and_server_errors(
    slack: SlackSender, fake: FakeSlack, status: int, retry_after: int | None
) -> None:
    fake.fail_http("chat.postMessage", status, times=2, retry_after=retry_after)
    started = time.monotonic()
    slack.event(message_event(f"<@{BOT_USER}> {EFA_EN}"))
    fake.wait_for("reactions.remove")
    posts = fake.calls("chat.postMessage")
    assert len(posts) == 3 and "vpc.amazonaws.com/efa" in posts[-1].dump()  # two refusals, then the answer
    if retry_after:
        assert time.monotonic() - started >= 2 * retry_after  # Slack's Retry-After was waited for


def test_a_long_retry_after_fails_the_call_at_once_and_the_warning_names_slacks_error(
    slack: SlackSender, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    """Waiting out an hour's Retry-After would outlive a round's lease: the call fails instead, and the log
    keeps Slack's error code."""
    fake.fail_http("reactions.add", 429, times=1, retry_after=3600)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING):
        slack.event(message_event(f"<@{BOT_USER}> {EFA_EN}"))
        fake.wait_for("chat.postMessage")
    assert time.monotonic() - started < 10
    assert len(fake.calls("reactions.add")) == 1  # not tried again
    eventually(lambda: any("ratelimited" in r.getMessage() for r in caplog.records))


def test_failure_while_answering_ends_with_an_apology_and_no_eyes(
    slack: SlackSender, fake: FakeSlack, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(questions: list[tuple[str, str | None]]) -> Any:
        raise RuntimeError("index exploded")

    monkeypatch.setattr(services.assistant, "answer_many", broken)
    slack.event(message_event(f"<@{BOT_USER}> {EFA_ES}", ts="1700000700.000700"))
    fake.wait_for("reactions.remove")
    posts = fake.calls("chat.postMessage")
    assert len(posts) == 1
    assert posts[0].body["thread_ts"] == "1700000700.000700"
    assert posts[0].body["text"].startswith("Lo siento") and "exploded" not in posts[0].dump()
    assert sample(slack, "eksbot_slack_events_total", {"kind": "app_mention", "outcome": "error"}) == 1


def test_event_is_acknowledged_before_the_answer_is_worked_out(
    slack: SlackSender, fake: FakeSlack, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate, started = threading.Event(), threading.Event()
    answer_many = services.assistant.answer_many

    def slow(questions: list[tuple[str, str | None]]) -> Any:
        started.set()
        assert gate.wait(10), "the test never opened the gate"
        return answer_many(questions)

    monkeypatch.setattr(services.assistant, "answer_many", slow)
    response, _ = slack.event(message_event(f"<@{BOT_USER}> {EFA_EN}"))
    # The HTTP response came back while the answer is still blocked: Slack got its acknowledgement first.
    assert response.status_code == 200
    assert started.wait(10) and not fake.calls("chat.postMessage")
    gate.set()
    assert fake.wait_for("chat.postMessage")[0].body["thread_ts"]


# -- requests Slack did not sign, and redeliveries ------------------------------------------------


def bad_requests(slack: SlackSender, body: bytes) -> dict[str, Callable[[], httpx.Response]]:
    now = int(time.time())
    return {
        "stale": lambda: slack.post(body, "application/json", timestamp=now - 6 * 60),
        "unsigned": lambda: slack.post(body, "application/json", signature=""),
        "wrong-secret": lambda: slack.post(body, "application/json", secret="not-the-secret"),
        "tampered": lambda: slack.post(body.replace(b"EFA", b"GPU"), "application/json",
                                       signature=sign(body, now), timestamp=now),
        "future": lambda: slack.post(body, "application/json", timestamp=now + 6 * 60),
    }


@pytest.mark.parametrize("kind", ["stale", "unsigned", "wrong-secret", "tampered", "future"])
def test_requests_not_signed_by_slack_are_refused_and_do_nothing(
    slack: SlackSender, fake: FakeSlack, services: Services, kind: str
) -> None:
    from tests.support.slack_fake import event_body

    body = json.dumps(event_body(message_event(f"<@{BOT_USER}> {EFA_EN}"), "EvForged")).encode()
    response = bad_requests(slack, body)[kind]()
    assert response.status_code == 401
    assert fake.calls() == []
    slack.event(message_event(EFA_EN, kind="message", channel="D9"))  # a genuine one still works
    fake.wait_for("reactions.remove")
    assert len(fake.calls("chat.postMessage")) == 1
    assert services.stores.events.claim("EvForged") is True  # the forged event was never claimed


def logged_by_the_bot(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The bot's log records of one request, once its request line is written (just after the response)."""
    eventually(lambda: any(r.name == "bot.http" for r in caplog.records))
    return [r for r in caplog.records if r.name.startswith("bot")]


JUNK = [b"{x", b"[1]", b"", b"\xff\xfe", b"null", b'"text"']


@pytest.mark.parametrize("body", JUNK)
@pytest.mark.parametrize("headers", [
    {}, {"x-slack-request-timestamp": "abc", "x-slack-signature": "v0=00"},
    {"x-slack-request-timestamp": "１７００".encode(), "x-slack-signature": "v0=00"},  # digits, not ASCII ones
    {"x-slack-request-timestamp": "99999999999999999999999", "x-slack-signature": "v0=00"},
])
def test_unsigned_junk_is_401_with_one_log_line(
    slack: SlackSender, fake: FakeSlack, caplog: pytest.LogCaptureFixture, body: bytes, headers: dict[str, Any]
) -> None:
    caplog.set_level("DEBUG", logger="bot")
    response = httpx.post(f"{slack.base}/slack/events", content=body,
                          headers={"content-type": "application/json", **headers})
    assert response.status_code == 401 and "x-slack" in response.json()["error"]
    (record,) = logged_by_the_bot(caplog)
    assert record.getMessage() == "request" and record.status == 401 and not record.exc_info  # type: ignore[attr-defined]
    assert fake.calls() == []


@pytest.mark.parametrize(("body", "content_type"), [
    *((junk, "application/json") for junk in JUNK),
    (b"payload=%7Bx", "application/x-www-form-urlencoded"), (b"payload=%5B1%5D", "application/x-www-form-urlencoded"),
    (b"payload=%FF", "application/x-www-form-urlencoded"), (b"\xff=1", "application/x-www-form-urlencoded"),
    (b"<xml/>", "text/xml"),
])
def test_signed_junk_is_400_with_one_log_line(
    slack: SlackSender, fake: FakeSlack, caplog: pytest.LogCaptureFixture, body: bytes, content_type: str
) -> None:
    caplog.set_level("DEBUG", logger="bot")
    response = slack.post(body, content_type)
    assert response.status_code == 400 and response.json()["error"]
    (record,) = logged_by_the_bot(caplog)
    assert record.status == 400 and not record.exc_info  # type: ignore[attr-defined]
    assert fake.calls() == []


def test_requests_are_signed_as_slack_documents_it() -> None:
    from slack_sdk.signature import SignatureVerifier

    body, now = b'{"type":"event_callback"}', int(time.time())
    verifier = SignatureVerifier(SIGNING_SECRET)
    assert sign(body, now) == verifier.generate_signature(timestamp=str(now), body=body.decode())
    assert verifier.is_valid(body.decode(), str(now), sign(body, now))


def test_slack_url_verification_gets_its_challenge_back(slack: SlackSender) -> None:
    body = json.dumps({"token": "t", "challenge": "c-123", "type": "url_verification"}).encode()
    response = slack.post(body, "application/json")
    assert response.status_code == 200 and "c-123" in response.text


def test_redelivered_event_is_answered_once(slack: SlackSender, fake: FakeSlack) -> None:
    event = message_event(f"<@{BOT_USER}> {EFA_EN}")
    first, event_id = slack.event(event)
    again, _ = slack.event(event, event_id=event_id, retry=1)
    assert first.status_code == again.status_code == 200
    eventually(lambda: sample(slack, "eksbot_slack_events_total",
                              {"kind": "app_mention", "outcome": "duplicate"}) == 1)
    fake.wait_for("reactions.remove")
    assert len(fake.calls("chat.postMessage")) == 1


def test_two_instances_on_one_database_answer_an_event_once(
    settings: Settings, fake_assistant: Any, fake: FakeSlack, db_url: str
) -> None:
    stores = [Database(db_url), Database(db_url)]
    stores[0].upgrade()
    event = message_event(f"<@{BOT_USER}> {EFA_EN}")
    try:
        with bot_server(settings, Services.assemble(settings, fake_assistant, stores[0]), fake) as one, \
                bot_server(settings, Services.assemble(settings, fake_assistant, stores[1]), fake) as two:
            _, event_id = one.event(event)
            two.event(event, event_id=event_id, retry=1)
            labels = {"kind": "app_mention", "outcome": "duplicate"}
            eventually(lambda: sample(one, "eksbot_slack_events_total", labels)
                       + sample(two, "eksbot_slack_events_total", labels) == 1)
            fake.wait_for("reactions.remove")
            assert len(fake.calls("chat.postMessage")) == 1
    finally:
        for store in stores:
            store.close()


# -- what must never get out ------------------------------------------------------------------------


def test_hostile_text_cannot_ping_everyone_or_inject_markup(slack: SlackSender, fake: FakeSlack) -> None:
    # As Slack delivers it: special mentions as <!...>, and &, < and > escaped.
    hostile = (f"<@{BOT_USER}> <!channel> @here <!everyone> &lt;script&gt;alert(1)&lt;/script&gt; &amp; "
               "<!subteam^S123|@admins> how do I enable EFA for NCCL?")
    slack.event(message_event(hostile, ts="1700000800.000800"))
    slack.event(message_event(f"<@{BOT_USER}> <!here> &lt;b&gt;", ts="1700000900.000900"))
    slack.event(message_event("<!channel> &lt;script&gt; paella &amp; sangría", kind="message", channel="D1"))
    fake.wait_for("reactions.remove", 3)
    posts = fake.calls("chat.postMessage")
    assert len(posts) == 3
    for post in posts:
        dumped = " ".join(texts(post.body))
        for special in SPECIAL_MENTIONS:
            assert special not in dumped
        assert "<script>" not in dumped and "<b>" not in dumped and "<!subteam" not in dumped


def test_no_secret_reaches_the_logs(slack: SlackSender, fake: FakeSlack, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    slack.event(message_event(f"<@{BOT_USER}> {EFA_EN}"))
    fake.wait_for("reactions.remove")
    slack.post(b"{}", "application/json", secret="wrong")
    logged = "\n".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records)
    assert logged  # the scenario did log
    assert BOT_TOKEN not in logged and SIGNING_SECRET not in logged


def test_events_with_nested_shapes_slack_sends_are_accepted(slack: SlackSender, fake: FakeSlack) -> None:
    """Legacy attachments with no actions, a dialog's string state: found inside real events, not refused."""
    event = message_event(f"<@{BOT_USER}> {EFA_EN}", attachments=[{"actions": [], "text": "x"}],
                          state="open", blocks=[{"type": "rich_text", "elements": [
                              {"type": "rich_text_section", "elements": [{"type": "user", "user_id": BOT_USER},
                                                                         {"type": "text", "text": "EFA"}]}]}])
    response, _ = slack.event(event)
    assert response.status_code == 200
    assert "vpc.amazonaws.com/efa" in fake.wait_for("chat.postMessage")[0].dump()
