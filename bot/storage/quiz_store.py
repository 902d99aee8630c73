"""`QuizStore`: quiz attempts, each person's review schedule, and the scores made of them."""

from __future__ import annotations

from datetime import datetime

from bot.storage import records
from bot.storage.database import ConcernStore
from bot.storage.records import AttemptRecord, ReviewRecord, Schedule, Score
from bot.storage.tables import attempts


class QuizStore(ConcernStore):
    def create_attempt(self, record: AttemptRecord) -> None:
        with self.database.writing() as conn:
            records.insert_attempt(conn, record)

    def get_attempt(self, attempt_id: str) -> AttemptRecord | None:
        with self.database.reading() as conn:
            return records.load_attempt(conn, attempt_id)

    def finish_attempt(self, attempt_id: str, *, choice: str, correct: bool, confidence: str | None,
                       answered_at: datetime, schedule: Schedule) -> bool:
        """Grade the attempt and store its question's new schedule, atomically; False if graded before."""
        with self.database.writing() as conn:
            return records.finish_attempt(
                conn, attempt_id, choice=choice, correct=correct, confidence=confidence,
                answered_at=answered_at, schedule=schedule,
            )

    def review(self, team: str, user: str, doc_id: str, question: int) -> ReviewRecord | None:
        with self.database.reading() as conn:
            return records.load_review(conn, team, user, doc_id, question)

    def reviews(self, team: str, user: str) -> dict[tuple[str, int], ReviewRecord]:
        with self.database.reading() as conn:
            return records.load_reviews(conn, team, user)

    def answered_attempts(self, *, team: str | None = None, user: str | None = None,
                          correct_only: bool = False) -> list[AttemptRecord]:
        with self.database.reading() as conn:
            return records.answered_attempts(conn, team=team, user=user, correct_only=correct_only)

    def user_scores(self, team: str) -> dict[str, Score]:
        with self.database.reading() as conn:
            return records.user_scores(conn, team)

    def question_scores(self, team: str | None = None) -> dict[tuple[str, int], Score]:
        with self.database.reading() as conn:
            return records.question_scores(conn, team)

    def prune_unanswered(self, older_than: datetime) -> int:
        """Forget attempts drawn before `older_than` and never answered (they count nowhere); returns how
        many."""
        with self.database.writing() as conn:
            return conn.execute(attempts.delete().where(
                attempts.c.answered_at.is_(None), attempts.c.created_at < older_than)).rowcount
