"""The bolt app: answers on mention, in DMs and in the assistant view, `/quiz` with buttons, feedback,
the App Home tab, and the maintainers' forms that add to the knowledge (`bot.slack.knowledge`).

The same listeners serve both modes: HTTP (mounted in the FastAPI app at POST /slack/events, requests
verified with the signing secret) and Socket Mode (`bot.slack.socket_mode`, no public URL). Every
listener acknowledges at once and does the work in a lazy listener (Slack's 3-second rule), through the
services: questions are answered with the batcher, the rest runs off the event loop (`Services.run`). The one
exception is a submitted form, saved before it is acknowledged (within a budget) so that a refusal comes back
as the form's errors.
"""

from __future__ import annotations

import logging

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.errors import ConfigError
from bot.metrics import Metrics
from bot.slack.action_ids import (
    FEEDBACK_ACTIONS,
    GAP_ACTION,
    LANGUAGE_ACTION,
    NOTE_ACTION,
    QUIZ_ANSWERS,
    QUIZ_ME_ACTION,
    QUIZ_NEXT_ACTION,
    QUIZ_SHARE_ACTION,
    REVIEW_ACTION,
    ROUND_ANSWERS,
    SUGGESTION_ACTION,
)
from bot.slack.answering import AnswerListeners
from bot.slack.assistant_view import build_assistant
from bot.slack.feedback import FeedbackListeners
from bot.slack.home import HomeListeners
from bot.slack.knowledge import KnowledgeListeners
from bot.slack.knowledge_views import ENTRY_CALLBACK, NOTE_CALLBACK, SHORTCUT
from bot.slack.payloads import GetServices, SlackContext
from bot.slack.quiz import QuizListeners
from bot.slack.rounds import RoundListeners

COMMAND = "/quiz"
WEB_API_TIMEOUT = 10  # seconds one Web API call may take
MAX_RETRY_AFTER = 10  # seconds of Slack's Retry-After waited at most (longer: the call fails at once)
# Events the listeners take; the assistant's arrive through bolt's AsyncAssistant middleware.
EVENTS = ("app_mention", "message", "app_home_opened")
ASSISTANT_EVENTS = ("assistant_thread_started", "assistant_thread_context_changed")
SHORTCUTS = (SHORTCUT,)  # message shortcuts (features.shortcuts in the manifest)


def build_slack_app(settings: Settings, get_services: GetServices, metrics: Metrics, *,
                    socket_mode: bool = False) -> AsyncApp:
    """The bolt app over the services `get_services` returns (None while they load).

    HTTP mode needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET; Socket Mode needs SLACK_BOT_TOKEN only here
    (its SLACK_APP_TOKEN is the handler's). Web API calls go to SLACK_API_URL."""
    if settings.slack_bot_token is None:
        raise ConfigError("SLACK_BOT_TOKEN is not set")
    if not socket_mode and settings.slack_signing_secret is None:
        raise ConfigError("SLACK_SIGNING_SECRET is not set (needed to verify requests in HTTP mode)")
    secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else ""
    client = AsyncWebClient(token=settings.slack_bot_token.get_secret_value(), base_url=settings.slack_api_url,
                            retry_handlers=web_api_retries(), timeout=WEB_API_TIMEOUT)
    app = AsyncApp(
        client=client,
        signing_secret=secret,
        request_verification_enabled=not socket_mode,
        process_before_response=False,
        logger=logging.getLogger("bot.slack.bolt"),
    )
    ctx = SlackContext(settings=settings, get_services=get_services, metrics=metrics)
    register_listeners(app, ctx)
    if metrics.feedback.counts is None:
        metrics.feedback.counts = lambda: _feedback_counts(get_services)
    return app


