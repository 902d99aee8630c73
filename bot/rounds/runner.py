"""Taking rounds' steps: post, show the answered count, reveal; and the background loop that does it.

`RoundWork` is what a surface calls, once per request (start a round and post it, end it and reveal it,
grade a click and show the count), and what the runner calls to take due steps. It takes each step through
a `Publisher` (the Slack surface implements it) after claiming it with a lease, so exactly one process or
replica posts a round and reveals it. Database calls run off the event
loop (`offload`, the services' `run`). A channel Slack refuses for good (`ChannelError`: gone, or the bot
left) ends the round with one log line and pauses its schedule; any other failure gives the lease back
for a later try. A round posted again after such a try (or after a crash between Slack accepting its
message and the database recording it) is first looked for in the channel (`Publisher.find`): found, it is
recorded as posted and not posted twice.

`RoundRunner` runs inside the server process (HTTP mode or Socket Mode): every `poll` seconds it turns due
schedules into rounds and takes every due step. While the database is unavailable it logs that once,
waits longer between tries, and says when it is back. `stop()` ends it cleanly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Literal, ParamSpec, Protocol, TypeVar

from bot.errors import ChannelError, QuizError, StorageError
from bot.quiz import QuizResult
from bot.rounds.lifecycle import Rounds
from bot.rounds.models import Posted, Reveal, RoundView
from bot.rounds.schedules import Schedules
from bot.storage import Claim, RoundRecord

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")
MAX_BACKOFF = 30.0
CLOCK_SKEW = timedelta(minutes=1)  # how far Slack's clock may be behind this process's, when looking back
Outcome = Literal["done", "channel", "retry"]


class Offload(Protocol):
    def __call__(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Awaitable[T]: ...


class Publisher(Protocol):
    """Where rounds are shown. Each method raises ChannelError when the channel refuses for good."""

    async def post(self, view: RoundView) -> str:
        """Post the round's message, tagged with the round's id; returns its id (Slack's ts)."""
        ...

    async def find(self, view: RoundView, *, since: datetime) -> Posted | None:
        """The round's message if it is in the channel already, posted since `since`; None when it is not,
        or when the channel could not be read (then it is posted: a round is never held back by this)."""
        ...

    async def show(self, view: RoundView) -> None:
        """Show the round's message again as `view` says (its answered count, or closed)."""
        ...

    async def reveal(self, reveal: Reveal) -> None:
        """Post the round's end: answers, distributions, explanations and leaderboard."""
        ...


class RoundWork:
    def __init__(self, rounds: Rounds, schedules: Schedules, publisher: Publisher, offload: Offload) -> None:
        self.rounds = rounds
        self.schedules = schedules
        self.publisher = publisher
        self.offload = offload

    # -- what a person asks for (one call each) ------------------------------------------------------

    async def start(self, *, team: str, channel: str, user: str, lang: str, count: int, topic: str | None,
                    minutes: int) -> tuple[RoundRecord, Outcome]:
        """Start a round (see `Rounds.start`) and post it now. With "channel", the round ended and its
        `end_reason` is Slack's error; with "retry", the runner posts it shortly."""
        record = await self.offload(self.rounds.start, team=team, channel=channel, user=user, lang=lang, count=count,
                                    topic=topic, minutes=minutes)
        outcome = await self.take(Claim("post", record, 0), first=True)
        if outcome == "channel":
            ended = await self.offload(self.rounds.store.get, record.id)
            record = ended or record
        return record, outcome

    async def end(self, *, team: str, channel: str, user: str, lang: str, admins: frozenset[str]) -> RoundRecord:
        """End the channel's round now (see `Rounds.end`) and reveal it."""
        record = await self.offload(self.rounds.end, team=team, channel=channel, user=user, admins=admins, lang=lang)
        await self.due(only=record.id)
        return record

    async def answer(self, *, round_id: str, position: int, user: str, letter: str,
                     lang: str | None = None) -> QuizResult:
        """Grade a click (see `Rounds.answer`: a second one returns the first result), then show the round's
        answered count when it is due."""
        result = await self.offload(self.rounds.answer, round_id=round_id, position=position, user=user,
                                    letter=letter, lang=lang)
        try:
            await self.due(only=round_id)
        except Exception as exc:  # noqa: BLE001 - the runner shows the count later
            log.info("the answered count waits for the runner: %s", exc.__class__.__name__)
        return result

    # -- the steps -------------------------------------------------------------------------------------

    async def due(self, *, only: str | None = None) -> int:
        """Take every step due now (for one round, with `only`); returns how many were taken."""
        if only is None:
            await self.offload(self.schedules.fire)
        claims = await self.offload(self.rounds.claim, only=only)
        for claim in claims:
            await self.take(claim)
        return len(claims)

    async def take(self, claim: Claim, *, first: bool = False) -> Outcome:
        """Take a claimed step: "done"; "channel" when the channel refused and the round ended; "retry"
        when Slack failed otherwise (the lease is given back for a later try). `first`: a round this process
        has just created, which nobody can have posted yet."""
        try:
            if claim.kind == "post":
                await self.post(claim.round, first=first)
            elif claim.kind == "count":
                await self._show_count(claim)
            else:
                await self._reveal(claim.round)
        except ChannelError:
            return "channel"  # the round has ended and the log says why
        except StorageError:
            raise
        except Exception as exc:  # noqa: BLE001 - Slack or the network: try again later
            log.warning("a round's %s step failed, to be tried again: %s", claim.kind, exc.__class__.__name__,
                        extra={"round": claim.round.id})
            await self.offload(self.rounds.release, claim.round, show_again=claim.kind == "count")
            return "retry"
        return "done"

    async def post(self, record: RoundRecord, *, first: bool = False) -> RoundRecord:
        """Post a round leased to this process. ChannelError after ending it when the channel refuses.

        Unless it is its `first` try, or a scheduled round whose questions were never chosen (they are chosen
        and kept before its message is posted), an earlier try may have reached Slack without its message's
        ts reaching the database: the round's message is looked for first, and a message found is the round's."""
        maybe_posted = not first and bool(record.questions)
        if await self.offload(self.rounds.too_late, record):
            await self.offload(self.rounds.failed, record, "not_posted", pause=False)
            log.warning("a round was not posted in time and is dropped", extra={"round": record.id})
            return record
        try:
            prepared = await self.offload(self.rounds.prepare, record)
        except QuizError as exc:  # a scheduled round whose topic has no question left
            await self.offload(self.rounds.failed, record, "no_questions", pause=False)
            log.warning("a scheduled round has no questions to ask: %s", exc.__class__.__name__,
                        extra={"round": record.id})
            return record
        view = await self.offload(self.rounds.view, prepared, people=0)
        found = await self.publisher.find(view, since=_start(record)) if maybe_posted else None
        if found is not None:
            log.info("a round's message was already in the channel: it is not posted again",
                     extra={"round": record.id})
            return await self.offload(self.rounds.opened, prepared, found.ts, found.ends_at or view.ends_at)
        ts = await self._guarded(prepared, self.publisher.post(view))
        return await self.offload(self.rounds.opened, prepared, ts, view.ends_at)

    async def _show_count(self, claim: Claim) -> None:
        view = await self.offload(self.rounds.view, claim.round, people=claim.people)
        await self._guarded(claim.round, self.publisher.show(view))
        await self.offload(self.rounds.release, claim.round)

    async def _reveal(self, record: RoundRecord) -> None:
        reveal = await self.offload(self.rounds.reveal, record)
        try:
            await self._guarded(record, self.publisher.show(reveal.round))  # the buttons go
        except ChannelError:
            raise
        except Exception as exc:  # noqa: BLE001 - e.g. the message was deleted: the reveal still goes out
            log.info("a round's message could not be closed: %s", exc.__class__.__name__, extra={"round": record.id})
        await self._guarded(record, self.publisher.reveal(reveal))
        await self.offload(self.rounds.closed, record)

    async def _guarded(self, record: RoundRecord, call: Awaitable[T]) -> T:
        try:
            return await call
        except ChannelError as exc:
            paused = await self.offload(self.rounds.failed, record, exc.code, pause=True)
            log.warning("a round ended: Slack refused its channel (%s)%s", exc.code,
                        "; its schedule is paused" if paused else "",
                        extra={"round": record.id, "channel": record.channel})
            raise


def _start(record: RoundRecord) -> datetime:
    """When a round's message can have been posted at the earliest."""
    return min(record.created_at, record.post_at) - CLOCK_SKEW


class RoundRunner:
    """The background task of a server process that keeps rounds on time."""

    def __init__(self, get_work: Callable[[], RoundWork | None], *, poll: float) -> None:
        self.get_work = get_work
        self.poll = poll
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._failures = 0

    def start(self) -> None:
        self._stop.clear()
        self._task = asyncio.create_task(self.run(), name="round-runner")

    async def stop(self, timeout: float = 10.0) -> None:
        """Let the current step finish (up to `timeout` seconds), then end."""
        self._stop.set()
        if self._task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._task = None

    async def run(self) -> None:
        delay = self.poll
        while not self._stop.is_set():
            delay = await self.tick()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), delay)

    async def tick(self) -> float:
        """One pass; returns how long to wait before the next."""
        work = self.get_work()
        if work is None:  # still starting
            return self.poll
        try:
            await work.due()
        except StorageError as exc:
            if not self._failures:
                log.warning("rounds wait for the database: %s", exc)
            self._failures += 1
            return min(MAX_BACKOFF, self.poll * 2 ** min(self._failures, 10))
        except Exception:  # noqa: BLE001 - keep the loop alive; the traceback is logged
            log.exception("the round runner failed; it goes on")
            return self.poll
        if self._failures:
            log.info("rounds: the database is back")
            self._failures = 0
        return self.poll
