"""ASGI middleware: rate limit, body size and time limits, a complete 500 for an unexpected error, request
log and metrics."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Sequence
from typing import Any

from starlette.routing import Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bot.api.ratelimit import RateLimiter, retry_after_header
from bot.metrics import Metrics

log = logging.getLogger("bot.http")

RATE_LIMITED_PREFIXES = ("/v1/",)
CLOSE = [(b"connection", b"close")]  # after refusing a body that was not read in full


async def _send_json(
    send: Send, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    headers = headers or []
    data = json.dumps(body).encode()
    await send({
        "type": "http.response.start", "status": status,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *headers],
    })
    await send({"type": "http.response.body", "body": data})


def client_key(scope: Scope, tokens: frozenset[bytes]) -> str:
    """A configured API token (hashed: never kept in clear), or else the client address: a made-up
    token does not buy a fresh allowance."""
    for name, value in scope.get("headers", []):
        if name == b"authorization" and value[:7].lower() == b"bearer " and value[7:].strip() in tokens:
            return "token:" + hashlib.sha256(value[7:].strip()).hexdigest()[:16]
    client = scope.get("client")
    return f"addr:{client[0]}" if client else "addr:unknown"


class GuardMiddleware:
    """Everything a request goes through first: the rate limit, the body (whole, within `max_body` bytes and
    `body_timeout` seconds), then the application; and last the request log and metrics.

    An unexpected error becomes a complete 500 here, logged once: nothing is raised to the server, which
    would log it a second time and drop the client's keep-alive connection."""

    def __init__(self, app: ASGIApp, *, metrics: Metrics, limiter: RateLimiter, max_body: int,
                 tokens: list[str], body_timeout: float = 10.0, routes: Sequence[Route] = ()) -> None:
        self.app = app
        self.routes = routes  # to name the route of a request refused before routing
        self.tokens = frozenset(t.encode() for t in tokens)
        self.metrics = metrics
        self.limiter = limiter
        self.max_body = max_body
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        response = {"status": 500, "started": False, "done": False}

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                response["status"] = message["status"]
                response["started"] = True
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                response["done"] = True
            await send(message)

        try:
            await self._guarded(scope, receive, send_wrapper)
        except Exception as exc:  # noqa: BLE001 - the one place an unexpected error is logged and answered
            log.error("unhandled error", exc_info=exc, extra={"route": route_template(scope, self.routes)})
            if not response["started"]:
                await _send_json(send_wrapper, 500, {"error": "internal error; it has been logged"})
            elif not response["done"]:
                raise  # half a response was sent: only closing the connection can tell the client
        finally:
            self._record(scope, int(response["status"]), time.perf_counter() - started)

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["path"].startswith(RATE_LIMITED_PREFIXES) and self.limiter.enabled:
            wait = self.limiter.check(client_key(scope, self.tokens))
            if wait > 0:
                self.metrics.rate_limited.inc()
                await _send_json(
                    send, 429,
                    {"error": f"rate limit of {self.limiter.per_minute} requests per minute exceeded; "
                              f"retry in {retry_after_header(wait)} s"},
                    [(b"retry-after", retry_after_header(wait).encode())],
                )
                return
        length = dict(scope.get("headers", [])).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body:
            await _send_json(send, 413, {"error": f"request body over {self.max_body} bytes"}, CLOSE)
            return
        # Read the (small) body first, whatever its framing, so an oversized one gets 413 and a stalled
        # one 408 before any work starts.
        body = bytearray()
        deadline = asyncio.get_running_loop().time() + self.body_timeout
        more = True
        while more:
            try:
                async with asyncio.timeout_at(deadline):  # no task of its own: cheap on every request
                    message = await receive()
            except TimeoutError:
                await _send_json(send, 408, {"error": f"request body not received within {self.body_timeout:g} s"},
                                 CLOSE)
                return
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_body:
                await _send_json(send, 413, {"error": f"request body over {self.max_body} bytes"}, CLOSE)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _record(self, scope: Scope, status: int, duration: float) -> None:
        template = route_template(scope, self.routes)
        method: str = scope["method"]
        self.metrics.requests.labels(template, method, str(status)).inc()
        self.metrics.latency.labels(template, method).observe(duration)
        extra: dict[str, Any] = {"route": template, "method": method, "status": status,
                                 "duration_ms": round(duration * 1000, 2)}
        state = scope.get("state", {})
        for key in ("outcome", "question"):  # the question only with EKSBOT_LOG_QUESTIONS=true
            if state.get(key):
                extra[key] = state[key]
        if template not in ("/healthz", "/readyz", "/readyz/database", "/metrics"):
            log.info("request", extra=extra)


def route_template(scope: Scope, routes: Sequence[Route] = ()) -> str:
    """The template of the route a request is for ("/v1/query"), also when it was refused before routing
    (413, 429) or with the wrong method (405); "unmatched" only for a path no route has. Only templates
    become metric labels: a made-up path must not create a new series."""
    route = scope.get("route")
    if route is None:
        route = next((r for r in routes if r.matches(scope)[0] is not Match.NONE), None)
    return getattr(route, "path", None) or "unmatched"
