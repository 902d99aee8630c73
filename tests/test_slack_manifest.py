"""deploy/slack-app-manifest.yaml agrees with the app: its events, command, URLs, and only the scopes used."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from bot.config import PROJECT_ROOT
from bot.slack import app as slack_app

MANIFEST = PROJECT_ROOT / "deploy" / "slack-app-manifest.yaml"
URL = "https://YOUR-HOST/slack/events"
# The Web API methods the code calls, and the bot scope each one needs.
METHOD_SCOPES = {
    "chat_postMessage": "chat:write",
    "reactions_add": "reactions:write",
    "reactions_remove": "reactions:write",
}
# The events the app listens to, as the manifest subscribes to them, and the scope each one needs.
EVENT_SCOPES = {"app_mention": "app_mentions:read", "message.im": "im:history"}


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    loaded = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def methods_called() -> set[str]:
    """Web API methods named in the Slack surface's code (`client.chat_postMessage(`, `"reactions_add"`)."""
    pattern = re.compile(r"\b(?:chat|reactions|conversations|users|views|files|pins|im)_[a-zA-Z]+\b")
    found: set[str] = set()
    for path in (PROJECT_ROOT / "bot" / "slack").glob("*.py"):
        found |= set(pattern.findall(path.read_text(encoding="utf-8")))
    return found


def test_the_events_are_those_the_app_listens_to(manifest: dict[str, Any]) -> None:
    events = manifest["settings"]["event_subscriptions"]
    assert events["request_url"] == URL
    assert sorted(events["bot_events"]) == sorted(EVENT_SCOPES)
    # message.im arrives as a "message" event: both kinds have a listener.
    assert {e.split(".")[0] for e in events["bot_events"]} == set(slack_app.EVENTS)


def test_the_command_and_interactivity_go_to_the_app(manifest: dict[str, Any]) -> None:
    commands = manifest["features"]["slash_commands"]
    assert [c["command"] for c in commands] == [slack_app.COMMAND]
    assert commands[0]["url"] == URL and "stats" in commands[0]["usage_hint"]
    assert manifest["settings"]["interactivity"] == {"is_enabled": True, "request_url": URL}


def test_scopes_are_exactly_what_the_code_uses(manifest: dict[str, Any]) -> None:
    called = methods_called()
    unknown = called - set(METHOD_SCOPES)
    assert not unknown, f"new Web API methods {sorted(unknown)}: add their scopes to the manifest and here"
    needed = {METHOD_SCOPES[m] for m in called} | set(EVENT_SCOPES.values()) | {"commands"}
    assert sorted(manifest["oauth_config"]["scopes"]["bot"]) == sorted(needed)


def test_people_can_message_the_bot_and_socket_mode_is_off_by_default(manifest: dict[str, Any]) -> None:
    features = manifest["features"]
    assert features["bot_user"]["always_online"] is True and features["bot_user"]["display_name"]
    assert features["app_home"]["messages_tab_enabled"] is True
    assert features["app_home"]["messages_tab_read_only_enabled"] is False
    assert manifest["settings"]["socket_mode_enabled"] is False
    assert "socket_mode_enabled" in MANIFEST.read_text() and "--socket" in MANIFEST.read_text()
    info = manifest["display_information"]
    assert info["name"] and len(info["description"]) <= 140 and 175 <= len(info["long_description"]) <= 4000
