"""Turn the core's exceptions and validation failures into 4xx (or 503) answers with a reason."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from bot.errors import (
    AlreadyAnsweredError,
    AttemptOwnerError,
    InputError,
    InvalidChoiceError,
    QuizError,
    StorageError,
    StorageUnavailableError,
    UnknownAttemptError,
    UnknownTopicError,
)

log = logging.getLogger(__name__)

RETRY_AFTER = "5"  # seconds; what a client waits before asking again while the database is unavailable
QUIZ_STATUS: dict[type[QuizError], int] = {
    UnknownAttemptError: 404,
    AttemptOwnerError: 403,
    InvalidChoiceError: 422,
    AlreadyAnsweredError: 409,
    UnknownTopicError: 404,
}


def _describe(errors: list[dict[str, Any]]) -> str:
    parts = []
    for error in errors[:5]:
        location = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
        if error.get("type") == "json_invalid":
            parts.append(f"invalid JSON body: {error.get('msg')}")
        elif error.get("type") == "missing":
            parts.append(f"'{location}' is required")
        elif error.get("type") == "extra_forbidden":
            parts.append(f"unknown field '{location}'")
        else:
            parts.append(f"'{location or 'body'}': {error.get('msg')}")
    return "; ".join(parts) or "invalid request"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {k: v for k, v in e.items() if k in ("type", "loc", "msg")} for e in exc.errors()
        ]
        return JSONResponse({"error": _describe(errors), "detail": errors}, status_code=422)

    @app.exception_handler(InputError)
    async def bad_input(_: Request, exc: InputError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=422)

    @app.exception_handler(QuizError)
    async def quiz_error(_: Request, exc: QuizError) -> JSONResponse:
        status = next((code for kind, code in QUIZ_STATUS.items() if isinstance(exc, kind)), 400)
        body: dict[str, object] = {"error": str(exc)}
        if isinstance(exc, UnknownTopicError):
            body["topics"] = exc.topics
        if isinstance(exc, AlreadyAnsweredError):
            body["result"] = exc.result.to_dict()
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

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", extra={"route": request.url.path})
        return JSONResponse({"error": "internal error; it has been logged"}, status_code=500)
