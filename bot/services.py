"""Everything a surface needs, built once from the settings: the assistant, the stores (one per concern, over
one database: `stores.quiz`, `stores.events`, ...), the quiz engine, and the one thread all model work runs on.

Answering needs only the model and index: the database is opened beside it, retried with backoff until it
answers (`database`), so questions are answered while the database is down or still starting.

Surfaces that serve from an event loop (HTTP, Slack) answer through `answer` (questions asked together
are answered together) and run every other blocking core call through `run`; neither picks a thread.

Answering never waits on the database: what a conversation was about is read with a deadline
(`CONTEXT_TIMEOUT`; past it the message is read alone), and what an answer leaves to record (knowledge
gaps, the conversation's topic) is written after the reply by the bookkeeping (`bot.storage.bookkeeping`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import ParamSpec, TypeVar

from bot.answering.assistant import Answer, Assistant
from bot.answering.batcher import AnswerBatcher
from bot.answering.conversation import MEMORY, Conversation, ConversationMemory, Reading
from bot.answering.in_use import AssistantInUse, TopicsInUse
from bot.answering.knowledge_gaps import KnowledgeGaps
from bot.answering.model_thread import ModelThread
from bot.answering.refresh import KnowledgeRefresh, RefreshStatus, release_freed_memory
from bot.config import Settings
from bot.curation.service import Curation
from bot.embedding.embedder import Embedder
from bot.home import HomeView, home_view
from bot.lang import Lang
from bot.quiz import QuizEngine
from bot.rounds import Rounds, Schedules
from bot.storage import EVENT_MEMORY, Database, Stores
from bot.storage.bookkeeping import Bookkeeping
from bot.storage.retention import Retention
from bot.storage.startup import DatabaseStartup

log = logging.getLogger(__name__)

CONTEXT_TIMEOUT = 0.25  # seconds a conversation's earlier topic may take to read before the message is read alone
CLAIM_TIMEOUT = 1.0  # seconds a Slack event's claim may take in the database before this process decides alone
CLAIMED_IN_PROCESS = 10_000  # event ids this process remembers itself (a redelivery to it is caught without SQL)
ANSWERED_IN_PROCESS = 10_000  # conversations this process answered in lately, known before their record is written
P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True)
class Asked:
    """A message answered: the answer, and how the message was read (alone, or with earlier turns)."""

    answer: Answer
    reading: Reading


@dataclass
class Services:
    settings: Settings
    in_use: AssistantInUse  # the assistant in use: every part reads it, the refresh swaps it
    stores: Stores
    quiz: QuizEngine
    model: ModelThread
    batcher: AnswerBatcher
    rounds: Rounds
    schedules: Schedules
    database: DatabaseStartup
    _stop: threading.Event = field(default_factory=threading.Event)
    gaps: KnowledgeGaps = field(init=False)
    refresh: KnowledgeRefresh | None = None  # changed knowledge taken while serving (`starting` makes it)
    curation: Curation = field(init=False)
    bookkeeping: Bookkeeping = field(init=False, default_factory=Bookkeeping)
    _claimed: _Recent = field(init=False, default_factory=lambda: _Recent(CLAIMED_IN_PROCESS, EVENT_MEMORY))
    _answered: _Recent = field(init=False, default_factory=lambda: _Recent(ANSWERED_IN_PROCESS, MEMORY))
    memory: ConversationMemory = field(init=False)
    retention: Retention = field(init=False)

    def __post_init__(self) -> None:
        self.gaps = KnowledgeGaps(self.stores.gaps, enabled=self.settings.record_gaps,
                                  retention_days=self.settings.gaps_retention_days)
        self.memory = ConversationMemory(self.stores.topics)
        self.retention = Retention(self.stores, self.settings, gaps=self.gaps.prune, topics=self.memory.prune)
        self.curation = Curation(self.stores.entries, self.in_use.knowledge)
        self.in_use.on_swap(_warm)

    @classmethod
    def load(cls, settings: Settings, *, embedder: Embedder | None = None) -> Services:
        """Load the model and index (rebuilding a stale index when the settings allow it), and start opening
        the database in the background (migrating it first when `EKSBOT_MIGRATE_ON_START` is on): it is
        retried with backoff until it answers, and `database` tells meanwhile why it is not ready."""
        return cls.starting(settings, Assistant.from_settings(settings, embedder=embedder, strict=False))

    @classmethod
    def starting(cls, settings: Settings, assistant: Assistant) -> Services:
        """The services over a loaded assistant, the database being opened in the background."""
        database = Database(settings.database_url)
        services = cls.assemble(settings, assistant, database,
                                startup=DatabaseStartup(database, migrate=settings.migrate_on_start))
        threading.Thread(target=services._database_thread, name="database", daemon=True).start()
        _warm(assistant)
        release_freed_memory()  # what loading the index used for a while
        refresh = KnowledgeRefresh(settings.knowledge_dir, services.in_use, model=services.model,
                                   every=settings.knowledge_refresh_seconds, extras=services.curation,
                                   extras_ready=lambda: services.database.ready)
        services.refresh = refresh
        # 0 ("only at start"): the files are not watched, but the entries and notes kept in the database are
        # still taken once it is open, as the knowledge the service starts with.
        run = refresh.run if settings.knowledge_refresh_seconds > 0 else refresh.run_once
        threading.Thread(target=run, args=(services._stop,), name="knowledge", daemon=True).start()
        return services

    def knowledge_status(self) -> RefreshStatus | None:
        """What the reloads of changed knowledge did so far (the metrics); None when nothing watches it."""
        return self.refresh.status if self.refresh is not None else None

    @property
    def assistant(self) -> Assistant:
        """The assistant in use now."""
        return self.in_use.current()

    def _database_thread(self) -> None:
        """Open the database (retried until it answers), then run the retention pass until the services close."""
        if self.database.run(self._stop):
            self.retention.run(self._stop)

    @classmethod
    def assemble(cls, settings: Settings, assistant: Assistant, database: Database, *,
                 startup: DatabaseStartup | None = None, clock: Callable[[], datetime] | None = None) -> Services:
        """The services over a loaded assistant and the stores over `database`; without `startup`, the
        database is taken as opened. `clock` (tests) tells the quiz and the rounds what time it is."""
        model = ModelThread()
        stores = Stores(database)
        in_use = AssistantInUse(assistant)
        quiz = QuizEngine(in_use.knowledge, stores.quiz, topics=TopicsInUse(in_use, model))
        if clock is not None:
            quiz.clock = clock
        rounds = Rounds(quiz, stores.rounds, clock=quiz.clock)
        return cls(settings=settings, in_use=in_use, stores=stores, quiz=quiz, model=model,
                   batcher=AnswerBatcher(in_use, model), rounds=rounds,
                   schedules=Schedules(rounds, stores.rounds, timezone=settings.timezone),
                   database=startup or DatabaseStartup(database, migrate=False, ready=True))

    async def answer(self, question: str, lang: str | None = None) -> Answer:
        """The assistant's answer, computed together with the questions asked meanwhile. Bad input
        (InputError) is refused at once."""
        return await self.batcher.answer(question, lang)

    async def show(self, doc_id: str, number: int, lang: str) -> Answer:
        """The answer of one quiz question or section, named (a suggestion taken): on the model's thread.
        InputError when the knowledge no longer has it."""
        return await self.model.run(self.in_use.current().answer_question, doc_id, number, lang)

    async def ask(self, question: str, lang: str | None = None, *, earlier: Sequence[str] = (),
                  conversation: str | None = None) -> Asked:
        """Answer a message of a conversation: the one call a surface makes.

        The message is read once (`bot.reading.markup.read_message`; a surface that read it first hands it on
        as read), then with the earlier turns (`earlier`, and what `conversation`, an opaque id such as a Slack
        thread's, was about), answered together with the questions asked meanwhile, and its knowledge gaps are
        recorded. After an answer, what the conversation is about is remembered. Bad input (InputError) is
        refused at once; a database failure only loses the context and the gaps."""
        assistant = self.in_use.current()
        reader = Conversation(assistant)
        turns = list(earlier)
        if conversation is not None:
            turns += await self.bookkeeping.within(CONTEXT_TIMEOUT, [], self.memory.earlier, conversation)
        if turns:
            reading = await self.model.run(reader.read, question, turns, lang)
        else:
            reading = reader.read(question, (), lang)  # validation only: no thread needed
        answer = await self.answer(reading.text, reading.language)
        fallback = reader.fallback_for(reading, answer)
        if fallback is not None:  # declined alone: the earlier turns may say what it is about
            again = await self.answer(fallback.text, fallback.language)
            answer, reading = await self.model.run(reader.settle, reading, answer, again)
        if self.gaps.shows_gap(answer):  # most answers show none: nothing to write
            self.bookkeeping.later(self.gaps.record_answer, question, answer)  # the person's words, not the reading
        if conversation is not None:
            topic = await self.model.run(reading.topic, assistant) if answer.answered else None
            self._answered.add(conversation)
            self.bookkeeping.later(self.memory.remember, conversation, reading, topic)
        return Asked(answer, reading)

    async def claim_event(self, key: str) -> bool:
        """Whether this process should handle a Slack event (`key`: its id, or a message's channel and ts): once
        across every replica (the database), and once in this process even when the database cannot say
        (a redelivery while it is slow or down is then caught here, not answered twice)."""
        if not self._claimed.add(key):
            return False
        unknown = object()
        claimed = await self.bookkeeping.within(CLAIM_TIMEOUT, unknown, self.stores.events.claim, key)
        return True if claimed is unknown else bool(claimed)

    async def answered_in(self, conversation: str) -> bool:
        """Whether the bot answered in this conversation lately (a thread of its own): this process knows its
        own answers at once (a reply may come before their record is written); the database tells of the
        other replicas'. False when it cannot say within `CONTEXT_TIMEOUT` (then only messages that mention
        the bot are answered)."""
        if conversation in self._answered:
            return True
        return bool(await self.bookkeeping.within(CONTEXT_TIMEOUT, False, self.memory.knows, conversation))

    async def home(self, user: str, *, team: str, lang: Lang, maintainer: bool) -> HomeView:
        """What the person's Home shows (with the knowledge gaps and hardest questions for maintainers)."""
        if maintainer:
            await self.run(self.bookkeeping.settle)  # the gaps of the answers already given
        return await self.run(home_view, self.quiz, self.gaps, user=user, team=team, lang=lang,
                              maintainer=maintainer)

    async def run(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a blocking core call (quiz, storage) off the event loop. What in it uses the model (a
        free-text quiz topic) goes on to the model's thread by itself."""
        return await asyncio.to_thread(fn, *args, **kwargs)

    def check_database(self) -> None:
        """Raise StorageUnavailableError unless the database has been opened and takes a write now."""
        self.database.require()
        self.stores.database.check_writable()

    def close(self) -> None:
        self._stop.set()
        self.bookkeeping.close()
        self.model.close()
        self.stores.database.close()


def _warm(assistant: Assistant) -> None:
    """Build what the assistant's first questions would otherwise build on their way, on a thread of its own."""
    threading.Thread(target=assistant.warm, name="warm", daemon=True).start()


class _Recent:
    """Keys this process saw lately: at most `size`, each for `memory` (the oldest go first). Thread-safe."""

    def __init__(self, size: int, memory: timedelta) -> None:
        self._size, self._seconds = size, memory.total_seconds()
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, key: str) -> bool:
        """Remember `key` (from now on); False when it was already remembered."""
        with self._lock:
            self._forget_old()
            new = key not in self._seen
            self._seen[key] = time.monotonic()
            self._seen.move_to_end(key)
            return new

    def __contains__(self, key: object) -> bool:
        with self._lock:
            self._forget_old()
            return key in self._seen

    def _forget_old(self) -> None:
        now = time.monotonic()
        while self._seen and (len(self._seen) >= self._size
                              or now - next(iter(self._seen.values())) > self._seconds):
            self._seen.popitem(last=False)
