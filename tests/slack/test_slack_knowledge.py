"""Adding to the knowledge from Slack, end to end: signed clicks, shortcuts and form submissions to the real
app, `views.open`, `views.publish` and answers read back from the fake Slack.

The maintainers (EKSBOT_ADMINS) answer a knowledge gap from the Home tab, add a message with the "Add to
knowledge" shortcut, and leave a note after a 👎; nobody else can. What a person sees is what the bot sent:
the modals it opened (checked as Slack checks them), its acknowledgements of the forms, the Home it
published and the answers it posted.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from bot.answering.refresh import KnowledgeRefresh
from bot.config import Settings
from bot.errors import InputError
from bot.services import Services
from bot.slack.blocks import SUGGESTION_ACTION
from bot.slack.knowledge import KnowledgeListeners
from bot.slack.knowledge_views import BODY, LANG, NOTE_LANG, NOTE_TEXT, TITLE, TOPIC
from tests.conftest import SLACK_ADMIN
from tests.support.block_kit import check_escaped, check_limits
from tests.support.knowledge_helpers import ASK_RUNBOOK, RUNBOOK_BODY
from tests.support.quiz_helpers import right_letter
from tests.support.slack_fake import (
    BOT_USER,
    SPECIAL_MENTIONS,
    FakeSlack,
    SlackSender,
    bot_server,
    button,
    buttons,
    home_opened_event,
    message_event,
    modal_problem,
)
from tests.support.slack_helpers import answer_button, ask, click, context_text, eventually, markup_texts, prompt_of

ADMIN = SLACK_ADMIN
EFA_ES = "¿Qué variables de entorno necesito para que NCCL use EFA?"
HOSTILE = "<!channel> &lt;script&gt;alert(1)&lt;/script&gt; <@U999> how do I run *Ray* on `EKS`?"
NOTE = "<!channel> Con *aws-ofi-nccl* 1.9 o posterior, `FI_EFA_USE_DEVICE_RDMA=1` ya no hace falta & <b>sobra</b>."


@pytest.fixture
def kb(admin_slack: SlackSender) -> SlackSender:
    """The app with one maintainer, ADMIN."""
    return admin_slack


def served(slack: SlackSender) -> Services:
    found: Services = slack.app.state.services
    return found


def refresh_knowledge(slack: SlackSender) -> None:
    """What every replica's refresh thread does within seconds: take in the entries and notes saved."""
    services = served(slack)
    refresh = KnowledgeRefresh(services.settings.knowledge_dir, services.in_use, extras=services.curation)
    assert refresh.check() is not None


def open_home(slack: SlackSender, fake: FakeSlack, user: str = ADMIN) -> dict[str, Any]:
    before = len(published(fake, user))
    slack.event(home_opened_event(user))
    eventually(lambda: len(published(fake, user)) > before)
    return published(fake, user)[-1]


def published(fake: FakeSlack, user: str) -> list[dict[str, Any]]:
    return [c.body["view"] for c in fake.calls("views.publish") if c.body["user_id"] == user]


