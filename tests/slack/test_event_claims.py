"""A Slack event is handled once: across replicas through the database, and within a process even when the
database cannot say (slow, down), so a redelivery is never answered twice by the same replica."""

from __future__ import annotations

import asyncio
import time

from bot.answering.claims import CLAIM_TIMEOUT
from bot.config import Settings
from bot.services import Services
from bot.storage import open_database


def claim(services: Services, key: str) -> bool:
    return asyncio.run(services.claims.claim(key))


def test_an_event_is_claimed_once_across_replicas(settings: Settings, services: Services) -> None:
    other = Services.assemble(settings, services.assistant, open_database(settings))
    try:
        assert claim(services, "Ev1") is True
        assert claim(other, "Ev1") is False  # the other replica: the database says it is taken
        assert claim(services, "Ev1") is False  # this one: caught in the process
        assert claim(other, "Ev2") is True
    finally:
        other.close()


def test_without_the_database_a_redelivery_is_still_caught_and_nothing_waits_long(
    services_without_database: Services,
) -> None:
    started = time.monotonic()
    assert claim(services_without_database, "Ev9") is True  # better answered once than never
    assert claim(services_without_database, "Ev9") is False
    assert claim(services_without_database, "Ev9") is False
    assert time.monotonic() - started < 3 * CLAIM_TIMEOUT + 1


def test_a_thread_the_process_answered_in_is_known_before_its_record_is_written(
    services_without_database: Services,
) -> None:
    """A reply that comes before the answer's record is written (or while the database is down) is still in a
    thread of the bot's; another thread is not."""
    services = services_without_database
    asyncio.run(services.answers.ask("What is the best recipe for paella?", "en", conversation="T1.C1.100"))
    assert asyncio.run(services.claims.answered_in("T1.C1.100")) is True
    assert asyncio.run(services.claims.answered_in("T1.C1.200")) is False
