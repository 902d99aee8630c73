"""Durable storage: SQLite or PostgreSQL through SQLAlchemy, schema kept by Alembic migrations."""

from bot.storage.gap_records import GapRecord
from bot.storage.records import AttemptRecord, ReviewRecord, Score
from bot.storage.store import Store, open_store

__all__ = ["AttemptRecord", "GapRecord", "ReviewRecord", "Score", "Store", "open_store"]
