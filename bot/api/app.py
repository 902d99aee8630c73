"""Build the FastAPI application. `main.py`-style wiring only: the work is in the core and routes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import FastAPI
from starlette.routing import Route

import bot
from bot.api.errors import install_error_handlers
from bot.api.middleware import GuardMiddleware
from bot.api.ratelimit import RateLimiter
from bot.api.routes import admin, health, query, quiz
from bot.config import Settings, load_settings
from bot.errors import StorageError
from bot.metrics import Metrics
from bot.services import Services

if TYPE_CHECKING:
    from bot.answering.assistant import Assistant

log = logging.getLogger(__name__)

DESCRIPTION = """Answers questions on training models on Amazon EKS from the team's knowledge, with
citations, and says plainly when the knowledge does not cover a question."""


def create_app(
    settings: Settings | None = None,
    *,
    services: Services | None = None,
    loader: Callable[[Settings], Services] = Services.load,
) -> FastAPI:
    """The application. Without `services`, the model and index load in the background at start-up
    and `/readyz` answers 503 until they have."""
    settings = settings or load_settings()
    settings.api_token_entries  # noqa: B018 - a malformed EKSBOT_API_TOKENS stops the start (ConfigError)
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        task: asyncio.Task[None] | None = None
        if app.state.services is None:
            task = asyncio.create_task(_load(app, settings, loader))
        if settings.slack_enabled:
            log.info("Slack is on at POST /slack/events", extra={"slack_api_url": settings.slack_api_url})
        else:
            log.info("Slack is off: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET to enable it")
        runner = app.state.round_runner
        if runner is not None:
            runner.start()  # team rounds: post, show counts and reveal on time (waits for the services)
        try:
            yield
        finally:
            if runner is not None:
                await runner.stop()
            if task is not None:
                task.cancel()
            if app.state.services is not None:
                await app.state.services.batcher.close()
            if task is not None and app.state.services is not None:
                app.state.services.close()  # loaded here, so closed here (injected ones belong to the caller)

    app = FastAPI(title="EKS training assistant", version=bot.__version__, description=DESCRIPTION,
                  lifespan=lifespan)
    app.state.settings = settings
    app.state.metrics = metrics
    app.state.services = None
    app.state.load_error = None
    app.state.round_runner = None
    if services is not None:
        _attach(app, services)
    install_error_handlers(app)
    routers = [health.router, query.router, quiz.router, admin.router]
    if settings.slack_enabled:
        from bot.api.routes.slack import slack_router
        from bot.slack.app import build_slack_app
        from bot.slack.rounds import round_runner

        slack_app = build_slack_app(settings, lambda: app.state.services, metrics)
        assert settings.slack_signing_secret is not None  # slack_enabled
        routers.append(slack_router(slack_app, settings.slack_signing_secret.get_secret_value()))
        app.state.round_runner = round_runner(slack_app.client, lambda: app.state.services, settings)
    for router in routers:
        app.include_router(router)
    # Every route, for the metrics of requests refused before routing (413, 429).
    routes = [r for r in [*app.router.routes, *(r for x in routers for r in x.routes)] if isinstance(r, Route)]
    app.add_middleware(
        GuardMiddleware, metrics=metrics, limiter=RateLimiter(settings.rate_limit), max_body=settings.max_body_bytes,
        tokens=settings.api_tokens, body_timeout=settings.body_timeout, routes=routes,
    )
    return app


async def _load(app: FastAPI, settings: Settings, loader: Callable[[Settings], Services]) -> None:
    try:
        services = await asyncio.to_thread(loader, settings)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - reported by /readyz and the log
        if isinstance(exc, StorageError):
            # Shown by /readyz: the driver's text names hosts and users, so only the kind of failure is shown.
            log.error("start-up failed: %s: %s", exc, exc.detail)
            app.state.load_error = str(exc)
        else:
            log.error("start-up failed: %s: %s", exc.__class__.__name__, exc)
            app.state.load_error = f"{exc.__class__.__name__}: {exc}"
        return
    _attach(app, services)
    log.info("ready", extra={"chunks": len(services.assistant.index.chunks)})


def _attach(app: FastAPI, services: Services) -> None:
    metrics: Metrics = app.state.metrics

    def loaded(assistant: Assistant) -> None:
        manifest = assistant.index.manifest
        metrics.loaded(
            chunks=manifest.chunks, questions=len(assistant.knowledge.questions("en", kind=None)),
            model=manifest.model_id, digest=manifest.knowledge_digest, built_at=manifest.built_at,
        )

    loaded(services.assistant)
    services.in_use.on_swap(loaded)  # the knowledge changed while serving
    metrics.feedback.counts = services.stores.feedback.counts
    metrics.knowledge.status = services.knowledge_status
    services.batcher.on_batch = metrics.batch_size.observe
    app.state.services = services
