"""Team rounds in Slack: `/quiz round`, `/quiz schedule`, the clicks on a round's buttons, and the process's
round runner.

Listeners acknowledge at once and work in lazy listeners. A round asked for with `/quiz round` is posted
right away by that request (so a channel the bot cannot post in is told privately to the person); rounds
of schedules, the answered counts and the reveals are the runner's, in the background. All go through
`SlackPublisher`, which turns Slack's `channel_not_found`, `not_in_channel` and `is_archived` into
ChannelError: the round ends and its schedule pauses. Each click is graded once in the core and answered
privately (`chat.postEphemeral`, ✅ or ❌ with the explanation); the channel message's answered count
follows with `chat.update`, at most every few seconds per round, whichever replica got the clicks.

A round's message and its reveal carry Slack message metadata with the round's id (`eksbot_round`,
`eksbot_round_reveal`; nothing else, nothing about the answers). Before a round is posted again after a try
that may have reached Slack, its message is looked for in the channel's recent history
(`conversations.history`, which needs `channels:history`, or `groups:history` in a private channel): found,
its ts is recorded and nothing is posted. When the history cannot be read (no such scope, a rate limit), the
round is posted as before and a warning names Slack's error.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from datetime import UTC, datetime
from typing import Any

from slack_bolt.async_app import AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.errors import ChannelError
from bot.rounds import Posted, Reveal, RoundRunner, RoundView, RoundWork
from bot.services import Services
from bot.slack import blocks
from bot.slack.errors import describe, failure_message
from bot.slack.payloads import Body, GetServices, SlackContext, button_value, channel_of, team_of, user_of, whole_number
from bot.slack.quiz import Progress
from bot.slack.round_blocks import result_message as round_result_message
from bot.slack.round_blocks import (
    reveal_message,
    round_message,
    scheduled_message,
    schedules_message,
    slack_date,
)
from bot.slack.round_commands import (
    AddSchedule,
    EndRound,
    ListSchedules,
    Request,
    RoundHelp,
    StartRound,
    is_round_command,
    parse,
    split_command,
)
from bot.slack.round_texts import rt
from bot.slack.texts import t

log = logging.getLogger(__name__)

CHANNEL_GONE = frozenset({"channel_not_found", "not_in_channel", "is_archived"})
ROUND_EVENT = "eksbot_round"  # the metadata of a round's message
REVEAL_EVENT = "eksbot_round_reveal"  # and of its reveal
HISTORY_LIMIT = 100  # messages read back when looking for a round's message (one page, newest first)


class SlackPublisher:
    """Rounds shown in Slack: the round's message (`chat.postMessage`, then `chat.update`) and the reveal."""

    def __init__(self, client: AsyncWebClient) -> None:
        self.client = client

    async def post(self, view: RoundView) -> str:
        response = await _channel_call(self.client.chat_postMessage(
            channel=view.channel, **round_message(view), metadata=round_metadata(view), unfurl_links=False,
            unfurl_media=False))
        return str(response["ts"])

    async def find(self, view: RoundView, *, since: datetime) -> Posted | None:
        try:
            response = await self.client.conversations_history(
                channel=view.channel, oldest=f"{since.timestamp():.6f}", limit=HISTORY_LIMIT,
                include_all_metadata=True)
        except Exception as exc:  # noqa: BLE001 - a round is never held back by this: it is posted
            log.warning("could not look for a round's message before posting it again, so it is posted: %s",
                        describe(exc), extra={"round": view.id, "channel": view.channel})
            return None
        return find_round_message(response.get("messages"), view.id)

    async def show(self, view: RoundView) -> None:
        if view.message_ts is not None:
            await _channel_call(self.client.chat_update(channel=view.channel, ts=view.message_ts,
                                                        **round_message(view)))

    async def reveal(self, reveal: Reveal) -> None:
        metadata = {"event_type": REVEAL_EVENT, "event_payload": {"round_id": reveal.round.id}}
        await _channel_call(self.client.chat_postMessage(
            channel=reveal.round.channel, **reveal_message(reveal), metadata=metadata, unfurl_links=False,
            unfurl_media=False))


def round_metadata(view: RoundView) -> dict[str, Any]:
    """What a round's message carries for apps (not people) to read: the round's id and the end it shows."""
    return {"event_type": ROUND_EVENT, "event_payload": {"round_id": view.id, "ends_at": int(view.ends_at.timestamp())}}


def find_round_message(messages: object, round_id: str) -> Posted | None:
    """The message of round `round_id` among messages read back with their metadata, if there."""
    for message in messages if isinstance(messages, list) else []:
        metadata = message.get("metadata") if isinstance(message, dict) else None
        if not isinstance(metadata, dict) or metadata.get("event_type") != ROUND_EVENT:
            continue
        payload = metadata.get("event_payload")
        if not isinstance(payload, dict) or payload.get("round_id") != round_id \
                or not isinstance(message.get("ts"), str):
            continue
        ends_at = whole_number(payload.get("ends_at"))
        if ends_at is None or not 0 < ends_at < 2**37:
            return Posted(message["ts"], None)  # the end its round has now, then
        return Posted(message["ts"], datetime.fromtimestamp(ends_at, UTC))
    return None


async def _channel_call(call: Awaitable[Any]) -> Any:
    try:
        return await call
    except SlackApiError as exc:
        code = str(exc.response.get("error", ""))
        if code in CHANNEL_GONE:
            raise ChannelError(code) from None
        raise


def round_work(services: Services, client: AsyncWebClient) -> RoundWork:
    return RoundWork(services.rounds, services.schedules, SlackPublisher(client), services.run)


