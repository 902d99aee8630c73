"""Everything a surface needs, built once from the settings: the assistant, storage and quiz engine, and
the one thread all model work runs on.

Surfaces that serve from an event loop (HTTP, Slack) answer through `answer` (questions asked together
are answered together) and run every other blocking core call through `run`; neither picks a thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

from bot.answers import Answer, Assistant
from bot.batcher import AnswerBatcher
from bot.config import Settings
from bot.conversation import Conversation, ConversationMemory, Reading
from bot.embeddings import Embedder
from bot.home import HomeView, home_view
from bot.knowledge_gaps import KnowledgeGaps
from bot.lang import Lang
from bot.model_thread import ModelThread
from bot.quiz import QuizEngine
from bot.storage import Store, open_store

P = ParamSpec("P")
T = TypeVar("T")
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Asked:
    """A message answered: the answer, and how the message was read (alone, or with earlier turns)."""

    answer: Answer
    reading: Reading


@dataclass
class Services:
    settings: Settings
    assistant: Assistant
    store: Store
    quiz: QuizEngine
    model: ModelThread
    batcher: AnswerBatcher
    gaps: KnowledgeGaps = field(init=False)
    conversation: Conversation = field(init=False)
    memory: ConversationMemory = field(init=False)

    def __post_init__(self) -> None:
        self.gaps = KnowledgeGaps(self.store, enabled=self.settings.record_gaps,
                                  retention_days=self.settings.gaps_retention_days)
        self.conversation = Conversation(self.assistant)
        self.memory = ConversationMemory(self.store)

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

    async def ask(self, question: str, lang: str | None = None, *, earlier: Sequence[str] = (),
                  conversation: str | None = None) -> Asked:
        """Answer a message of a conversation: the one call a surface makes.

        The message is read with the earlier turns (`earlier`, and what `conversation`, an opaque id such
        as a Slack thread's, was about), answered together with the questions asked meanwhile, and its
        knowledge gaps are recorded. After an answer, what the conversation is about is remembered. Bad input
        (InputError) is refused at once; a database failure only loses the context and the gaps."""
        turns = list(earlier)
        if conversation is not None:
            turns += await self._quietly([], self.memory.earlier, conversation)
        if turns:
            reading = await self.run(self.conversation.read, question, turns, lang)
        else:
            reading = self.conversation.read(question, (), lang)  # validation only: no thread needed
        answer = await self.answer(reading.text, reading.language)
        await self._quietly(None, self.gaps.record_answer, reading.text, answer)
        if conversation is not None:
            topic = await self.run(reading.topic, self.assistant) if answer.answered else None
            await self._quietly(None, self.memory.remember, conversation, reading, topic)
        return Asked(answer, reading)

    async def home(self, user: str, *, team: str, lang: Lang, maintainer: bool) -> HomeView:
        """What the person's Home shows (with the knowledge gaps and hardest questions for maintainers)."""
        return await self.run(home_view, self.quiz, self.gaps, user=user, team=team, lang=lang,
                              maintainer=maintainer)

    async def _quietly(self, default: T, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """A storage call the answer does not depend on, off the event loop; its failure is logged."""
        try:
            return await self.run(fn, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the answer matters more than the bookkeeping
            log.warning("%s failed: %s", getattr(fn, "__name__", "storage call"), exc.__class__.__name__)
            return default

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

