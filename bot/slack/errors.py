"""The core's exceptions as the short private message a person sees in Slack."""

from __future__ import annotations

import logging

from bot.errors import InputError, QuizError, StorageUnavailableError
from bot.slack import blocks
from bot.slack.texts import t

log = logging.getLogger(__name__)


def describe(exc: BaseException) -> str:
    """An exception for a log line: its class, and Slack's error code when Slack gave one ("ratelimited",
    "channel_not_found"); never a message text or a token."""
    response = getattr(exc, "response", None)
    code = None
    try:
        code = response.get("error") if response is not None else None
    except Exception:  # noqa: BLE001 - a response of another shape: the class alone
        code = None
    return f"{exc.__class__.__name__} ({code})" if isinstance(code, str) and code else exc.__class__.__name__


def failure_message(exc: Exception, lang: str, doing: str) -> blocks.Message:
    """The reason of a refused request (bad input, a quiz rule), "try again shortly" while the database is
    unavailable, or an apology for anything else (logged with its traceback, never shown)."""
    if isinstance(exc, QuizError | InputError):
        return blocks.text_message(blocks.escape(str(exc)))
    if isinstance(exc, StorageUnavailableError):
        log.warning("%s: %s: %s", doing, exc, exc.detail[:300])
        return blocks.text_message(t(lang, "unavailable"))
    log.error("%s failed", doing, exc_info=exc)
    return blocks.text_message(t(lang, "apology"))
