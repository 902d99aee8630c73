"""POST /slack/events: events, slash commands and interactivity, checked here and handed to the bolt app."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from slack_bolt.adapter.fastapi.async_handler import AsyncSlackRequestHandler
from slack_bolt.async_app import AsyncApp

from bot.api.schemas import ErrorOut
from bot.slack.verification import check_request

log = logging.getLogger(__name__)

DESCRIPTION = """Slack's events (JSON), slash commands and button clicks (forms). Signed by Slack: a request
without a valid `x-slack-signature` over its body and a `x-slack-request-timestamp` of the last five minutes
gets 401; a signed one that is not a JSON object or a form (whose `payload` is a JSON object) gets 400."""


def slack_router(slack_app: AsyncApp, signing_secret: str) -> APIRouter:
    router = APIRouter(tags=["slack"])
    handler = AsyncSlackRequestHandler(slack_app)

    @router.post(
        "/slack/events", summary="Slack events, commands and interactivity", description=DESCRIPTION,
        response_class=Response,
        openapi_extra={"requestBody": {"required": True, "content": {
            "application/json": {"schema": {"type": "object"}},
            "application/x-www-form-urlencoded": {"schema": {"type": "object"}},
        }}},
        responses={
            200: {"description": "Acknowledged (Slack's own reply shapes)."},
            400: {"model": ErrorOut, "description": "Signed, but not a request Slack sends."},
            401: {"model": ErrorOut, "description": "Not signed by Slack, or too old."},
            503: {"model": ErrorOut, "description": "Starting: Slack delivers the event again later."},
        },
    )
    async def slack_events(request: Request) -> Response:
        # Checked before bolt reads a byte of it: junk is refused here, with the request's one log line.
        body = await request.body()
        refusal = check_request(signing_secret, request.headers, body)
        if refusal is not None:
            request.state.outcome = "refused" if refusal.status == 401 else "malformed"
            return JSONResponse({"error": refusal.reason}, status_code=refusal.status)
        if (
            request.app.state.services is None
            and request.headers.get("content-type", "").startswith("application/json")
            and b'"url_verification"' not in body
        ):
            # Not ready: Slack redelivers events later. Commands and clicks go on to the bolt app, which
            # tells the person it is starting up.
            return JSONResponse({"error": "starting"}, status_code=503, headers={"Retry-After": "5"})
        try:
            response = await handler.handle(request)
        except Exception as exc:  # noqa: BLE001 - bolt could not dispatch it: a shape Slack does not send
            log.warning("Slack request not dispatched: %s: %s", exc.__class__.__name__, str(exc)[:200])
            response = Response(status_code=500)
        if response.status_code >= 500:
            # Bolt answers 500 when it cannot dispatch a request (it logged why). Its listeners run after the
            # acknowledgement and report their own failures, so this is a request of a shape Slack does not
            # send: a 400, which Slack does not retry.
            request.state.outcome = "malformed"
            return JSONResponse({"error": "malformed Slack request"}, status_code=400)
        return response

    return router
