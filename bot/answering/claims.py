"""`EventClaims`: which deliveries of a message this process answers, and in which conversations the bot speaks.

Slack delivers an event again when it was not acknowledged in time, and to whichever replica it reaches. A
delivery is claimed (`claim`) once across every replica through the database (`EventStore`), and once in
this process even when the database cannot say within `CLAIM_TIMEOUT`: a redelivery while it is slow or down
is then caught here, not answered twice (better a rare double answer across replicas than none).

A reply in a thread is answered when the bot answered in that thread lately (`answered_in`): this process
knows its own answers at once (`answered`, before their record is written); the database tells of the other
replicas'. Nothing here knows about Slack itself: a key and a conversation are opaque strings.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from datetime import timedelta

from bot.answering.conversation import CONTEXT_TIMEOUT, MEMORY, ConversationMemory
from bot.storage import EVENT_MEMORY, EventStore
from bot.storage.bookkeeping import Bookkeeping

CLAIM_TIMEOUT = 1.0  # seconds a Slack event's claim may take in the database before this process decides alone
CLAIMED_IN_PROCESS = 10_000  # event ids this process remembers itself (a redelivery to it is caught without SQL)
ANSWERED_IN_PROCESS = 10_000  # conversations this process answered in lately, known before their record is written


class EventClaims:
    """De-duplication of the deliveries of an event, and the conversations the bot answered in lately."""

    def __init__(self, events: EventStore, memory: ConversationMemory, bookkeeping: Bookkeeping) -> None:
        self.events = events
        self.memory = memory
        self.bookkeeping = bookkeeping
        self._claimed = Recent(CLAIMED_IN_PROCESS, EVENT_MEMORY)
        self._answered = Recent(ANSWERED_IN_PROCESS, MEMORY)

    async def claim(self, key: str) -> bool:
        """Whether this process should handle an event (`key`: its id, or a message's channel and ts): once
        across every replica (the database), and once in this process even when the database cannot say."""
        if not self._claimed.add(key):
            return False
        unknown = object()
        claimed = await self.bookkeeping.within(CLAIM_TIMEOUT, unknown, self.events.claim, key)
        return True if claimed is unknown else bool(claimed)

    def answered(self, conversation: str) -> None:
        """This process answered in `conversation` (its record is written later)."""
        self._answered.add(conversation)

    async def answered_in(self, conversation: str) -> bool:
        """Whether the bot answered in this conversation lately (a thread of its own): this process knows its
        own answers at once (a reply may come before their record is written); the database tells of the
        other replicas'. False when it cannot say within `CONTEXT_TIMEOUT` (then only messages that mention
        the bot are answered)."""
        if conversation in self._answered:
            return True
        return bool(await self.bookkeeping.within(CONTEXT_TIMEOUT, False, self.memory.knows, conversation))


class Recent:
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
