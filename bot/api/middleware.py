"""ASGI middleware: body size limit, per-client rate limit on the API, request log and metrics."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bot.api.ratelimit import RateLimiter, retry_after_header
from bot.metrics import Metrics

log = logging.getLogger("bot.http")

RATE_LIMITED_PREFIXES = ("/v1/",)


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
    def __init__(self, app: ASGIApp, *, metrics: Metrics, limiter: RateLimiter, max_body: int,
                 tokens: list[str]) -> None:
        self.app = app
        self.tokens = frozenset(t.encode() for t in tokens)
        self.metrics = metrics
        self.limiter = limiter
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status_holder = {"status": 500}
        path: str = scope["path"]
        method: str = scope["method"]

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_holder["status"] = message["status"]
            await send(message)

        try:
            if path.startswith(RATE_LIMITED_PREFIXES) and self.limiter.enabled:
                wait = self.limiter.check(client_key(scope, self.tokens))
                if wait > 0:
                    self.metrics.rate_limited.inc()
                    await _send_json(
                        send_wrapper, 429,
                        {"error": f"rate limit of {self.limiter.per_minute} requests per minute exceeded; "
                                  f"retry in {retry_after_header(wait)} s"},
                        [(b"retry-after", retry_after_header(wait).encode())],
                    )
                    return
            length = dict(scope.get("headers", [])).get(b"content-length")
            if length is not None and length.isdigit() and int(length) > self.max_body:
                await _send_json(send_wrapper, 413, {"error": f"request body over {self.max_body} bytes"})
                return
            # Read the (small) body first, whatever its framing, so an oversized one gets 413.
            body = bytearray()
            more = True
            while more:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client went away
                body += message.get("body", b"")
                more = message.get("more_body", False)
                if len(body) > self.max_body:
                    await _send_json(send_wrapper, 413, {"error": f"request body over {self.max_body} bytes"})
                    return
            replayed = False

            async def replay() -> Message:
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return {"type": "http.request", "body": bytes(body), "more_body": False}
                return await receive()

            await self.app(scope, replay, send_wrapper)
        finally:
            route = scope.get("route")
            # Only route templates become labels: a made-up path must not create a new series.
            template = getattr(route, "path", None) or "unmatched"
            duration = time.perf_counter() - started
            status = status_holder["status"]
            self.metrics.requests.labels(template, method, str(status)).inc()
            self.metrics.latency.labels(template, method).observe(duration)
            extra: dict[str, Any] = {"route": template, "method": method, "status": status,
                                     "duration_ms": round(duration * 1000, 2)}
            state = scope.get("state", {})
            for key in ("outcome", "question"):  # the question only with EKSBOT_LOG_QUESTIONS=true
                if state.get(key):
                    extra[key] = state[key]
            if template not in ("/healthz", "/readyz", "/metrics"):
                log.info("request", extra=extra)
