"""Turn the core's exceptions and validation failures into 4xx (or 503) answers with a reason. (Anything
else becomes a 500 in `bot.api.middleware`.)"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from bot.errors import (
    AttemptOwnerError,
    InputError,
    InvalidChoiceError,
    QuizError,
    StorageError,
    StorageUnavailableError,
    UnknownAttemptError,
    UnknownTopicError,
)
from bot.text.normalise import shortened

log = logging.getLogger(__name__)

RETRY_AFTER = "5"  # seconds; what a client waits before asking again while the database is unavailable
QUIZ_STATUS: dict[type[QuizError], int] = {
    UnknownAttemptError: 404,
    AttemptOwnerError: 403,
    InvalidChoiceError: 422,
    UnknownTopicError: 404,
}


MAX_ERRORS = 5  # a 422 lists this many errors at most, however many the body holds
MAX_NAME = 64  # characters of a field name quoted back


def _location(error: dict[str, Any]) -> str:
    name = ".".join(str(p) for p in error.get("loc", ()) if p not in ("body", "query"))
    return shortened(name, MAX_NAME)


def _reason(error: dict[str, Any]) -> str:
    location = _location(error)
    kind = error.get("type")
    if kind == "json_invalid":
        return f"invalid JSON body: {error.get('msg')}"
    if kind == "missing":
        return f"'{location}' is required" if location else "a JSON body is required"
    if kind == "extra_forbidden":
        return f"unknown field '{location}'"
    if kind == "string_too_short" and (error.get("ctx") or {}).get("min_length") == 1:
        return f"'{location}' is empty"
    return f"'{location or 'body'}': {error.get('msg')}"


def describe_errors(errors: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """One line naming the first few errors, and those errors (type, location, message) for `detail`."""
    shown = errors[:MAX_ERRORS]
    reason = "; ".join(_reason(e) for e in shown) or "invalid request"
    if len(errors) > MAX_ERRORS:
        reason += f"; and {len(errors) - MAX_ERRORS} more"
    detail = [
        {"type": e.get("type"), "loc": [str(p)[:MAX_NAME] for p in e.get("loc", ())], "msg": str(e.get("msg"))}
        for e in shown
    ]
    return reason, detail


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        reason, detail = describe_errors(list(exc.errors()))
        return JSONResponse({"error": reason, "detail": detail}, status_code=422)

    @app.exception_handler(InputError)
    async def bad_input(_: Request, exc: InputError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=422)

    @app.exception_handler(QuizError)
    async def quiz_error(_: Request, exc: QuizError) -> JSONResponse:
        status = next((code for kind, code in QUIZ_STATUS.items() if isinstance(exc, kind)), 400)
        body: dict[str, object] = {"error": str(exc)}
        if isinstance(exc, UnknownTopicError):
            body["topics"] = exc.topics
        return JSONResponse(body, status_code=status)

    @app.exception_handler(StorageError)
    async def storage_error(request: Request, exc: StorageError) -> JSONResponse:
        log.warning("%s: %s", exc, exc.detail[:300], extra={"route": request.url.path})
        if isinstance(exc, StorageUnavailableError):
            return JSONResponse({"error": f"{exc}; retry in a few seconds"}, status_code=503,
                                headers={"Retry-After": RETRY_AFTER})
        return JSONResponse({"error": f"{exc}; try again"}, status_code=409)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)
