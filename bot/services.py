"""Everything a surface needs, built once from the settings: the assistant, storage and quiz engine."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from bot.answers import Assistant
from bot.config import Settings
from bot.embeddings import Embedder
from bot.quiz import QuizEngine
from bot.storage import Store

log = logging.getLogger(__name__)


@dataclass
class Services:
    settings: Settings
    assistant: Assistant
    store: Store
    quiz: QuizEngine
    # All model work runs on this one thread: PyTorch keeps a pool of compute threads per calling
    # thread, and several pools on a small node fight over its cores.
    model_executor: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix="model")
    )

    @classmethod
    def load(cls, settings: Settings, *, embedder: Embedder | None = None) -> Services:
        """Load the model and index (rebuilding a stale index when the settings allow it) and open the
        database (migrating it first when `EKSBOT_MIGRATE_ON_START` is on)."""
        store = open_store(settings)
        assistant = Assistant.from_settings(settings, embedder=embedder)
        return cls.assemble(settings, assistant, store)

    @classmethod
    def assemble(cls, settings: Settings, assistant: Assistant, store: Store) -> Services:
        quiz = QuizEngine(assistant.knowledge, store, topics=assistant)
        return cls(settings=settings, assistant=assistant, store=store, quiz=quiz)

    def check_ready(self) -> None:
        """Raise when a dependency is not usable (the readiness probe's question)."""
        self.store.ping()

    def close(self) -> None:
        self.model_executor.shutdown(wait=False, cancel_futures=True)
        self.store.close()


def open_store(settings: Settings) -> Store:
    store = Store(settings.database_url)  # an SQLite file's directory is created on the way
    if settings.migrate_on_start:
        store.upgrade()
    log.info("database ready", extra={"database": store.url})
    return store
