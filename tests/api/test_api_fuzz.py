"""Schema-driven fuzzing of the HTTP API: whatever a client sends, the answer is never a 5xx.

The API runs with a token, so the checks also see that requests without it are refused. Slack is on (its
Web API faked), so POST /slack/events is fuzzed too: unsigned (every request refused) and signed as Slack
signs (every body reaches the checks behind the signature, and bolt)."""

from __future__ import annotations

import json
import time
import urllib.parse
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from pydantic import SecretStr
from schemathesis import Case
from schemathesis.core.result import Ok

from bot.api import create_app
from bot.config import Settings
from bot.services import Services
from tests.support.slack_fake import FakeSlack, sign, slack_settings

FORM = "application/x-www-form-urlencoded"


def operations_of(app: FastAPI) -> list[Any]:
    """Every operation of the application's OpenAPI schema (each must load)."""
    results = list(schemathesis.openapi.from_asgi("/openapi.json", app).get_all_operations())
    assert all(isinstance(result, Ok) for result in results), results
    return [result.ok() for result in results if isinstance(result, Ok)]


@pytest.fixture
def app(settings: Settings, services: Services, fake: FakeSlack) -> FastAPI:
    secured = slack_settings(settings, fake).model_copy(
        update={"rate_limit": 0, "api_tokens_raw": SecretStr("fuzz-token")})
    return create_app(secured, services=Services.assemble(secured, services.assistant, services.stores.database))


def test_no_operation_answers_5xx_and_200s_match_the_schema(app: FastAPI) -> None:
    auth = {"Authorization": "Bearer fuzz-token"}
    operations = operations_of(app)
    assert {"/v1/query", "/slack/events"} <= {op.path for op in operations}
    for operation in operations:

        @given(case=operation.as_strategy())
        @hypothesis_settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
        def check(case: Case) -> None:
            response = case.call(headers=auth)
            assert response.status_code < 500, f"{case.method} {case.path}: {response.status_code} {response.text}"
            if case.path == "/slack/events":
                assert response.status_code == 401  # not signed
            elif response.status_code == 200:
                case.validate_response(response, headers=auth)

        check()


def _encoded(case: Any) -> tuple[bytes, str]:
    """The body schemathesis generated, as bytes, and its content type."""
    if case.media_type == "application/x-www-form-urlencoded" and isinstance(case.body, dict):
        form = {k: v if isinstance(v, str) else json.dumps(v) for k, v in case.body.items()}
        return urllib.parse.urlencode(form).encode(), case.media_type
    return json.dumps(case.body).encode(), "application/json"


def test_signed_slack_requests_never_get_a_5xx(app: FastAPI) -> None:
    (operation,) = [op for op in operations_of(app) if op.path == "/slack/events"]
    client = TestClient(app)

    @given(case=operation.as_strategy())
    @hypothesis_settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    def check(case: Case) -> None:
        body, content_type = _encoded(case)
        now = int(time.time())
        response = client.post("/slack/events", content=body, headers={
            "content-type": content_type, "x-slack-request-timestamp": str(now), "x-slack-signature": sign(body, now)})
        assert response.status_code < 500, f"{body[:200]!r}: {response.status_code} {response.text[:200]}"
        assert response.status_code != 401, "a request signed as Slack signs was refused"

    check()


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def _mutated(data: st.DataObject, value: Any) -> Any:
    """`value` with one field somewhere in it replaced by any JSON value (or removed)."""
    if isinstance(value, dict) and value and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(value)))
        if data.draw(st.booleans()):
            return {**value, key: _mutated(data, value[key])}
        return {k: v for k, v in value.items() if k != key} if data.draw(st.booleans()) else {
            **value, key: data.draw(JSON_VALUES)}
    if isinstance(value, list) and value and data.draw(st.booleans()):
        return [_mutated(data, value[0]), *value[1:]]
    return data.draw(JSON_VALUES) if data.draw(st.booleans()) else value


def test_signed_slack_shaped_requests_with_any_field_changed_never_get_a_5xx(
    app: FastAPI, fake: FakeSlack
) -> None:
    """Real Slack bodies (an event, a click, a command), one field anywhere replaced or removed."""
    from tests.support.slack_fake import action_payload, command_form, event_body, message_event

    client = TestClient(app)
    click = action_payload({"action_id": "quiz_answer_A", "text": {"type": "plain_text", "text": "A"},
                            "value": json.dumps({"a": "x", "c": "A"})}, user="U1", channel="C1",
                           message_ts="1.2", ephemeral=True, response_url=fake.response_url("fuzz"))
    bases: list[tuple[str, Any]] = [
        ("event", event_body(message_event("<@UBOT> How do I enable EFA?"), "EvFuzz")),
        ("click", click),
        ("command", command_form("/quiz", "5", user="U1", channel="C1", response_url=fake.response_url("fuzz"))),
    ]

    @given(data=st.data())
    @hypothesis_settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    def check(data: st.DataObject) -> None:
        kind, base = data.draw(st.sampled_from(bases))
        changed = _mutated(data, base)
        if kind == "event":
            body, content_type = json.dumps(changed).encode(), "application/json"
        elif kind == "click":
            body, content_type = urllib.parse.urlencode({"payload": json.dumps(changed)}).encode(), FORM
        else:
            fields = changed if isinstance(changed, dict) else {"text": changed}
            form = urllib.parse.urlencode({k: v if isinstance(v, str) else json.dumps(v) for k, v in fields.items()})
            body, content_type = form.encode(), FORM
        now = int(time.time())
        response = client.post("/slack/events", content=body, headers={
            "content-type": content_type, "x-slack-request-timestamp": str(now), "x-slack-signature": sign(body, now)})
        assert response.status_code < 500, f"{body[:300]!r}: {response.status_code} {response.text[:200]}"

    check()
