"""`POST /v1/query` with the earlier turns of a conversation, and `GET /v1/admin/gaps`."""

from __future__ import annotations

import asyncio

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from bot.config import Settings
from bot.reading import markup
from bot.services import Services
from tests.support.api_helpers import client_for

ZERO = "Which DeepSpeed ZeRO stage offloads optimizer states and parameters to CPU?"
PAELLA = "What is the best recipe for paella valenciana?"
ADMIN = {"Authorization": "Bearer admin-token"}


@pytest.fixture
def admin_client(settings: Settings, services: Services) -> TestClient:
    """The application with an API token that acts for everyone (the admin routes need one)."""
    return client_for(settings, services, api_tokens_raw=SecretStr("admin-token"))


def test_a_follow_up_is_read_with_the_history_and_says_how(admin_client: TestClient) -> None:
    alone = admin_client.post("/v1/query", json={"question": "what about stage 2?"}, headers=ADMIN).json()
    assert "read_as" not in alone  # without history the answer object is exactly as before
    body = admin_client.post("/v1/query", json={"question": "what about stage 2?", "history": [ZERO]},
                             headers=ADMIN).json()
    assert body["answered"] is True and body["citations"][0]["question"] == 12
    assert body["read_as"].startswith("what about stage 2?") and "ZeRO" in body["read_as"]


def test_a_self_contained_or_off_topic_question_is_read_alone(admin_client: TestClient) -> None:
    own = admin_client.post("/v1/query", headers=ADMIN, json={
        "question": "What does the slotsPerWorker field of an MPIJob control?", "history": [ZERO]}).json()
    assert own["read_as"] == "What does the slotsPerWorker field of an MPIJob control?"
    assert own["citations"][0]["question"] == 13
    off = admin_client.post("/v1/query", headers=ADMIN, json={"question": f"and {PAELLA}", "history": [ZERO]}).json()
    assert off["answered"] is False and off["read_as"] == f"and {PAELLA}"


@pytest.mark.parametrize(("history", "reason"), [
    (["a question"] * 11, "history"),
    (["x" * 2001], "history"),
    ("What is ZeRO?", "history"),
    ([3], "history"),
    ([None], "history"),
])
def test_bad_history_is_refused_with_a_reason(admin_client: TestClient, history: object, reason: str) -> None:
    response = admin_client.post("/v1/query", json={"question": "what about stage 2?", "history": history},
                                 headers=ADMIN)
    assert response.status_code == 422
    assert reason in response.json()["error"]


def test_history_is_documented_in_openapi(admin_client: TestClient) -> None:
    schema = admin_client.get("/openapi.json").json()["components"]["schemas"]
    history = schema["QueryRequest"]["properties"]["history"]
    assert "oldest first" in history["description"] and history["anyOf"][0]["maxItems"] == 10
    assert history["anyOf"][0]["items"]["maxLength"] == 2000
    assert "read_as" in schema["AnswerOut"]["properties"]


def test_admins_see_the_questions_the_bot_did_not_answer(admin_client: TestClient) -> None:
    admin_client.post("/v1/query", json={"question": PAELLA}, headers=ADMIN)
    admin_client.post("/v1/query", json={"question": PAELLA.lower().rstrip("?")}, headers=ADMIN)
    admin_client.post("/v1/query", json={"question": ZERO}, headers=ADMIN)  # answered: no gap
    body = admin_client.get("/v1/admin/gaps", headers=ADMIN).json()
    assert body["recording"] is True and body["retention_days"] == 90
    assert [(g["kind"], g["text"], g["count"], g["lang"]) for g in body["gaps"]] == [
        ("unanswered", PAELLA.lower().rstrip("?"), 2, "en")]
    assert admin_client.get("/v1/admin/gaps?kind=uncovered", headers=ADMIN).json()["gaps"] == []
    assert admin_client.get("/v1/admin/gaps?limit=0", headers=ADMIN).status_code == 422


def test_the_gaps_need_a_token_even_when_the_api_is_open(settings: Settings, services: Services) -> None:
    open_api = client_for(settings, services)
    refused = open_api.get("/v1/admin/gaps")
    assert refused.status_code == 403 and "EKSBOT_API_TOKENS" in refused.json()["error"]
    protected = client_for(settings, services, api_tokens_raw=SecretStr("admin-token"))
    assert protected.get("/v1/admin/gaps").status_code == 401
    assert protected.get("/v1/admin/gaps", headers={"Authorization": "Bearer wrong"}).status_code == 401


def test_no_gap_is_recorded_when_recording_is_off(settings: Settings, services: Services) -> None:
    client = client_for(settings, services, api_tokens_raw=SecretStr("admin-token"), record_gaps=False)
    client.post("/v1/query", json={"question": PAELLA}, headers=ADMIN)
    body = client.get("/v1/admin/gaps", headers=ADMIN).json()
    assert body == {"recording": False, "retention_days": 90, "gaps": []}


def test_a_follow_up_records_its_own_words_as_a_gap_not_the_reading(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`history` is kept nowhere: what an answer leaves to record is the message as written, without the words
    carried from earlier turns to read it."""
    recorded: list[str] = []
    monkeypatch.setattr(services.gaps, "shows_gap", lambda answer: True)
    monkeypatch.setattr(services.gaps, "record_answer", lambda text, answer: recorded.append(text))
    question = "and how much does it cost?"
    asked = asyncio.run(services.answers.ask(question, "en", earlier=[ZERO]))
    assert asked.reading.followup and asked.reading.text != question  # read with the earlier turn
    assert services.bookkeeping.settle() and recorded == [question]


def test_a_message_is_read_once_on_its_way_through_the_core(services: Services, monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """The conversation, the batcher and the assistant each validate the message; it is read (cleaned) once,
    and once more for each earlier turn. A surface that read it first (Slack) hands it on as read."""
    read: list[str] = []
    real = markup.reading_text

    def reading_text(text: str) -> str:
        read.append(text)
        return real(text)

    monkeypatch.setattr(markup, "reading_text", reading_text)
    asked = asyncio.run(services.answers.ask("<@U123> and how much *memory* does it save? :thinking_face:", "en",
                                     earlier=[ZERO]))
    assert asked.reading.followup and "memory" in asked.reading.text and len(read) == 2  # the message, the turn
    read.clear()
    message = markup.read_message("<@U123> and how much *memory* does it save?")
    assert str(message) == "and how much memory does it save?"
    assert message.shown == "and how much *memory* does it save?"
    asyncio.run(services.answers.ask(message, "en", earlier=[ZERO]))
    assert len(read) == 2  # read by the surface, and the earlier turn by the core



@pytest.mark.slow
def test_a_question_declined_alone_is_answered_with_the_history_when_it_keeps_to_it(settings: Settings,
                                                                                      real_services: Services) -> None:
    client = client_for(settings, real_services, api_tokens_raw=SecretStr("admin-token"))
    question = "¿qué clase de HuggingFace sustituye?"
    assert client.post("/v1/query", headers=ADMIN, json={"question": question}).json()["answered"] is False
    body = client.post("/v1/query", headers=ADMIN, json={
        "question": question, "history": ["¿Para qué sirve optimum-neuron?"]}).json()
    assert body["answered"] is True and body["citations"][0]["question"] == 7
    assert body["read_as"].startswith(question) and "optimum-neuron" in body["read_as"]
    other = "how often should we rotate the AWS access keys?"  # about something else: the history does not answer it
    body = client.post("/v1/query", headers=ADMIN, json={"question": other, "history": [ZERO]}).json()
    assert body["answered"] is False and body["read_as"] == other
