"""Answers to mentions (in the thread of the message) and to direct messages (in the conversation).

The listener marks the question with :eyes: while it works and removes the mark at the end, whatever
happens. A redelivered event (same `event_id`, on any replica) is claimed in the shared database first
and answered once.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.errors import InputError
from bot.services import Services
from bot.slack import blocks
from bot.slack.errors import failure_message
from bot.slack.payloads import Body, SlackContext
from bot.slack.texts import t
from bot.text import clean_question

log = logging.getLogger(__name__)

WORKING = "eyes"
EVENT_MEMORY = timedelta(days=1)  # Slack stops redelivering an event long before this
PRUNE_EVERY = 3600.0  # seconds between two clean-ups of the remembered event ids


class AnswerListeners:
    def __init__(self, ctx: SlackContext) -> None:
        self.ctx = ctx
        self._next_prune = 0.0

    async def on_mention(self, body: Body, event: dict[str, Any], client: AsyncWebClient) -> None:
        if event.get("bot_id") or event.get("subtype") or event.get("edited"):  # bots, edits, joins
            self.ctx.metrics.slack_events.labels("app_mention", "ignored").inc()
            return
        await self._answer(body, event, client, thread=True)

    async def on_message(self, body: Body, event: dict[str, Any], client: AsyncWebClient) -> None:
        """Direct messages from people only: no bots, edits, joins or other subtypes, no channels."""
        if event.get("channel_type") != "im" or event.get("bot_id") or event.get("subtype"):
            self.ctx.metrics.slack_events.labels("message", "ignored").inc()
            return
        await self._answer(body, event, client, thread=bool(event.get("thread_ts")))

    async def _answer(self, body: Body, event: dict[str, Any], client: AsyncWebClient, *, thread: bool) -> None:
        kind = str(event.get("type", "event"))
        services = self.ctx.get_services()
        channel, ts = event.get("channel"), event.get("ts")
        if services is None or not channel or not ts:
            return
        event_id = str(body.get("event_id") or f"{channel}:{ts}")
        if not await self._claim(services, event_id):
            self.ctx.metrics.slack_events.labels(kind, "duplicate").inc()
            return
        reply_to: dict[str, Any] = {"channel": channel}
        if thread:
            reply_to["thread_ts"] = event.get("thread_ts") or ts
        raw = str(event.get("text", ""))
        reacted = await self._react(client, "reactions_add", channel, ts)
        try:
            reply, outcome = await self._reply(services, raw)
            await client.chat_postMessage(**reply_to, **reply, unfurl_links=False, unfurl_media=False)
            self.ctx.metrics.slack_events.labels(kind, outcome).inc()
        except Exception as exc:  # noqa: BLE001 - told to the person, logged when unexpected
            self.ctx.metrics.slack_events.labels(kind, "error").inc()
            lang = services.assistant.language_of(raw)
            try:
                await client.chat_postMessage(**reply_to, **failure_message(exc, lang, f"answering a Slack {kind}"))
            except Exception:  # noqa: BLE001 - nothing more can be said to the person
                log.exception("could not post the apology")
        finally:
            if reacted:
                await self._react(client, "reactions_remove", channel, ts)

    async def _reply(self, services: Services, raw: str) -> tuple[dict[str, Any], str]:
        """The message for a question, and the outcome for the metrics."""
        question = clean_question(raw)
        if not question:
            lang = self.ctx.settings.default_lang
            topics = ", ".join(blocks.escape(x) for x in services.assistant.topics(lang))
            return blocks.text_message(t(lang, "empty_mention", topics=topics)), "empty"
        try:
            answer = await services.answer(question)
        except InputError as exc:  # e.g. too long: say why, briefly
            return blocks.text_message(blocks.escape(str(exc))), "invalid"
        self.ctx.metrics.answer(answer.answered, "slack")
        if self.ctx.settings.log_questions:
            log.info("question", extra={"question": question, "answered": answer.answered})
        return blocks.answer_message(answer), "answered" if answer.answered else "abstained"

    async def _claim(self, services: Services, event_id: str) -> bool:
        """True when this process should answer the event; a database failure answers rather than drops."""
        try:
            claimed = await services.run(services.store.claim_event, event_id)
        except Exception as exc:  # noqa: BLE001 - better a rare double answer than none
            log.warning("could not record the Slack event id: %s", exc.__class__.__name__)
            return True
        if claimed and time.monotonic() >= self._next_prune:
            self._next_prune = time.monotonic() + PRUNE_EVERY
            await self._prune(services)
        return claimed

    async def _prune(self, services: Services) -> None:
        try:
            await services.run(services.store.prune_events, datetime.now(UTC) - EVENT_MEMORY)
        except Exception as exc:  # noqa: BLE001 - only housekeeping
            log.warning("could not forget old Slack event ids: %s", exc.__class__.__name__)

    async def _react(self, client: AsyncWebClient, method: str, channel: str, ts: str) -> bool:
        try:
            await getattr(client, method)(channel=channel, timestamp=ts, name=WORKING)
            return True
        except Exception as exc:  # noqa: BLE001 - a missing reaction must not stop the answer
            log.warning("%s failed: %s", method, exc.__class__.__name__)
            return False
