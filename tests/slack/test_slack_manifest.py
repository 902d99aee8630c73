"""deploy/slack-app-manifest.yaml agrees with the app: its events, command, message shortcut, URLs, and only the
scopes used; the thread-replies variant adds exactly what answering replies without a mention needs."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
import yaml

from bot.config import PROJECT_ROOT
from bot.slack import app as slack_app

MANIFEST = PROJECT_ROOT / "deploy" / "slack-app-manifest.yaml"
THREAD_REPLIES = PROJECT_ROOT / "deploy" / "slack-app-manifest.thread-replies.yaml"
URL = "https://YOUR-HOST/slack/events"
# The Web API methods the code calls, and the bot scope each one needs.
METHOD_SCOPES: dict[str, str | None] = {
    "chat_postMessage": "chat:write",
    "chat_postEphemeral": "chat:write",
    "chat_update": "chat:write",
    "reactions_add": "reactions:write",
    "reactions_remove": "reactions:write",
    "views_publish": None,  # the Home tab: no scope
    "views_open": None,  # the forms that add to the knowledge: no scope
}
# Web API methods the code calls only as a safeguard, with scopes the manifest leaves out on purpose: reading
# a round's channel back (to find a round's message posted before a crash) needs channels:history or
# groups:history, which let the bot read every message there. Without them the call fails and the round is
# posted as before (tests/slack/test_slack_rounds.py).
OPTIONAL_METHOD_SCOPES: dict[str, tuple[str, ...]] = {"conversations_history": ("channels:history", "groups:history")}
# The events the app listens to, as the manifest subscribes to them, and the scope each one needs. The
# assistant view's status, title and prompts (bolt's set_status, set_title, set_suggested_prompts) need
# assistant:write too.
EVENT_SCOPES: dict[str, str | None] = {
    "app_mention": "app_mentions:read", "message.im": "im:history", "app_home_opened": None,
    "assistant_thread_started": "assistant:write", "assistant_thread_context_changed": "assistant:write",
}
THREAD_REPLY_ADDITIONS = {"event": "message.channels", "scope": "channels:history"}


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
    # message.im arrives as a "message" event: every kind has a listener (or the assistant's middleware).
    assert {e.split(".")[0] for e in events["bot_events"]} == set(slack_app.EVENTS) | set(slack_app.ASSISTANT_EVENTS)


def test_the_command_and_interactivity_go_to_the_app(manifest: dict[str, Any]) -> None:
    commands = manifest["features"]["slash_commands"]
    assert [c["command"] for c in commands] == [slack_app.COMMAND]
    assert commands[0]["url"] == URL and "stats" in commands[0]["usage_hint"]
    assert "round" in commands[0]["usage_hint"] and "schedule" in commands[0]["usage_hint"]
    assert manifest["settings"]["interactivity"] == {"is_enabled": True, "request_url": URL}


def test_the_message_shortcut_is_the_one_the_app_listens_to(manifest: dict[str, Any]) -> None:
    shortcuts = manifest["features"]["shortcuts"]
    assert [(s["type"], s["callback_id"]) for s in shortcuts] == [("message", c) for c in slack_app.SHORTCUTS]
    for shortcut in shortcuts:
        assert 1 <= len(shortcut["name"]) <= 24 and 1 <= len(shortcut["description"]) <= 150
    # Only a message shortcut: a global one would need nothing more, but the app has none to offer.
    assert {s["type"] for s in shortcuts} == {"message"}
    # A shortcut's payloads come to the interactivity URL, which a message shortcut needs, with `commands`.
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert "commands" in manifest["oauth_config"]["scopes"]["bot"]


def test_scopes_are_exactly_what_the_code_uses(manifest: dict[str, Any]) -> None:
    called = methods_called()
    unknown = called - set(METHOD_SCOPES) - set(OPTIONAL_METHOD_SCOPES)
    assert not unknown, f"new Web API methods {sorted(unknown)}: add their scopes to the manifest and here"
    needed = {s for s in {METHOD_SCOPES[m] for m in called & set(METHOD_SCOPES)} | set(EVENT_SCOPES.values())
              | {"commands"} if s}
    assert sorted(manifest["oauth_config"]["scopes"]["bot"]) == sorted(needed)
    optional = {s for m in called & set(OPTIONAL_METHOD_SCOPES) for s in OPTIONAL_METHOD_SCOPES[m]}
    assert not optional & set(manifest["oauth_config"]["scopes"]["bot"])  # reading channels is a choice
    assert all(s in MANIFEST.read_text() for s in optional)  # the manifest says what they would add


def test_people_can_message_the_bot_and_socket_mode_is_off_by_default(manifest: dict[str, Any]) -> None:
    features = manifest["features"]
    assert features["bot_user"]["always_online"] is True and features["bot_user"]["display_name"]
    assert features["app_home"]["messages_tab_enabled"] is True and features["app_home"]["home_tab_enabled"] is True
    assert features["app_home"]["messages_tab_read_only_enabled"] is False
    assert manifest["settings"]["socket_mode_enabled"] is False
    assert "socket_mode_enabled" in MANIFEST.read_text() and "--socket" in MANIFEST.read_text()
    info = manifest["display_information"]
    assert info["name"] and len(info["description"]) <= 140 and 175 <= len(info["long_description"]) <= 4000


def test_the_assistant_view_offers_the_bots_own_prompts(manifest: dict[str, Any]) -> None:
    from bot.slack.assistant_view import PROMPTS
    from bot.slack.texts import t

    view = manifest["features"]["assistant_view"]
    assert "EKS" in view["assistant_description"] and len(view["assistant_description"]) <= 300
    prompts = view["suggested_prompts"]
    assert 1 <= len(prompts) <= 4 and all(p["title"] and p["message"] for p in prompts)
    assert [p["message"] for p in prompts] == [t("en", key) for key in PROMPTS]


def test_the_thread_replies_variant_adds_only_the_channel_messages_and_their_scope(manifest: dict[str, Any]) -> None:
    manifest = copy.deepcopy(manifest)
    variant = yaml.safe_load(THREAD_REPLIES.read_text(encoding="utf-8"))
    events, scopes = variant["settings"]["event_subscriptions"]["bot_events"], variant["oauth_config"]["scopes"]["bot"]
    assert sorted(events) == sorted([*manifest["settings"]["event_subscriptions"]["bot_events"],
                                     THREAD_REPLY_ADDITIONS["event"]])
    assert sorted(scopes) == sorted([*manifest["oauth_config"]["scopes"]["bot"], THREAD_REPLY_ADDITIONS["scope"]])
    del variant["settings"]["event_subscriptions"]["bot_events"], variant["oauth_config"]["scopes"]["bot"]
    del manifest["settings"]["event_subscriptions"]["bot_events"], manifest["oauth_config"]["scopes"]["bot"]
    assert variant == manifest  # everything else is the same
    assert "EKSBOT_SLACK_THREAD_REPLIES" in THREAD_REPLIES.read_text() and "channels:history" in MANIFEST.read_text()


def test_the_bot_posts_only_where_it_was_invited(manifest: dict[str, Any]) -> None:
    """Rounds post in channels the bot is a member of: a channel it is not in is a clear failure (the round
    ends, the starter is told to /invite it), not a reason to ask for chat:write.public."""
    scopes = manifest["oauth_config"]["scopes"]["bot"]
    assert "chat:write.public" not in scopes and "channels:read" not in scopes
