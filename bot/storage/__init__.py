"""Durable storage: SQLite or PostgreSQL through SQLAlchemy, schema kept by Alembic migrations.

One `Database` (engine, schema, transactions) and one store per concern over it, built together by
`Stores`: `QuizStore`, `EventStore`, `FeedbackStore`, `PeopleStore`, `TopicStore`, `GapStore`, `RoundStore`,
`EntryStore`, `VectorStore`.
"""

from bot.storage.database import ConcernStore, Database, open_database
from bot.storage.engine import never_created
from bot.storage.entry_records import EntryDraft, EntryRecord, EntryVersion, NoteRecord
from bot.storage.entry_store import EntryStore
from bot.storage.event_store import EVENT_MEMORY, EventStore
from bot.storage.feedback_store import FeedbackStore
from bot.storage.gap_records import GapRecord
from bot.storage.gap_store import GapStore
from bot.storage.people_store import PeopleStore
from bot.storage.quiz_store import QuizStore
from bot.storage.records import AttemptRecord, ReviewRecord, Score
from bot.storage.round_records import Claim, RoundAnswerRecord, RoundQuestion, RoundRecord, ScheduleRecord
from bot.storage.round_store import RoundStore
from bot.storage.store import Stores
from bot.storage.topic_store import TopicStore
from bot.storage.vector_records import VectorRow
from bot.storage.vector_store import VectorStore

__all__ = [
    "EVENT_MEMORY", "AttemptRecord", "Claim", "ConcernStore", "Database", "EntryDraft", "EntryRecord", "EntryStore",
    "EntryVersion", "EventStore", "FeedbackStore", "GapRecord", "NoteRecord",
    "GapStore", "PeopleStore", "QuizStore", "ReviewRecord", "RoundAnswerRecord", "RoundQuestion", "RoundRecord",
    "RoundStore", "ScheduleRecord", "Score", "Stores", "TopicStore", "VectorRow", "VectorStore", "never_created",
    "open_database",
]
