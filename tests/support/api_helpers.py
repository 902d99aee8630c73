"""Helpers to run the real application: in-process (TestClient) or as a uvicorn server on loopback."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_server(app: FastAPI) -> Iterator[str]:
    """Serve `app` with uvicorn on a free loopback port in a thread; yields the base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("server did not start")
        time.sleep(0.02)
    try:
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def wait_ready(base: str, timeout: float = 60, *, database: bool = False) -> None:
    """Until the server answers questions (`/readyz`); with `database`, until the quiz works too."""
    deadline = time.monotonic() + timeout
    paths = ["/readyz", "/readyz/database"] if database else ["/readyz"]
    while time.monotonic() < deadline:
        try:
            if all(httpx.get(f"{base}{path}", timeout=2).status_code == 200 for path in paths):
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"{base} not ready after {timeout} s")


def client_for(settings: Any, services: Any, **overrides: object) -> TestClient:
    """The application over `services` (its assistant and database), with settings changed by `overrides`."""
    from bot.api import create_app
    from bot.services import Services

    settings = settings.model_copy(update=overrides)
    assembled = Services.assemble(settings, services.assistant, services.stores.database)
    return TestClient(create_app(settings, services=assembled))
