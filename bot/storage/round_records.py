"""Team rounds' rows (weekly schedules, rounds, each person's answers) and the SQL that reads and writes them.

Who takes a round's next step (post it, show its answered count, reveal it) is decided here: a process
*claims* the round with a lease (`lease_owner`, `lease_until`) in one short transaction (on PostgreSQL the
candidate rows are locked `FOR UPDATE SKIP LOCKED`, so replicas never wait on each other; on SQLite the
write lock makes claims one at a time), talks to Slack outside any transaction, then records the outcome
only while it still holds the lease. Due schedules are claimed the same way, by row lock.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal

import sqlalchemy as sa

from bot.lang import Lang
from bot.storage import records
from bot.storage.records import AttemptRecord, Schedule
from bot.storage.tables import round_answers, round_schedules, rounds

JobKind = Literal["post", "count", "reveal"]
AnswerOutcome = Literal["graded", "duplicate", "closed"]


@dataclass(frozen=True)
class RoundQuestion:
    """A question of a round: the options in the order everyone sees them (keys of the knowledge)."""

    doc_id: str
    question: int
    option_order: tuple[str, ...]


@dataclass(frozen=True)
class RoundRecord:
    id: str
    team: str
    channel: str
    started_by: str  # who typed /quiz round, or who made the schedule
    schedule_id: int | None
    lang: Lang
    topic: str | None
    size: int  # questions asked for
    minutes: int
    questions: tuple[RoundQuestion, ...]  # empty until chosen (a scheduled round chooses when it is posted)
    status: str  # pending -> open -> closed, or failed
    created_at: datetime
    post_at: datetime
    opened_at: datetime | None = None
    ends_at: datetime | None = None
    closed_at: datetime | None = None
    message_ts: str | None = None
    end_reason: str | None = None  # "time", "ended", or Slack's error when the channel failed
    ended_by: str | None = None
    shown_people: int = 0  # the answered count the channel message shows
    shown_at: datetime | None = None
    lease_owner: str | None = None
    lease_until: datetime | None = None
    # Keys the round's attempt ids, so that a round id (every button of the round carries it) does not give
    # them away; "" for a round started before rounds had one.
    secret: str = field(default_factory=lambda: secrets.token_hex(16), repr=False, compare=False)


@dataclass(frozen=True)
class RoundAnswerRecord:
    round_id: str
    position: int
    user: str
    attempt_id: str
    choice: str  # the option key of the knowledge
    correct: bool
    answered_at: datetime


@dataclass(frozen=True)
class ScheduleRecord:
    id: int
    team: str
    channel: str
    created_by: str
    weekday: int  # 0 is Monday
    at_time: str  # "HH:MM" in `timezone`
    timezone: str
    questions: int
    topic: str | None
    minutes: int
    lang: Lang
    status: str  # active, paused or cancelled
    paused_reason: str | None
    next_run: datetime


@dataclass(frozen=True)
class Claim:
    """A round this process now holds the lease of, and what to do with it."""

    kind: JobKind
    round: RoundRecord
    people: int  # how many people have answered


# -- rounds ---------------------------------------------------------------------------------------------


def insert_round(conn: sa.Connection, record: RoundRecord) -> bool:
    """False when the channel already has a pending or open round (one per channel, whoever asks)."""
    statement = records.upsert(conn, rounds).values(**_round_values(record)).on_conflict_do_nothing()
    return conn.execute(statement, execution_options={"preserve_rowcount": True}).rowcount == 1


def load_round(conn: sa.Connection, round_id: str, *, share_lock: bool = False) -> RoundRecord | None:
    query = sa.select(rounds).where(rounds.c.id == round_id)
    if share_lock and conn.dialect.name == "postgresql":
        query = query.with_for_update(read=True)  # an answer and the round's end never cross
    row = conn.execute(query).first()
    return _round(row) if row is not None else None


def live_round(conn: sa.Connection, team: str, channel: str) -> RoundRecord | None:
    row = conn.execute(sa.select(rounds).where(
        rounds.c.team_id == team, rounds.c.channel_id == channel, rounds.c.status.in_(("pending", "open")),
    )).first()
    return _round(row) if row is not None else None


def opened_rounds(conn: sa.Connection, team: str, channel: str) -> list[RoundRecord]:
    """The channel's rounds that were posted, the latest first."""
    rows = conn.execute(sa.select(rounds).where(
        rounds.c.team_id == team, rounds.c.channel_id == channel, rounds.c.opened_at.is_not(None),
    ).order_by(rounds.c.opened_at.desc()))
    return [_round(row) for row in rows]


