"""The wiring: every part a surface needs, built once from the settings, and closed once.

`Services` is what a server runs on (HTTP, Slack): the assistant in use (`in_use`), the stores over one database
(`stores.quiz`, `stores.events`, ...), the quiz engine and the team rounds, the one thread all model work runs
on, the answers (`answers`), the de-duplication of Slack deliveries (`claims`), the App Home (`home`), the
maintainers' changes (`curation`), the bookkeeping writes (`bookkeeping`), the retention pass (`retention`) and
the refresh of changed knowledge. Each part is in the package of its concern; nothing here decides anything.

Answering needs only the model and index: the database is opened beside it, retried with backoff until it
answers (`database`), so questions are answered while the database is down or still starting. Every index build
(a stale index at start, a change of knowledge, `eksbot index build`) reads from the database the vectors some
replica embedded before, and keeps there those it embeds (`shared_vectors`); a database that fails or is slow
only costs the build the embedding it would have done without it.

`CommandServices` is what a command of `eksbot` runs on: the database, its stores, the knowledge (the files
with the entries and notes of the database), the quiz engine and the assistant, each built when first asked for.
What only a server or the assistant needs (the answers, the index, the watching of the files) is imported when
one is built, so that a command that needs neither (`eksbot db`, `gaps`, `knowledge`, `quiz`) loads none of it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from bot.answering.knowledge_gaps import KnowledgeGaps
from bot.answering.model_thread import ModelThread
from bot.config import Settings
from bot.curation.service import Curation
from bot.home import Home
from bot.knowledge import KnowledgeBase, load_knowledge
from bot.knowledge.entries import with_entries
from bot.quiz import QuizEngine, TopicMatcher
from bot.quiz.topics import names_a_topic
from bot.rounds import Rounds, Schedules
from bot.storage import Database, Stores, VectorRow, VectorStore, never_created, open_database
from bot.storage.bookkeeping import Bookkeeping
from bot.storage.retention import Retention
from bot.storage.startup import DatabaseStartup

if TYPE_CHECKING:
    from bot.answering.assistant import Assistant
    from bot.answering.refresh import KnowledgeRefresh, RefreshStatus
    from bot.embedding.embedder import Embedder
    from bot.knowledge.git_sync import SyncState
    from bot.retrieval.shared_vectors import SharedVectors

CLOSE_WAIT = 5.0  # seconds `close` waits for the services' threads, in all
P = ParamSpec("P")
T = TypeVar("T")


class Services:
    """The parts of a server, over a loaded assistant and the stores over `database`; without `startup`, the
    database is taken as opened. `clock` (tests) tells the quiz and the rounds what time it is."""

    def __init__(self, settings: Settings, assistant: Assistant, database: Database, *,
                 startup: DatabaseStartup | None = None, clock: Callable[[], datetime] | None = None) -> None:
        from bot.answering.answers import Answers
        from bot.answering.batcher import AnswerBatcher
        from bot.answering.claims import EventClaims
        from bot.answering.conversation import ConversationMemory
        from bot.answering.in_use import AssistantInUse, TopicsInUse

        self.settings = settings
        self.in_use = AssistantInUse(assistant)
        self.in_use.on_swap(_warm)
        self.model = ModelThread()
        self.stores = Stores(database)
        self.database = startup or DatabaseStartup(database, migrate=False, ready=True)
        self.bookkeeping = Bookkeeping()
        self.quiz = QuizEngine(self.in_use.knowledge, self.stores.quiz, topics=TopicsInUse(self.in_use, self.model))
        if clock is not None:
            self.quiz.clock = clock
        self.rounds = Rounds(self.quiz, self.stores.rounds, clock=self.quiz.clock)
        self.schedules = Schedules(self.rounds, self.stores.rounds, timezone=settings.timezone)
        self.gaps = KnowledgeGaps.from_settings(self.stores.gaps, settings)
        self.memory = ConversationMemory(self.stores.topics)
        self.claims = EventClaims(self.stores.events, self.memory, self.bookkeeping)
        self.batcher = AnswerBatcher(self.in_use, self.model)
        self.answers = Answers(self.in_use, self.model, self.batcher, self.memory, self.gaps, self.bookkeeping,
                               self.claims)
        self.home = Home(self.quiz, self.gaps, self.bookkeeping)
        self.curation = Curation(self.stores.entries, self.in_use.knowledge)
        self.retention = Retention(self.stores, settings, gaps=self.gaps.prune, topics=self.memory.prune)
        self.refresh: KnowledgeRefresh | None = None  # changed knowledge taken while serving (`starting` makes it)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    @classmethod
    def assemble(cls, settings: Settings, assistant: Assistant, database: Database, *,
                 startup: DatabaseStartup | None = None, clock: Callable[[], datetime] | None = None) -> Services:
        """The services over a loaded assistant, with no thread of their own (tests, benchmarks)."""
        return cls(settings, assistant, database, startup=startup, clock=clock)

    @classmethod
    def load(cls, settings: Settings, *, embedder: Embedder | None = None) -> Services:
        """Load the model and index (rebuilding a stale index when the settings allow it), and start opening
        the database in the background (migrating it first when `EKSBOT_MIGRATE_ON_START` is on): it is
        retried with backoff until it answers, and `database` tells meanwhile why it is not ready."""
        from bot.answering.assistant import Assistant

        database = Database(settings.database_url)
        try:
            assistant = Assistant.from_settings(settings, embedder=embedder, strict=False,
                                                shared=shared_vectors(settings, lambda: database))
        except BaseException:
            database.close()
            raise
        return cls.starting(settings, assistant, database=database)

    @classmethod
    def starting(cls, settings: Settings, assistant: Assistant, *, database: Database | None = None) -> Services:
        """The services over a loaded assistant, with their threads: the database's (opened in the background,
        then the retention pass) and the knowledge's refresh."""
        from bot.answering.refresh import KnowledgeRefresh, release_freed_memory

        database = database or Database(settings.database_url)
        services = cls(settings, assistant, database,
                       startup=DatabaseStartup(database, migrate=settings.migrate_on_start))
        services._start("database", services._open_then_prune)
        _warm(assistant)
        release_freed_memory()  # what loading the index used for a while
        refresh = KnowledgeRefresh(settings.knowledge_dir, services.in_use, model=services.model,
                                   every=settings.knowledge_refresh_seconds, extras=services.curation,
                                   extras_ready=lambda: services.database.ready,
                                   shared=shared_vectors(settings, lambda: database))
        services.refresh = refresh
        # 0 ("only at start"): the files are not watched, but the entries and notes kept in the database are
        # still taken once it is open, as the knowledge the service starts with.
        services._start("knowledge", refresh.run if settings.knowledge_refresh_seconds > 0 else refresh.run_once)
        return services

    @property
    def assistant(self) -> Assistant:
        """The assistant in use now."""
        return self.in_use.current()

    def knowledge_status(self) -> RefreshStatus | None:
        """What the reloads of changed knowledge did so far (the metrics); None when nothing watches it."""
        return self.refresh.status if self.refresh is not None else None

    def knowledge_revision(self) -> dict[str, str]:
        """The git-sync revision served of each folder synced (`{"team-docs": "<sha>"}`); empty when none is."""
        return dict(self.refresh.status.revision) if self.refresh is not None else self.in_use.knowledge().revision

    def knowledge_sync(self) -> dict[str, SyncState]:
        """Whether each git-sync folder served can be synced now (`bot.knowledge.git_sync`); empty when none is."""
        return dict(self.refresh.status.sync) if self.refresh is not None else {}

    async def run(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a blocking core call (quiz, storage) off the event loop. What in it uses the model (a
        free-text quiz topic) goes on to the model's thread by itself."""
        return await asyncio.to_thread(fn, *args, **kwargs)

    def close(self) -> None:
        """Stop the services' threads (the model's first, so that a reload under way stops at its next model
        call) and wait for them and for the bookkeeping writes under way, at most `CLOSE_WAIT` seconds in all;
        then close the database."""
        self._stop.set()
        self.model.close()  # a reload under way stops at its next model call
        deadline = time.monotonic() + CLOSE_WAIT
        self.bookkeeping.close(timeout=CLOSE_WAIT)
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self.stores.database.close()

    def _start(self, name: str, run: Callable[[threading.Event], object]) -> None:
        thread = threading.Thread(target=run, args=(self._stop,), name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _open_then_prune(self, stop: threading.Event) -> None:
        """Open the database (retried until it answers), then run the retention pass until the services close."""
        if self.database.run(stop):
            self.retention.run(stop)


def shared_vectors(settings: Settings, database: Callable[[], Database]) -> SharedVectors | None:
    """The vectors the replicas keep in the database (`database()`, called when an index build first asks), for
    the index builds; None when the settings turn the sharing off."""
    if not settings.share_vectors:
        return None
    from bot.retrieval.shared_vectors import SharedVectors

    return SharedVectors(_DatabaseVectors(database), timeout=settings.share_vectors_timeout)


class _DatabaseVectors:
    """The `VectorStore` of a database opened when a build first asks for a vector: a command whose index is
    fresh never opens it."""

    def __init__(self, database: Callable[[], Database]) -> None:
        self._database = database

    def vectors(self, model: str, digests: Sequence[str]) -> list[VectorRow]:
        return VectorStore(self._database()).vectors(model, digests)

    def keep(self, model: str, rows: Sequence[tuple[str, int, bytes]]) -> None:
        VectorStore(self._database()).keep(model, rows)


def _warm(assistant: Assistant) -> None:
    """Build what the assistant's first questions would otherwise build on their way, on a thread of its own."""
    threading.Thread(target=assistant.warm, name="warm", daemon=True).start()


class CommandServices:
    """The parts of a command of `eksbot`, each built from the settings when first asked for, and closed once
    (`with CommandServices(settings) as services:`). The database is migrated first when `EKSBOT_MIGRATE_ON_START`
    says so; with `migrate=False` it is opened as it is (`eksbot db` tells its revision, `eksbot ask` only reads)."""

    def __init__(self, settings: Settings, *, migrate: bool = True) -> None:
        self.settings = settings
        self.migrate = migrate
        self._files: KnowledgeBase | None = None
        self._knowledge: KnowledgeBase | None = None

    def __enter__(self) -> CommandServices:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @cached_property
    def database(self) -> Database:
        """The database the settings name."""
        return open_database(self.settings) if self.migrate else Database(self.settings.database_url)

    @cached_property
    def stores(self) -> Stores:
        return Stores(self.database)

    @cached_property
    def curation(self) -> Curation:
        """The maintainers' changes; a note is attached to a question of `knowledge`."""
        return Curation(self.stores.entries, self.knowledge)

    @cached_property
    def gaps(self) -> KnowledgeGaps:
        return KnowledgeGaps.from_settings(self.stores.gaps, self.settings)

    @cached_property
    def assistant(self) -> Assistant:
        """The assistant over the knowledge files and the index (the model is loaded)."""
        from bot.answering.assistant import Assistant

        return Assistant.from_settings(self.settings, shared=self.shared_vectors())

    def files(self) -> KnowledgeBase:
        """The knowledge files, read once (the assistant's, when it is loaded already)."""
        if self._files is None:
            loaded = "assistant" in self.__dict__
            self._files = self.assistant.knowledge if loaded else load_knowledge(self.settings.knowledge_dir)
        return self._files

    def knowledge(self) -> KnowledgeBase:
        """The knowledge a server answers from: the files with the entries and notes of the database, read once."""
        if self._knowledge is None:
            _, entries, notes = self.curation.snapshot()
            self._knowledge = with_entries(self.files(), entries, notes)
        return self._knowledge

    def answering(self) -> Assistant:
        """The assistant over the knowledge a server answers from (`knowledge`); over the files alone when no
        database was ever made (none is made here). StorageError when the database cannot be read now."""
        if never_created(self.settings.database_url):
            return self.assistant
        return self.assistant.with_knowledge(self.knowledge(), shared=self.shared_vectors())

    def shared_vectors(self) -> SharedVectors | None:
        """The vectors kept in the database, for an index build (`shared_vectors`); the database is opened when
        the build first asks. None where no database was ever made: a command does not make one for this."""
        if never_created(self.settings.database_url):
            return None
        return shared_vectors(self.settings, lambda: self.database)

    def quiz(self, topic: str | None = None) -> QuizEngine:
        """The quiz engine over the knowledge, with the assistant as topic matcher only when `topic` names no
        quiz topic (the model is then loaded)."""
        knowledge = self.knowledge()
        matcher: TopicMatcher | None = None
        if topic and topic.strip() and not names_a_topic(knowledge, topic):
            matcher = self.assistant
        return QuizEngine(knowledge, self.stores.quiz, topics=matcher)

    def close(self) -> None:
        """Close the database, if it was opened."""
        if "database" in self.__dict__:
            self.database.close()
