"""Health, readiness and metrics."""

from __future__ import annotations

import asyncio
import logging

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from bot.api.deps import MetricsDep
from bot.api.schemas import Health
from bot.errors import StorageError

router = APIRouter(tags=["operations"])
log = logging.getLogger(__name__)


@router.get("/healthz", response_model=Health, summary="The process is up")
async def healthz() -> Health:
    return Health(status="ok")


@router.get("/readyz", response_model=Health, responses={503: {"model": Health}},
            summary="Model, index and database are ready")
async def readyz(request: Request, metrics: MetricsDep) -> Response:
    state = request.app.state
    if state.services is None:
        health = Health(status="unavailable", reason=state.load_error) if state.load_error else Health(
            status="starting", reason="loading the model and index")
        metrics.ready.set(0)
        return JSONResponse(health.model_dump(), status_code=503)
    try:
        await asyncio.wait_for(state.services.run(state.services.check_ready), timeout=5)
    except Exception as exc:  # noqa: BLE001 - any failure makes the pod unready
        metrics.ready.set(0)
        # The details (host, user) go to the log, not to whoever can reach the probe.
        if isinstance(exc, StorageError):
            log.warning("not ready: %s: %s", exc, exc.detail[:300])
            reason = str(exc)
        else:
            log.warning("not ready: %s", f"{exc.__class__.__name__}: {exc}".splitlines()[0][:300])
            reason = f"database unavailable ({exc.__class__.__name__})"
        return JSONResponse(Health(status="unavailable", reason=reason).model_dump(), status_code=503)
    metrics.ready.set(1)
    return JSONResponse(Health(status="ok").model_dump())


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def metrics_endpoint(metrics: MetricsDep) -> Response:
    # Off the event loop: feedback counts come from the database.
    return Response(await asyncio.to_thread(generate_latest, metrics.registry), media_type=CONTENT_TYPE_LATEST)