def set_questions(conn: sa.Connection, round_id: str, owner: str, questions: tuple[RoundQuestion, ...]) -> bool:
    return _leased_update(conn, round_id, owner, questions=_questions_json(questions))


def mark_open(conn: sa.Connection, round_id: str, owner: str, *, message_ts: str, opened_at: datetime,
              ends_at: datetime) -> bool:
    return _leased_update(conn, round_id, owner, status="open", message_ts=message_ts, opened_at=opened_at,
                          ends_at=ends_at, lease_owner=None, lease_until=None)


def finish(conn: sa.Connection, round_id: str, owner: str, *, status: str, reason: str, now: datetime) -> bool:
    """Close or fail a round (its lease goes with it). A closed round keeps "ended" when it was ended early;
    a failed one takes the failure's reason."""
    reason_now: Any = reason
    if status == "closed":
        reason_now = sa.case((rounds.c.end_reason.is_(None), reason), else_=rounds.c.end_reason)
    return _leased_update(conn, round_id, owner, status=status, end_reason=reason_now, closed_at=now,
                          lease_owner=None, lease_until=None)


def prune_rounds(conn: sa.Connection, older_than: datetime) -> int:
    """Forget rounds that ended before `older_than`, with who answered what; returns how many rounds.
    The attempts they made stay: they are each person's stats and reviews."""
    ended = sa.select(rounds.c.id).where(rounds.c.status.in_(("closed", "failed")), rounds.c.closed_at < older_than)
    conn.execute(round_answers.delete().where(round_answers.c.round_id.in_(ended)))
    return int(conn.execute(rounds.delete().where(rounds.c.id.in_(ended))).rowcount)

def release(conn: sa.Connection, round_id: str, owner: str, *, show_again: bool = False) -> bool:
    """Give the lease back without a change of state; `show_again`: the answered count was not shown."""
    values: dict[str, Any] = {"lease_owner": None, "lease_until": None}
    if show_again:
        values["shown_people"] = -1
    return _leased_update(conn, round_id, owner, **values)


def end_early(conn: sa.Connection, round_id: str, *, now: datetime, by: str) -> bool:
    """Make an open round due for its reveal now; False when it was not open or already over."""
    result = conn.execute(
        rounds.update()
        .where(rounds.c.id == round_id, rounds.c.status == "open", rounds.c.ends_at > now)
        .values(ends_at=now, ended_by=by, end_reason="ended")
    )
    return result.rowcount == 1


def claim(conn: sa.Connection, *, now: datetime, owner: str, lease: timedelta, count_every: timedelta,
          only: str | None = None, limit: int = 10) -> list[Claim]:
    """Lease the rounds that have a step due: pending ones to post, open ones whose answered count changed
    (at most once per `count_every`) and open ones whose time is up."""
    people = _people_query()
    to_post = sa.and_(rounds.c.status == "pending", rounds.c.post_at <= now)
    to_reveal = sa.and_(rounds.c.status == "open", rounds.c.ends_at <= now)
    to_count = sa.and_(
        rounds.c.status == "open", rounds.c.ends_at > now,
        sa.or_(rounds.c.shown_at.is_(None), rounds.c.shown_at <= now - count_every),
        people != rounds.c.shown_people,
    )
    query = (
        sa.select(rounds, people.label("people"))
        .where(sa.or_(rounds.c.lease_until.is_(None), rounds.c.lease_until <= now),
               sa.or_(to_post, to_reveal, to_count))
        .order_by(rounds.c.post_at)
        .limit(limit)
    )
    if only is not None:
        query = query.where(rounds.c.id == only)
    if conn.dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True, of=rounds)
    claims: list[Claim] = []
    for row in conn.execute(query).all():
        record, count = _round(row), int(row.people)
        kind: JobKind = "post" if record.status == "pending" else (
            "reveal" if record.ends_at is not None and record.ends_at <= now else "count")
        values: dict[str, Any] = {"lease_owner": owner, "lease_until": now + lease}
        if kind == "count":
            values |= {"shown_people": count, "shown_at": now}
        conn.execute(rounds.update().where(rounds.c.id == record.id).values(**values))
        claims.append(Claim(kind, replace(record, **values), count))
    return claims


