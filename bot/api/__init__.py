"""The HTTP surface: one FastAPI application for the API, health, metrics and Slack."""

from bot.api.app import create_app

__all__ = ["create_app"]