def gap_buttons(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The Home's knowledge gaps, by the text shown, with their "Answer this" buttons."""
    return {b["text"]["text"]: b["accessory"] for b in view["blocks"]
            if (b.get("accessory") or {}).get("action_id") == "gap_answer"}


def press(slack: SlackSender, element: dict[str, Any], user: str = ADMIN) -> None:
    """Click a button of the Home tab."""
    response = slack.view_action({"type": "button", "action_id": element["action_id"], "value": element["value"]},
                                 user=user)
    assert response.status_code == 200


def inputs(view: dict[str, Any]) -> dict[str, str]:
    """What each input of a modal starts with, by block id (a select: its option's value)."""
    out = {}
    for block in view["blocks"]:
        if block["type"] == "input":
            element = block["element"]
            out[block["block_id"]] = ((element.get("initial_option") or {}).get("value", "")
                                      if element["type"] == "static_select" else element.get("initial_value", ""))
    return out


def markup(view: dict[str, Any]) -> str:
    return "\n".join(markup_texts(view))


def acknowledged(response: httpx.Response) -> dict[str, Any]:
    """The acknowledgement of a form: `errors`, or the view it was updated to (checked as Slack would)."""
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    if body.get("response_action") == "update":
        assert modal_problem(body["view"]) is None, modal_problem(body["view"])
    return body


def shown(ack: dict[str, Any]) -> str:
    return json.dumps(ack.get("view", {}).get("blocks", []), ensure_ascii=False)


def mention(slack: SlackSender, fake: FakeSlack, text: str, ts: str, *, user: str = "U1") -> dict[str, Any]:
    """Mention the bot; the answer it posted."""
    before = len(fake.calls("chat.postMessage"))
    slack.event(message_event(f"<@{BOT_USER}> {text}", ts=ts, user=user))
    posts = fake.wait_for("chat.postMessage", before + 1)
    return posts[before].body


# -- answering a knowledge gap ---------------------------------------------------------------------------


def test_answer_this_saves_an_entry_the_gap_leaves_the_home_and_the_bot_answers_from_it(
    kb: SlackSender, fake: FakeSlack
) -> None:
    unknown = mention(kb, fake, ASK_RUNBOOK, "1700000100.000200")
    assert declined(unknown)  # "I don't know": a knowledge gap
    fake.wait_for("reactions.remove")
    gaps = gap_buttons(open_home(kb, fake))
    [(line, answer_this)] = gaps.items()
    assert ASK_RUNBOOK in line and answer_this["text"]["text"] == "Responder"

    press(kb, answer_this)
    [form] = fake.opened()
    assert form["callback_id"] == "knowledge_entry" and fake.calls("views.open")[0].body["trigger_id"] == "1.2.trigger"
    assert inputs(form) == {TITLE: ASK_RUNBOOK, BODY: "", LANG: "en", TOPIC: ""}  # the gap's text and language
    assert ASK_RUNBOOK in json.dumps(form["blocks"], ensure_ascii=False)  # says which gap it answers

    ack = acknowledged(kb.submit(form, {BODY: RUNBOOK_BODY, TOPIC: "Quotas"}, user=ADMIN))
    assert ack["response_action"] == "update" and "Guardado: «" + ASK_RUNBOOK in shown(ack)
    [entry] = served(kb).curation.listing()
    assert (entry.fields.title, entry.fields.body, entry.fields.lang, entry.fields.topic) == (
        ASK_RUNBOOK, RUNBOOK_BODY, "en", "Quotas")
    assert entry.created_by == ADMIN and entry.credit is None

    eventually(lambda: len(published(fake, ADMIN)) == 2)  # the Home, published again after the save
    home = published(fake, ADMIN)[-1]
    assert not gap_buttons(home) and "Ningún hueco registrado" in json.dumps(home, ensure_ascii=False)

    refresh_knowledge(kb)
    answer = mention(kb, fake, ASK_RUNBOOK, "1700000100.000300")
    assert f"entries/{entry.id}.md" in context_text(answer) and "64" in json.dumps(answer["blocks"])
    assert {b["action_id"] for b in buttons(answer)} == {"feedback_up", "feedback_down"}

    press(kb, answer_this)  # the same button, on a Home opened before: the gap is gone
    notice = fake.opened(2)[-1]
    assert "submit" not in notice and "ya no está en la lista" in json.dumps(notice, ensure_ascii=False)
    assert len(served(kb).curation.listing()) == 1


def test_a_gap_with_markup_and_a_hostile_text_is_shown_as_typed_never_as_markup(
    kb: SlackSender, fake: FakeSlack
) -> None:
    mention(kb, fake, HOSTILE, "1700000100.000200")
    fake.wait_for("reactions.remove")
    [(line, answer_this)] = gap_buttons(open_home(kb, fake)).items()
    typed = "<script>alert(1)</script> how do I run *Ray* on `EKS`?"  # as the gap keeps it: no mentions
    assert typed in line
    press(kb, answer_this)
    [form] = fake.opened()
    assert inputs(form)[TITLE] == typed  # an initial value is plain text: nothing in it is markup
    whole = json.dumps(form, ensure_ascii=False)
    assert not any(special in whole for special in SPECIAL_MENTIONS) and "<@U999>" not in whole
    assert "script" not in markup(form) and "Ray" not in markup(form)


def test_nobody_but_a_maintainer_sees_answer_this_or_can_use_it(kb: SlackSender, fake: FakeSlack) -> None:
    mention(kb, fake, ASK_RUNBOOK, "1700000100.000200")
    fake.wait_for("reactions.remove")
    assert not gap_buttons(open_home(kb, fake, "U2"))
    [(_, answer_this)] = gap_buttons(open_home(kb, fake)).items()
    press(kb, answer_this, user="U2")  # a button taken from somebody else's Home
    [notice] = fake.opened()
    assert "submit" not in notice and not inputs(notice)
    assert "Solo quienes mantienen el conocimiento" in json.dumps(notice, ensure_ascii=False)


# -- the "Add to knowledge" message shortcut -----------------------------------------------------------------


MESSAGE = {
    "user": "U7", "ts": "1700000050.000100",
    "text": "Karpenter *consolidation* with `WhenEmpty` &lt;b&gt; <!channel> <@U999>\n"
            "Set `consolidationPolicy: WhenEmpty` on the NodePool, see <https://karpenter.sh/docs|the docs>.",
}


def test_a_maintainer_adds_a_message_credited_to_its_author(kb: SlackSender, fake: FakeSlack) -> None:
    assert kb.shortcut(MESSAGE, user=ADMIN).status_code == 200
    [form] = fake.opened()
    values = inputs(form)
    assert values[TITLE] == "Karpenter *consolidation* with `WhenEmpty` <b>"  # the first line, as typed
    assert values[BODY] == ("Karpenter *consolidation* with `WhenEmpty` <b>\n"
                            "Set `consolidationPolicy: WhenEmpty` on the NodePool, see [the docs](https://karpenter.sh/docs).")
    assert values[LANG] == "en" and values[TOPIC] == ""
    whole = json.dumps(form, ensure_ascii=False)
    assert not any(special in whole for special in SPECIAL_MENTIONS) and "U999" not in whole
    assert "<@U7>" in markup(form)  # the author, credited (the one markup: Slack shows their name)
    assert "Karpenter" not in markup(form)

    ack = acknowledged(kb.submit(form, user=ADMIN))
    assert ack["response_action"] == "update" and "Guardado" in shown(ack)
    [entry] = served(kb).curation.listing()
    assert entry.credit == "U7" and entry.created_by == ADMIN
    assert entry.fields.body == values[BODY] and entry.fields.title == values[TITLE]


def test_someone_else_is_told_privately_and_nothing_is_saved(kb: SlackSender, fake: FakeSlack) -> None:
    kb.shortcut(MESSAGE, user="U2")
    [notice] = fake.opened()
    assert "submit" not in notice and not inputs(notice)  # a modal only they see, saying who can
    assert "Solo quienes mantienen el conocimiento (EKSBOT_ADMINS)" in json.dumps(notice, ensure_ascii=False)
    kb.shortcut(MESSAGE, user=ADMIN)
    form = fake.opened(2)[-1]
    ack = acknowledged(kb.submit(form, user="U2"))  # a form submitted by someone who is not a maintainer
    assert ack["response_action"] == "errors" and "Solo quienes mantienen" in ack["errors"][TITLE]
    assert served(kb).curation.listing() == []
    assert not fake.calls("chat.postMessage") and not fake.calls("chat.postEphemeral")  # said in the modal only


def test_the_same_form_submitted_twice_saves_one_entry(kb: SlackSender, fake: FakeSlack) -> None:
    kb.shortcut(MESSAGE, user=ADMIN)
    [form] = fake.opened()
    with ThreadPoolExecutor(2) as pool:  # a double click: both at once
        acks = list(pool.map(lambda _: acknowledged(kb.submit(form, user=ADMIN)), range(2)))
    acks.append(acknowledged(kb.submit(form, user=ADMIN)))  # and Slack sending it again later
    assert [a["response_action"] for a in acks] == ["update"] * 3
    assert len(served(kb).curation.listing()) == 1
    kb.shortcut(MESSAGE, user=ADMIN)  # another form is another entry
    acknowledged(kb.submit(fake.opened(2)[-1], user=ADMIN))
    assert len(served(kb).curation.listing()) == 2


@pytest.mark.parametrize(("values", "field", "reason"), [
    ({BODY: "x" * 20_001}, BODY, "body has 20001 characters; the most is 20000"),
    ({TITLE: "   "}, TITLE, "title is empty"),
    ({TOPIC: "t" * 101}, TOPIC, "topic has 101 characters; the most is 100"),
])
def test_a_refused_entry_comes_back_as_the_fields_errors(kb: SlackSender, fake: FakeSlack, values: dict[str, str],
                                                         field: str, reason: str) -> None:
    kb.shortcut(MESSAGE, user=ADMIN)
    [form] = fake.opened()
    ack = acknowledged(kb.submit(form, values, user=ADMIN))
    assert ack == {"response_action": "errors", "errors": {field: reason}}
    assert served(kb).curation.listing() == []
    ack = acknowledged(kb.submit(form, user=ADMIN))  # put right in the same form: saved, once
    assert ack["response_action"] == "update" and len(served(kb).curation.listing()) == 1


def test_a_long_message_is_cut_to_what_a_slack_field_takes_and_says_so(kb: SlackSender, fake: FakeSlack) -> None:
    kb.shortcut({"user": "U7", "ts": "1700000050.000100", "text": "NCCL tuning\n" + "word " * 1000}, user=ADMIN)
    [form] = fake.opened()  # the fake refuses an initial value longer than the input takes, as Slack does
    assert len(inputs(form)[BODY]) == 3000 and "5011 caracteres" in json.dumps(form, ensure_ascii=False)


def test_a_slow_database_still_saves_and_a_failure_comes_as_a_direct_message(
    kb: SlackSender, fake: FakeSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    curation = served(kb).curation
    add = curation.add
    monkeypatch.setattr(KnowledgeListeners, "budget", 0.05)

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.5)
        return add(*args, **kwargs)

    monkeypatch.setattr(curation, "add", slow)
    kb.shortcut(MESSAGE, user=ADMIN)
    ack = acknowledged(kb.submit(fake.opened()[0], user=ADMIN))
    assert ack["response_action"] == "update" and "se sigue guardando" in shown(ack)
    eventually(lambda: len(curation.listing()) == 1)
    eventually(lambda: len(published(fake, ADMIN)) == 1)  # the Home, once it is saved

    def refused(*_args: Any, **_kwargs: Any) -> Any:
        time.sleep(0.5)
        raise InputError("body is empty")

    monkeypatch.setattr(curation, "add", refused)
    kb.shortcut(MESSAGE, user=ADMIN)
    acknowledged(kb.submit(fake.opened(2)[-1], user=ADMIN))
    told = fake.wait_for("chat.postMessage")[0].body
    assert told["channel"] == ADMIN and "No se pudo guardar" in told["text"] and "body is empty" in told["text"]


# -- a note after 👎 ----------------------------------------------------------------------------------------


def test_a_maintainers_thumbs_down_offers_a_note_that_then_shows_with_answers_and_quiz_results(
    kb: SlackSender, fake: FakeSlack
) -> None:
    answer = mention(kb, fake, EFA_ES, "1700000100.000200", user=ADMIN)
    assert "Pregunta 5" in context_text(answer)
    down = button(answer, "feedback_down")
    thanks = click(kb, fake, down, user="U2", ephemeral=False)  # not a maintainer: thanks only
    assert "Gracias" in thanks["text"] and not buttons(thanks)
    thanks = click(kb, fake, down, user=ADMIN, ephemeral=False)
    add_note = button(thanks, "note_add")
    assert add_note["text"]["text"] == "Añadir una nota" and thanks["response_type"] == "ephemeral"

    response, _ = kb.click(add_note, user=ADMIN)
    assert response.status_code == 200
    [form] = fake.opened()
    assert form["callback_id"] == "knowledge_note" and inputs(form) == {NOTE_TEXT: "", NOTE_LANG: "es"}
    assert "Sobre: Pregunta 5: ¿Qué variable de entorno habilita EFA" in json.dumps(form, ensure_ascii=False)
    assert "EFA" not in markup(form)  # the cited title is plain text

    ack = acknowledged(kb.submit(form, {NOTE_TEXT: NOTE}, user=ADMIN))
    assert ack["response_action"] == "update" and "Nota guardada" in shown(ack)
    [note] = served(kb).curation.notes()
    assert (note.doc_id, note.question, note.lang, note.text, note.created_by) == (
        "eks-training-quiz", 5, "es", NOTE, ADMIN)
    acknowledged(kb.submit(form, {NOTE_TEXT: NOTE}, user=ADMIN))  # submitted again: one note
    assert len(served(kb).curation.notes()) == 1

    refresh_knowledge(kb)
    again = mention(kb, fake, EFA_ES, "1700000100.000300")
    check_limits(again)
    check_escaped(again)
    escaped = NOTE.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    notes = [b["text"]["text"] for b in again["blocks"] if b["type"] == "section" and "Nota de" in b["text"]["text"]]
    assert notes == [f"📝 Nota de los mantenedores: {escaped}"]  # once, escaped
    assert json.dumps(again, ensure_ascii=False).count("aws-ofi-nccl") == 1

    question = ask(kb, fake, "5")  # the quiz result of question 5 shows it too
    result = click(kb, fake, answer_button(question, right_letter(prompt_of(question))))
    check_limits(result)
    check_escaped(result)
    assert f"📝 Nota de los mantenedores: {escaped}" in [b["text"]["text"] for b in result["blocks"]
                                                         if b["type"] == "section"]


@pytest.mark.parametrize(("values", "field", "reason"), [
    ({NOTE_TEXT: "n" * 2001}, NOTE_TEXT, "note has 2001 characters; the most is 2000"),
    ({NOTE_TEXT: "  "}, NOTE_TEXT, "note is empty"),
])
def test_a_refused_note_comes_back_as_the_fields_errors(kb: SlackSender, fake: FakeSlack, values: dict[str, str],
                                                        field: str, reason: str) -> None:
    answer = mention(kb, fake, EFA_ES, "1700000100.000200", user=ADMIN)
    thanks = click(kb, fake, button(answer, "feedback_down"), user=ADMIN, ephemeral=False)
    kb.click(button(thanks, "note_add"), user=ADMIN)
    [form] = fake.opened()
    assert acknowledged(kb.submit(form, values, user=ADMIN)) == {"response_action": "errors", "errors": {field: reason}}
    assert served(kb).curation.notes() == []
    kb.click(button(thanks, "note_add"), user="U2")  # a button passed on: not for them
    assert "Solo quienes mantienen" in json.dumps(fake.opened(2)[-1], ensure_ascii=False)
    assert acknowledged(kb.submit(form, {NOTE_TEXT: "ok"}, user="U2"))["response_action"] == "errors"
    assert served(kb).curation.notes() == []


# -- Socket Mode ---------------------------------------------------------------------------------------------


def test_in_socket_mode_the_forms_open_and_their_errors_come_back_in_the_acknowledgement(
    settings: Settings, services: Services, fake: FakeSlack
) -> None:
    from tests.slack.test_slack_socket import SocketBot, envelope
    from tests.support.slack_fake import filled, message_action_payload, slack_settings, view_submission_payload

    configured = slack_settings(settings, fake).model_copy(update={"slack_signing_secret": None,
                                                                   "admins_raw": ADMIN})
    bot = Services.assemble(configured, services.assistant, services.stores.database)
    with SocketBot(bot):
        fake.wait_for("socket_connect")
        shortcut = message_action_payload(MESSAGE, user=ADMIN, channel="C1", callback_id="add_to_knowledge",
                                          response_url=fake.response_url("sc"))
        fake.send_envelope(envelope("interactive", "env-1", shortcut))
        [form] = fake.opened()
        too_long = view_submission_payload(form, filled(form, {BODY: "x" * 20_001}), user=ADMIN)
        fake.send_envelope(envelope("interactive", "env-2", too_long))
        refused = next(a for a in fake.wait_for("socket_ack", 2) if a.body["envelope_id"] == "env-2").body
        assert refused["payload"] == {"response_action": "errors",
                                      "errors": {BODY: "body has 20001 characters; the most is 20000"}}
        fake.send_envelope(envelope("interactive", "env-3", view_submission_payload(form, filled(form, {}),
                                                                                    user=ADMIN)))
        saved = next(a for a in fake.wait_for("socket_ack", 3) if a.body["envelope_id"] == "env-3").body
        assert saved["payload"]["response_action"] == "update" and modal_problem(saved["payload"]["view"]) is None
        [entry] = bot.curation.listing()
        assert entry.credit == "U7"


# -- the real model ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_on_the_real_model_an_entry_saved_from_a_gap_answers_its_question(
    settings: Settings, real_services: Services, fake: FakeSlack
) -> None:
    with bot_server(settings.model_copy(update={"admins_raw": ADMIN}), real_services, fake) as slack:
        assert declined(mention(slack, fake, ASK_RUNBOOK, "1700000100.000200"))
        fake.wait_for("reactions.remove")
        [(_, answer_this)] = gap_buttons(open_home(slack, fake)).items()
        press(slack, answer_this)
        ack = acknowledged(slack.submit(fake.opened()[0], {BODY: RUNBOOK_BODY, TOPIC: "Quotas"}, user=ADMIN))
        assert ack["response_action"] == "update"
        [entry] = served(slack).curation.listing()
        refresh_knowledge(slack)
        answer = mention(slack, fake, ASK_RUNBOOK, "1700000100.000300")
        assert f"entries/{entry.id}.md" in context_text(answer) and "64" in json.dumps(answer["blocks"])


def declined(message: dict[str, Any]) -> bool:
    """An "I don't know": no answer's buttons, at most the one that shows a suggested question."""
    return ("don't know" in message["text"] or "No lo sé" in message["text"]) and all(
        b["action_id"] == SUGGESTION_ACTION for b in buttons(message))