# -- answers ----------------------------------------------------------------------------------------------


def record_answer(conn: sa.Connection, round_id: str, position: int, graded: AttemptRecord, schedule: Schedule,
                  now: datetime) -> AnswerOutcome:
    """Keep a person's answer to a round's question, once, as an attempt of the quiz with its new review
    schedule, in the caller's transaction; nothing is kept when the round is over."""
    record = load_round(conn, round_id, share_lock=True)
    if record is None or record.status != "open" or record.ends_at is None or record.ends_at <= now:
        return "closed"
    assert graded.choice is not None and graded.correct is not None
    statement = records.upsert(conn, round_answers).values(
        round_id=round_id, position=position, user_id=graded.user, attempt_id=graded.id, choice=graded.choice,
        correct=graded.correct, answered_at=now,
    ).on_conflict_do_nothing()
    if conn.execute(statement, execution_options={"preserve_rowcount": True}).rowcount != 1:
        return "duplicate"
    records.insert_attempt(conn, replace(graded, answered_at=None, choice=None, correct=None, confidence=None))
    graded_now = records.finish_attempt(
        conn, graded.id, choice=graded.choice, correct=graded.correct, confidence=graded.confidence,
        answered_at=now, schedule=schedule,
    )
    assert graded_now
    return "graded"


def answers_of(conn: sa.Connection, round_id: str) -> list[RoundAnswerRecord]:
    rows = conn.execute(
        sa.select(round_answers).where(round_answers.c.round_id == round_id)
        .order_by(round_answers.c.answered_at, round_answers.c.user_id, round_answers.c.position)
    )
    return [RoundAnswerRecord(row.round_id, row.position, row.user_id, row.attempt_id, row.choice, row.correct,
                              row.answered_at) for row in rows]


def people_of(conn: sa.Connection, round_id: str) -> int:
    return int(conn.execute(sa.select(_people_query(round_id))).scalar() or 0)


# -- schedules --------------------------------------------------------------------------------------------


def insert_schedule(conn: sa.Connection, record: ScheduleRecord, now: datetime) -> int:
    values = {
        "team_id": record.team, "channel_id": record.channel, "created_by": record.created_by,
        "weekday": record.weekday, "at_time": record.at_time, "timezone": record.timezone,
        "questions": record.questions, "topic": record.topic, "minutes": record.minutes, "lang": record.lang,
        "status": record.status, "paused_reason": record.paused_reason, "next_run": record.next_run,
        "created_at": now, "updated_at": now,
    }
    result = conn.execute(round_schedules.insert().values(**values).returning(round_schedules.c.id))
    return int(result.scalar_one())


def load_schedule(conn: sa.Connection, schedule_id: int) -> ScheduleRecord | None:
    row = conn.execute(sa.select(round_schedules).where(round_schedules.c.id == schedule_id)).first()
    return _schedule(row) if row is not None else None


def channel_schedules(conn: sa.Connection, team: str, channel: str) -> list[ScheduleRecord]:
    """The channel's schedules that are not cancelled, oldest first."""
    rows = conn.execute(sa.select(round_schedules).where(
        round_schedules.c.team_id == team, round_schedules.c.channel_id == channel,
        round_schedules.c.status != "cancelled",
    ).order_by(round_schedules.c.id))
    return [_schedule(row) for row in rows]


