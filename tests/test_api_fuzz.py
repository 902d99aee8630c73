"""Schema-driven fuzzing of the HTTP API: whatever a client sends, the answer is never a 5xx.

The API runs with a token, so the checks also see that requests without it are refused."""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from pydantic import SecretStr

from bot.api import create_app
from bot.config import Settings
from bot.services import Services


def test_no_operation_answers_5xx_and_200s_match_the_schema(settings: Settings, services: Services) -> None:
    secured = settings.model_copy(update={"rate_limit": 0, "api_tokens_raw": SecretStr("fuzz-token")})
    app = create_app(secured, services=Services.assemble(secured, services.assistant, services.store))
    auth = {"Authorization": "Bearer fuzz-token"}
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert any(op.path == "/v1/query" for op in operations)
    for operation in operations:

        @given(case=operation.as_strategy())
        @hypothesis_settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
        def check(case) -> None:  # type: ignore[no-untyped-def]
            response = case.call(headers=auth)
            assert response.status_code < 500, f"{case.method} {case.path}: {response.status_code} {response.text}"
            if response.status_code == 200:
                case.validate_response(response, headers=auth)

        check()