def web_api_retries() -> list[AsyncRetryHandler]:
    """Web API calls are tried again on a rate limit (after Slack's Retry-After, when it is short), a 5xx and a
    dropped connection: twice at most, so that a reply is late rather than lost, and every call ends within
    `WEB_API_TIMEOUT` per try plus `MAX_RETRY_AFTER` per wait (under a minute: a round's two-minute lease
    always outlives the calls it guards)."""
    return [CappedRateLimitRetryHandler(max_retry_count=2), AsyncServerErrorRetryHandler(max_retry_count=2),
            AsyncConnectionErrorRetryHandler(max_retry_count=2)]


class CappedRateLimitRetryHandler(AsyncRateLimitErrorRetryHandler):
    """Slack's rate-limit retry, but never waiting more than `MAX_RETRY_AFTER` seconds: a longer Retry-After
    fails the call at once (its caller tells the person, or a round's step is tried again later)."""

    async def _can_retry_async(self, *, state: RetryState, request: HttpRequest,
                               response: HttpResponse | None = None, error: Exception | None = None) -> bool:
        if response is None or response.status_code != 429:
            return False
        wait = next((value for key, value in response.headers.items() if key.lower() == "retry-after"), ["1"])
        try:
            return float(wait[0] if isinstance(wait, list) else wait) <= MAX_RETRY_AFTER
        except ValueError:
            return False


def register_listeners(app: AsyncApp, ctx: SlackContext) -> None:
    answers, home, feedback = AnswerListeners(ctx), HomeListeners(ctx), FeedbackListeners(ctx)
    quiz = QuizListeners(ctx, on_progress=home.refresh)
    rounds = RoundListeners(ctx, on_progress=home.refresh)
    app.use(build_assistant(ctx, answers))  # threads of direct messages, the assistant view's included
    app.event("app_mention")(ack=_ack, lazy=[answers.on_mention])
    app.event("message")(ack=_ack, lazy=[answers.on_message])
    app.event("app_home_opened")(ack=_ack, lazy=[home.on_home_opened])
    app.action(REVIEW_ACTION)(ack=_ack, lazy=[home.on_review])
    app.action(LANGUAGE_ACTION)(ack=_ack, lazy=[home.on_language])
    app.command(COMMAND, matchers=[rounds.matches])(ack=_ack, lazy=[rounds.on_command])  # round, schedule
    app.command(COMMAND)(ack=_ack, lazy=[quiz.on_command])
    app.action(ROUND_ANSWERS)(ack=_ack, lazy=[rounds.on_answer])
    app.action(QUIZ_ANSWERS)(ack=_ack, lazy=[quiz.on_answer])
    app.action(QUIZ_NEXT_ACTION)(ack=_ack, lazy=[quiz.on_next])
    app.action(QUIZ_ME_ACTION)(ack=_ack, lazy=[quiz.on_quiz_me])
    app.action(SUGGESTION_ACTION)(ack=_ack, lazy=[answers.on_suggestion])
    app.action(QUIZ_SHARE_ACTION)(ack=_ack, lazy=[quiz.on_share])
    app.action(FEEDBACK_ACTIONS)(ack=_ack, lazy=[feedback.on_feedback])
    knowledge = KnowledgeListeners(ctx, on_saved=home.refresh)
    app.action(GAP_ACTION)(ack=_ack, lazy=[knowledge.on_answer_gap])
    app.action(NOTE_ACTION)(ack=_ack, lazy=[knowledge.on_add_note])
    app.message_shortcut(SHORTCUT)(ack=_ack, lazy=[knowledge.on_shortcut])
    # A form is saved before it is acknowledged: a refusal is the acknowledgement (the fields' errors).
    app.view_submission(ENTRY_CALLBACK)(knowledge.on_entry_submitted)
    app.view_submission(NOTE_CALLBACK)(knowledge.on_note_submitted)


async def _ack(ack: AsyncAck) -> None:
    await ack()


def _feedback_counts(get_services: GetServices) -> dict[str, int]:
    services = get_services()
    return services.stores.feedback.counts() if services is not None else {}
