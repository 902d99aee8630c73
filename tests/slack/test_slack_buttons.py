"""Buttons that name a document stay within Slack's 2,000 characters for a button's value, however long the
document's path, and still do what they say: signed requests to the real app, the Web API faked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.answering.assistant import Answer
from bot.config import Settings
from bot.knowledge.citations import Citation
from bot.services import Services
from bot.slack import blocks
from tests.conftest import SLACK_ADMIN
from tests.support.block_kit import check_limits
from tests.support.extra_knowledge import OFFICE_HOURS, services_like, team_doc, with_documents
from tests.support.slack_fake import BOT_USER, FakeSlack, SlackSender, bot_server, button, message_event
from tests.support.slack_helpers import click

# A document deep in folders: its id (the path without `.md`) is longer than a button's value may be.
FOLDER = "runbooks-of-the-ml-platform-team-" + "x" * 160
DEEP = "/".join([FOLDER] * 11) + "/office-hours"


@pytest.fixture
def deep(settings: Settings, services: Services, knowledge_copy: Path,
         fake: FakeSlack) -> Iterator[tuple[SlackSender, Services]]:
    """The app with one maintainer, answering from the knowledge with DEEP added."""
    assistant = with_documents(services.assistant, knowledge_copy, {f"{DEEP}.md": team_doc()})
    configured = settings.model_copy(update={"admins_raw": SLACK_ADMIN, "knowledge_dir": knowledge_copy})
    with bot_server(configured, services_like(services, assistant), fake) as slack:
        yield slack, slack.app.state.services


def values(message: dict[str, Any]) -> list[str]:
    """The value of every element of a message, at any depth."""
    found: list[str] = []

    def walk(item: object) -> None:
        if isinstance(item, dict):
            if isinstance(item.get("value"), str):
                found.append(item["value"])
            for value in item.values():
                walk(value)
        elif isinstance(item, list):
            for value in item:
                walk(value)

    walk(message["blocks"])
    return found


def test_an_answer_from_a_document_with_a_long_path_has_buttons_that_fit_and_work(
    deep: tuple[SlackSender, Services], fake: FakeSlack
) -> None:
    slack, served = deep
    assert len(DEEP) > blocks.VALUE_LIMIT
    slack.event(message_event(f"<@{BOT_USER}> {OFFICE_HOURS}"))
    post = fake.wait_for("chat.postMessage")[0].body
    check_limits(post)
    assert "Ganymede room" in json.dumps(post, ensure_ascii=False)  # the answer, not an apology
    assert values(post) and all(len(value) <= blocks.VALUE_LIMIT for value in values(post))

    thanks = click(slack, fake, button(post, "feedback_down"), user=SLACK_ADMIN, ephemeral=False)
    assert "Thanks" in thanks["text"] and all(len(value) <= blocks.VALUE_LIMIT for value in values(thanks))
    assert served.stores.feedback.counts() == {"up": 0, "down": 1}
    [gap] = served.stores.gaps.listing(since=datetime(2000, 1, 1, tzinfo=UTC))
    assert (gap.kind, gap.example) == ("downvoted", "ML platform team › Office hours")  # the cited section


def test_a_suggestion_of_a_document_with_a_long_path_is_shown_when_asked(
    deep: tuple[SlackSender, Services], fake: FakeSlack
) -> None:
    slack, served = deep
    [doc] = [d for d in served.assistant.knowledge.documents if d.doc_id == DEEP]
    section = doc.questions[-1]
    offered = Citation(section.number, section.title, "", None, doc.source, 0.4, doc_id=DEEP, section=section.section)
    message = blocks.answer_message(Answer(answered=False, language="en", text="I don't know; the closest is…",
                                           citations=[], suggestion=offered))
    check_limits(message)
    assert all(len(value) <= blocks.VALUE_LIMIT for value in values(message))
    shown = click(slack, fake, button(message, blocks.SUGGESTION_ACTION), ephemeral=False)
    assert "Ganymede room" in json.dumps(shown, ensure_ascii=False)
