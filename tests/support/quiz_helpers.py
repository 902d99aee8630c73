"""Helpers for the quiz and storage tests: a settable clock, a fake topic matcher, answer lookup, and
workers that run in separate OS processes (multiprocessing, spawn) to race on one database."""

from __future__ import annotations

import multiprocessing
import queue
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the workers below import only what they use: each process starts faster
    from bot.knowledge import KnowledgeBase
    from bot.quiz import QuizPrompt

KNOWLEDGE = Path(__file__).resolve().parent.parent.parent / "knowledge"
DOC = "eks-training-quiz"
START = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)  # a Monday morning, UTC


@lru_cache(maxsize=1)
def knowledge() -> KnowledgeBase:
    from bot.knowledge import load_knowledge

    return load_knowledge(KNOWLEDGE)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


class FakeTopics:
    """A TopicMatcher with fixed answers; records what it was asked."""

    def __init__(self, answers: dict[str, list[tuple[str, int]]] | None = None) -> None:
        self.answers = answers or {}
        self.calls: list[tuple[str, str]] = []

    def match_topic(self, topic: str, lang: str) -> list[tuple[str, int]]:
        self.calls.append((topic, lang))
        return list(self.answers.get(topic, []))


def shown_options(prompt: QuizPrompt | Mapping[str, Any]) -> tuple[int, dict[str, str]]:
    """(question number, letter -> option text) of a prompt: the engine's, or its JSON as HTTP carries it
    (and as a test reads it back from a Slack message)."""
    shown: Mapping[str, Any] = prompt if isinstance(prompt, Mapping) else prompt.to_dict()
    return int(shown["question"]), {o["key"]: o["text"] for o in shown["options"]}


def right_letter(prompt: QuizPrompt | Mapping[str, Any]) -> str:
    """The letter under which a prompt shows the knowledge's correct option, found as a person would: by
    the option's text (in either edition)."""
    number, options = shown_options(prompt)
    right = set()
    for lang in ("es", "en"):
        correct = knowledge().question(DOC, number, lang).correct_option
        assert correct is not None
        right.add(correct.text)
    [letter] = [key for key, text in options.items() if text in right]
    return letter


def wrong_letter(prompt: QuizPrompt | Mapping[str, Any]) -> str:
    right = right_letter(prompt)
    return next(key for key in shown_options(prompt)[1] if key != right)


# -- work done in other processes ------------------------------------------------------------------

def answer_worker(url: str, user: str, attempts: list[tuple[str, str]], barrier: Any, results: Any) -> None:
    """Answer each (attempt id, letter) right after the other process is ready to answer it too."""
    from bot.quiz import QuizEngine
    from bot.storage import Database, QuizStore

    store = Database(url)
    engine = QuizEngine(knowledge(), QuizStore(store))
    try:
        for attempt_id, letter in attempts:
            barrier.wait(timeout=60)
            result = engine.answer(user, attempt_id, letter)
            results.put((attempt_id, ("already" if result.already_answered else "graded", letter)))
    except Exception as exc:  # noqa: BLE001 - reported to the test instead of lost in the child
        results.put(("error", repr(exc)))
    finally:
        store.close()


def claim_worker(url: str, event_ids: list[str], barrier: Any, results: Any) -> None:
    from bot.storage import Database, EventStore

    store = Database(url)
    try:
        for event_id in event_ids:
            barrier.wait(timeout=60)
            results.put((event_id, EventStore(store).claim(event_id)))
    except Exception as exc:  # noqa: BLE001
        results.put(("error", repr(exc)))
    finally:
        store.close()


def upgrade_worker(url: str, barrier: Any, results: Any) -> None:
    """Migrate the database at the same moment as the other process (replicas starting together)."""
    from bot.storage import Database

    store = Database(url)
    try:
        barrier.wait(timeout=60)
        store.upgrade()
        results.put(("upgraded", store.revision()))
    except Exception as exc:  # noqa: BLE001
        results.put(("error", repr(exc)))
    finally:
        store.close()


def race(worker: Callable[..., None], per_process: list[tuple[Any, ...]],
         rounds: int) -> list[tuple[Any, Any]]:
    """Run `worker(*args, barrier, results)` in one spawned process per args tuple; collect the results."""
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(len(per_process))
    results = ctx.Queue()
    processes = [ctx.Process(target=worker, args=(*args, barrier, results)) for args in per_process]
    for process in processes:
        process.start()
    collected: list[tuple[Any, Any]] = []
    deadline = time.monotonic() + 120
    try:
        while len(collected) < rounds * len(per_process):
            try:
                item = results.get(timeout=0.5)
            except queue.Empty:
                crashed = [p.exitcode for p in processes if p.exitcode not in (None, 0)]
                assert not crashed, f"a worker process died (exit codes {crashed})"
                assert time.monotonic() < deadline, "the worker processes did not finish in time"
                continue
            assert item[0] != "error", item[1]
            collected.append(item)
    finally:
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
        results.close()
    return collected
