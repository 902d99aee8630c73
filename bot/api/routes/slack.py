"""POST /slack/events: events, slash commands and interactivity, handed to the bolt app."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from slack_bolt.adapter.fastapi.async_handler import AsyncSlackRequestHandler
from slack_bolt.async_app import AsyncApp


def slack_router(slack_app: AsyncApp) -> APIRouter:
    router = APIRouter(tags=["slack"])
    handler = AsyncSlackRequestHandler(slack_app)

    @router.post("/slack/events", include_in_schema=False)
    async def slack_events(request: Request) -> Response:
        if (
            request.app.state.services is None
            and request.headers.get("content-type", "").startswith("application/json")
            and b'"url_verification"' not in await request.body()
        ):
            # Not ready: Slack redelivers events later. Commands and clicks go on to the bolt app, which
            # tells the person it is starting up.
            return JSONResponse({"error": "starting"}, status_code=503, headers={"Retry-After": "5"})
        return await handler.handle(request)

    return router