def round_runner(client: AsyncWebClient, get_services: GetServices, settings: Settings) -> RoundRunner:
    """The background task that keeps this process's rounds on time (start it with the server)."""

    def work() -> RoundWork | None:  # nothing to do until the services are loaded and the database opened
        services = get_services()
        return round_work(services, client) if services is not None and services.database.ready else None

    return RoundRunner(work, poll=settings.rounds_poll_seconds)


class RoundListeners:
    def __init__(self, ctx: SlackContext, *, on_progress: Progress | None = None) -> None:
        self.ctx = ctx
        self.on_progress = on_progress  # told after a person's progress changed (their Home is refreshed)

    async def matches(self, body: Body) -> bool:
        """Is this `/quiz` command about rounds (`round …`, `schedule …`)?"""
        return is_round_command(split_command(str(body.get("text", "")))[1])

    # -- /quiz round, /quiz schedule ---------------------------------------------------------------

    async def on_command(self, body: Body, client: AsyncWebClient, respond: AsyncRespond) -> None:
        """In the language named (`en`, `es`), else the person's: the round's language, for everyone."""
        named, words = split_command(str(body.get("text", "")))
        services = self.ctx.get_services()
        if services is None:
            await respond(response_type="ephemeral", **blocks.text_message(
                t(named or self.ctx.settings.default_lang, "starting")))
            return
        lang = named or await self.ctx.language_of(services, team_of(body), user_of(body))
        try:
            reply = await self._reply(services, body, client, lang, parse(words, lang))
        except Exception as exc:  # noqa: BLE001 - told to the person, logged when unexpected
            reply = failure_message(exc, lang, "a round command")
        if reply is not None:
            await respond(response_type="ephemeral", **reply)

    async def _reply(self, services: Services, body: Body, client: AsyncWebClient, lang: str,
                     request: Request) -> blocks.Message | None:
        if isinstance(request, RoundHelp):
            return blocks.text_message(rt(lang, "help"))
        channel = str(body.get("channel_id") or "")
        if not channel or channel.startswith("D"):
            return blocks.text_message(rt(lang, "not_a_channel"))
        place: dict[str, Any] = {"team": team_of(body), "channel": channel}
        who: dict[str, Any] = {"user": user_of(body), "lang": lang}
        admins = self.ctx.settings.admins
        if isinstance(request, StartRound):
            record, outcome = await round_work(services, client).start(
                **place, **who, count=request.count, topic=request.topic, minutes=request.minutes)
            if outcome == "channel":
                return blocks.text_message(rt(lang, "cant_post", code=blocks.escape(record.end_reason or "")))
            return blocks.text_message(rt(lang, "post_later")) if outcome == "retry" else None
        if isinstance(request, EndRound):
            await round_work(services, client).end(**place, **who, admins=admins)
            return blocks.text_message(rt(lang, "ended"))
        if isinstance(request, AddSchedule):
            schedule = await services.run(
                services.schedules.add, **place, **who, weekday=request.weekday, at=request.at, count=request.count,
                topic=request.topic, minutes=request.minutes, timezone=request.timezone)
            return scheduled_message(schedule, lang)
        if isinstance(request, ListSchedules):
            return schedules_message(await services.run(services.schedules.of_channel, **place), lang)
        change = services.schedules.cancel if request.action == "cancel" else services.schedules.resume
        schedule = await services.run(change, **place, **who, admins=admins, schedule_id=request.schedule_id)
        if request.action == "cancel":
            return blocks.text_message(rt(lang, "cancelled", id=schedule.id))
        return blocks.text_message(rt(lang, "resumed", id=schedule.id, next=slack_date(schedule.next_run)))

    # -- a click on a round's button ---------------------------------------------------------------

    async def on_answer(self, body: Body, client: AsyncWebClient) -> None:
        """Grade the click (once) and tell only that person; then the channel message's count follows."""
        services = self.ctx.get_services()
        value = button_value(body)
        user, channel, lang = user_of(body), channel_of(body), self.ctx.settings.default_lang
        round_id, position, letter = value.get("r"), whole_number(value.get("p")), value.get("c")
        if not user or not channel:
            return
        if services is None or not isinstance(round_id, str) or position is None \
                or not isinstance(letter, str):
            await self._tell(client, channel, user, blocks.text_message(
                t(lang, "starting" if services is None else "bad_button")))
            return
        graded = False
        team = team_of(body)
        chosen = await self.ctx.chosen_language(services, team, user)  # else the round's
        lang = chosen or lang
        try:
            result = await round_work(services, client).answer(
                round_id=round_id, position=position, user=user, letter=letter, lang=chosen)
            graded = not result.already_answered
            outcome = "duplicate" if result.already_answered else ("correct" if result.correct else "incorrect")
            self.ctx.metrics.quiz_answers.labels(outcome, "slack").inc()
            reply = round_result_message(result)
        except Exception as exc:  # noqa: BLE001 - told to the person, logged when unexpected
            reply = failure_message(exc, lang, "a round answer")
        await self._tell(client, channel, user, reply)
        if graded and self.on_progress is not None:
            await self.on_progress(client, user=user, team=team)

    @staticmethod
    async def _tell(client: AsyncWebClient, channel: str, user: str, reply: blocks.Message) -> None:
        try:
            await client.chat_postEphemeral(channel=channel, user=user, **reply)
        except Exception as exc:  # noqa: BLE001 - nothing more can be said to the person
            log.warning("could not answer a round click privately: %s", describe(exc))
