"""Durable storage: SQLite or PostgreSQL through SQLAlchemy, schema kept by Alembic migrations."""

from bot.storage.gap_records import GapRecord
from bot.storage.records import AttemptRecord, ReviewRecord, Score
from bot.storage.round_records import Claim, RoundAnswerRecord, RoundQuestion, RoundRecord, ScheduleRecord
from bot.storage.round_store import RoundStore
from bot.storage.store import Store, open_store

__all__ = [
    "AttemptRecord", "Claim", "GapRecord", "ReviewRecord", "RoundAnswerRecord", "RoundQuestion", "RoundRecord",
    "RoundStore", "ScheduleRecord", "Score", "Store", "open_store",
]
