"""An "I don't know" that suggests the closest question carries a button that shows that question's answer."""

from __future__ import annotations

import json

from bot.answering.assistant import Answer
from bot.knowledge.citations import Citation
from bot.slack import blocks
from tests.support.slack_fake import FakeSlack, SlackSender, buttons
from tests.support.slack_helpers import click, context_text

QUIZ = "eks-training-quiz"


def declined(suggestion: Citation | None) -> Answer:
    return Answer(answered=False, language="en", text="I don't know: … <b>", citations=[], suggestion=suggestion)


def pointer(number: int = 5) -> Citation:
    return Citation(question=number, title="Which variable enables EFA?", excerpt="", snippet=None,
                    source="knowledge/x.md", score=1.0, doc_id=QUIZ)


def show_button(number: object = 5, doc: object = QUIZ, lang: object = "en") -> dict[str, object]:
    return {"type": "button", "action_id": blocks.SUGGESTION_ACTION, "text": {"type": "plain_text", "text": "Show"},
            "value": json.dumps({"d": doc, "q": number, "l": lang})}


def test_a_suggestion_has_a_button_and_a_plain_decline_has_none() -> None:
    offered = blocks.answer_message(declined(pointer()))
    [shown] = buttons(offered)
    assert shown["action_id"] == blocks.SUGGESTION_ACTION
    assert json.loads(shown["value"]) == {"d": QUIZ, "q": 5, "l": "en"}
    assert "&lt;b&gt;" in offered["blocks"][0]["text"]["text"]  # the text is escaped as any answer's
    assert buttons(blocks.answer_message(declined(None))) == []


def test_the_button_shows_the_suggested_questions_answer(slack: SlackSender, fake: FakeSlack) -> None:
    reply = click(slack, fake, show_button(5))
    assert reply["replace_original"] is False
    assert "Question 5" in context_text(reply) and "FI_PROVIDER=efa" in json.dumps(reply)


def test_a_forged_or_stale_button_gets_a_short_private_reply(slack: SlackSender, fake: FakeSlack) -> None:
    for forged in (show_button(True), show_button("5"), show_button(5, lang="fr"), show_button(5, doc=["x"])):
        reply = click(slack, fake, forged)
        assert reply["response_type"] == "ephemeral"
        assert "no longer valid" in reply["text"] or "ya no es válido" in reply["text"]  # unknown language: default
    gone = click(slack, fake, show_button(99))
    assert gone["response_type"] == "ephemeral" and "no longer has question 99" in gone["text"]
