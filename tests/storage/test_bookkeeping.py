"""Reads an answer can do without: a stalled database costs one answer its deadline, not every answer after it,
and a database that comes back is read again without a restart."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest

from bot.storage import bookkeeping
from bot.storage.bookkeeping import Bookkeeping

DEADLINE = 0.2


@pytest.fixture
def books() -> Iterator[Bookkeeping]:
    kept = Bookkeeping()
    yield kept
    kept.close(timeout=2.0)


def timed_read(books: Bookkeeping, fn: object) -> tuple[object, float]:
    started = time.perf_counter()
    got = asyncio.run(books.within(DEADLINE, "without", fn))  # type: ignore[arg-type]
    return got, time.perf_counter() - started


def test_after_a_read_past_its_deadline_the_next_reads_do_not_wait_until_the_database_returns() -> None:
    books = Bookkeeping()
    release = threading.Event()
    calls: list[str] = []

    def stalled() -> str:
        calls.append("stalled")
        release.wait(5)
        return "late"

    def quick() -> str:
        calls.append("quick")
        return "read"

    got, took = timed_read(books, stalled)
    assert got == "without" and DEADLINE <= took < DEADLINE + 0.5
    for _ in range(5):  # the database is still stalled: these answers go on at once, without asking it
        got, took = timed_read(books, quick)
        assert got == "without" and took < DEADLINE / 2
    assert calls == ["stalled"]
    release.set()  # the stalled read returns: the database answers again
    assert books.settle(2.0)
    deadline = time.monotonic() + 2
    while calls[-1:] != ["quick"] and time.monotonic() < deadline:
        got, _ = timed_read(books, quick)
    assert got == "read" and calls[-1] == "quick"
    books.close(timeout=2.0)


def test_reads_are_tried_again_after_a_while_even_when_nothing_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bookkeeping, "RETRY_READS_AFTER", 0.3)
    books = Bookkeeping()
    release = threading.Event()
    assert timed_read(books, lambda: release.wait(5))[0] == "without"
    assert timed_read(books, lambda: "read")[0] == "without"
    time.sleep(0.35)
    got, took = timed_read(books, lambda: "read")  # one thread is still held; the other reads
    assert got == "read" and took < DEADLINE
    release.set()
    books.close(timeout=2.0)


def test_one_slow_read_while_the_database_answers_others_does_not_stop_reads(books: Bookkeeping) -> None:
    release = threading.Event()
    written = threading.Event()

    def slow() -> str:
        books.later(written.set)  # the database answers other calls meanwhile
        written.wait(2)
        time.sleep(0.05)
        release.wait(5)
        return "late"

    assert timed_read(books, slow)[0] == "without"
    got, took = timed_read(books, lambda: "read")
    assert got == "read" and took < DEADLINE
    release.set()


def test_a_failing_read_gives_the_default_at_once(books: Bookkeeping) -> None:
    def failing() -> str:
        raise ConnectionError("database down")

    got, took = timed_read(books, failing)
    assert got == "without" and took < DEADLINE
    assert timed_read(books, lambda: "read")[0] == "read"  # a failure is no stall: reads go on
