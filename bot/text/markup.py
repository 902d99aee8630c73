"""The question a person typed, without the markup chat adds to it, and the parts of it that are pasted.

Slack writes mentions (`<@U123>`), channels and links (`<https://…|label>`): `clean_question` removes them
and keeps a link's label between backticks, as code; that is the text kept and shown back (a gap, a note).
For reading, `reading_text` also drops emoji codes (`:coffee:`) and bold, italics and strike-through marks
(`*x*`, `_x_`, `~x~`). Code (fenced, or inline of several words) and link labels are context
(`context_spans`): a pasted log or snippet holds words the person did not choose; an identifier in it that
the knowledge has is evidence, its other words never "unknown things".
"""

from __future__ import annotations

import re

_SLACK_USER = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")
_SLACK_CHANNEL = re.compile(r"<#[CG][A-Z0-9]+(?:\|([^>]*))?>")
_SLACK_LINK = re.compile(r"<((?:https?|mailto):[^|>]+)(?:\|([^>]*))?>")
_SLACK_SPECIAL = re.compile(r"<!(?:here|channel|everyone)(?:\|[^>]*)?>|<!subteam\^[A-Z0-9]+(?:\|([^>]*))?>")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_EMOJI_CODE = re.compile(r"(?<!\S):[a-z0-9+][a-z0-9_+'-]*:(?::skin-tone-\d:)?(?!\S)")
_FORMATTING = re.compile(r"(?<![\w*_~`])([*_~])(?=\S)([^*_~`\n]*?\S)\1(?![\w*_~`])")
PASTED_WORDS = 3  # inline code this long is pasted, not a term the person names
_CODE = re.compile(r"```.*?(?:```|$)|`[^`]+`", re.DOTALL)


def clean_question(text: str) -> str:
    """The question a person typed, without Slack markup, control characters or extra spaces; code and link
    labels stay, between backticks."""
    text = _SLACK_USER.sub(" ", text)
    text = _SLACK_CHANNEL.sub(lambda m: f"#{m.group(1) or ''}", text)
    text = _SLACK_LINK.sub(lambda m: f"`{(m.group(2) or m.group(1)).replace('`', '')}`", text)
    text = _SLACK_SPECIAL.sub(" ", text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    text = _CONTROL.sub(" ", text)
    return " ".join(text.split())


def reading_text(text: str) -> str:
    """A clean question (`clean_question`) as it is read: without emoji codes and formatting marks."""
    return " ".join(_outside_code(text, _prose).split())


def context_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` holds pasted code: fenced blocks (an unclosed one runs to the end), and inline code or link
    labels of several words. One or two words in backticks (`save_total_limit`) are the person's own term."""
    return [m.span() for m in _CODE.finditer(text)
            if m.group(0).startswith("```") or len(m.group(0).split()) >= PASTED_WORDS]


def _prose(text: str) -> str:
    """Prose without emoji codes and formatting marks."""
    text = _EMOJI_CODE.sub(" ", text)
    return _FORMATTING.sub(r"\2", text)


def _outside_code(text: str, change: object) -> str:
    out: list[str] = []
    last = 0
    for match in _CODE.finditer(text):
        out.append(change(text[last : match.start()]))  # type: ignore[operator]
        out.append(match.group(0))
        last = match.end()
    out.append(change(text[last:]))  # type: ignore[operator]
    return "".join(out)
