"""`Bookkeeping`: what answers leave to record in the database, written after the reply on threads of its own.

Answering never waits on the database. What an answer leaves to record (knowledge gaps, a conversation's topic)
is written later (`later`) on `BOOKKEEPING_THREADS` threads, and dropped when `BOOKKEEPING_BACKLOG` writes are
already waiting (the database is behind). A read an answer can do without (a conversation's earlier topic, a
Slack event's claim) runs on the same threads with a deadline (`within`): past it the answer goes on without it,
and the answers after it do not wait again: until that read or a write comes back (or `RETRY_READS_AFTER` seconds
pass), reads are given up at once. A stalled database therefore holds neither the answer nor the threads other
requests need, and one that comes back is read again without a restart. Trouble is logged
at most every `WARN_EVERY` seconds per kind, so an outage is not a flood.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

log = logging.getLogger(__name__)

BOOKKEEPING_THREADS = 2  # threads that write what answers leave to record (gaps, topics)
BOOKKEEPING_BACKLOG = 256  # writes waiting at most; past it new ones are dropped (the database is behind)
WARN_EVERY = 60.0  # seconds between two warnings about the same bookkeeping trouble
RETRY_READS_AFTER = 5.0  # seconds after a read past its deadline before reads wait on the database again

P = ParamSpec("P")
T = TypeVar("T")


class Bookkeeping:
    """The bounded pool of threads that write what answers leave to record, and read what they can do without."""

    def __init__(self, threads: int = BOOKKEEPING_THREADS, backlog: int = BOOKKEEPING_BACKLOG) -> None:
        self.backlog = backlog
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="bookkeeping")
        self._pending = 0
        self._pending_lock = threading.Lock()
        self._warned: dict[str, float] = {}
        self._slow_until = 0.0  # reads are given up at once before this (monotonic); a call that returns clears it
        self._returned = 0  # calls that have returned from the database
        self._state_lock = threading.Lock()

    def _came_back(self) -> None:
        with self._state_lock:
            self._returned += 1
            self._slow_until = 0.0

    def _slow(self, returned_before: int) -> None:
        """A read ran past its deadline: reads are given up at once for a while, unless some call has returned
        since it began (then the database answers and only that read was slow)."""
        with self._state_lock:
            if self._returned == returned_before:
                self._slow_until = time.monotonic() + RETRY_READS_AFTER

    def later(self, fn: Callable[P, object], /, *args: P.args, **kwargs: P.kwargs) -> Future[object] | None:
        """Write something an answer leaves to record, after the reply and off the answering threads; dropped
        (None) when the database is too far behind. Its failure is logged, never raised."""
        name = getattr(fn, "__name__", "a write")
        with self._pending_lock:
            if self._pending >= self.backlog:
                self.warn("backlog", "database behind: %s dropped", name)
                return None
            self._pending += 1

        def write() -> object:
            try:
                written = fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - the answer is out already; only the bookkeeping is lost
                self.warn(getattr(fn, "__name__", "write"), "%s failed: %s", name, exc.__class__.__name__)
                return None
            self._came_back()
            return written

        try:
            future = self._pool.submit(write)
        except RuntimeError:  # closing
            self._done()
            return None
        future.add_done_callback(lambda _future: self._done())  # written, failed, or cancelled at close
        return future

    def _done(self) -> None:
        with self._pending_lock:
            self._pending -= 1

    def settle(self, timeout: float = 1.0) -> bool:
        """Wait (at most `timeout` seconds) until what answers left to record is written: a listing of knowledge
        gaps then shows the answers already given. False when writes were still pending."""
        deadline = time.monotonic() + timeout
        while True:
            with self._pending_lock:
                if self._pending == 0:
                    return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)

    async def within(self, timeout: float, default: T, fn: Callable[P, T], /, *args: P.args,
                     **kwargs: P.kwargs) -> T:
        """A database read an answer can do without: on the bookkeeping threads, given up (`default`) after
        `timeout` seconds or when it fails. Once one has run past its deadline, the reads after it are given up
        at once, until that read or a write returns or `RETRY_READS_AFTER` seconds have passed."""
        name = getattr(fn, "__name__", "a read")
        if time.monotonic() < self._slow_until:
            return default
        returned_before = self._returned

        def read() -> T:
            result = fn(*args, **kwargs)
            self._came_back()
            return result

        try:
            return await asyncio.wait_for(asyncio.wrap_future(self._pool.submit(read)), timeout)
        except TimeoutError:
            self._slow(returned_before)
            self.warn("slow read", "%s took over %.1f s: answered without it", name, timeout)
        except Exception as exc:  # noqa: BLE001 - the answer matters more than the context
            self.warn("failed read", "%s failed: %s", name, exc.__class__.__name__)
        return default

    def warn(self, key: str, message: str, *args: object) -> None:
        """A warning at most every `WARN_EVERY` seconds per kind of trouble (an outage is not a flood)."""
        now = time.monotonic()
        if now - self._warned.get(key, -WARN_EVERY) >= WARN_EVERY:
            self._warned[key] = now
            log.warning(message, *args)

    def close(self, timeout: float = 0.0) -> bool:
        """Take no more work and drop what waits; wait at most `timeout` seconds for the writes running now (a
        stalled database may hold them). False when some still run."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        return self.settle(timeout)
