"""What routes need, injected by name (`ServicesDep`, `Authorized`)."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from bot.config import Settings
from bot.metrics import Metrics
from bot.services import Services

_bearer = HTTPBearer(auto_error=False, description="One of EKSBOT_API_TOKENS, when that setting is set.")


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_services(request: Request) -> Services:
    services: Services | None = request.app.state.services
    if services is None:
        raise HTTPException(503, "the model and index are still loading; retry shortly",
                            headers={"Retry-After": "5"})
    return services


async def get_quiz_services(services: Annotated[Services, Depends(get_services)]) -> Services:
    """The services, once the database has been opened at start (else 503, through StorageUnavailableError)."""
    services.database.require()
    return services


async def get_metrics(request: Request) -> Metrics:
    metrics: Metrics = request.app.state.metrics
    return metrics


async def require_token(
    settings: Annotated[Settings, Depends(get_settings)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    tokens = settings.api_tokens
    if not tokens:
        return
    given = credentials.credentials.encode() if credentials else b""
    # Compare with every token, without stopping early: the time taken does not tell which one matched.
    matched = False
    for token in tokens:
        matched |= hmac.compare_digest(given, token.encode())
    if not matched:
        raise HTTPException(401, "missing or invalid API token: send 'Authorization: Bearer <token>'",
                            headers={"WWW-Authenticate": "Bearer"})


ServicesDep = Annotated[Services, Depends(get_services)]
QuizServicesDep = Annotated[Services, Depends(get_quiz_services)]
MetricsDep = Annotated[Metrics, Depends(get_metrics)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
Authorized = Depends(require_token)
