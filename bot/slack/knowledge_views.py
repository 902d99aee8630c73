"""The modals that add to the knowledge from Slack, and reading what comes back from them.

Two forms: an entry (a title, a Markdown text, a language, a topic), opened from a knowledge gap on the Home
tab ("Answer this") or from a message (the "Add to knowledge" shortcut); and a maintainers' note on the quiz
question or section an answer cited ("Add a note", after a 👎). Text that did not come from the bot (a gap, a
message, a cited title) goes in plain_text fields and initial values, which Slack never reads as markup, so
`<!channel>`, `<@U…>`, `*bold*` and backticks show as typed.

Slack's limits kept here: 24 characters for a modal's title and buttons, 3,000 per input (`max_length`) and
per `private_metadata`, 2,000 per label and hint, 150 per placeholder, 100 blocks per view.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.knowledge.entries import MAX_NOTE, MAX_TITLE, MAX_TOPIC
from bot.lang import LANGUAGES, Lang, is_lang
from bot.reading.markup import SLACK_CHANNEL, SLACK_LINK, SLACK_SPECIAL, SLACK_USER, clean_question
from bot.slack import blocks
from bot.slack.blocks import Block
from bot.slack.texts import t
from bot.text.control import CONTROL

ENTRY_CALLBACK = "knowledge_entry"
NOTE_CALLBACK = "knowledge_note"
NOTICE_CALLBACK = "knowledge_notice"
SHORTCUT = "add_to_knowledge"  # the message shortcut's callback_id (deploy/slack-app-manifest.yaml)

TITLE, BODY, LANG, TOPIC = "entry_title", "entry_body", "entry_lang", "entry_topic"
NOTE_TEXT, NOTE_LANG = "note_text", "note_lang"
VALUE = "input"  # every input's action_id (not a key Slack uses in payloads, such as "value" or "text")

MODAL_TITLE_LIMIT = 24
INPUT_LIMIT = 3000  # the longest plain_text_input Slack takes
METADATA_LIMIT = 3000
LABEL_LIMIT = 2000
CITED_CHARS = 300  # what a note is on, as the modal and its confirmation name it
ERROR_CHARS = 300
LANGUAGE_NAMES = {"es": "Español", "en": "English"}


@dataclass(frozen=True)
class EntryPrefill:
    """What the entry form starts with, and what it is for."""

    title: str = ""
    body: str = ""
    lang: Lang = "en"
    topic: str = ""
    gap: int | None = None  # the knowledge gap it answers
    gap_text: str | None = None
    credit: str | None = None  # the Slack user whose message it comes from
    cut_from: int | None = None  # the message's length, when its text was cut to fit the form


# -- building ------------------------------------------------------------------------------------------


def plain(text: str, limit: int = LABEL_LIMIT) -> dict[str, Any]:
    return {"type": "plain_text", "text": cut(text, limit) or " ", "emoji": True}


def cut(text: str, limit: int) -> str:
    """At most `limit` characters of plain text, ending with "…" when cut."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def modal(callback_id: str, title: str, blocks_: list[Block], *, submit: str | None, close: str,
          metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    view: dict[str, Any] = {"type": "modal", "callback_id": callback_id, "title": plain(title, MODAL_TITLE_LIMIT),
                            "close": plain(close, MODAL_TITLE_LIMIT), "blocks": blocks_}
    if submit is not None:
        view["submit"] = plain(submit, MODAL_TITLE_LIMIT)
    if metadata:
        encoded = json.dumps(metadata, separators=(",", ":"), ensure_ascii=False)
        if len(encoded) > METADATA_LIMIT:
            raise ValueError(f"private_metadata of {len(encoded)} characters is over Slack's {METADATA_LIMIT}")
        view["private_metadata"] = encoded
    return view


def text_input(block_id: str, label: str, value: str, *, limit: int, multiline: bool = False,
               optional: bool = False, hint: str | None = None) -> Block:
    element: dict[str, Any] = {"type": "plain_text_input", "action_id": VALUE, "max_length": limit,
                               "multiline": multiline}
    if value:
        element["initial_value"] = cut(value, limit)
    block: Block = {"type": "input", "block_id": block_id, "label": plain(label), "element": element,
                    "optional": optional}
    if hint:
        block["hint"] = plain(hint)
    return block


def language_input(block_id: str, label: str, lang: Lang) -> Block:
    options = [{"text": plain(LANGUAGE_NAMES[code]), "value": code} for code in LANGUAGES]
    return {"type": "input", "block_id": block_id, "label": plain(label), "element": {
        "type": "static_select", "action_id": VALUE, "options": options,
        "initial_option": next(o for o in options if o["value"] == lang)}}


def plain_context(text: str) -> Block:
    """A context line of text that may hold someone's words: plain text, never markup."""
    return {"type": "context", "elements": [plain(text)]}


