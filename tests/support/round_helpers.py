"""Helpers for the team round tests: rounds over a real store, the letter a round shows for the right (or a
wrong) answer, and a Publisher that records what it was asked to show."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from bot.errors import ChannelError
from bot.quiz import QuizEngine
from bot.quiz.engine import letters
from bot.rounds import Posted, Reveal, Rounds, RoundView, RoundWork, Schedules
from bot.storage import Database, QuizStore, RoundRecord, RoundStore
from tests.support.quiz_helpers import Clock, knowledge


@dataclass
class Kit:
    store: QuizStore
    rounds: Rounds
    schedules: Schedules

    def close(self) -> None:
        self.store.database.close()


def kit(url: str, clock: Clock, *, seed: int = 7, owner: str | None = None, timezone: str = "UTC") -> Kit:
    """Rounds and schedules on their own connection to `url` (one per process or replica in a test)."""
    database = Database(url, clock=clock)
    database.upgrade()
    quiz = QuizEngine(knowledge(), QuizStore(database), clock=clock, rng=random.Random(seed))
    rounds = Rounds(quiz, RoundStore(database), clock=clock, rng=random.Random(seed), owner=owner)
    return Kit(quiz.store, rounds, Schedules(rounds, RoundStore(database), timezone=timezone))


def letter_for(record: RoundRecord, position: int, *, right: bool = True) -> str:
    """The letter under which the round shows the right answer of a question (or the first wrong one)."""
    shown = record.questions[position]
    answer = knowledge().question(shown.doc_id, shown.question, record.lang).answer
    assert answer is not None
    keys = list(shown.option_order)
    index = keys.index(answer) if right else next(i for i, k in enumerate(keys) if k != answer)
    return letters(len(keys))[index]


@dataclass
class RecordingPublisher:
    """A Publisher that keeps what it was asked to show; `refuse` makes it answer like a channel Slack
    refuses (ChannelError with that code). `find` finds what it posted (as Slack's history does), and keeps
    the rounds it was asked to look for in `looked`; `lose_next` makes the next post reach the channel but
    its caller not (as when the process crashed then)."""

    posted: list[RoundView] = field(default_factory=list)
    shown: list[RoundView] = field(default_factory=list)
    revealed: list[Reveal] = field(default_factory=list)
    looked: list[str] = field(default_factory=list)
    refuse: str | None = None
    lose_next: bool = False

    async def post(self, view: RoundView) -> str:
        self._check()
        self.posted.append(view)
        if self.lose_next:
            self.lose_next = False
            raise ConnectionError("the answer to the post was lost")
        return self._ts(len(self.posted))

    async def find(self, view: RoundView, *, since: datetime) -> Posted | None:
        self.looked.append(view.id)
        for i, posted in enumerate(self.posted, 1):
            if posted.id == view.id:
                return Posted(self._ts(i), posted.ends_at.replace(microsecond=0))
        return None

    @staticmethod
    def _ts(number: int) -> str:
        return f"1700000000.{number:06d}"

    async def show(self, view: RoundView) -> None:
        self._check()
        self.shown.append(view)

    async def reveal(self, reveal: Reveal) -> None:
        self._check()
        self.revealed.append(reveal)

    def _check(self) -> None:
        if self.refuse:
            raise ChannelError(self.refuse)


# -- the real application, served, with rounds -------------------------------------------------------


@contextmanager
def round_server(settings: Any, assistant: Any, url: str, fake: Any, clock: Clock, *, admins: str = "",
                 poll: float = 0.05) -> Iterator[Any]:
    """The real FastAPI app (Slack on, its round runner polling every `poll` s) on its own connection to
    the database at `url`, with the test's clock: one process, or one replica, of the service."""
    from bot.api import create_app
    from bot.services import Services
    from tests.support.slack_fake import serve, slack_settings

    configured = slack_settings(settings, fake).model_copy(update={
        "rounds_poll_seconds": poll, "admins_raw": admins, "database_url": url,
    })
    database = Database(url, clock=clock)
    database.upgrade()
    services = Services.assemble(configured, assistant, database, clock=clock)
    try:
        with serve(create_app(configured, services=services), fake) as sender:
            yield sender
    finally:
        services.close()


T = TypeVar("T")


async def offload(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run a blocking core call on a thread, as the services do."""
    return await asyncio.to_thread(fn, *args, **kwargs)


def work(k: Kit, publisher: RecordingPublisher) -> RoundWork:
    """The round steps over the kit, posting through `publisher`."""
    return RoundWork(k.rounds, k.schedules, publisher, offload)
