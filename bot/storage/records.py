"""Quiz rows (attempts and review schedules) and the SQL that reads and writes them."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from bot.lang import Lang
from bot.storage.tables import attempts, reviews


@dataclass(frozen=True)
class AttemptRecord:
    """One question put to one person: the options in the order shown, and the answer once given."""

    id: str
    team: str
    user: str
    doc_id: str
    question: int
    lang: Lang
    option_order: tuple[str, ...]  # option keys of the knowledge, in the order they were shown
    created_at: datetime
    answered_at: datetime | None = None
    choice: str | None = None  # the option key of the knowledge that was chosen, not the shown letter
    correct: bool | None = None
    confidence: str | None = None


@dataclass(frozen=True)
class ReviewRecord:
    """When a person should see a question again: a serialized FSRS card and its due time."""

    team: str
    user: str
    doc_id: str
    question: int
    card: str
    due: datetime


@dataclass(frozen=True)
class Score:
    answered: int
    correct: int


Schedule = Callable[[ReviewRecord | None], ReviewRecord]


COUNT_ROWS = {"preserve_rowcount": True}  # execution option: did an INSERT ... ON CONFLICT change a row?


def upsert(conn: sa.Connection, table: sa.Table) -> Any:
    """`INSERT ... ON CONFLICT` for the dialect at hand (SQLite and PostgreSQL spell it alike)."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)


def insert_attempt(conn: sa.Connection, record: AttemptRecord) -> None:
    conn.execute(attempts.insert().values(
        id=record.id, team_id=record.team, user_id=record.user, doc_id=record.doc_id,
        question=record.question, lang=record.lang, option_order=json.dumps(list(record.option_order)),
        created_at=record.created_at,
    ))


def load_attempt(conn: sa.Connection, attempt_id: str) -> AttemptRecord | None:
    row = conn.execute(sa.select(attempts).where(attempts.c.id == attempt_id)).first()
    return _attempt(row) if row is not None else None


def finish_attempt(conn: sa.Connection, attempt_id: str, *, choice: str, correct: bool,
                   confidence: str | None, answered_at: datetime, schedule: Schedule) -> bool:
    """Grade an attempt and reschedule its question, in the caller's transaction.

    The first answer wins: the UPDATE only matches an unanswered attempt, so of two concurrent answers
    (two clicks, two processes, two replicas) exactly one changes a row; the other returns False and
    touches nothing.
    """
    result = conn.execute(
        attempts.update()
        .where(attempts.c.id == attempt_id, attempts.c.answered_at.is_(None))
        .values(answered_at=answered_at, choice=choice, correct=correct, confidence=confidence)
    )
    if result.rowcount != 1:
        return False
    attempt = load_attempt(conn, attempt_id)
    assert attempt is not None
    current = load_review(conn, attempt.team, attempt.user, attempt.doc_id, attempt.question, lock=True)
    save_review(conn, schedule(current), answered_at)
    return True


def load_review(conn: sa.Connection, team: str, user: str, doc_id: str, question: int, *,
                lock: bool = False) -> ReviewRecord | None:
    query = sa.select(reviews).where(
        reviews.c.team_id == team, reviews.c.user_id == user, reviews.c.doc_id == doc_id,
        reviews.c.question == question,
    )
    if lock and conn.dialect.name == "postgresql":
        query = query.with_for_update()
    row = conn.execute(query).first()
    return _review(row) if row is not None else None


def load_reviews(conn: sa.Connection, team: str, user: str) -> dict[tuple[str, int], ReviewRecord]:
    rows = conn.execute(sa.select(reviews).where(reviews.c.team_id == team, reviews.c.user_id == user))
    return {(row.doc_id, row.question): _review(row) for row in rows}


def save_review(conn: sa.Connection, review: ReviewRecord, now: datetime) -> None:
    statement = upsert(conn, reviews).values(
        team_id=review.team, user_id=review.user, doc_id=review.doc_id, question=review.question,
        card=review.card, due=review.due, updated_at=now,
    )
    conn.execute(statement.on_conflict_do_update(
        index_elements=["team_id", "user_id", "doc_id", "question"],
        set_={"card": statement.excluded.card, "due": statement.excluded.due,
              "updated_at": statement.excluded.updated_at},
    ))


def answered_attempts(conn: sa.Connection, *, team: str | None = None, user: str | None = None,
                      correct_only: bool = False) -> list[AttemptRecord]:
    query = sa.select(attempts).where(attempts.c.answered_at.is_not(None))
    if team is not None:
        query = query.where(attempts.c.team_id == team)
    if user is not None:
        query = query.where(attempts.c.user_id == user)
    if correct_only:
        query = query.where(attempts.c.correct.is_(True))
    return [_attempt(row) for row in conn.execute(query.order_by(attempts.c.answered_at))]


def user_scores(conn: sa.Connection, team: str) -> dict[str, Score]:
    return {key[0]: score for key, score in _scores(conn, [attempts.c.user_id], team).items()}


def question_scores(conn: sa.Connection, team: str | None) -> dict[tuple[str, int], Score]:
    scores = _scores(conn, [attempts.c.doc_id, attempts.c.question], team)
    return {(str(key[0]), int(key[1])): score for key, score in scores.items()}


def _scores(conn: sa.Connection, group: list[sa.Column[Any]],
            team: str | None) -> dict[tuple[Any, ...], Score]:
    right = sa.func.sum(sa.case((attempts.c.correct.is_(True), 1), else_=0))
    query = (
        sa.select(*group, sa.func.count().label("answered"), right.label("correct"))
        .where(attempts.c.answered_at.is_not(None))
        .group_by(*group)
    )
    if team is not None:
        query = query.where(attempts.c.team_id == team)
    out: dict[tuple[Any, ...], Score] = {}
    for row in conn.execute(query):
        *keys, answered, correct = row
        out[tuple(keys)] = Score(int(answered), int(correct or 0))
    return out


def _attempt(row: sa.Row[Any]) -> AttemptRecord:
    return AttemptRecord(
        id=row.id, team=row.team_id, user=row.user_id, doc_id=row.doc_id, question=row.question,
        lang=row.lang, option_order=tuple(json.loads(row.option_order)), created_at=row.created_at,
        answered_at=row.answered_at, choice=row.choice, correct=row.correct, confidence=row.confidence,
    )


def _review(row: sa.Row[Any]) -> ReviewRecord:
    return ReviewRecord(
        team=row.team_id, user=row.user_id, doc_id=row.doc_id, question=row.question, card=row.card,
        due=row.due,
    )