def entry_modal(prefill: EntryPrefill, ui: Lang) -> dict[str, Any]:
    """The entry form, in the person's language `ui`, prefilled."""
    top: list[Block] = []
    if prefill.gap_text:
        top.append(plain_context(t(ui, "entry_for_gap", text=f"“{prefill.gap_text}”")))
    if prefill.credit:
        top.append(blocks.context(t(ui, "entry_from_message", user=blocks.mention(prefill.credit))))
    if prefill.cut_from:
        top.append(plain_context(t(ui, "entry_cut", count=prefill.cut_from, limit=INPUT_LIMIT)))
    fields = [
        text_input(TITLE, t(ui, "entry_title"), prefill.title, limit=MAX_TITLE),
        text_input(BODY, t(ui, "entry_body"), prefill.body, limit=INPUT_LIMIT, multiline=True,
                   hint=t(ui, "entry_body_hint")),
        language_input(LANG, t(ui, "entry_lang"), prefill.lang),
        text_input(TOPIC, t(ui, "entry_topic"), prefill.topic, limit=MAX_TOPIC, optional=True),
    ]
    metadata = {"u": ui, "g": prefill.gap, "c": prefill.credit}
    return modal(ENTRY_CALLBACK, t(ui, "knowledge_title"), [*top, *fields], submit=t(ui, "save"),
                 close=t(ui, "cancel"), metadata={k: v for k, v in metadata.items() if v is not None})


def note_modal(*, doc: str, question: int, lang: Lang, cited: str, ui: Lang) -> dict[str, Any]:
    """The note form for question or section `question` of `doc` (`cited` names it), in the answer's language."""
    cited = cut(cited, CITED_CHARS)
    fields = [
        plain_context(t(ui, "note_for", cited=cited)),
        text_input(NOTE_TEXT, t(ui, "note_text"), "", limit=MAX_NOTE, multiline=True, hint=t(ui, "note_hint")),
        language_input(NOTE_LANG, t(ui, "note_lang"), lang),
    ]
    return modal(NOTE_CALLBACK, t(ui, "note_title"), fields, submit=t(ui, "save"), close=t(ui, "cancel"),
                 metadata={"u": ui, "d": doc, "q": question, "c": cited})


def notice_modal(text: str, ui: Lang, *, title_key: str = "knowledge_title") -> dict[str, Any]:
    """A modal that only says something (plain text) and closes."""
    return modal(NOTICE_CALLBACK, t(ui, title_key), [{"type": "section", "text": plain(text, blocks.SECTION_LIMIT)}],
                 submit=None, close=t(ui, "close"))


# -- prefilling ----------------------------------------------------------------------------------------


def gap_prefill(*, gap_id: int, text: str, example: str | None, lang: Lang) -> EntryPrefill:
    """An entry answering a knowledge gap: its text as the title, its example (if any) as the text."""
    return EntryPrefill(title=cut(text, MAX_TITLE), body=cut(example or "", INPUT_LIMIT), lang=lang, gap=gap_id,
                        gap_text=cut(text, 500))


def message_prefill(message: dict[str, Any], lang: Lang) -> EntryPrefill:
    """An entry from a Slack message: its first line as the title, its text (as Markdown) as the text, and
    its author as the credit."""
    body = slack_to_markdown(str(message.get("text") or ""))
    first = next((line for line in body.splitlines() if line.strip()), "")
    title = cut(clean_question(first.strip().lstrip("#>").strip()), MAX_TITLE)
    author = message.get("user")
    credit = author if isinstance(author, str) and blocks.SLACK_USER_ID.fullmatch(author) else None
    return EntryPrefill(title=title, body=cut(body, INPUT_LIMIT), lang=lang, credit=credit,
                        cut_from=len(body) if len(body) > INPUT_LIMIT else None)


def slack_to_markdown(text: str) -> str:
    """A message's text as Slack sends it, as Markdown a person would have typed: links as `[label](url)`,
    channels as `#name`, no user or group mentions and no @channel/@here, `&lt;` as `<`."""
    text = SLACK_LINK.sub(lambda m: f"[{m.group(2)}]({m.group(1)})" if m.group(2) and m.group(2) != m.group(1)
                          else m.group(1), text)
    text = SLACK_USER.sub(lambda m: m.group(1) or "", text)
    text = SLACK_CHANNEL.sub(lambda m: f"#{m.group(1)}" if m.group(1) else "", text)
    text = SLACK_SPECIAL.sub(lambda m: m.group(2) or "", text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    text = CONTROL.sub("", text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


# -- reading a submission ------------------------------------------------------------------------------


def state_values(view: dict[str, Any]) -> dict[str, str]:
    """Each input's value by block id: the text typed, or the option chosen ("" when empty)."""
    out: dict[str, str] = {}
    values = (view.get("state") or {}).get("values") or {}
    if not isinstance(values, dict):
        return out
    for block_id, actions in values.items():
        item = actions.get(VALUE) if isinstance(actions, dict) else None
        if not isinstance(item, dict):
            continue
        chosen = item.get("selected_option")
        value = chosen.get("value") if isinstance(chosen, dict) else item.get("value")
        out[str(block_id)] = value if isinstance(value, str) else ""
    return out


def metadata(view: dict[str, Any]) -> dict[str, Any]:
    try:
        value = json.loads(view.get("private_metadata") or "{}")
    except (ValueError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}


def ui_language(meta: dict[str, Any], default: Lang) -> Lang:
    lang = meta.get("u")
    return lang if is_lang(lang) else default


def entry_field(reason: str) -> str:
    """Which field of the entry form a refusal is about."""
    for prefix, block_id in (("title", TITLE), ("topic", TOPIC), ("lang", LANG)):
        if reason.startswith(prefix):
            return block_id
    return BODY


def note_field(reason: str) -> str:
    return NOTE_LANG if reason.startswith("lang") else NOTE_TEXT
