"""Everything a surface needs, built once from the settings: the assistant, storage and quiz engine, and
the one thread all model work runs on.

Surfaces that serve from an event loop (HTTP, Slack) answer through `answer` (questions asked together
are answered together) and run every other blocking core call through `run`; neither picks a thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

from bot.answers import Answer, Assistant
from bot.batcher import AnswerBatcher
from bot.config import Settings
from bot.embeddings import Embedder
from bot.model_thread import ModelThread
from bot.quiz import QuizEngine
from bot.storage import Store, open_store

P = ParamSpec("P")
T = TypeVar("T")


@dataclass
class Services:
    settings: Settings
    assistant: Assistant
    store: Store
    quiz: QuizEngine
    model: ModelThread
    batcher: AnswerBatcher

    @classmethod
    def load(cls, settings: Settings, *, embedder: Embedder | None = None) -> Services:
        """Load the model and index (rebuilding a stale index when the settings allow it) and open the
        database (migrating it first when `EKSBOT_MIGRATE_ON_START` is on)."""
        store = open_store(settings)
        assistant = Assistant.from_settings(settings, embedder=embedder)
        return cls.assemble(settings, assistant, store)

    @classmethod
    def assemble(cls, settings: Settings, assistant: Assistant, store: Store) -> Services:
        model = ModelThread()
        quiz = QuizEngine(assistant.knowledge, store, topics=_TopicsOnModelThread(assistant, model))
        return cls(settings=settings, assistant=assistant, store=store, quiz=quiz, model=model,
                   batcher=AnswerBatcher(assistant, model))

    async def answer(self, question: str, lang: str | None = None) -> Answer:
        """The assistant's answer, computed together with the questions asked meanwhile. Bad input
        (InputError) is refused at once."""
        return await self.batcher.answer(question, lang)

    async def run(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a blocking core call (quiz, storage) off the event loop. What in it uses the model (a
        free-text quiz topic) goes on to the model's thread by itself."""
        return await asyncio.to_thread(fn, *args, **kwargs)

    def check_ready(self) -> None:
        """Raise when a dependency is not usable (the readiness probe's question)."""
        self.store.ping()

    def close(self) -> None:
        self.model.close()
        self.store.close()


class _TopicsOnModelThread:
    """The assistant's topic matching, which encodes the topic, on the model's thread."""

    def __init__(self, assistant: Assistant, model: ModelThread) -> None:
        self.assistant = assistant
        self.model = model

    def match_topic(self, topic: str, lang: str) -> list[tuple[str, int]]:
        return self.model.call(self.assistant.match_topic, topic, lang)

