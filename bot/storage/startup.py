"""Open the database at start without waiting for it: retried with backoff until it answers (and is
migrated), while the rest of the service already works. Meanwhile it tells why the database is not ready."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from bot.errors import StorageError, StorageUnavailableError
from bot.storage.database import Database

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Backoff:
    """Seconds between attempts: `first`, doubled each time up to `most` (short: a database that comes back
    is in use within a few seconds)."""

    first: float = 0.25
    most: float = 2.0

    def delays(self) -> list[float]:
        out, delay = [], self.first
        while delay < self.most:
            out.append(delay)
            delay *= 2
        return out


class DatabaseStartup:
    def __init__(self, database: Database, *, migrate: bool, backoff: Backoff | None = None,
                 ready: bool = False) -> None:
        self.database = database
        self.migrate = migrate
        self.backoff = backoff or Backoff()
        self.attempts = 0
        self.reason: str | None = None if ready else "connecting to the database"
        self._ready = threading.Event()
        if ready:
            self._ready.set()

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    def require(self) -> None:
        """Raise StorageUnavailableError until the start-up has succeeded."""
        if not self._ready.is_set():
            raise StorageUnavailableError(f"database not ready yet: {self.reason}")

    def check(self) -> None:
        """Raise StorageUnavailableError unless the database has been opened and takes a write now."""
        self.require()
        self.database.check_writable()

    def run(self, stop: threading.Event) -> bool:
        """Try until the database is usable (True) or `stop` is set (False). A failure is logged when its
        kind changes, not at every attempt."""
        delays = iter(self.backoff.delays())
        while not stop.is_set():
            self.attempts += 1
            try:
                if self.migrate:
                    self.database.upgrade()
                else:
                    self.database.check_schema()
            except StorageError as exc:
                delay = next(delays, self.backoff.most)
                if str(exc) != self.reason:
                    log.warning("database not ready, retrying every %g s at most: %s: %s", self.backoff.most, exc,
                                exc.detail[:300])
                self.reason = str(exc)
                stop.wait(delay)
                continue
            self.reason = None
            self._ready.set()
            log.info("database ready", extra={"database": self.database.url, "attempts": self.attempts})
            return True
        return False
