"""`Stores`: one store per concern, all over one `Database` (its engine, transactions and clock).

    stores = Stores(Database("sqlite:///data/eksbot.db"))
    stores.database.upgrade()
    stores.events.claim("Ev123")

Every store's method is one transaction; failures surface as StorageError (bot.errors).
"""

from __future__ import annotations

from bot.storage.database import Database
from bot.storage.entry_store import EntryStore
from bot.storage.event_store import EventStore
from bot.storage.feedback_store import FeedbackStore
from bot.storage.gap_store import GapStore
from bot.storage.people_store import PeopleStore
from bot.storage.quiz_store import QuizStore
from bot.storage.round_store import RoundStore
from bot.storage.topic_store import TopicStore
from bot.storage.vector_store import VectorStore


class Stores:
    def __init__(self, database: Database) -> None:
        self.database = database
        self.quiz = QuizStore(database)  # attempts, reviews, scores
        self.events = EventStore(database)  # Slack events already handled
        self.feedback = FeedbackStore(database)  # votes on answers
        self.people = PeopleStore(database)  # each person's language
        self.topics = TopicStore(database)  # what each conversation is about
        self.gaps = GapStore(database)  # knowledge gaps
        self.rounds = RoundStore(database)  # team rounds and their schedules
        self.entries = EntryStore(database)  # knowledge entries and notes added while serving
        self.vectors = VectorStore(database)  # the vectors of embedded texts, shared by the replicas

    def __repr__(self) -> str:
        return f"Stores({self.database.url!r})"
