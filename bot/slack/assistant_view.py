"""Slack's assistant view, built on bolt's `AsyncAssistant` (as in Slack's assistant template).

When a person opens a thread with the bot in the assistant view, it greets them and offers suggested
prompts ("Quiz me", "How do I make NCCL use EFA?"), in their language. Each message in the thread gets a
status while the answer is worked out, the thread's first question titles it, and the answer comes with
the same blocks as anywhere else, read with what the thread was about. "Quiz me" (optionally "on TOPIC")
puts a quiz question in the thread.

The assistant handles every message in a direct-message thread (that is bolt's rule); nothing is kept of
the channel the person is looking at (the thread context), and each message is claimed before it is
answered, so a redelivery is answered once.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncAssistant, AsyncSetStatus, AsyncSetSuggestedPrompts, AsyncSetTitle
from slack_bolt.context.assistant.thread_context import AssistantThreadContext
from slack_bolt.context.assistant.thread_context_store.async_store import AsyncAssistantThreadContextStore
from slack_sdk.web.async_client import AsyncWebClient

from bot.errors import UnknownTopicError
from bot.lang import Lang
from bot.reading.markup import clean_question
from bot.services import Services
from bot.slack import blocks
from bot.slack.answering import AnswerListeners, conversation_id, message_key
from bot.slack.errors import describe, failure_message
from bot.slack.payloads import Body, SlackContext, team_of
from bot.slack.texts import t

log = logging.getLogger(__name__)

PROMPTS = ("prompt_quiz", "prompt_efa", "prompt_zero", "prompt_gang")  # Slack shows at most 4
TITLE_LIMIT = 100
_QUIZ = re.compile(r"^(?:quiz\s+me|ponme\s+a\s+prueba|quiz)(?:\s+(?:on|about|sobre|de|en)\s+(?P<topic>.+?))?[.!?]*$",
                   re.IGNORECASE)


class NoThreadContext(AsyncAssistantThreadContextStore):
    """Nothing is kept of the channel the person is viewing: the bot does not use it."""

    async def save(self, *, channel_id: str, thread_ts: str, context: dict[str, str]) -> None:
        return None

    async def find(self, *, channel_id: str, thread_ts: str) -> AssistantThreadContext | None:
        return None


def build_assistant(ctx: SlackContext, answers: AnswerListeners) -> AsyncAssistant:
    listeners = AssistantListeners(ctx, answers)
    assistant = AsyncAssistant(thread_context_store=NoThreadContext(), logger=logging.getLogger("bot.slack.bolt"))
    # bolt types lazy listeners as returning None; its asyncio runner awaits them.
    assistant.thread_started(lazy=[listeners.on_thread_started])(_ack)  # type: ignore[list-item]
    assistant.thread_context_changed(_ack)  # the channel being viewed is not used
    assistant.user_message(lazy=[listeners.on_user_message])(_ack)  # type: ignore[list-item]
    return assistant


async def _ack(ack: AsyncAck) -> None:
    await ack()


class AssistantListeners:
    def __init__(self, ctx: SlackContext, answers: AnswerListeners) -> None:
        self.ctx = ctx
        self.answers = answers

    async def on_thread_started(self, body: Body, event: dict[str, Any], client: AsyncWebClient,
                                set_suggested_prompts: AsyncSetSuggestedPrompts) -> None:
        thread = event.get("assistant_thread") or {}
        services = self.ctx.get_services()
        lang: Lang = self.ctx.settings.default_lang
        if services is not None:
            lang = await self.ctx.language_of(services, team_of(body), str(thread.get("user_id") or ""))
        prompts = [{"title": t(lang, "prompt_quiz_title") if key == "prompt_quiz" else t(lang, key),
                    "message": t(lang, key)} for key in PROMPTS]
        try:
            await set_suggested_prompts(prompts=prompts, title=t(lang, "prompts_title"))
        except Exception as exc:  # noqa: BLE001 - the greeting still goes out
            log.warning("could not set the suggested prompts: %s", describe(exc))
        await client.chat_postMessage(channel=str(thread.get("channel_id", "")), thread_ts=thread.get("thread_ts"),
                                      **blocks.text_message(t(lang, "assistant_greeting")))

    async def on_user_message(self, body: Body, event: dict[str, Any], client: AsyncWebClient,
                              set_status: AsyncSetStatus, set_title: AsyncSetTitle) -> None:
        services = self.ctx.get_services()
        channel, ts, root = str(event.get("channel", "")), str(event.get("ts", "")), str(event.get("thread_ts", ""))
        if services is None or not (channel and ts and root):
            return
        if not await self.answers.claim(services, message_key(channel, ts)):
            self.ctx.metrics.slack_events.labels("assistant", "duplicate").inc()
            return
        team, user = team_of(body), str(event.get("user") or "")
        chosen = await self.ctx.chosen_language(services, team, user)
        raw = str(event.get("text", ""))
        reply_to: dict[str, Any] = {"channel": channel, "thread_ts": root}
        try:
            quiz = _QUIZ.match(clean_question(raw))
            if quiz:
                message, outcome = await self._quiz(services, user, team, chosen, quiz.group("topic")), "quiz"
            else:
                message, outcome = await self._answer(services, raw, chosen, team, channel, root, set_status,
                                                      set_title)
            await client.chat_postMessage(**reply_to, **message, unfurl_links=False, unfurl_media=False)
            self.ctx.metrics.slack_events.labels("assistant", outcome).inc()
        except Exception as exc:  # noqa: BLE001 - told to the person (which also clears the status)
            self.ctx.metrics.slack_events.labels("assistant", "error").inc()
            lang = chosen or services.assistant.language_of(raw)
            try:
                await client.chat_postMessage(**reply_to, **failure_message(exc, lang, "answering in the assistant"))
            except Exception:  # noqa: BLE001 - nothing more can be said to the person
                log.exception("could not post the apology")

    async def _answer(self, services: Services, raw: str, lang: Lang | None, team: str, channel: str, root: str,
                      set_status: AsyncSetStatus, set_title: AsyncSetTitle) -> tuple[dict[str, Any], str]:
        conversation = conversation_id(team, channel, root)
        try:  # a direct-message thread opened outside the assistant view has no status: answer anyway
            await set_status(t(lang or services.assistant.language_of(raw), "assistant_status"))
        except Exception as exc:  # noqa: BLE001
            log.info("no status for this thread: %s", describe(exc))
        first = not await services.claims.answered_in(conversation)
        reply, outcome = await self.answers.reply(services, raw, lang=lang, conversation=conversation)
        if first and clean_question(raw):
            try:
                await set_title(blocks.truncate(clean_question(raw), TITLE_LIMIT))
            except Exception as exc:  # noqa: BLE001 - an untitled thread is fine
                log.warning("could not title the assistant thread: %s", describe(exc))
        return reply, outcome

    async def _quiz(self, services: Services, user: str, team: str, lang: Lang | None,
                    topic: str | None) -> dict[str, Any]:
        lang = lang or self.ctx.settings.default_lang
        try:
            prompt = await services.run(services.quiz.next_question, user, team=team, lang=lang, topic=topic)
        except UnknownTopicError as exc:
            topics = ", ".join(blocks.escape(x) for x in exc.topics)
            return blocks.text_message(t(lang, "unknown_topic", topic=blocks.escape(topic or ""), topics=topics))
        return blocks.quiz_message(prompt)
