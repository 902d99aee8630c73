"""A per-client token bucket: `limit` requests per minute, bursts up to `limit`."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable


class RateLimiter:
    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic, max_clients: int = 100_000):
        self.per_minute = per_minute
        self.rate = per_minute / 60.0
        self.clock = clock
        self.max_clients = max_clients
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.per_minute > 0

    def check(self, client: str) -> float:
        """0 when the request may go on; else the seconds to wait before retrying."""
        if not self.enabled:
            return 0.0
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(client, (float(self.per_minute), now))
            tokens = min(float(self.per_minute), tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[client] = (tokens - 1.0, now)
                wait = 0.0
            else:
                self._buckets[client] = (tokens, now)
                wait = (1.0 - tokens) / self.rate
            if len(self._buckets) > self.max_clients:
                self._evict(now)
        return wait

    def _evict(self, now: float) -> None:
        full = [k for k, (t, last) in self._buckets.items() if t + (now - last) * self.rate >= self.per_minute]
        for key in full or list(self._buckets)[: len(self._buckets) // 2]:
            del self._buckets[key]


def retry_after_header(wait: float) -> str:
    return str(max(1, math.ceil(wait)))
