"""The App Home tab, end to end: signed events and clicks to the real app, `views.publish` to the fake Slack.

What the person sees is the view the bot published: its blocks are checked against Block Kit's limits
(the fake refuses a view over them, as Slack does) and for escaping.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.config import Settings
from bot.home import HomeView, MaintainerView
from bot.quiz import DueQuestion, LeaderboardEntry, QuestionStat, UserStats
from bot.services import Services
from bot.slack.home_view import home_view
from bot.storage import Database, GapRecord, GapStore
from tests.conftest import SLACK_ADMIN
from tests.support.quiz_helpers import right_letter
from tests.support.slack_fake import (
    BOT_USER,
    SPECIAL_MENTIONS,
    FakeSlack,
    SlackSender,
    button,
    home_opened_event,
    message_event,
    within_limits,
)
from tests.support.slack_helpers import answer_button, ask, click, eventually, markup_texts, prompt_of

ADMIN = SLACK_ADMIN
PAELLA = "What is the best recipe for paella valenciana?"
HOSTILE = "<!channel> &lt;script&gt;alert(1)&lt;/script&gt; <@U999> how do I run *Ray* on EKS?"


@pytest.fixture
def home(admin_slack: SlackSender) -> SlackSender:
    """The app with one maintainer, ADMIN."""
    return admin_slack


def open_home(slack: SlackSender, fake: FakeSlack, user: str = "U1") -> dict[str, Any]:
    """Open the Home tab as `user`; the view the bot published for them."""
    before = published_for(fake, user)
    slack.event(home_opened_event(user))
    eventually(lambda: published_for(fake, user) > before)
    view: dict[str, Any] = [c for c in fake.calls("views.publish") if c.body["user_id"] == user][-1].body["view"]
    return view


def published_for(fake: FakeSlack, user: str) -> int:
    return sum(1 for c in fake.calls("views.publish") if c.body["user_id"] == user)


def text_of(view: dict[str, Any]) -> str:
    return json.dumps(view, ensure_ascii=False)


def test_a_new_person_sees_an_empty_home_in_the_default_language(home: SlackSender, fake: FakeSlack) -> None:
    view = open_home(home, fake)
    assert view["type"] == "home" and within_limits(view["blocks"], 100)
    assert "Tu entrenamiento en EKS" in text_of(view) and "Aún no has respondido" in text_of(view)
    assert {b["action_id"] for b in elements(view)} == {"home_review", "home_language"}
    assert "Huecos" not in text_of(view)  # not a maintainer


def test_the_home_refreshes_after_a_quiz_answer(home: SlackSender, fake: FakeSlack) -> None:
    open_home(home, fake)
    question = ask(home, fake)
    click(home, fake, answer_button(question, right_letter(prompt_of(question))))
    view = fake.wait_for("views.publish", 2)[-1].body["view"]  # published again, unasked
    shown = text_of(view)
    assert "Respondidas: *1*" in shown and "Acierto: *100%*" in shown and "Racha: *1* días" in shown
    assert "1. <@U1> · 1 correctas (100%)" in shown and "Tú: *1.º*" in shown
    assert ": 1/1 (100%)" in shown  # the topic of the question answered


def test_due_reviews_are_listed_and_review_now_sends_one_privately(home: SlackSender, fake: FakeSlack) -> None:
    question = ask(home, fake)
    wrong = next(o["key"] for o in prompt_of(question)["options"] if o["key"] != right_letter(prompt_of(question)))
    click(home, fake, answer_button(question, wrong))
    eventually(lambda: published_for(fake, "U1") >= 1)  # the refresh after the answer, before the Home is opened
    served: Services = home.app.state.services
    served.quiz.clock = lambda: datetime.now(UTC) + timedelta(days=2)  # the wrong answer is due again
    view = open_home(home, fake)
    number = prompt_of(question)["question"]
    assert f"Pregunta {number} ·" in text_of(view) and "Para repasar ahora (1)" in text_of(view)
    home.view_action({"type": "button", "action_id": "home_review", "value": json.dumps({"l": "es"})})
    sent = fake.wait_for("chat.postMessage")[0].body
    assert sent["channel"] == "U1"  # the person's direct messages with the bot: only they see it
    assert prompt_of(sent)["question"] == number  # the question due, not a new one


def test_the_language_choice_is_kept_and_used_everywhere(home: SlackSender, fake: FakeSlack) -> None:
    assert "Tu entrenamiento" in text_of(open_home(home, fake))
    home.view_action({"type": "static_select", "action_id": "home_language",
                      "selected_option": {"text": {"type": "plain_text", "text": "English"}, "value": "en"}})
    view = fake.wait_for("views.publish", 2)[-1].body["view"]
    assert "Your EKS training" in text_of(view)
    assert elements(view)[-1]["initial_option"]["value"] == "en"
    assert ask(home, fake)["blocks"][0]["text"]["text"].startswith("*Question ")  # /quiz
    home.event(message_event("¿Qué variables de entorno necesito para que NCCL use EFA?", kind="message",
                             channel="D1"))
    answer = fake.wait_for("chat.postMessage")[0].body  # a direct message: in the chosen language
    assert "Question 5" in text_of(answer) and "Pregunta 5" not in text_of(answer)
    ask(home, fake, "es")  # /quiz es changes it back, and the Home follows
    assert "Tu entrenamiento" in text_of(fake.wait_for("views.publish", 3)[-1].body["view"])


def test_an_admin_sees_a_gap_after_an_unanswered_mention_and_a_non_admin_does_not(
    home: SlackSender, fake: FakeSlack
) -> None:
    home.event(message_event(f"<@{BOT_USER}> {PAELLA}", ts="1700000100.000200"))
    home.event(message_event(f"<@{BOT_USER}> {PAELLA.lower()}", ts="1700000100.000300"))
    home.event(message_event(f"<@{BOT_USER}> {HOSTILE}", ts="1700000100.000400"))
    fake.wait_for("reactions.remove", 3)
    view = open_home(home, fake, ADMIN)
    admin = text_of(view)
    # Both wordings count as one gap, shown as the latest (the two mentions are answered concurrently).
    assert "Huecos del conocimiento" in admin and "2× sin respuesta (en) “what is the best recipe" in admin.lower()
    assert "Preguntas del cuestionario más difíciles" in admin and "Nadie ha respondido" in admin
    assert ADMIN not in admin.replace('"user_id"', "") and "U1" not in admin  # who asked is not kept
    for special in SPECIAL_MENTIONS:
        assert special not in admin
    assert "<@U999>" not in admin
    # A gap is someone's words: shown as plain text, where nothing is markup (no link, mention, bold or code).
    gaps = gap_sections(view)
    assert len(gaps) == 2 and all(g["text"]["type"] == "plain_text" for g in gaps)
    hostile = next(g["text"]["text"] for g in gaps if "script" in g["text"]["text"])
    assert "“<script>alert(1)</script> how do I run *Ray* on EKS?”" in hostile
    assert not any("script" in text or "Ray" in text for text in markup_texts(view))
    # Each has "Answer this", whose button names the gap and nothing it says.
    values = [json.loads(g["accessory"]["value"]) for g in gaps]
    assert [g["accessory"]["text"]["text"] for g in gaps] == ["Responder"] * 2
    assert all(set(v) == {"g", "l"} and isinstance(v["g"], int) and v["g"] > 0 for v in values)
    other = text_of(open_home(home, fake, "U2"))
    assert "Huecos" not in other and "paella" not in other


def test_the_admins_home_lists_the_hardest_questions(home: SlackSender, fake: FakeSlack) -> None:
    question = ask(home, fake, user="U2")
    wrong = next(o["key"] for o in prompt_of(question)["options"] if o["key"] != right_letter(prompt_of(question)))
    click(home, fake, answer_button(question, wrong), user="U2")
    admin = text_of(open_home(home, fake, ADMIN))
    number = prompt_of(question)["question"]
    assert f"• Pregunta {number} · " in admin and ": 0% de acierto (1 respuestas)" in admin


def test_old_gaps_are_pruned_and_never_shown(
    home: SlackSender, fake: FakeSlack, services: Services, settings: Settings
) -> None:
    past = Database(settings.database_url, clock=lambda: datetime.now(UTC) - timedelta(days=91))
    GapStore(past).add(kind="unanswered", lang="en", key="ray serv", text="How do I use Ray Serve?")
    past.close()
    assert "Ray Serve" not in text_of(open_home(home, fake, ADMIN))  # past retention: not shown
    home.event(message_event(f"<@{BOT_USER}> {PAELLA}"))
    fake.wait_for("reactions.remove")
    assert services.retention.prune() == 1  # the retention pass forgets the gap past retention
    shown = text_of(open_home(home, fake, ADMIN))
    assert "paella" in shown and "Ray Serve" not in shown
    assert [g.text for g in services.stores.gaps.listing(since=datetime(2000, 1, 1, tzinfo=UTC))] == [PAELLA]


def test_the_messages_tab_publishes_nothing(home: SlackSender, fake: FakeSlack) -> None:
    home.event(home_opened_event("U1", tab="messages"))
    open_home(home, fake, "U2")  # an event sent after it is handled: had the first published, it would be there
    assert [c.body["user_id"] for c in fake.calls("views.publish")] == ["U2"]


# -- the view itself, at its largest --------------------------------------------------------------------


def test_a_view_with_everything_at_its_largest_keeps_slacks_limits() -> None:
    now = datetime(2025, 3, 3, tzinfo=UTC)
    long = "x" * 400 + " <!here> <b>"
    stats = UserStats(user="U1", answered=500, correct=250, accuracy=0.5, current_streak=3, best_streak=9, due=40,
                      per_topic={f"{long} {i}": {"answered": 5, "correct": 2, "accuracy": 0.4} for i in range(60)})
    view = HomeView(
        user="U1", lang="en", stats=stats,
        due=[DueQuestion(question=i, title=long, topic="t", due=now) for i in range(40)],
        leaders=[LeaderboardEntry(user=f"U{i}", answered=9, correct=8, accuracy=0.9, best_streak=2)
                 for i in range(10)],
        rank=57, own=LeaderboardEntry(user="U1", answered=500, correct=250, accuracy=0.5, best_streak=9),
        maintainer=MaintainerView(
            gaps=[GapRecord(kind="unanswered", lang="en", text=long, example=None, question=None, count=3,
                            first_seen=now, last_seen=now) for _ in range(200)],
            hardest=[QuestionStat(question=i, title=long, answered=3, correct=0, accuracy=0.0) for i in range(15)],
        ),
    )
    built = home_view(view)
    assert within_limits(built["blocks"], 100)
    assert all(len(b["text"]["text"]) <= 150 for b in built["blocks"] if b["type"] == "header")
    shown = "\n".join(markup_texts(built))
    assert "<!here>" not in shown and "<b>" not in shown and "&lt;b&gt;" in shown
    assert "You: *#57*" in shown
    gaps = gap_sections(built)  # the first 20, each with its button; the others counted
    assert len(gaps) == 20 and all(g["text"]["type"] == "plain_text" for g in gaps)
    assert "… and 180 more" in text_of(built)


def gap_sections(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The sections of the knowledge gaps: those with an "Answer this" button."""
    return [b for b in view["blocks"] if (b.get("accessory") or {}).get("action_id") == "gap_answer"]


def elements(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Buttons and menus of a view, in order."""
    out = [e for b in view["blocks"] if b["type"] == "actions" for e in b["elements"]]
    return out + [b["accessory"] for b in view["blocks"] if "accessory" in b]


def test_review_now_is_a_button_of_the_view(home: SlackSender, fake: FakeSlack) -> None:
    view = open_home(home, fake)
    assert button({"blocks": view["blocks"]}, "home_review")["style"] == "primary"


def test_a_thumbs_down_shows_as_a_gap_with_the_question_it_answered(home: SlackSender, fake: FakeSlack) -> None:
    question = "¿Qué variables de entorno necesito para que NCCL use EFA?"
    home.event(message_event(f"<@{BOT_USER}> {question}", ts="1700000100.000200"))
    answer = fake.wait_for("chat.postMessage")[0].body
    down = button(answer, "feedback_down")
    for user in ("U1", "U1", "U2"):  # a double click counts once; another person counts again
        home.click(down, user=user, ephemeral=False, message_ts="1700000100.000900")
    eventually(lambda: len(fake.calls("response")) == 3)
    admin = text_of(open_home(home, fake, ADMIN))
    assert f"2× 👎 (es) “{question}” · pregunta 5" in admin
