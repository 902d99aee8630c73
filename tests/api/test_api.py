"""The HTTP API through FastAPI's test client and through a real uvicorn server."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from bot.api import create_app
from bot.config import Settings
from bot.services import Services
from tests.support.api_helpers import client_for, running_server, wait_ready
from tests.support.shapes import CITATION_KEYS

EFA_ES = "¿Qué variables de entorno necesito para que NCCL use EFA?"
EFA_EN = "How do I request EFA devices in a pod spec?"


@pytest.mark.slow
def test_query_answers_with_the_same_object_as_the_core_on_the_real_model(
    settings: Settings, real_services: Services
) -> None:
    response = client_for(settings, real_services).post("/v1/query", json={"question": EFA_ES})
    assert response.status_code == 200
    body = response.json()
    assert body == real_services.assistant.answer(EFA_ES).to_dict()
    assert set(body) == {"answered", "language", "text", "citations", "confidence", "uncovered", "suggestion"}
    assert body["suggestion"] is None  # answered: nothing to suggest
    assert body["answered"] is True and body["language"] == "es"
    assert body["citations"][0]["question"] == 5
    assert "FI_PROVIDER=efa" in body["citations"][0]["snippet"]
    assert all(set(c) == CITATION_KEYS for c in body["citations"])


def test_query_in_english_and_forced_language(client: TestClient) -> None:
    body = client.post("/v1/query", json={"question": EFA_EN}).json()
    assert body["language"] == "en" and body["citations"][0]["question"] == 5
    assert all(set(c) == CITATION_KEYS for c in body["citations"])
    quiz = body["citations"][0]
    assert (quiz["doc"], quiz["section"], quiz["url"]) == ("eks-training-quiz", "", None)
    assert "vpc.amazonaws.com/efa" in body["citations"][0]["snippet"]
    forced = client.post("/v1/query", json={"question": EFA_EN, "lang": "es"}).json()
    assert forced["language"] == "es"
    assert forced["citations"][0]["title"].startswith("¿")


def test_a_quiz_result_cites_with_the_same_keys_as_an_answer(client: TestClient) -> None:
    prompt = client.post("/v1/quiz/next", json={"user": "alice", "lang": "en"}).json()
    body = client.post("/v1/quiz/answer", json={"user": "alice", "attempt_id": prompt["attempt_id"],
                                                "choice": "A"}).json()
    assert set(body["citation"]) == CITATION_KEYS
    assert body["citation"]["doc"] == "eks-training-quiz" and body["citation"]["section"] == ""


def test_out_of_scope_question_is_not_answered(client: TestClient) -> None:
    body = client.post("/v1/query", json={"question": "¿Cuál es la receta de la paella?"}).json()
    assert body["answered"] is False
    assert "Karpenter" in body["text"]
    assert body["suggestion"] is None  # nothing in the knowledge is close to a recipe


@pytest.mark.slow
def test_a_declined_question_offers_the_closest_question_as_a_suggestion(
        settings: Settings, real_services: Services) -> None:
    asked = {"question": "¿cuánto cuesta por hora una instancia p5 con EFA?"}  # the quiz gives no prices
    body = client_for(settings, real_services).post("/v1/query", json=asked).json()
    assert body["answered"] is False
    suggestion = body["suggestion"]
    assert suggestion["question"] == 5  # the EFA question
    assert set(suggestion) == CITATION_KEYS and suggestion["excerpt"] == ""
    assert f"pregunta {suggestion['question']}" in body["text"] and "sugerencia" in body["text"]


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ({"question": ""}, "empty"),
        ({"question": "   \n\t "}, "empty"),
        ({"question": "x" * 2001}, "2000"),
        ({"question": 42}, "string"),
        ({"question": None}, "string"),
        ({"question": ["a"]}, "string"),
        ({}, "required"),
        ({"question": "EFA", "lang": "fr"}, "lang"),
        ({"question": "EFA", "extra": 1}, "unknown field"),
    ],
)
def test_bad_input_gets_422_with_a_reason(client: TestClient, payload: dict[str, object], reason: str) -> None:
    response = client.post("/v1/query", json=payload)
    assert response.status_code == 422
    assert reason in response.json()["error"]


def test_invalid_json_and_wrong_content(client: TestClient) -> None:
    response = client.post("/v1/query", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 422 and "JSON" in response.json()["error"]
    response = client.post("/v1/query", content=b"question=EFA", headers={"content-type": "text/plain"})
    assert 400 <= response.status_code < 500


def test_body_over_the_limit_is_refused(settings: Settings, services: Services) -> None:
    client = client_for(settings, services, max_body_bytes=2048)
    response = client.post("/v1/query", json={"question": "EFA " * 1000})
    assert response.status_code == 413 and "2048" in response.json()["error"]


@pytest.mark.parametrize(
    "question",
    ["<@U123ABC> ¿cómo habilito EFA en NCCL? 🚀", "EFA\x00\x07 NCCL\x1b", "<#C1|general> &lt;FI_PROVIDER&gt; efa",
     "<!channel> slotsPerWorker"],
)
def test_unicode_control_and_slack_markup_are_handled(client: TestClient, question: str) -> None:
    response = client.post("/v1/query", json={"question": question})
    assert response.status_code == 200
    assert response.json()["answered"] is True


def test_only_markup_is_an_empty_question(client: TestClient) -> None:
    response = client.post("/v1/query", json={"question": "<@U123ABC>"})
    assert response.status_code == 422


def test_api_tokens_required_when_set(settings: Settings, services: Services) -> None:
    client = client_for(settings, services, api_tokens_raw=SecretStr("first-token,second-token"))
    assert client.post("/v1/query", json={"question": EFA_EN}).status_code == 401
    wrong = client.post("/v1/query", json={"question": EFA_EN}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
    ok = client.post("/v1/query", json={"question": EFA_EN}, headers={"Authorization": "Bearer second-token"})
    assert ok.status_code == 200
    assert client.get("/healthz").status_code == 200  # probes need no token
    assert client.get("/metrics").status_code == 200


def test_rate_limit_answers_429_with_retry_after(settings: Settings, services: Services) -> None:
    client = client_for(settings, services, rate_limit=3)
    statuses = [client.post("/v1/query", json={"question": EFA_EN}).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    limited = client.post("/v1/query", json={"question": EFA_EN})
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
    assert client.get("/healthz").status_code == 200  # probes are never limited


def test_rate_limit_is_per_token(settings: Settings, services: Services) -> None:
    client = client_for(settings, services, rate_limit=1, api_tokens_raw=SecretStr("a-token,b-token"))
    a = {"Authorization": "Bearer a-token"}
    b = {"Authorization": "Bearer b-token"}
    assert client.post("/v1/query", json={"question": EFA_EN}, headers=a).status_code == 200
    assert client.post("/v1/query", json={"question": EFA_EN}, headers=a).status_code == 429
    assert client.post("/v1/query", json={"question": EFA_EN}, headers=b).status_code == 200


def test_rate_limit_zero_turns_it_off(settings: Settings, services: Services) -> None:
    client = client_for(settings, services, rate_limit=0)
    assert all(client.post("/v1/query", json={"question": "EFA"}).status_code == 200 for _ in range(5))


def test_metrics_count_requests_answers_and_describe_the_index(client: TestClient) -> None:
    client.post("/v1/query", json={"question": EFA_EN})
    client.post("/v1/query", json={"question": "Tell me a joke"})
    client.post("/v1/query", json={"question": ""})
    text = client.get("/metrics").text
    assert 'eksbot_answers_total{outcome="answered",surface="http"} 1.0' in text
    assert 'eksbot_answers_total{outcome="abstained",surface="http"} 1.0' in text
    assert 'eksbot_http_requests_total{method="POST",route="/v1/query",status="200"} 2.0' in text
    assert 'eksbot_http_requests_total{method="POST",route="/v1/query",status="422"} 1.0' in text
    assert 'eksbot_http_request_duration_seconds_bucket{le="0.5",method="POST",route="/v1/query"}' in text
    chunks = next(line for line in text.splitlines() if line.startswith("eksbot_index_chunks "))
    assert float(chunks.split()[1]) > 100
    assert "eksbot_build_info{" in text


def test_readyz_is_503_until_loaded_then_200(settings: Settings, services: Services) -> None:
    release = threading.Event()

    def slow_loader(_: Settings) -> Services:
        release.wait(30)
        return services

    with TestClient(create_app(settings, loader=slow_loader)) as client:
        assert client.get("/healthz").status_code == 200
        starting = client.get("/readyz")
        assert starting.status_code == 503 and starting.json()["status"] == "starting"
        assert client.post("/v1/query", json={"question": EFA_EN}).status_code == 503
        release.set()
        for _ in range(100):
            if client.get("/readyz").status_code == 200:
                break
            asyncio.run(asyncio.sleep(0.05))
        assert client.get("/readyz").json() == {"status": "ok", "reason": None}
        assert client.post("/v1/query", json={"question": EFA_EN}).status_code == 200


def test_readyz_reports_a_failed_start(settings: Settings) -> None:
    def broken_loader(_: Settings) -> Services:
        raise RuntimeError("index directory is not readable")

    with TestClient(create_app(settings, loader=broken_loader)) as client:
        for _ in range(100):
            body = client.get("/readyz").json()
            if body["status"] != "starting":
                break
            asyncio.run(asyncio.sleep(0.02))
        response = client.get("/readyz")
        assert response.status_code == 503
        assert "index directory is not readable" in response.json()["reason"]


def test_openapi_documents_every_field_with_an_example(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert "/v1/query" in spec["paths"]
    for name in ("QueryRequest", "AnswerOut", "CitationOut", "UserStatsOut", "TopicStatsOut"):
        schema = spec["components"]["schemas"][name]
        for field, prop in schema["properties"].items():
            assert prop.get("description"), f"{name}.{field} has no description"
            assert "examples" in prop or "example" in prop or name == "AnswerOut" and field == "citations", (
                f"{name}.{field} has no example"
            )
    assert client.get("/docs").status_code == 200


def test_real_server_serves_concurrent_queries(settings: Settings, services: Services) -> None:
    app = create_app(settings, services=services)
    questions = [EFA_EN, EFA_ES, "What does slurmdbd do?", "¿Qué es el gang scheduling?"] * 4

    async def ask_all(base: str) -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            return await asyncio.gather(*(http.post("/v1/query", json={"question": q}) for q in questions))

    with running_server(app) as base:
        wait_ready(base)
        responses = asyncio.run(ask_all(base))
        metrics = httpx.get(f"{base}/metrics").text
    assert [r.status_code for r in responses] == [200] * len(questions)
    for question, response in zip(questions, responses, strict=True):
        assert response.json() == services.assistant.answer(question).to_dict()
    batches = next(line for line in metrics.splitlines() if line.startswith("eksbot_encode_batch_size_count"))
    assert float(batches.split()[1]) <= len(questions)


def test_request_log_has_route_status_outcome_and_no_question_by_default(
    settings: Settings, services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="bot.http")
    client_for(settings, services).post("/v1/query", json={"question": EFA_EN})
    (record,) = [r for r in caplog.records if r.name == "bot.http"]
    assert (record.route, record.status, record.outcome) == ("/v1/query", 200, "answered")  # type: ignore[attr-defined]
    assert record.duration_ms > 0  # type: ignore[attr-defined]
    assert EFA_EN not in caplog.text
    caplog.clear()
    client_for(settings, services, log_questions=True).post("/v1/query", json={"question": EFA_EN})
    (record,) = [r for r in caplog.records if r.name == "bot.http"]
    assert record.question == EFA_EN  # type: ignore[attr-defined]


def test_made_up_tokens_do_not_escape_the_rate_limit(settings: Settings, services: Services) -> None:
    client = client_for(settings, services, rate_limit=2)
    statuses = [
        client.post("/v1/query", json={"question": "EFA"}, headers={"Authorization": f"Bearer junk{i}"}).status_code
        for i in range(4)
    ]
    assert statuses == [200, 200, 429, 429]


def test_oversized_chunked_body_is_413(settings: Settings, services: Services) -> None:
    client = client_for(settings, services, max_body_bytes=2048)

    def chunks() -> Iterator[bytes]:
        yield b'{"question": "'
        for _ in range(10):
            yield b"x" * 500
        yield b'"}'

    response = client.post("/v1/query", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_unknown_paths_share_one_metrics_label(client: TestClient) -> None:
    for i in range(3):
        assert client.post(f"/made-up-{i}", json={}).status_code == 404
    text = client.get("/metrics").text
    assert "made-up" not in text
    assert 'route="unmatched"' in text


def test_readiness_tells_answering_apart_from_the_database_and_shows_no_database_details(
    settings: Settings, services_without_database: Services
) -> None:
    client = TestClient(create_app(settings, services=services_without_database))
    assert client.get("/readyz").json() == {"status": "ok", "reason": None}  # it answers: it stays ready
    assert client.post("/v1/query", json={"question": EFA_EN}).status_code == 200
    response = client.get("/readyz/database")
    assert response.status_code == 503 and response.headers["retry-after"] == "5"
    assert "secret_user" not in response.text and "127.0.0.1" not in response.text
    assert "database unavailable" in response.json()["reason"]
    metrics = client.get("/metrics").text
    assert "eksbot_ready 1.0" in metrics and "eksbot_database_ready 0.0" in metrics


def test_database_readiness_is_200_when_it_takes_a_write(client: TestClient) -> None:
    assert client.get("/readyz/database").json() == {"status": "ok", "reason": None}


def test_text_that_is_not_unicode_is_422_and_disturbs_no_other_query(settings: Settings, services: Services) -> None:
    app = create_app(settings.model_copy(update={"rate_limit": 0}), services=services)
    good = json.dumps({"question": EFA_EN}).encode()
    bad = b'{"question": "EFA \\ud800 NCCL"}'  # a lone surrogate: valid JSON, not valid Unicode

    async def ask_all(base: str) -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            return await asyncio.gather(*(
                http.post("/v1/query", content=body, headers={"content-type": "application/json"})
                for body in [good] * 8 + [bad] + [good] * 7
            ))

    with running_server(app) as base:
        responses = asyncio.run(ask_all(base))
    assert [r.status_code for r in responses] == [200] * 8 + [422] + [200] * 7
    assert "unicode" in responses[8].json()["error"].lower()
    assert all(r.json() == services.assistant.answer(EFA_EN).to_dict() for r in responses if r.status_code == 200)


@pytest.mark.parametrize("field", ["user", "team", "topic"])
def test_quiz_text_that_is_not_unicode_is_422(client: TestClient, field: str) -> None:
    payload = {"user": "alice", field: "a\ud800b"}
    body = json.dumps(payload).encode()  # json.dumps writes the surrogate as \ud800
    response = client.post("/v1/quiz/next", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422 and field in response.json()["error"]


def test_a_422_lists_a_few_errors_at_most(client: TestClient) -> None:
    body = json.dumps({"question": "EFA", **{f"unknown_{i:05d}_" + "x" * 40: 1 for i in range(1000)}})
    assert 50_000 < len(body) < 65_536
    response = client.post("/v1/query", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert len(response.content) < 2_000
    assert len(response.json()["detail"]) == 5 and "and 995 more" in response.json()["error"]


def test_an_unexpected_error_is_a_complete_500_logged_once_on_a_connection_that_stays_usable(
    settings: Settings, services: Services, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(services.quiz, "stats", broken)
    app = create_app(settings.model_copy(update={"rate_limit": 0}), services=services)
    caplog.set_level("INFO")
    with running_server(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        ports = set()
        statuses = []
        for i in range(50):
            response = (http.get("/v1/quiz/stats", params={"user": "alice"}) if i % 2 == 0
                        else http.post("/v1/query", json={"question": EFA_EN}))
            statuses.append(response.status_code)
            ports.add(response.extensions["network_stream"].get_extra_info("client_addr")[1])
    assert statuses == [500, 200] * 25
    assert len(ports) == 1  # one keep-alive connection served all 50
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert len(tracebacks) == 25 and all(r.getMessage() == "unhandled error" for r in tracebacks)
    assert "Exception in ASGI application" not in caplog.text


def test_routes_are_labelled_by_template_also_when_refused_before_routing(
    settings: Settings, services: Services
) -> None:
    client = client_for(settings, services, max_body_bytes=2048, rate_limit=3)
    assert client.get("/docs").status_code == 200
    assert client.post("/v1/query", json={"question": "x" * 3000}).status_code == 413
    assert client.get("/v1/query").status_code == 405
    assert client.get("/v1/quiz/stats", params={"user": "a"}).status_code == 200
    assert client.get("/v1/quiz/stats", params={"user": "a"}).status_code == 429
    assert client.get("/no/such/path").status_code == 404
    text = client.get("/metrics").text
    for labels in ('method="GET",route="/docs",status="200"', 'method="POST",route="/v1/query",status="413"',
                   'method="GET",route="/v1/query",status="405"',
                   'method="GET",route="/v1/quiz/stats",status="429"',
                   'method="GET",route="unmatched",status="404"'):
        assert f"eksbot_http_requests_total{{{labels}}} 1.0" in text


def test_a_body_that_stalls_is_cut_off(settings: Settings, services: Services) -> None:
    app = create_app(settings.model_copy(update={"body_timeout": 0.5}), services=services)
    with running_server(app) as base:
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(b"POST /v1/query HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                         b"content-length: 100\r\n\r\n{\"question\": ")
            started = time.monotonic()
            reply = sock.recv(4096)
            waited = time.monotonic() - started
        assert reply.startswith(b"HTTP/1.1 408") and b"within 0.5 s" in reply
        assert 0.4 < waited < 5
        assert httpx.post(f"{base}/v1/query", json={"question": EFA_EN}).status_code == 200


def test_openapi_matches_behaviour(client: TestClient) -> None:
    import re

    spec = client.get("/openapi.json").json()
    for path in ("/v1/query", "/v1/quiz/next", "/v1/quiz/answer"):
        responses = spec["paths"][path]["post"]["responses"]
        assert {"400", "401", "408", "413", "422", "429", "503"} <= set(responses), path
    assert spec["components"]["schemas"]["QueryRequest"]["properties"]["question"]["minLength"] == 1
    # The user pattern reads the same in JSON Schema (ECMA-262), Python and pydantic: no \s, whose meaning
    # differs between them; and it accepts what the server accepts.
    pattern = spec["components"]["schemas"]["QuizNextRequest"]["properties"]["user"]["pattern"]
    assert "\\s" not in pattern
    for user, accepted in [("alice", True), (" bob ", True), ("\ufeff", True), ("\u3000", False), ("\x85", False),
                           ("a\x00", False), ("   ", False)]:
        assert bool(re.fullmatch(pattern, user)) is accepted, repr(user)
        status = client.post("/v1/quiz/next", json={"user": user}).status_code
        assert (status == 200) is accepted, repr(user)
    assert client.post("/v1/query", content=b"", headers={"content-type": "application/json"}).json()["error"] == (
        "a JSON body is required")
