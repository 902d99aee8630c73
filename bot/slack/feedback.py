"""👍 / 👎 under an answer: one vote per person per message, stored in the shared database.

A second click by the same person changes the vote; the totals are exported as `eksbot_feedback_total`.
A new 👎 also goes to the knowledge gaps (with the question the answer was for, and no user id). A maintainer's
👎 is thanked with an "Add a note" button, for a note on the question or section the answer cited
(`bot.slack.knowledge`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from slack_bolt.async_app import AsyncRespond

from bot.lang import is_lang
from bot.slack import blocks
from bot.slack.errors import describe, failure_message
from bot.slack.knowledge_views import NOTE_ACTION
from bot.slack.payloads import Body, SlackContext, action_id, button_value, team_of, user_of
from bot.slack.texts import t

if TYPE_CHECKING:
    from bot.services import Services

log = logging.getLogger(__name__)


class FeedbackListeners:
    def __init__(self, ctx: SlackContext) -> None:
        self.ctx = ctx

    async def on_feedback(self, body: Body, respond: AsyncRespond) -> None:
        services = self.ctx.get_services()
        value = button_value(body)
        question, doc_id = value.get("q"), value.get("d")
        lang = value.get("l")
        if not is_lang(lang):
            lang = self.ctx.settings.default_lang
        if services is None or not isinstance(question, int) or not isinstance(doc_id, str):
            log.warning("feedback not recorded: malformed button value")
            return
        vote = "up" if action_id(body) == "feedback_up" else "down"
        container = body.get("container") or {}
        message_key = f"{container.get('channel_id', '')}:{container.get('message_ts', '')}"
        try:
            changed = await services.run(
                services.stores.feedback.record, user_of(body), team_of(body), message_key, doc_id, question,
                None, vote,
            )
        except Exception as exc:  # noqa: BLE001 - told to the person, logged when unexpected
            await respond(response_type="ephemeral", replace_original=False,
                          **failure_message(exc, lang, "recording feedback"))
            return
        if changed and vote == "down":
            answered = value.get("t")
            try:
                await services.run(services.gaps.record_downvote, answered if isinstance(answered, str) else "",
                                   cited=question, lang=lang, section=_section(services, doc_id, question, lang))
            except Exception as exc:  # noqa: BLE001 - the vote counts; only the gap is lost
                log.warning("could not record a downvoted answer as a knowledge gap: %s", describe(exc))
        reply = blocks.text_message(t(lang, "thanks"))
        if vote == "down" and user_of(body) in self.ctx.settings.admins:  # a maintainer can correct it with a note
            reply["blocks"] += blocks.actions("feedback_note", [
                blocks.button(t(lang, "note_add"), NOTE_ACTION, {"d": doc_id, "q": question, "l": lang})])
        await respond(response_type="ephemeral", replace_original=False, **reply)


def _section(services: Services, doc_id: str, number: int, lang: str) -> str:
    """The heading path of the document section an answer cited ("" for a quiz question or an unknown one)."""
    try:
        return services.assistant.knowledge.question(doc_id, number, lang).section
    except KeyError:
        return ""
