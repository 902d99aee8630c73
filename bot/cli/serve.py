"""`eksbot serve`: the HTTP service (API, health, metrics and, when configured, Slack)."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from typing import TYPE_CHECKING

from bot.cli.common import settings_from_args

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.services import Services


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from bot.api import create_app
    from bot.logs import chosen_format, configure_logging
    from bot.services import Services

    settings = settings_from_args(args)
    configure_logging(settings.log_level, settings.log_format)
    host = "localhost" if args.host in ("0.0.0.0", "::") else args.host
    url = f"http://{host}:{args.port}"
    if chosen_format(settings.log_format, sys.stderr) == "json":  # a collector reads JSON lines only
        logging.getLogger(__name__).info("serving", extra={"url": url, "ready": f"{url}/readyz"})
    else:
        print(f"EKS training assistant on {url} (ready when /readyz answers 200)", flush=True)
        print(
            f"  try: curl -s {url}/v1/query -H 'content-type: application/json' "
            """-d '{"question": "How do I enable EFA for NCCL?"}'""",
            flush=True,
        )
    failed: list[Exception] = []

    def load(settings: Settings) -> Services:
        """The model and index are loaded once, in the background: when that fails nothing would try again,
        and a process that stays up unready only hides the reason. The application logs the reason; the
        server then stops as on Ctrl+C, gracefully, and the command ends with 1."""
        try:
            return Services.load(settings)
        except Exception as exc:
            failed.append(exc)
            os.kill(os.getpid(), signal.SIGINT)
            raise

    uvicorn.run(
        create_app(settings, loader=load), host=args.host, port=args.port, log_config=None, access_log=False,
        timeout_graceful_shutdown=10,
    )
    return 1 if failed else 0


def register(sub: argparse._SubParsersAction) -> None:
    serve = sub.add_parser("serve", help="run the HTTP service (API, health, metrics, Slack)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (0.0.0.0 in a container)")
    serve.add_argument("--port", type=int, default=8080, help="port to listen on (default: 8080)")
    serve.set_defaults(func=cmd_serve)
