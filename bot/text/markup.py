"""The question a person typed, without the markup chat adds to it."""

from __future__ import annotations

import re

_SLACK_USER = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")
_SLACK_CHANNEL = re.compile(r"<#[CG][A-Z0-9]+(?:\|([^>]*))?>")
_SLACK_LINK = re.compile(r"<((?:https?|mailto):[^|>]+)(?:\|([^>]*))?>")
_SLACK_SPECIAL = re.compile(r"<!(?:here|channel|everyone)(?:\|[^>]*)?>|<!subteam\^[A-Z0-9]+(?:\|([^>]*))?>")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_question(text: str) -> str:
    """The question a person typed, without Slack markup, control characters or extra spaces."""
    text = _SLACK_USER.sub(" ", text)
    text = _SLACK_CHANNEL.sub(lambda m: f"#{m.group(1) or ''}", text)
    text = _SLACK_LINK.sub(lambda m: m.group(2) or m.group(1), text)
    text = _SLACK_SPECIAL.sub(" ", text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    text = _CONTROL.sub(" ", text)
    return " ".join(text.split())
