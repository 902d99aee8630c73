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
from bot.slack.action_ids import FEEDBACK_UP_ACTION, NOTE_ACTION
from bot.slack.errors import describe, failure_message
from bot.slack.payloads import Body, SlackContext, action_id, button_value, doc_named, team_of, user_of
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
        question = value.get("q")
        lang = value.get("l")
        if not is_lang(lang):
            lang = self.ctx.settings.default_lang
        doc_id = doc_named(value, services) if services is not None else None
        if services is None or not isinstance(question, int) or doc_id is None:
            log.warning("feedback not recorded: malformed button value, or its document is gone")
            return
        vote = "up" if action_id(body) == FEEDBACK_UP_ACTION else "down"
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
        # A maintainer can correct it with a note. The note's form names the document by its id, so a document
        # whose id is too long for a button gets no such button (a note can still be added from the command line
        # or over HTTP).
        named = blocks.doc_value(doc_id)
        if vote == "down" and user_of(body) in self.ctx.settings.admins and "d" in named:
            reply["blocks"] += blocks.actions("feedback_note", [
                blocks.button(t(lang, "note_add"), NOTE_ACTION, {**named, "q": question, "l": lang})])
        await respond(response_type="ephemeral", replace_original=False, **reply)


def _section(services: Services, doc_id: str, number: int, lang: str) -> str:
    """The heading path of the document section an answer cited ("" for a quiz question or an unknown one)."""
    try:
        return services.assistant.knowledge.question(doc_id, number, lang).section
    except KeyError:
        return ""
