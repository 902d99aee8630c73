"""What routes need, injected by name (`ServicesDep`, `Authorized`)."""

from __future__ import annotations

import hashlib
import hmac
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from bot.config import ApiToken, Settings
from bot.metrics import Metrics
from bot.quiz import DEFAULT_TEAM
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
) -> ApiToken | None:
    """The entry of EKSBOT_API_TOKENS the request's token matches (None when no token is required)."""
    entries = settings.api_token_entries
    if not entries:
        return None
    given = credentials.credentials.encode() if credentials else b""
    # Compare with every token, without stopping early: the time taken does not tell which one matched.
    matched: ApiToken | None = None
    for entry in entries:
        if hmac.compare_digest(given, entry.token.encode()) and matched is None:
            matched = entry
    if matched is None:
        raise HTTPException(401, "missing or invalid API token: send 'Authorization: Bearer <token>'",
                            headers={"WWW-Authenticate": "Bearer"})
    return matched


async def require_unscoped_token(token: Annotated[ApiToken | None, Depends(require_token)]) -> None:
    """What concerns everyone (the knowledge gaps) needs a token that acts for everyone."""
    if token is not None and (token.user is not None or token.team is not None):
        raise HTTPException(403, "this API token acts for one user or team only: this route needs one that "
                                 "acts for everyone")


def token_label(token: ApiToken) -> str:
    """A stable name for an API token in what is recorded (who changed the knowledge): `token:` and the first
    8 hex digits of its SHA-256, never the token itself."""
    return "token:" + hashlib.sha256(token.token.encode()).hexdigest()[:8]


async def acting_admin(token: Annotated[ApiToken | None, Depends(require_token)]) -> str:
    """Who an admin request acts as, for the record (`by`). Admin routes always have a token."""
    if token is None:
        raise HTTPException(403, "the admin routes need an API token: set EKSBOT_API_TOKENS")
    return token_label(token)


def acting_for(token: ApiToken | None, *, user: str | None = None, team: str | None = None) -> str | None:
    """The team a quiz request acts for: the one its token is bound to, else the one given. 403 when the
    request names another user or team than its token's."""
    if token is not None and token.user is not None and user is not None and user != token.user:
        raise HTTPException(403, f"this API token acts for user '{token.user}' only")
    if token is not None and token.team is not None:
        if team is not None and team != token.team:
            raise HTTPException(403, f"this API token acts for team '{token.team}' only")
        return token.team
    if token is not None and token.user is not None and team not in (None, DEFAULT_TEAM):
        # A token bound to a person, and to no team, acts for that person in the default team only.
        raise HTTPException(403, f"this API token acts for user '{token.user}' in the team '{DEFAULT_TEAM}' only")
    return team


ServicesDep = Annotated[Services, Depends(get_services)]
QuizServicesDep = Annotated[Services, Depends(get_quiz_services)]
MetricsDep = Annotated[Metrics, Depends(get_metrics)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
Authorized = Depends(require_token)
TokenDep = Annotated[ApiToken | None, Depends(require_token)]
AdminDep = Annotated[str, Depends(acting_admin)]
