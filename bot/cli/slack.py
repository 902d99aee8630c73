"""`eksbot slack --socket`: the Slack bot in Socket Mode (HTTP mode runs inside `eksbot serve`)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from bot.cli.common import settings_from_args
from bot.errors import ConfigError

HTTP_HINT = ("eksbot: HTTP mode runs inside `eksbot serve` (Slack posts to /slack/events); "
             "run `eksbot slack --socket` for Socket Mode")


def cmd_slack(args: argparse.Namespace) -> int:
    from bot.slack.socket_mode import check_socket_settings

    if not args.socket:
        print(HTTP_HINT, file=sys.stderr)
        return 2
    settings = settings_from_args(args)
    try:
        check_socket_settings(settings)
    except ConfigError as exc:
        print(f"eksbot: {exc}", file=sys.stderr)
        return 2

    from bot.logs import configure_logging
    from bot.services import Services
    from bot.slack.socket_mode import run_socket_mode

    configure_logging(settings.log_level, settings.log_format)
    print("EKS training assistant: loading the model and index, then connecting to Slack (Socket Mode)…",
          flush=True)
    services = Services.load(settings)
    try:
        asyncio.run(run_socket_mode(services))
    except ConfigError as exc:
        print(f"eksbot: {exc}", file=sys.stderr)
        return 2
    finally:
        services.close()
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    slack = sub.add_parser("slack", help="run the Slack bot in Socket Mode (no public URL needed)")
    slack.add_argument("--socket", action="store_true",
                       help="connect with SLACK_APP_TOKEN and SLACK_BOT_TOKEN over a WebSocket")
    slack.set_defaults(func=cmd_slack)
