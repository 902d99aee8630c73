"""Socket Mode: the same bolt app over a WebSocket that the bot opens to Slack (no public URL needed)."""

from __future__ import annotations

import asyncio
import logging

from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError

from bot.config import Settings
from bot.errors import ConfigError
from bot.metrics import Metrics
from bot.services import Services
from bot.slack.app import build_slack_app
from bot.slack.rounds import round_runner

log = logging.getLogger(__name__)


def check_socket_settings(settings: Settings) -> str:
    """The app-level token, or a ConfigError naming what is missing (in one line)."""
    missing = [name for name, value in (("SLACK_APP_TOKEN", settings.slack_app_token),
                                        ("SLACK_BOT_TOKEN", settings.slack_bot_token)) if value is None]
    if missing:
        raise ConfigError(
            f"Socket Mode needs SLACK_APP_TOKEN (xapp-…, scope connections:write) and SLACK_BOT_TOKEN (xoxb-…); "
            f"missing: {', '.join(missing)}"
        )
    assert settings.slack_app_token is not None
    token = settings.slack_app_token.get_secret_value()
    if not token.startswith("xapp-"):
        raise ConfigError("SLACK_APP_TOKEN must be an app-level token (it starts with xapp-)")
    return token


async def run_socket_mode(services: Services, *, metrics: Metrics | None = None,
                          stop: asyncio.Event | None = None) -> None:
    """Connect to Slack and serve until `stop` is set (or forever)."""
    app_token = check_socket_settings(services.settings)
    app = build_slack_app(services.settings, lambda: services, metrics or Metrics(), socket_mode=True)
    await check_tokens(app, app_token)
    handler = AsyncSocketModeHandler(app, app_token)
    await handler.connect_async()
    log.info("connected to Slack in Socket Mode")
    runner = round_runner(app.client, lambda: services, services.settings)
    runner.start()
    try:
        await (stop or asyncio.Event()).wait()
    finally:
        await runner.stop()
        await handler.close_async()
        await services.batcher.close()


async def check_tokens(app: AsyncApp, app_token: str) -> None:
    """Ask Slack once whether it accepts both tokens: the Socket Mode client would retry a refused token
    forever; this turns the refusal into one ConfigError."""
    for name, call in (("SLACK_BOT_TOKEN", lambda: app.client.auth_test()),
                       ("SLACK_APP_TOKEN", lambda: app.client.apps_connections_open(app_token=app_token))):
        try:
            await call()
        except SlackApiError as exc:
            raise ConfigError(f"Slack refused {name}: {exc.response.get('error', 'unknown error')}") from None
