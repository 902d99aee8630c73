"""The bolt app: answers on mention and in DMs, `/quiz` with buttons, feedback.

Every listener acknowledges at once and does the work in a lazy listener (Slack's 3-second rule);
the core is synchronous, so the work runs on a worker thread. A redelivered event (same `event_id`,
on any replica) is claimed in the shared database and answered once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.errors import AlreadyAnsweredError, EksBotError, InputError, QuizError, UnknownTopicError
from bot.metrics import Metrics
from bot.quiz import QuizResult
from bot.services import Services
from bot.slack import blocks
from bot.slack.texts import t
from bot.text import clean_question, detect_language

log = logging.getLogger(__name__)

GetServices = Callable[[], Services | None]
STATS_WORDS = {"stats", "estadisticas", "estadísticas", "score", "puntos"}
TOP_WORDS = {"top", "leaderboard", "ranking", "clasificacion", "clasificación"}
HELP_WORDS = {"help", "ayuda", "?"}


def build_slack_app(settings: Settings, get_services: GetServices, metrics: Metrics) -> AsyncApp:
    assert settings.slack_bot_token is not None and settings.slack_signing_secret is not None
    client = AsyncWebClient(token=settings.slack_bot_token.get_secret_value(), base_url=settings.slack_api_url)
    app = AsyncApp(
        client=client,
        signing_secret=settings.slack_signing_secret.get_secret_value(),
        process_before_response=False,
        logger=logging.getLogger("bot.slack.bolt"),
    )
    handlers = _Handlers(settings, get_services, metrics)
    app.event("app_mention")(ack=_ack, lazy=[handlers.on_mention])
    app.event("message")(ack=_ack, lazy=[handlers.on_message])
    app.command("/quiz")(ack=_ack, lazy=[handlers.on_quiz_command])
    app.action(re.compile(r"^quiz_answer_[A-Z]$"))(ack=_ack, lazy=[handlers.on_quiz_answer])
    app.action("quiz_next")(ack=_ack, lazy=[handlers.on_quiz_next])
    app.action("quiz_me")(ack=_ack, lazy=[handlers.on_quiz_me])
    app.action("quiz_share")(ack=_ack, lazy=[handlers.on_quiz_share])
    app.action(re.compile(r"^feedback_(up|down)$"))(ack=_ack, lazy=[handlers.on_feedback])
    return app


async def _ack(ack: AsyncAck) -> None:
    await ack()


def _value(body: dict[str, Any]) -> dict[str, Any]:
    try:
        value = json.loads(body["actions"][0]["value"])
    except (KeyError, IndexError, ValueError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}


def _team(body: dict[str, Any]) -> str:
    team = body.get("team_id") or (body.get("team") or {}).get("id") or (body.get("user") or {}).get("team_id")
    return str(team or "default")


def _user(body: dict[str, Any]) -> str:
    user = body.get("user_id") or (body.get("user") or {}).get("id") or ""
    return str(user)


class _Handlers:
    def __init__(self, settings: Settings, get_services: GetServices, metrics: Metrics) -> None:
        self.settings = settings
        self.get_services = get_services
        self.metrics = metrics

    # -- answers -----------------------------------------------------------------------------------

    async def on_mention(self, body: dict[str, Any], event: dict[str, Any], client: AsyncWebClient) -> None:
        if event.get("bot_id") or event.get("subtype") or event.get("edited"):
            self.metrics.slack_events.labels("app_mention", "ignored").inc()
            return
        await self._answer_event(body, event, client, thread=True)

    async def on_message(self, body: dict[str, Any], event: dict[str, Any], client: AsyncWebClient) -> None:
        # Only direct messages from people: no bots, edits, joins or other subtypes.
        if event.get("channel_type") != "im" or event.get("bot_id") or event.get("subtype"):
            return
        await self._answer_event(body, event, client, thread=bool(event.get("thread_ts")))

    async def _answer_event(
        self, body: dict[str, Any], event: dict[str, Any], client: AsyncWebClient, *, thread: bool
    ) -> None:
        kind = str(event.get("type", "event"))
        services = self.get_services()
        if services is None:
            return
        event_id = str(body.get("event_id") or f"{event.get('channel')}:{event.get('ts')}")
        if not await asyncio.to_thread(services.store.claim_event, event_id):
            self.metrics.slack_events.labels(kind, "duplicate").inc()
            return
        channel, ts = event["channel"], event["ts"]
        reply_to: dict[str, Any] = {"channel": channel}
        if thread:
            reply_to["thread_ts"] = event.get("thread_ts") or ts
        reacted = await self._react(client, "reactions_add", channel, ts)
        try:
            question = clean_question(str(event.get("text", "")))
            if not question:
                lang = self.settings.default_lang
                topics = ", ".join(services.assistant.topics(lang))
                await client.chat_postMessage(**reply_to, **blocks.text_message(
                    blocks.escape(t(lang, "empty_mention", topics=topics))), unfurl_links=False)
                self.metrics.slack_events.labels(kind, "empty").inc()
                return
            answer = await asyncio.to_thread(services.assistant.answer, question)
            self.metrics.answer(answer.answered, "slack")
            await client.chat_postMessage(**reply_to, **blocks.answer_message(answer), unfurl_links=False,
                                          unfurl_media=False)
            self.metrics.slack_events.labels(kind, "answered" if answer.answered else "abstained").inc()
        except Exception:
            log.exception("failed to answer a Slack %s", kind)
            self.metrics.slack_events.labels(kind, "error").inc()
            lang = detect_language(str(event.get("text", "")), services.assistant.vocabulary)
            try:
                await client.chat_postMessage(**reply_to, text=t(lang, "apology"))
            except Exception:  # noqa: BLE001 - nothing more can be said to the user
                log.exception("could not post the apology")
        finally:
            if reacted:
                await self._react(client, "reactions_remove", channel, ts)

    async def _react(self, client: AsyncWebClient, method: str, channel: str, ts: str) -> bool:
        try:
            await getattr(client, method)(channel=channel, timestamp=ts, name="eyes")
            return True
        except Exception as exc:  # noqa: BLE001 - a missing reaction must not stop the answer
            log.warning("%s failed: %s", method, exc.__class__.__name__)
            return False

    # -- /quiz -------------------------------------------------------------------------------------

    async def on_quiz_command(self, body: dict[str, Any], respond: AsyncRespond) -> None:
        services = self.get_services()
        text = clean_question(str(body.get("text", "")))
        words = text.split()
        lang = self.settings.default_lang
        rest: list[str] = []
        explicit = False
        for word in words:
            if word.lower() in ("es", "en"):
                lang, explicit = word.lower(), True
            else:
                rest.append(word)
        remainder = " ".join(rest)
        if services is None:
            await respond(response_type="ephemeral", **blocks.text_message(t(lang, "starting")))
            return
        if remainder and not explicit:
            lang = detect_language(remainder, services.assistant.vocabulary) if len(rest) > 1 else lang
        user, team = _user(body), _team(body)
        keyword = remainder.lower()
        try:
            if keyword in HELP_WORDS:
                topics = ", ".join(blocks.escape(x) for x in services.quiz.topics(lang))
                reply = blocks.text_message(t(lang, "help", topics=topics))
            elif keyword in STATS_WORDS:
                stats = await asyncio.to_thread(services.quiz.stats, user, team=team, lang=lang)
                reply = blocks.stats_message(stats, lang)
            elif keyword in TOP_WORDS:
                entries = await asyncio.to_thread(services.quiz.leaderboard, team=team)
                reply = blocks.leaderboard_message(entries, lang)
            else:
                prompt = await asyncio.to_thread(
                    services.quiz.next_question, user, team=team, topic=remainder or None, lang=lang
                )
                reply = blocks.quiz_message(prompt)
        except UnknownTopicError as exc:
            topics = ", ".join(blocks.escape(x) for x in exc.topics)
            reply = blocks.text_message(t(lang, "unknown_topic", topic=blocks.escape(remainder), topics=topics))
        await respond(response_type="ephemeral", **reply)

    async def on_quiz_answer(self, body: dict[str, Any], respond: AsyncRespond) -> None:
        services = self.get_services()
        value = _value(body)
        if services is None or "a" not in value:
            await respond(response_type="ephemeral", replace_original=False,
                          **blocks.text_message(t(self.settings.default_lang, "starting")))
            return
        user, attempt_id, choice = _user(body), str(value["a"]), str(value.get("c", ""))

        def grade() -> tuple[QuizResult, str]:
            try:
                result = services.quiz.answer(user, attempt_id, choice)
            except AlreadyAnsweredError as exc:
                if not isinstance(exc.result, QuizResult):
                    raise
                result = exc.result
            record = services.store.get_attempt(attempt_id)
            return result, record.lang if record is not None else self.settings.default_lang

        try:
            result, lang = await asyncio.to_thread(grade)
        except QuizError as exc:
            await respond(response_type="ephemeral", replace_original=False,
                          **blocks.text_message(blocks.escape(str(exc))))
            return
        outcome = "duplicate" if result.already_answered else ("correct" if result.correct else "incorrect")
        self.metrics.quiz_answers.labels(outcome, "slack").inc()
        await respond(replace_original=True, **blocks.result_message(result, result.citation.title, lang))

    async def on_quiz_next(self, body: dict[str, Any], respond: AsyncRespond) -> None:
        await self._send_question(body, respond, lang=str(_value(body).get("l") or self.settings.default_lang))

    async def on_quiz_me(self, body: dict[str, Any], respond: AsyncRespond) -> None:
        value = _value(body)
        question = value.get("q")
        await self._send_question(body, respond, lang=str(value.get("l") or self.settings.default_lang),
                                  question=int(question) if isinstance(question, int) else None)

    async def _send_question(self, body: dict[str, Any], respond: AsyncRespond, *, lang: str,
                             question: int | None = None) -> None:
        services = self.get_services()
        if services is None:
            await respond(response_type="ephemeral", replace_original=False,
                          **blocks.text_message(t(lang, "starting")))
            return
        try:
            prompt = await asyncio.to_thread(
                services.quiz.next_question, _user(body), team=_team(body), lang=lang, question=question
            )
        except (QuizError, InputError) as exc:
            await respond(response_type="ephemeral", replace_original=False,
                          **blocks.text_message(blocks.escape(str(exc))))
            return
        await respond(response_type="ephemeral", replace_original=False, **blocks.quiz_message(prompt))

    async def on_quiz_share(self, body: dict[str, Any], client: AsyncWebClient, respond: AsyncRespond) -> None:
        services = self.get_services()
        attempt_id = str(_value(body).get("a", ""))
        channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id")
        if services is None or not attempt_id or not channel:
            return
        record = await asyncio.to_thread(services.store.get_attempt, attempt_id)
        user = _user(body)
        if record is None or record.user != user or record.answered_at is None:
            return
        question = services.assistant.knowledge.question(record.doc_id, record.question, record.lang)
        key = "shared_right" if record.correct else "shared_wrong"
        text = t(record.lang, key, user=user, number=question.number, title=blocks.escape(question.title))
        try:
            await client.chat_postMessage(channel=channel, **blocks.text_message(text), unfurl_links=False)
        except Exception as exc:  # noqa: BLE001 - e.g. the bot is not in that channel
            log.warning("could not share a result: %s", exc.__class__.__name__)
            await respond(response_type="ephemeral", replace_original=False,
                          **blocks.text_message(blocks.escape(t(record.lang, "apology"))))

    # -- feedback ----------------------------------------------------------------------------------

    async def on_feedback(self, body: dict[str, Any], respond: AsyncRespond) -> None:
        services = self.get_services()
        value = _value(body)
        if services is None or "q" not in value:
            return
        vote = "up" if body["actions"][0]["action_id"] == "feedback_up" else "down"
        container = body.get("container") or {}
        message_key = f"{container.get('channel_id', '')}:{container.get('message_ts', '')}"
        try:
            await asyncio.to_thread(
                services.store.record_feedback, _user(body), _team(body), message_key, str(value.get("d", "")),
                int(value["q"]), None, vote,
            )
        except (EksBotError, ValueError, TypeError):
            log.warning("feedback not recorded: malformed button value")
            return
        lang = str(value.get("l") or self.settings.default_lang)
        await respond(response_type="ephemeral", replace_original=False, **blocks.text_message(t(lang, "thanks")))
