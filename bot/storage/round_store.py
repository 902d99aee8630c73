"""`RoundStore`: team rounds, their answers and their weekly schedules (the SQL is in `round_records`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from bot.storage import round_records as sql
from bot.storage.database import ConcernStore
from bot.storage.records import AttemptRecord, Schedule
from bot.storage.round_records import (
    AnswerOutcome,
    Claim,
    RoundAnswerRecord,
    RoundQuestion,
    RoundRecord,
    ScheduleRecord,
)

# A due schedule -> the round to post now (None: skip this run) and the schedule's next run.
MakeRound = Callable[[ScheduleRecord], tuple[RoundRecord | None, datetime]]
FiredSchedule = tuple[ScheduleRecord, RoundRecord | None]


class RoundStore(ConcernStore):
    # -- rounds ------------------------------------------------------------------------------------

    def create(self, record: RoundRecord) -> bool:
        """False when the channel already has a pending or open round."""
        with self.database.writing() as conn:
            return sql.insert_round(conn, record)

    def get(self, round_id: str) -> RoundRecord | None:
        with self.database.reading() as conn:
            return sql.load_round(conn, round_id)

    def live(self, team: str, channel: str) -> RoundRecord | None:
        with self.database.reading() as conn:
            return sql.live_round(conn, team, channel)

    def opened(self, team: str, channel: str) -> list[RoundRecord]:
        with self.database.reading() as conn:
            return sql.opened_rounds(conn, team, channel)

    def set_questions(self, round_id: str, owner: str, questions: tuple[RoundQuestion, ...]) -> bool:
        with self.database.writing() as conn:
            return sql.set_questions(conn, round_id, owner, questions)

    def mark_open(self, round_id: str, owner: str, *, message_ts: str, opened_at: datetime,
                  ends_at: datetime) -> bool:
        with self.database.writing() as conn:
            return sql.mark_open(conn, round_id, owner, message_ts=message_ts, opened_at=opened_at, ends_at=ends_at)

    def finish(self, round_id: str, owner: str, *, status: str, reason: str, now: datetime) -> bool:
        with self.database.writing() as conn:
            return sql.finish(conn, round_id, owner, status=status, reason=reason, now=now)

    def prune(self, older_than: datetime) -> int:
        """Forget rounds that ended before `older_than` and their answers; returns how many rounds."""
        with self.database.writing() as conn:
            return sql.prune_rounds(conn, older_than)

    def release(self, round_id: str, owner: str, *, show_again: bool = False) -> bool:
        with self.database.writing() as conn:
            return sql.release(conn, round_id, owner, show_again=show_again)

    def end_early(self, round_id: str, *, now: datetime, by: str) -> bool:
        with self.database.writing() as conn:
            return sql.end_early(conn, round_id, now=now, by=by)

    def claim(self, *, now: datetime, owner: str, lease: timedelta, count_every: timedelta,
              only: str | None = None, limit: int = 10) -> list[Claim]:
        with self.database.writing() as conn:
            return sql.claim(conn, now=now, owner=owner, lease=lease, count_every=count_every, only=only,
                             limit=limit)

    # -- answers -----------------------------------------------------------------------------------

    def record_answer(self, round_id: str, position: int, graded: AttemptRecord, schedule: Schedule,
                      now: datetime) -> AnswerOutcome:
        with self.database.writing() as conn:
            return sql.record_answer(conn, round_id, position, graded, schedule, now)

    def answers(self, round_id: str) -> list[RoundAnswerRecord]:
        with self.database.reading() as conn:
            return sql.answers_of(conn, round_id)

    def people(self, round_id: str) -> int:
        with self.database.reading() as conn:
            return sql.people_of(conn, round_id)

    # -- schedules ---------------------------------------------------------------------------------

    def add_schedule(self, record: ScheduleRecord, now: datetime) -> int:
        with self.database.writing() as conn:
            return sql.insert_schedule(conn, record, now)

    def schedule(self, schedule_id: int) -> ScheduleRecord | None:
        with self.database.reading() as conn:
            return sql.load_schedule(conn, schedule_id)

    def schedules(self, team: str, channel: str) -> list[ScheduleRecord]:
        with self.database.reading() as conn:
            return sql.channel_schedules(conn, team, channel)

    def update_schedule(self, schedule_id: int, now: datetime, **values: object) -> bool:
        with self.database.writing() as conn:
            return sql.update_schedule(conn, schedule_id, now, **values)

    def fire_schedules(self, now: datetime, make_round: MakeRound, limit: int = 10) -> list[FiredSchedule]:
        """Turn the due schedules into pending rounds, each schedule exactly once whichever replica asks:
        `make_round(schedule)` gives the round (or None to skip this run) and the schedule's next run."""
        fired: list[FiredSchedule] = []
        with self.database.writing() as conn:
            for schedule in sql.due_schedules(conn, now, limit):
                record, next_run = make_round(schedule)
                created = record is not None and sql.insert_round(conn, record)
                sql.update_schedule(conn, schedule.id, now, next_run=next_run)
                fired.append((schedule, record if created else None))
        return fired
