"""Socket Mode: `eksbot slack --socket` refuses clearly without tokens; with them, the same listeners answer
over a WebSocket (the fake Slack's), and acknowledge every envelope."""

from __future__ import annotations

import argparse
import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from bot.config import Settings
from bot.errors import ConfigError
from bot.services import Services
from bot.slack.socket_mode import check_socket_settings, run_socket_mode
from tests.support.slack_fake import (
    APP_TOKEN,
    BOT_TOKEN,
    BOT_USER,
    FakeSlack,
    buttons,
    command_form,
    event_body,
    message_event,
    slack_settings,
)

SLACK_VARIABLES = ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL",
                   "EKSBOT_SLACK_API_URL")


def run_cli(argv: list[str]) -> int:
    from bot.cli.slack import register

    parser = argparse.ArgumentParser(prog="eksbot")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))


@pytest.mark.parametrize(("env", "missing"), [
    ({}, "SLACK_APP_TOKEN, SLACK_BOT_TOKEN"),
    ({"SLACK_BOT_TOKEN": BOT_TOKEN}, "missing: SLACK_APP_TOKEN"),
    ({"SLACK_APP_TOKEN": APP_TOKEN, "SLACK_BOT_TOKEN": " "}, "missing: SLACK_BOT_TOKEN"),
    ({"SLACK_APP_TOKEN": BOT_TOKEN, "SLACK_BOT_TOKEN": BOT_TOKEN}, "starts with xapp-"),
])
def test_socket_mode_refuses_clearly_without_its_tokens(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], env: dict[str, str], missing: str
) -> None:
    for name in SLACK_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(Services, "load", lambda *a, **k: pytest.fail("loaded the model before checking tokens"))
    assert run_cli(["slack", "--socket"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("eksbot: ") and missing in err
    assert BOT_TOKEN not in err


def test_slack_without_socket_points_to_http_mode(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["slack"]) == 2
    err = capsys.readouterr().err
    assert "eksbot serve" in err and "--socket" in err and err.count("\n") == 1


def test_socket_settings_need_only_the_two_tokens(settings: Settings) -> None:
    ready = settings.model_copy(update={"slack_app_token": SecretStr(APP_TOKEN),
                                        "slack_bot_token": SecretStr(BOT_TOKEN)})
    assert check_socket_settings(ready) == APP_TOKEN  # no signing secret needed
    with pytest.raises(ConfigError, match="SLACK_APP_TOKEN"):
        check_socket_settings(settings)


class SocketBot:
    """`run_socket_mode` in a thread of its own, stopped at the end."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stop: asyncio.Event | None = None
        self.ready = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        async def main() -> None:
            self.loop, self.stop = asyncio.get_running_loop(), asyncio.Event()
            self.ready.set()
            await run_socket_mode(self.services, stop=self.stop)

        try:
            asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc
            self.ready.set()

    def __enter__(self) -> SocketBot:
        self.thread.start()
        assert self.ready.wait(10)
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.loop is not None and self.stop is not None and self.loop.is_running():
            self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(10)
        assert not self.thread.is_alive(), "Socket Mode did not stop"
        assert self.error is None, repr(self.error)


@pytest.fixture
def fake() -> Iterator[FakeSlack]:
    with FakeSlack() as server:
        yield server


def envelope(kind: str, envelope_id: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"envelope_id": envelope_id, "type": kind, "payload": payload,
            "accepts_response_payload": kind != "events_api", "retry_attempt": 0, "retry_reason": ""}


def test_socket_mode_answers_with_the_same_listeners(
    settings: Settings, services: Services, fake: FakeSlack
) -> None:
    configured = slack_settings(settings, fake).model_copy(update={"slack_signing_secret": None})
    bot = Services.assemble(configured, services.assistant, services.stores.database)
    with SocketBot(bot):
        connect = fake.wait_for("socket_connect")[0]
        assert fake.calls("apps.connections.open")[0].headers["Authorization"] == f"Bearer {APP_TOKEN}"
        assert connect.path == "/socket"

        question = message_event(f"<@{BOT_USER}> How do I request EFA devices in a pod spec?", ts="1700000100.1")
        fake.send_envelope(envelope("events_api", "env-1", event_body(question, "EvSocket1")))
        assert fake.wait_for("socket_ack")[0].body["envelope_id"] == "env-1"
        post = fake.wait_for("chat.postMessage")[0]
        assert post.headers["Authorization"] == f"Bearer {BOT_TOKEN}"
        assert post.body["thread_ts"] == "1700000100.1" and "Question 5" in post.dump()
        fake.wait_for("reactions.remove")

        form = command_form("/quiz", "en", user="U1", channel="C1", response_url=fake.response_url("sock"))
        fake.send_envelope(envelope("slash_commands", "env-2", form))
        acks = fake.wait_for("socket_ack", 2)
        assert acks[1].body["envelope_id"] == "env-2"
        reply = fake.wait_for("response", path="/response/sock")[0].body
        assert reply["response_type"] == "ephemeral" and len(buttons(reply)) == 4


@pytest.mark.parametrize(("method", "token"), [("auth.test", "SLACK_BOT_TOKEN"),
                                               ("apps.connections.open", "SLACK_APP_TOKEN")])
def test_socket_mode_stops_with_one_clear_error_when_slack_refuses_a_token(
    settings: Settings, services: Services, fake: FakeSlack, method: str, token: str
) -> None:
    configured = slack_settings(settings, fake).model_copy(update={"slack_signing_secret": None})
    fake.fail(method, "invalid_auth")
    with pytest.raises(ConfigError, match=f"Slack refused {token}: invalid_auth"):
        asyncio.run(run_socket_mode(Services.assemble(configured, services.assistant, services.stores.database)))
    assert not fake.calls("socket_connect")


def test_socket_mode_serves_the_home_tab_and_the_assistant_view(
    settings: Settings, services: Services, fake: FakeSlack
) -> None:
    from tests.support.slack_fake import assistant_thread_started_event, home_opened_event

    configured = slack_settings(settings, fake).model_copy(update={"slack_signing_secret": None})
    with SocketBot(Services.assemble(configured, services.assistant, services.stores.database)):
        fake.wait_for("socket_connect")
        fake.send_envelope(envelope("events_api", "env-h", event_body(home_opened_event("U1"), "EvHome")))
        assert fake.wait_for("views.publish")[0].body["view"]["type"] == "home"
        started = assistant_thread_started_event("U1")
        fake.send_envelope(envelope("events_api", "env-a", event_body(started, "EvStarted")))
        assert fake.wait_for("assistant.threads.setSuggestedPrompts")[0].body["thread_ts"] == "1700000200.000100"
        question = message_event("How do I request EFA devices in a pod spec?", kind="message", channel="D1",
                                 ts="1700000200.000200", thread_ts="1700000200.000100")
        fake.send_envelope(envelope("events_api", "env-q", event_body(question, "EvQuestion")))
        answers = fake.wait_for("chat.postMessage", 2)  # the greeting, then the answer
        assert "Question 5" in answers[1].dump() and answers[1].body["thread_ts"] == "1700000200.000100"
        assert fake.calls("assistant.threads.setStatus")