def update_schedule(conn: sa.Connection, schedule_id: int, now: datetime, **values: Any) -> bool:
    result = conn.execute(
        round_schedules.update().where(round_schedules.c.id == schedule_id).values(updated_at=now, **values)
    )
    return result.rowcount == 1


def due_schedules(conn: sa.Connection, now: datetime, limit: int = 10) -> list[ScheduleRecord]:
    """Active schedules whose time has come, locked for this transaction (skipped when another replica
    holds them)."""
    query = (
        sa.select(round_schedules)
        .where(round_schedules.c.status == "active", round_schedules.c.next_run <= now)
        .order_by(round_schedules.c.next_run)
        .limit(limit)
    )
    if conn.dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    return [_schedule(row) for row in conn.execute(query)]


# -- pieces -----------------------------------------------------------------------------------------------


def _people_query(round_id: str | None = None) -> sa.ScalarSelect[Any]:
    """How many people answered a round (the given one, or the row of `rounds` at hand)."""
    target = round_id if round_id is not None else rounds.c.id
    return (
        sa.select(sa.func.count(sa.distinct(round_answers.c.user_id)))
        .where(round_answers.c.round_id == target)
        .scalar_subquery()
    )


def _leased_update(conn: sa.Connection, round_id: str, owner: str, **values: Any) -> bool:
    result = conn.execute(
        rounds.update().where(rounds.c.id == round_id, rounds.c.lease_owner == owner).values(**values)
    )
    return result.rowcount == 1


def _questions_json(questions: tuple[RoundQuestion, ...]) -> str:
    return json.dumps([{"d": q.doc_id, "q": q.question, "o": list(q.option_order)} for q in questions])


def _round_values(record: RoundRecord) -> dict[str, Any]:
    return {
        "id": record.id, "team_id": record.team, "channel_id": record.channel, "started_by": record.started_by,
        "schedule_id": record.schedule_id, "lang": record.lang, "topic": record.topic, "size": record.size,
        "minutes": record.minutes, "questions": _questions_json(record.questions), "status": record.status,
        "created_at": record.created_at, "post_at": record.post_at, "opened_at": record.opened_at,
        "ends_at": record.ends_at, "closed_at": record.closed_at, "message_ts": record.message_ts,
        "end_reason": record.end_reason, "ended_by": record.ended_by, "shown_people": record.shown_people,
        "shown_at": record.shown_at, "lease_owner": record.lease_owner, "lease_until": record.lease_until,
        "secret": record.secret or None,
    }


def _round(row: sa.Row[Any]) -> RoundRecord:
    questions = tuple(
        RoundQuestion(str(q["d"]), int(q["q"]), tuple(str(k) for k in q["o"])) for q in json.loads(row.questions)
    )
    return RoundRecord(
        id=row.id, team=row.team_id, channel=row.channel_id, started_by=row.started_by,
        schedule_id=row.schedule_id, lang=row.lang, topic=row.topic, size=row.size, minutes=row.minutes,
        questions=questions, status=row.status, created_at=row.created_at, post_at=row.post_at,
        opened_at=row.opened_at, ends_at=row.ends_at, closed_at=row.closed_at, message_ts=row.message_ts,
        end_reason=row.end_reason, ended_by=row.ended_by, shown_people=row.shown_people, shown_at=row.shown_at,
        lease_owner=row.lease_owner, lease_until=row.lease_until, secret=row.secret or "",
    )


def _schedule(row: sa.Row[Any]) -> ScheduleRecord:
    return ScheduleRecord(
        id=row.id, team=row.team_id, channel=row.channel_id, created_by=row.created_by, weekday=row.weekday,
        at_time=row.at_time, timezone=row.timezone, questions=row.questions, topic=row.topic, minutes=row.minutes,
        lang=row.lang, status=row.status, paused_reason=row.paused_reason, next_run=row.next_run,
    )
