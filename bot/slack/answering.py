"""Answers to mentions (in the thread of the message), to direct messages (in the conversation), and,
when EKSBOT_SLACK_THREAD_REPLIES is on, to replies in the threads the bot answered in, without a mention.

A message in a thread is read with what the thread was about (`Answers.ask` with the thread as the
conversation): "and with ZeRO-3?" after an answer on DeepSpeed. Direct messages are answered in the
language the person chose, mentions in the language they are written in.

The listener marks the question with :eyes: while it works and removes the mark at the end, whatever
happens. Each message is claimed in the shared database first (by channel and timestamp, so a redelivered
event, or the `app_mention` and `message` events of one message, on any replica) and answered once.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.errors import InputError
from bot.lang import LANGUAGES, Lang
from bot.reading.markup import read_message
from bot.services import Services
from bot.slack import blocks
from bot.slack.errors import describe, failure_message
from bot.slack.payloads import Body, SlackContext, button_value, doc_named, team_of, whole_number
from bot.slack.texts import t

log = logging.getLogger(__name__)

WORKING = "eyes"


def conversation_id(team: str, channel: str, thread_ts: str) -> str:
    """A Slack thread as a conversation of the core (an opaque id)."""
    return f"slack:{team}:{channel}:{thread_ts}"


def message_key(channel: str, ts: str) -> str:
    """What is claimed before answering: one message, whichever events bring it."""
    return f"message:{channel}:{ts}"


class AnswerListeners:
    def __init__(self, ctx: SlackContext) -> None:
        self.ctx = ctx

    async def on_mention(self, body: Body, event: dict[str, Any], client: AsyncWebClient) -> None:
        if event.get("bot_id") or event.get("subtype") or event.get("edited"):  # bots, edits, joins
            self.ctx.metrics.slack_events.labels("app_mention", "ignored").inc()
            return
        await self._answer(body, event, client, thread=True)

    async def on_message(self, body: Body, event: dict[str, Any], client: AsyncWebClient) -> None:
        """Direct messages from people (no bots, edits, joins or other subtypes); in channels, replies in
        the bot's threads when EKSBOT_SLACK_THREAD_REPLIES is on (a reply that mentions the bot is left to
        `on_mention`). Replies in direct-message threads go to the assistant (`bot.slack.assistant_view`)."""
        if event.get("bot_id") or event.get("subtype"):
            self.ctx.metrics.slack_events.labels("message", "ignored").inc()
        elif event.get("channel_type") == "im":
            await self._answer(body, event, client, thread=bool(event.get("thread_ts")))
        elif self._thread_reply(event):
            await self._answer(body, event, client, thread=True, known_thread_only=True)
        else:
            self.ctx.metrics.slack_events.labels("message", "ignored").inc()

    def _thread_reply(self, event: dict[str, Any]) -> bool:
        """A reply in a channel thread, for the bot to consider: not one that mentions anybody (the bot's
        own mention is answered as such; one to somebody else is not for the bot)."""
        thread, text = event.get("thread_ts"), str(event.get("text", ""))
        return (self.ctx.settings.slack_thread_replies and event.get("channel_type") in ("channel", "group")
                and bool(thread) and thread != event.get("ts") and "<@" not in text)

    async def _answer(self, body: Body, event: dict[str, Any], client: AsyncWebClient, *, thread: bool,
                      known_thread_only: bool = False) -> None:
        kind = str(event.get("type", "event"))
        services = self.ctx.get_services()
        channel, ts = event.get("channel"), event.get("ts")
        if services is None or not channel or not ts:
            return
        team, user = team_of(body), str(event.get("user") or "")
        root = str(event.get("thread_ts") or ts)
        conversation = conversation_id(team, str(channel), root) if thread else None
        if known_thread_only and (conversation is None or not await self._known(services, conversation)):
            self.ctx.metrics.slack_events.labels(kind, "ignored").inc()  # a thread the bot never answered in
            return
        if not await self.claim(services, message_key(str(channel), str(ts))):
            self.ctx.metrics.slack_events.labels(kind, "duplicate").inc()
            return
        reply_to: dict[str, Any] = {"channel": channel}
        if thread:
            reply_to["thread_ts"] = root
        raw = str(event.get("text", ""))
        # Direct messages are the person's own: the language they chose, if they did. In a channel (and
        # without a choice), the question's own language.
        lang = await self.ctx.chosen_language(services, team, user) if event.get("channel_type") == "im" else None
        reacted = await self._react(client, "reactions_add", channel, ts)
        try:
            reply, outcome = await self.reply(services, raw, lang=lang, conversation=conversation)
            await client.chat_postMessage(**reply_to, **reply, unfurl_links=False, unfurl_media=False)
            self.ctx.metrics.slack_events.labels(kind, outcome).inc()
        except Exception as exc:  # noqa: BLE001 - told to the person, logged when unexpected
            self.ctx.metrics.slack_events.labels(kind, "error").inc()
            try:
                await client.chat_postMessage(**reply_to, **failure_message(
                    exc, lang or services.assistant.language_of(raw), f"answering a Slack {kind}"))
            except Exception:  # noqa: BLE001 - nothing more can be said to the person
                log.exception("could not post the apology")
        finally:
            if reacted:
                await self._react(client, "reactions_remove", channel, ts)

    async def reply(self, services: Services, raw: str, *, lang: Lang | None = None,
                    conversation: str | None = None) -> tuple[dict[str, Any], str]:
        """The message answering `raw` (read with its conversation), and the outcome for the metrics. The message
        is read here, once (`read_message`): an empty mention is answered here, and the core reads it as it is."""
        question = read_message(raw)
        if not question:
            lang = lang or self.ctx.settings.default_lang
            named, others = services.assistant.named_topics(lang)
            topics = ", ".join(blocks.escape(x) for x in named)
            if others:
                topics = t(lang, "topics_and_more", topics=topics, count=others)
            return blocks.text_message(t(lang, "empty_mention", topics=topics)), "empty"
        try:
            asked = await services.answers.ask(question, lang, conversation=conversation)
        except InputError as exc:  # e.g. too long: say why, briefly
            return blocks.text_message(blocks.escape(str(exc))), "invalid"
        answer = asked.answer
        self.ctx.metrics.answer(answer.answered, "slack")
        if self.ctx.settings.log_questions:
            log.info("question", extra={"question": question.shown, "answered": answer.answered,
                                        "read_as": asked.reading.text})
        return (blocks.answer_message(answer, question=asked.reading.text),
                "answered" if answer.answered else "abstained")

    async def on_suggestion(self, body: Body, respond: AsyncRespond) -> None:
        """"Show that answer", under an "I don't know": the answer of the question it suggested, below it."""
        value = button_value(body)
        number, lang = whole_number(value.get("q")), value.get("l")
        reply_lang: Lang = lang if lang in LANGUAGES else self.ctx.settings.default_lang
        services = self.ctx.get_services()
        if not isinstance(value.get("d", value.get("k")), str) or number is None or lang not in LANGUAGES:
            await respond(response_type="ephemeral", replace_original=False,
                          **blocks.text_message(t(reply_lang, "bad_button")))
            return
        if services is None:
            await respond(response_type="ephemeral", replace_original=False,
                          **blocks.text_message(t(reply_lang, "starting")))
            return
        doc_id = doc_named(value, services)
        if doc_id is None:  # the knowledge changed since the suggestion
            await respond(response_type="ephemeral", replace_original=False,
                          **blocks.text_message(t(reply_lang, "bad_button")))
            return
        try:
            answer = await services.answers.show(doc_id, number, reply_lang)
        except InputError as exc:  # the knowledge changed since the suggestion
            await respond(response_type="ephemeral", replace_original=False,
                          **blocks.text_message(blocks.escape(str(exc))))
            return
        await respond(replace_original=False, **blocks.answer_message(answer))

    async def _known(self, services: Services, conversation: str) -> bool:
        return await services.claims.answered_in(conversation)  # without the database, only mentions are answered

    async def claim(self, services: Services, key: str) -> bool:
        """True when this process should answer the message: once across replicas, and once in this process
        even while the database cannot say (better a rare double answer across replicas than none)."""
        return await services.claims.claim(key)

    async def _react(self, client: AsyncWebClient, method: str, channel: str, ts: str) -> bool:
        try:
            await getattr(client, method)(channel=channel, timestamp=ts, name=WORKING)
            return True
        except Exception as exc:  # noqa: BLE001 - a missing reaction must not stop the answer
            log.warning("%s failed: %s", method, describe(exc))
            return False
