"""`Schedules`: weekly team rounds ("every Monday at 10:00" in a time zone), kept in the database.

A due schedule becomes a pending round in the same transaction that moves it to its next run, so each run
happens once whichever replica sees it first; the round is then posted like any other. A run missed
while no process was up is still posted late as long as its round would not be over yet, else skipped.
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, time, timedelta

from bot.config import zone_named
from bot.errors import RoundError
from bot.lang import check_lang
from bot.rounds.lifecycle import Rounds, check_size
from bot.rounds.texts import say
from bot.rounds.weekly import next_run
from bot.storage import RoundRecord, RoundStore, ScheduleRecord

log = logging.getLogger(__name__)

MAX_SCHEDULES = 10  # per channel


class Schedules:
    def __init__(self, rounds: Rounds, store: RoundStore, *, timezone: str = "UTC") -> None:
        self.rounds = rounds
        self.store = store
        self.timezone = timezone

    def add(self, *, team: str, channel: str, user: str, lang: str, weekday: int, at: time, count: int,
            topic: str | None, minutes: int, timezone: str | None = None) -> ScheduleRecord:
        """A weekly round in the channel; the time is read in `timezone` (default: EKSBOT_TIMEZONE).
        RoundError for a bad size or duration or too many schedules, UnknownTopicError for a topic the
        quiz does not have, ValueError for an unknown time zone."""
        language = check_lang(lang)
        check_size(count, minutes, language)
        if topic:
            self.rounds.quiz.questions_on(topic, language)  # refuse an unknown topic now, not next week
        zone_name = timezone or self.timezone
        zone = zone_named(zone_name)
        if len(self.store.schedules(team, channel)) >= MAX_SCHEDULES:
            raise RoundError(say(language, "too_many_schedules", max=MAX_SCHEDULES))
        now = self.rounds.now()
        draft = ScheduleRecord(
            id=0, team=team, channel=channel, created_by=user, weekday=weekday, at_time=at.strftime("%H:%M"),
            timezone=zone_name, questions=count, topic=topic or None, minutes=minutes, lang=language,
            status="active", paused_reason=None, next_run=next_run(weekday, at, zone, now),
        )
        schedule_id = self.store.add_schedule(draft, now)
        added = self.store.schedule(schedule_id)
        assert added is not None
        return added

    def of_channel(self, *, team: str, channel: str) -> list[ScheduleRecord]:
        return self.store.schedules(team, channel)

    def cancel(self, *, team: str, channel: str, user: str, admins: frozenset[str], lang: str,
               schedule_id: int | None = None) -> ScheduleRecord:
        schedule = self._own(team, channel, user, admins, lang, schedule_id)
        self.store.update_schedule(schedule.id, self.rounds.now(), status="cancelled")
        return schedule

    def resume(self, *, team: str, channel: str, user: str, admins: frozenset[str], lang: str,
               schedule_id: int | None = None) -> ScheduleRecord:
        """A paused schedule runs again from its next weekly time."""
        schedule = self._own(team, channel, user, admins, lang, schedule_id)
        following = self._next(schedule)
        self.store.update_schedule(schedule.id, self.rounds.now(), status="active", paused_reason=None,
                                   next_run=following)
        resumed = self.store.schedule(schedule.id)
        assert resumed is not None
        return resumed

    def fire(self) -> list[RoundRecord]:
        """Pending rounds for the schedules due now (each run once, whichever process asks)."""
        now = self.rounds.now()

        def make_round(schedule: ScheduleRecord) -> tuple[RoundRecord | None, datetime]:
            following = self._next(schedule)
            if now >= schedule.next_run + timedelta(minutes=schedule.minutes):
                log.warning("a scheduled round was skipped: no process was running at its time",
                            extra={"schedule": schedule.id})
                return None, following
            return RoundRecord(
                id=secrets.token_urlsafe(12), team=schedule.team, channel=schedule.channel,
                started_by=schedule.created_by, schedule_id=schedule.id, lang=schedule.lang, topic=schedule.topic,
                size=schedule.questions, minutes=schedule.minutes, questions=(), status="pending", created_at=now,
                post_at=now,
            ), following

        fired = self.store.fire_schedules(now, make_round)
        for schedule, record in fired:
            if record is None and now < schedule.next_run + timedelta(minutes=schedule.minutes):
                log.warning("a scheduled round was skipped: a round is already running in its channel",
                            extra={"schedule": schedule.id})
        return [record for _, record in fired if record is not None]

    def _next(self, schedule: ScheduleRecord) -> datetime:
        hours, minutes = (int(part) for part in schedule.at_time.split(":"))
        return next_run(schedule.weekday, time(hours, minutes), zone_named(schedule.timezone), self.rounds.now())

    def _own(self, team: str, channel: str, user: str, admins: frozenset[str], lang: str,
             schedule_id: int | None) -> ScheduleRecord:
        language = check_lang(lang)
        schedules = self.store.schedules(team, channel)
        if schedule_id is None:
            if not schedules:
                raise RoundError(say(language, "no_schedule"))
            if len(schedules) > 1:
                raise RoundError(say(language, "which_schedule", id=schedules[0].id))
            schedule = schedules[0]
        else:
            found = [s for s in schedules if s.id == schedule_id]
            if not found:
                raise RoundError(say(language, "unknown_schedule", id=schedule_id))
            schedule = found[0]
        if user != schedule.created_by and user not in admins:
            raise RoundError(say(language, "not_your_schedule"))
        return schedule

