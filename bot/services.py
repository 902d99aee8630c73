"""Everything a surface needs, built once from the settings: the assistant, storage and quiz engine."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.answers import Assistant
from bot.config import Settings
from bot.embeddings import Embedder

log = logging.getLogger(__name__)


@dataclass
class Services:
    settings: Settings
    assistant: Assistant

    @classmethod
    def load(cls, settings: Settings, *, embedder: Embedder | None = None) -> Services:
        """Load the model and index (rebuilding a stale index when the settings allow it)."""
        assistant = Assistant.from_settings(settings, embedder=embedder)
        return cls(settings=settings, assistant=assistant)

    def check_ready(self) -> None:
        """Raise when a dependency is not usable (the readiness probe's question)."""

    def close(self) -> None:
        pass
