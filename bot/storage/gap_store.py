"""`GapStore`: knowledge gaps, counted in groups of near-identical ones (the SQL is in `gap_records`)."""

from __future__ import annotations

from datetime import datetime

from bot.errors import InputError
from bot.lang import Lang
from bot.storage import gap_records
from bot.storage.database import ConcernStore
from bot.storage.gap_records import GapRecord


class GapStore(ConcernStore):
    def add(self, *, kind: str, lang: Lang, key: str, text: str, example: str | None = None,
            question: int | None = None) -> None:
        """Count a knowledge gap in its group of near-identical ones (see `gap_records`)."""
        if kind not in gap_records.KINDS:
            raise InputError(f"gap kind must be one of {', '.join(gap_records.KINDS)}, not {kind!r}")
        with self.database.writing() as conn:
            gap_records.add_entry(conn, kind=kind, lang=lang, key=key, text=text, example=example,
                                  question=question, now=self.database.clock())

    def listing(self, *, since: datetime, limit: int = 50, kind: str | None = None) -> list[GapRecord]:
        """The groups seen since `since`, the most frequent first."""
        with self.database.reading() as conn:
            return gap_records.load_gaps(conn, since=since, limit=limit, kind=kind)

    def prune(self, older_than: datetime) -> int:
        """Forget the groups last seen before `older_than`; returns how many."""
        with self.database.writing() as conn:
            return gap_records.prune_gaps(conn, older_than)
