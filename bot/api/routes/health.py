"""Health, readiness and metrics.

Two readiness questions, told apart: `/readyz` (can this pod answer questions? the model and index are
loaded; it names the commit served of each folder synced from Git, and whether git-sync can sync it now: a
folder that cannot be synced keeps answering from that commit, so the pod stays ready) is what the Helm chart's
probes ask, so a database failover does not take answering pods out of the load balancer; `/readyz/database`
(is the database reachable and does it take a write?) is for monitoring and alerts.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from bot.api.deps import MetricsDep
from bot.api.schemas import Health, KnowledgeSync, Readiness
from bot.errors import StorageError

router = APIRouter(tags=["operations"])
log = logging.getLogger(__name__)

DATABASE_CHECK_TIMEOUT = 3.0  # seconds: the probe's own timeout is about this


@router.get("/healthz", response_model=Health, summary="The process is up")
async def healthz() -> Health:
    return Health(status="ok")


@router.get("/readyz", response_model=Readiness, responses={503: {"model": Health}},
            summary="Can answer questions: the model and index are loaded (the database is not asked)")
async def readyz(request: Request, metrics: MetricsDep) -> Response:
    state = request.app.state
    if state.services is None:
        health = Health(status="unavailable", reason=state.load_error) if state.load_error else Health(
            status="starting", reason="loading the model and index")
        metrics.ready.set(0)
        return JSONResponse(health.model_dump(), status_code=503, headers={"Retry-After": "5"})
    metrics.ready.set(1)
    body = Health(status="ok").model_dump()
    if revision := state.services.knowledge_revision():
        body["knowledge_revision"] = revision  # which commit of the docs synced from Git is served
    if sync := state.services.knowledge_sync():
        # Still ready while git-sync fails: the revision above keeps answering; this says it may be behind.
        body["knowledge_sync"] = {folder: _sync(folder_state) for folder, folder_state in sorted(sync.items())}
    return JSONResponse(body)


def _sync(state: Any) -> dict[str, Any]:
    """A folder's `bot.knowledge.git_sync.SyncState` as /readyz tells it."""
    return KnowledgeSync(ok=state.ok, failing_since=_utc(state.failing_since), last_failure=_utc(state.last_failure),
                         error=state.error).model_dump(mode="json")


def _utc(seconds: float | None) -> datetime | None:
    return None if seconds is None else datetime.fromtimestamp(int(seconds), UTC)


@router.get("/readyz/database", response_model=Health, responses={503: {"model": Health}},
            summary="The database is reachable and takes a write (the quiz works)")
async def readyz_database(request: Request, metrics: MetricsDep) -> Response:
    services = request.app.state.services
    if services is None:
        metrics.database_ready.set(0)
        return JSONResponse(Health(status="starting", reason="loading the model and index").model_dump(),
                            status_code=503, headers={"Retry-After": "5"})
    try:
        await asyncio.wait_for(services.run(services.database.check), timeout=DATABASE_CHECK_TIMEOUT)
    except (StorageError, TimeoutError) as exc:
        metrics.database_ready.set(0)
        # The details (host, user) go to the log, not to whoever can reach the probe.
        reason = str(exc) if isinstance(exc, StorageError) else f"no answer within {DATABASE_CHECK_TIMEOUT:g} s"
        if isinstance(exc, StorageError):
            _report_not_ready(request, services, exc)
        return JSONResponse(Health(status="unavailable", reason=reason).model_dump(), status_code=503,
                            headers={"Retry-After": "5"})
    if getattr(request.app.state, "database_warning", None) is not None:
        log.info("database ready again")
    request.app.state.database_warning = None
    metrics.database_ready.set(1)
    return JSONResponse(Health(status="ok").model_dump())


def _report_not_ready(request: Request, services: Any, exc: StorageError) -> None:
    """A warning when the database stops taking writes or the reason changes, not at every poll of the
    probe. Nothing while the start-up still tries to open it: the start-up logs its own failures."""
    if not services.database.ready:
        log.debug("database not ready: %s", exc)
        return
    warning = f"{exc}: {exc.detail[:300]}"
    if getattr(request.app.state, "database_warning", None) != warning:
        request.app.state.database_warning = warning
        log.warning("database not ready: %s: %s", exc, exc.detail[:300])


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def metrics_endpoint(metrics: MetricsDep) -> Response:
    # Off the event loop: feedback counts come from the database.
    return Response(await asyncio.to_thread(generate_latest, metrics.registry), media_type=CONTENT_TYPE_LATEST)
