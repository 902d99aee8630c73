"""Adding to the knowledge from Slack, for the maintainers (EKSBOT_ADMINS): "Answer this" next to a knowledge
gap on the Home tab, the "Add to knowledge" message shortcut, and "Add a note" after a 👎 on an answer.

The buttons and the shortcut are acknowledged at once; a lazy listener opens the form (`views.open` with the
trigger id: no scope needed). Anyone else gets a modal saying who can add, and nothing is saved: the
submission is checked again, whatever the form. A submitted form is saved through `Curation` (one core call)
before it is acknowledged, because a refusal has to come back in the acknowledgement as the fields' errors;
the save gets at most `budget` seconds of Slack's three, after which the form says that saving goes on, and a
failure comes in a direct message. The form's view id is the request key: the same form submitted twice
(a double click, Slack retrying) saves once. After an entry is saved, the person's Home is published again
(the gap it answers is gone from it); every replica answers from it within seconds, nothing to do here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, NamedTuple

from slack_bolt.async_app import AsyncAck
from slack_sdk.web.async_client import AsyncWebClient

from bot.curation.service import EntryDraft
from bot.errors import InputError, StorageUnavailableError
from bot.lang import Lang, is_lang
from bot.services import Services
from bot.slack import blocks
from bot.slack.errors import describe
from bot.slack.knowledge_views import (
    BODY,
    ERROR_CHARS,
    LANG,
    NOTE_LANG,
    NOTE_TEXT,
    TITLE,
    TOPIC,
    cut,
    entry_field,
    entry_modal,
    gap_prefill,
    message_prefill,
    metadata,
    note_field,
    note_modal,
    notice_modal,
    state_values,
    ui_language,
)
from bot.slack.payloads import Body, SlackContext, button_value, team_of, user_of, whole_number
from bot.slack.quiz import Progress
from bot.slack.texts import t

log = logging.getLogger(__name__)

SAVE_BUDGET = 2.5  # seconds of Slack's 3 to save a form before acknowledging it
GAP_LOOKUP = 500  # how many of the gaps kept are searched for the one a button names


class _Form(NamedTuple):
    """A submitted knowledge form, read."""

    view: dict[str, Any]
    meta: dict[str, Any]  # what the form was opened with
    values: dict[str, str]  # by block id
    user: str
    ui: Lang
    services: Services

class KnowledgeListeners:
    budget = SAVE_BUDGET

    def __init__(self, ctx: SlackContext, *, on_saved: Progress | None = None) -> None:
        self.ctx = ctx
        self.on_saved = on_saved  # told after an entry is saved (the person's Home is published again)

    def is_admin(self, user: str) -> bool:
        return bool(user) and user in self.ctx.settings.admins

    # -- opening the forms ---------------------------------------------------------------------------

    async def on_answer_gap(self, body: Body, client: AsyncWebClient) -> None:
        """"Answer this" on the Home tab: the entry form, prefilled from the gap."""
        services, user = self.ctx.get_services(), user_of(body)
        ui = await self._ui(services, body)
        gap_id = whole_number(button_value(body).get("g"))
        if services is None or not self.is_admin(user) or gap_id is None:
            await self._open(client, body, self._refusal(services, user, ui))
            return
        try:
            gaps = await services.run(services.gaps.listing, limit=GAP_LOOKUP)
        except Exception as exc:  # noqa: BLE001 - told to the person
            log.warning("could not read the knowledge gaps: %s", describe(exc))
            await self._open(client, body, notice_modal(self._reason(exc, ui, "reading a knowledge gap"), ui))
            return
        gap = next((g for g in gaps if g.id == gap_id), None)
        if gap is None:  # answered meanwhile, or forgotten: the Home shows what is left
            await self._open(client, body, notice_modal(t(ui, "gap_gone"), ui))
            if self.on_saved is not None:
                await self.on_saved(client, user=user, team=team_of(body))
            return
        prefill = gap_prefill(gap_id=gap.id, text=gap.text, example=gap.example, lang=gap.lang)
        await self._open(client, body, entry_modal(prefill, ui))

    async def on_shortcut(self, body: Body, client: AsyncWebClient) -> None:
        """The "Add to knowledge" message shortcut: the entry form, prefilled from the message."""
        services, user = self.ctx.get_services(), user_of(body)
        ui = await self._ui(services, body)
        if services is None or not self.is_admin(user):
            await self._open(client, body, self._refusal(services, user, ui))
            return
        message = body.get("message")
        message = message if isinstance(message, dict) else {}
        text = str(message.get("text") or "")
        lang = services.assistant.language_of(text) if text.strip() else ui
        await self._open(client, body, entry_modal(message_prefill(message, lang), ui))

    async def on_add_note(self, body: Body, client: AsyncWebClient) -> None:
        """"Add a note" after a 👎: the note form for the question or section the answer cited."""
        services, user = self.ctx.get_services(), user_of(body)
        ui = await self._ui(services, body)
        value = button_value(body)
        doc, question, lang = value.get("d"), whole_number(value.get("q")), value.get("l")
        if services is None or not self.is_admin(user) or not isinstance(doc, str) or question is None:
            await self._open(client, body, self._refusal(services, user, ui, title_key="note_title"))
            return
        lang = lang if is_lang(lang) else ui
        cited = _cited(services, doc, question, lang)
        await self._open(client, body, note_modal(doc=doc, question=question, lang=lang, cited=cited, ui=ui))

    # -- saving --------------------------------------------------------------------------------------

    async def on_entry_submitted(self, ack: AsyncAck, body: Body, client: AsyncWebClient) -> None:
        form = await self._submitted(ack, body, TITLE)
        if form is None:
            return
        view, meta, values, user, ui, services = form
        draft = EntryDraft(title=values.get(TITLE, ""), body=values.get(BODY, ""), lang=values.get(LANG, ""),
                           topic=values.get(TOPIC) or None)
        gap, credit = whole_number(meta.get("g")), meta.get("c")
        gap = gap if gap is not None and gap > 0 else None
        credit = credit if isinstance(credit, str) and credit else None
        key = _request_key(view)

        def save() -> Any:
            return services.curation.add(draft, by=user, credit=credit, request_key=key, gap=gap)

        def saved(_result: Any) -> str:
            return t(ui, "entry_saved_gap" if gap else "entry_saved", title=draft.title.strip())

        if await self._save(ack, client, user=user, ui=ui, work=save, field_of=entry_field, confirm=saved,
                            title_key="knowledge_title") and self.on_saved is not None:
            await self.on_saved(client, user=user, team=team_of(body))

    async def on_note_submitted(self, ack: AsyncAck, body: Body, client: AsyncWebClient) -> None:
        form = await self._submitted(ack, body, NOTE_TEXT)
        if form is None:
            return
        view, meta, values, user, ui, services = form
        doc, question, cited = meta.get("d"), whole_number(meta.get("q")), str(meta.get("c") or "")
        if not isinstance(doc, str) or question is None:
            await ack(response_action="errors", errors={NOTE_TEXT: t(ui, "bad_form")})
            return
        text, lang, key = values.get(NOTE_TEXT, ""), values.get(NOTE_LANG, ""), _request_key(view)

        def save() -> Any:
            return services.curation.add_note(question=question, doc=doc, lang=lang, text=text, by=user,
                                              request_key=key)

        await self._save(ack, client, user=user, ui=ui, work=save, field_of=note_field,
                         confirm=lambda _result: t(ui, "note_saved", cited=f"“{cited}”"), title_key="note_title")

    async def _submitted(self, ack: AsyncAck, body: Body, field: str) -> _Form | None:
        """A submitted form read (its view, metadata, values, who, in which language), with the services when
        that person may save now; else the form is told why under `field`, and None."""
        view = body.get("view") or {}
        meta, values, user = metadata(view), state_values(view), user_of(body)
        ui = ui_language(meta, self.ctx.settings.default_lang)
        services = await self._may_save(ack, user, ui, field)
        return None if services is None else _Form(view, meta, values, user, ui, services)

    async def _may_save(self, ack: AsyncAck, user: str, ui: Lang, field: str) -> Services | None:
        """The services, when `user` may save now; else the form is told why (and None)."""
        services = self.ctx.get_services()
        if not self.is_admin(user):
            log.info("a knowledge form was refused: not an admin")
            await ack(response_action="errors", errors={field: t(ui, "only_admins")})
            return None
        if services is None:
            await ack(response_action="errors", errors={field: t(ui, "starting")})
            return None
        return services

    async def _save(self, ack: AsyncAck, client: AsyncWebClient, *, user: str, ui: Lang, work: Callable[[], Any],
                    field_of: Callable[[str], str], confirm: Callable[[Any], str], title_key: str) -> bool:
        """Run `work` (a Curation call) and acknowledge the form with its outcome: the fields' errors, or a
        confirmation. Past the budget, the form says saving goes on and a failure comes as a direct message.
        Whether it was saved."""
        services = self.ctx.get_services()
        assert services is not None
        task = asyncio.ensure_future(services.run(work))
        done, _ = await asyncio.wait({task}, timeout=self.budget)
        if not done:
            await ack(response_action="update", view=notice_modal(t(ui, "saving_slow"), ui, title_key=title_key))
            try:
                await task
            except Exception as exc:  # noqa: BLE001 - told to the person, logged when unexpected
                reason = self._reason(exc, ui, "saving to the knowledge")
                await self._tell(client, user, t(ui, "save_failed", reason=reason))
                return False
            return True
        try:
            result = task.result()
        except InputError as exc:
            reason = str(exc)
            await ack(response_action="errors", errors={field_of(reason): _cut(reason)})
            return False
        except Exception as exc:  # noqa: BLE001 - told to the person, logged when unexpected
            first = field_of("")
            await ack(response_action="errors", errors={first: _cut(self._reason(exc, ui, "saving to the knowledge"))})
            return False
        await ack(response_action="update", view=notice_modal(confirm(result), ui, title_key=title_key))
        return True

    # -- pieces --------------------------------------------------------------------------------------

    def _refusal(self, services: Services | None, user: str, ui: Lang, *, title_key: str = "knowledge_title"
                 ) -> dict[str, Any]:
        if services is not None and not self.is_admin(user):
            log.info("a knowledge form was refused: not an admin")
            return notice_modal(t(ui, "only_admins"), ui, title_key=title_key)
        return notice_modal(t(ui, "starting" if services is None else "bad_form"), ui, title_key=title_key)

    async def _ui(self, services: Services | None, body: Body) -> Lang:
        """The language the person reads the forms in."""
        if services is None:
            return self.ctx.settings.default_lang
        return await self.ctx.language_of(services, team_of(body), user_of(body))

    async def _open(self, client: AsyncWebClient, body: Body, view: dict[str, Any]) -> None:
        trigger = body.get("trigger_id")
        if not trigger:
            log.warning("no trigger id to open a form with")
            return
        try:
            await client.views_open(trigger_id=str(trigger), view=view)
        except Exception as exc:  # noqa: BLE001 - e.g. the trigger expired: the person clicks again
            log.warning("could not open a knowledge form: %s", describe(exc))

    async def _tell(self, client: AsyncWebClient, user: str, text: str) -> None:
        """A direct message from the bot to `user` (only they see it)."""
        try:
            await client.chat_postMessage(channel=user, **blocks.text_message(blocks.escape(text)))
        except Exception as exc:  # noqa: BLE001 - nothing more can be said
            log.warning("could not tell a maintainer the save failed: %s", describe(exc))

    @staticmethod
    def _reason(exc: Exception, ui: Lang, doing: str) -> str:
        """What a person is told of a failure (plain text): the reason of a refusal, "try again shortly" while
        the database is unavailable, else an apology (logged with its traceback)."""
        if isinstance(exc, InputError):
            return str(exc)
        if isinstance(exc, StorageUnavailableError):
            log.warning("%s: %s", doing, exc)
            return t(ui, "unavailable")
        log.error("%s failed", doing, exc_info=exc)
        return t(ui, "apology")


def _request_key(view: dict[str, Any]) -> str | None:
    """The form's view id: the same form submitted twice saves once."""
    view_id = view.get("id")
    return f"slack-view:{view_id}" if isinstance(view_id, str) and view_id else None


def _cited(services: Services, doc: str, question: int, lang: str) -> str:
    """What a note is on, as a person reads it: a section's heading path, or "Question 5: title"."""
    try:
        cited = services.assistant.knowledge.question(doc, question, lang)
    except KeyError:
        return f"{doc} · {question}"
    return cited.section or t(lang, "question_n", number=question) + f": {cited.title}"


def _cut(text: str) -> str:
    return cut(text, ERROR_CHARS)
