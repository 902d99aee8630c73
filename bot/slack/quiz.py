"""`/quiz` and its buttons: a private question, graded on click (once), next question, share, quiz me.

Every reply but the shared summary is ephemeral: only the person who asked sees it. A button carries
only an opaque attempt id and the letter shown; the answer stays on the server.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from slack_bolt.async_app import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.errors import QuizError, UnknownTopicError
from bot.lang import Lang, is_lang
from bot.quiz import QuizResult
from bot.reading.markup import clean_question
from bot.services import Services
from bot.slack import blocks
from bot.slack.errors import describe, failure_message
from bot.slack.payloads import Body, SlackContext, button_value, channel_of, team_of, user_of, whole_number
from bot.slack.texts import t

log = logging.getLogger(__name__)

STATS_WORDS = frozenset({"stats", "estadisticas", "estadísticas", "score", "puntos"})
TOP_WORDS = frozenset({"top", "leaderboard", "ranking", "clasificacion", "clasificación"})
HELP_WORDS = frozenset({"help", "ayuda", "?"})


class Progress(Protocol):
    async def __call__(self, client: AsyncWebClient, *, user: str, team: str) -> None: ...


def parse_command(text: str, default_lang: Lang, detect: Callable[[str], Lang]) -> tuple[Lang, str, bool]:
    """`/quiz` text → (language, the rest, whether the language was given): `en slurm` → ("en", "slurm")."""
    lang, explicit, rest = default_lang, False, []
    for word in clean_question(text).split():
        lowered = word.lower()
        if is_lang(lowered):
            lang, explicit = lowered, True
        else:
            rest.append(word)
    remainder = " ".join(rest)
    if len(rest) > 1 and not explicit:  # a phrase tells its language; one word ("slurm") does not
        lang = detect(remainder)
    return lang, remainder, explicit



class QuizListeners:
    def __init__(self, ctx: SlackContext, *, on_progress: Progress | None = None) -> None:
        self.ctx = ctx
        self.on_progress = on_progress  # told after a person's progress changed (their Home is refreshed)

    # -- /quiz -------------------------------------------------------------------------------------

    async def on_command(self, body: Body, respond: AsyncRespond, client: AsyncWebClient) -> None:
        """`/quiz ...` in the person's language: the one they chose, else the default (or that of a phrase).
        `en` or `es` in the command changes their choice."""
        services = self.ctx.get_services()
        default = self.ctx.settings.default_lang
        if services is None:
            await respond(response_type="ephemeral", **blocks.text_message(t(default, "starting")))
            return
        user, team = user_of(body), team_of(body)
        chosen = await self.ctx.chosen_language(services, team, user)
        detect = services.assistant.language_of if chosen is None else (lambda _text: chosen)
        lang, remainder, explicit = parse_command(str(body.get("text", "")), chosen or default, detect)
        changed = explicit and lang != chosen and bool(user)

        async def reply() -> dict[str, Any]:
            message = await self._command_reply(services, body, lang, remainder)
            if changed:  # stored first: should it fail, the person is told, and nothing else happens
                await services.run(services.stores.people.set_language, team, user, lang)
                message["blocks"] = [*message["blocks"], blocks.context(t(lang, "language_set"))]
            return message

        await self._guarded(respond, lang, reply)
        if changed:
            await self._progressed(client, user, team)

    async def _command_reply(self, services: Services, body: Body, lang: str, remainder: str) -> dict[str, Any]:
        user, team, keyword = user_of(body), team_of(body), remainder.lower()
        if keyword in HELP_WORDS:
            topics = ", ".join(blocks.escape(x) for x in services.quiz.topics(lang))
            return blocks.text_message(t(lang, "help", topics=topics))
        if keyword in STATS_WORDS:
            stats = await services.run(services.quiz.stats, user, team=team, lang=lang)
            return blocks.stats_message(stats, lang)
        if keyword in TOP_WORDS:
            entries = await services.run(services.quiz.leaderboard, team=team)
            return blocks.leaderboard_message(entries, lang)
        # ASCII digits only: "²" and "٥" are digits to str.isdigit() but no question number.
        number = int(remainder) if remainder.isascii() and remainder.isdigit() else None
        topic = None if number is not None else remainder or None
        channel = channel_of(body)
        withheld = await services.run(services.rounds.open_questions, team, channel) if channel else frozenset()
        try:
            prompt = await services.run(services.quiz.next_question, user, team=team, lang=lang, question=number,
                                        topic=topic, withheld=withheld)
        except UnknownTopicError as exc:
            topics = ", ".join(blocks.escape(x) for x in exc.topics)
            return blocks.text_message(t(lang, "unknown_topic", topic=blocks.escape(remainder), topics=topics))
        return blocks.quiz_message(prompt)

    # -- buttons -----------------------------------------------------------------------------------

    async def on_answer(self, body: Body, respond: AsyncRespond, client: AsyncWebClient) -> None:
        """Grade the click and replace the question with the result; a second click shows the first result."""
        services = self.ctx.get_services()
        value = button_value(body)
        lang = self.ctx.settings.default_lang
        if services is None or not isinstance(value.get("a"), str) or not isinstance(value.get("c"), str):
            await respond(response_type="ephemeral", replace_original=False, **blocks.text_message(
                t(lang, "starting" if services is None else "bad_button")))
            return
        user, attempt_id, choice = user_of(body), value["a"], value["c"]

        def grade() -> QuizResult:
            return services.quiz.answer(user, attempt_id, choice)

        async def reply() -> dict[str, Any]:
            result = await services.run(grade)
            outcome = "duplicate" if result.already_answered else ("correct" if result.correct else "incorrect")
            self.ctx.metrics.quiz_answers.labels(outcome, "slack").inc()
            return {"replace_original": True, **blocks.result_message(result)}

        await self._guarded(respond, lang, reply)
        await self._progressed(client, user, team_of(body))

    async def on_next(self, body: Body, respond: AsyncRespond) -> None:
        await self._send_question(body, respond, lang=self._lang(button_value(body)))

    async def on_quiz_me(self, body: Body, respond: AsyncRespond) -> None:
        """"Quiz me on this", under an answer: that answer's quiz question."""
        value = button_value(body)
        question = whole_number(value.get("q"))
        if question is None:
            lang = self._lang(value)
            await respond(response_type="ephemeral", replace_original=False,
                          **blocks.text_message(t(lang, "bad_button")))
            return
        await self._send_question(body, respond, lang=self._lang(value), question=question)

    async def _send_question(self, body: Body, respond: AsyncRespond, *, lang: str,
                             question: int | None = None) -> None:
        services = self.ctx.get_services()
        if services is None:
            await respond(response_type="ephemeral", replace_original=False,
                          **blocks.text_message(t(lang, "starting")))
            return

        async def reply() -> dict[str, Any]:
            prompt = await services.run(
                services.quiz.next_question, user_of(body), team=team_of(body), lang=lang, question=question
            )
            return {"replace_original": False, **blocks.quiz_message(prompt)}

        await self._guarded(respond, lang, reply)

    async def on_share(self, body: Body, client: AsyncWebClient, respond: AsyncRespond) -> None:
        """Post a one-line summary of the person's own graded answer to the conversation, for everyone."""
        try:
            await self._share(body, client, respond)
        except Exception as exc:  # noqa: BLE001 - told to the person, logged when unexpected
            await respond(response_type="ephemeral", replace_original=False,
                          **failure_message(exc, self.ctx.settings.default_lang, "sharing a quiz result"))

    async def _share(self, body: Body, client: AsyncWebClient, respond: AsyncRespond) -> None:
        services = self.ctx.get_services()
        attempt_id = button_value(body).get("a")
        channel = channel_of(body)
        if services is None or not isinstance(attempt_id, str) or not channel:
            return
        user = user_of(body)
        try:
            result = await services.run(services.quiz.result, user, attempt_id)
        except QuizError:  # someone else's, not answered, or unknown: a button that no longer applies
            await respond(response_type="ephemeral", replace_original=False,
                          **blocks.text_message(t(self.ctx.settings.default_lang, "bad_button")))
            return
        key = "shared_right" if result.correct else "shared_wrong"
        text = t(result.lang, key, user=blocks.mention(user), number=result.question,
                 title=blocks.escape(result.title))
        summary = blocks.text_message(text)
        try:
            await client.chat_postMessage(channel=channel, **summary, unfurl_links=False, unfurl_media=False)
            return
        except Exception as exc:  # noqa: BLE001 - e.g. the bot is not a member of that channel
            log.info("sharing through the response URL instead: %s", describe(exc))
        try:
            await respond(response_type="in_channel", replace_original=False, **summary)
        except Exception as exc:  # noqa: BLE001
            log.warning("could not share a quiz result: %s", describe(exc))
            await respond(response_type="ephemeral", replace_original=False,
                          **blocks.text_message(t(result.lang, "apology")))

    # -- pieces ------------------------------------------------------------------------------------

    async def _progressed(self, client: AsyncWebClient, user: str, team: str) -> None:
        if self.on_progress is not None and user:
            await self.on_progress(client, user=user, team=team)

    def _lang(self, value: dict[str, Any]) -> Lang:
        lang = value.get("l")
        return lang if is_lang(lang) else self.ctx.settings.default_lang

    async def _guarded(self, respond: AsyncRespond, lang: str,
                       work: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        """Respond with what `work` builds; a refused request gets its reason, a failure a short note.

        Both go privately to the person and leave the original message as it was."""
        try:
            reply = await work()
        except Exception as exc:  # noqa: BLE001 - told to the person, logged when unexpected
            reply = {"replace_original": False, **failure_message(exc, lang, "a /quiz request")}
        reply.setdefault("response_type", "ephemeral")
        await respond(**reply)
