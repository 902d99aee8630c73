"""The App Home tab: published when the person opens it and after each quiz answer; its buttons.

`app_home_opened` (tab "home") publishes the view with `views.publish`. The language menu stores the
person's choice and publishes again; "Review now" sends the question due for review (or a new one) to
the person's direct messages with the bot, where only they see it.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.lang import is_lang
from bot.services import Services
from bot.slack import blocks
from bot.slack.errors import describe, failure_message
from bot.slack.home_view import home_view
from bot.slack.payloads import Body, SlackContext, team_of, user_of

log = logging.getLogger(__name__)


class HomeListeners:
    def __init__(self, ctx: SlackContext) -> None:
        self.ctx = ctx

    async def on_home_opened(self, body: Body, event: dict[str, Any], client: AsyncWebClient) -> None:
        if event.get("tab") != "home" or not event.get("user"):
            return  # the Messages tab: nothing to publish
        await self.refresh(client, user=str(event["user"]), team=team_of(body))

    async def on_language(self, body: Body, client: AsyncWebClient) -> None:
        services = self.ctx.get_services()
        user, team = user_of(body), team_of(body)
        try:
            chosen = body["actions"][0]["selected_option"]["value"]
        except (KeyError, IndexError, TypeError):
            chosen = None
        if services is None or not user or not is_lang(chosen):
            return
        try:
            await services.run(services.stores.people.set_language, team, user, chosen)
        except Exception as exc:  # noqa: BLE001 - the Home stays as it was; the log says why
            log.warning("could not store a language choice: %s", describe(exc))
            return
        await self.refresh(client, user=user, team=team)

    async def on_review(self, body: Body, client: AsyncWebClient) -> None:
        """The question due for review (else a new one), in the person's direct messages with the bot."""
        services = self.ctx.get_services()
        user, team = user_of(body), team_of(body)
        if services is None or not user:
            return
        lang = await self.ctx.language_of(services, team, user)
        try:
            prompt = await services.run(services.quiz.next_question, user, team=team, lang=lang)
            message = blocks.quiz_message(prompt)
        except Exception as exc:  # noqa: BLE001 - told to the person, logged when unexpected
            message = failure_message(exc, lang, "starting a review from the Home tab")
        await client.chat_postMessage(channel=user, **message, unfurl_links=False, unfurl_media=False)

    async def refresh(self, client: AsyncWebClient, *, user: str, team: str) -> None:
        """Publish the person's Home; a failure is logged (the Home keeps its last view)."""
        services = self.ctx.get_services()
        if services is None:
            return
        try:
            await self.publish(services, client, user=user, team=team)
        except Exception as exc:  # noqa: BLE001 - nobody is waiting for it
            log.warning("could not publish the Home tab: %s", describe(exc))

    async def publish(self, services: Services, client: AsyncWebClient, *, user: str, team: str) -> None:
        settings = self.ctx.settings
        lang = await self.ctx.language_of(services, team, user)
        view = await services.home.view(user, team=team, lang=lang, maintainer=user in settings.admins)
        await client.views_publish(user_id=user, view=home_view(
            view, gaps_recorded=settings.record_gaps, retention_days=settings.gaps_retention_days))
