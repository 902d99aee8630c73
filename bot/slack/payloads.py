"""Reading what Slack sends (event callbacks, slash commands, block actions), and what listeners share."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.config import Settings
from bot.lang import Lang
from bot.metrics import Metrics
from bot.quiz import DEFAULT_TEAM
from bot.services import Services
from bot.slack.blocks import doc_key
from bot.slack.errors import describe

log = logging.getLogger(__name__)

GetServices = Callable[[], Services | None]
Body = dict[str, Any]


@dataclass(frozen=True)
class SlackContext:
    """What every listener needs: the settings, the services once loaded, and the metrics."""

    settings: Settings
    get_services: GetServices
    metrics: Metrics

    async def language_of(self, services: Services, team: str, user: str) -> Lang:
        """The language the person chose (on the Home tab or with `/quiz en|es`), else the default."""
        return await self.chosen_language(services, team, user) or self.settings.default_lang

    async def chosen_language(self, services: Services, team: str, user: str) -> Lang | None:
        """The language the person chose, if they did (None also when the database cannot tell)."""
        try:
            return await services.run(services.stores.people.language_of, team, user) if user else None
        except Exception as exc:  # noqa: BLE001 - the default language will do
            log.warning("could not read a language preference: %s", describe(exc))
            return None


def button_value(body: Body) -> dict[str, Any]:
    """The JSON object of the clicked button's value; {} when it is missing or malformed."""
    try:
        value = json.loads(body["actions"][0]["value"])
    except (KeyError, IndexError, ValueError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}


def doc_named(value: dict[str, Any], services: Services) -> str | None:
    """The document a button is about (`blocks.doc_value`): its id, or the document in use whose key it
    carries; None when it names none (a forged value, or the document is gone since)."""
    doc = value.get("d")
    if isinstance(doc, str):
        return doc
    key = value.get("k")
    if not isinstance(key, str):
        return None
    return next((d.doc_id for d in services.assistant.knowledge.documents if doc_key(d.doc_id) == key), None)


def whole_number(value: object) -> int | None:
    """A number from a button's value or a form's metadata, strictly: an `int` and not a `bool` (JSON's `true`
    is an int to Python), else None. Values come back from Slack as they were sent, or forged."""
    return value if type(value) is int else None


def action_id(body: Body) -> str:
    try:
        return str(body["actions"][0]["action_id"])
    except (KeyError, IndexError, TypeError):
        return ""


def team_of(body: Body) -> str:
    team = body.get("team_id") or (body.get("team") or {}).get("id") or (body.get("user") or {}).get("team_id")
    return str(team or DEFAULT_TEAM)


def user_of(body: Body) -> str:
    return str(body.get("user_id") or (body.get("user") or {}).get("id") or "")


def channel_of(body: Body) -> str | None:
    channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id")
    return str(channel) if channel else None
