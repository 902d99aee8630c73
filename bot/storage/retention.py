"""`Retention`: the periodic pass that forgets what has outlived its retention period.

Once the database is open, the pass runs at once and every `RETENTION_EVERY` seconds (`run`, on the database's
thread) until the service closes. It forgets quiz questions drawn and never answered, ended team rounds,
knowledge gaps (also while recording is off), conversation topics and Slack event ids. Each kind is pruned on
its own: one that fails is logged (its kind and the exception's class, never what it says: it may quote data)
and tried again at the next pass, and stops none of the others. Answer feedback has no retention period: votes
are kept.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from bot.config import Settings
from bot.storage.event_store import EVENT_MEMORY
from bot.storage.store import Stores

log = logging.getLogger(__name__)

RETENTION_EVERY = 3600.0  # seconds between two retention passes


class Retention:
    """The retention pass over `stores`, with the periods the settings give. The knowledge gaps and the
    conversations' topics are pruned by their owners (`KnowledgeGaps.prune`, `ConversationMemory.prune`), which
    know their periods."""

    def __init__(self, stores: Stores, settings: Settings, *, gaps: Callable[[], int], topics: Callable[[], int],
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.stores = stores
        self.unanswered = timedelta(days=settings.unanswered_retention_days)
        self.rounds = timedelta(days=settings.round_retention_days)
        self.gaps = gaps
        self.topics = topics
        self.clock = clock

    def run(self, stop: threading.Event, every: float = RETENTION_EVERY) -> None:
        """Prune at once, then every `every` seconds until `stop` is set."""
        while True:
            self.prune()
            if stop.wait(every):
                return

    def prune(self) -> int:
        """Forget every kind of row kept for a while once its period is over; returns how many rows."""
        now = self.clock()
        kinds: dict[str, Callable[[], int]] = {
            "unanswered quiz questions": lambda: self.stores.quiz.prune_unanswered(now - self.unanswered),
            "team rounds": lambda: self.stores.rounds.prune(now - self.rounds),
            "knowledge gaps": self.gaps,
            "conversation topics": self.topics,
            "Slack event ids": lambda: self.stores.events.prune(now - EVENT_MEMORY),
        }
        return sum(_pruned(kind, prune) for kind, prune in kinds.items())


def _pruned(kind: str, prune: Callable[[], int]) -> int:
    try:
        pruned = prune()
    except Exception as exc:  # noqa: BLE001 - only housekeeping: the kind and the class, never data
        log.warning("could not prune %s: %s", kind, exc.__class__.__name__)
        return 0
    if pruned:
        log.info("pruned %s", kind, extra={"count": pruned})
    return pruned
