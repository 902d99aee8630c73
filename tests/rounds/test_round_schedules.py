"""Weekly round schedules: reading "mon 10:00", the next run in a time zone (across clock changes), and
running each schedule once, on time, whichever process or replica sees it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.config import load_settings
from bot.errors import RoundError, UnknownTopicError
from bot.rounds.weekly import clock_of, minutes_of, next_run, weekday_of
from tests.support.quiz_helpers import Clock
from tests.support.round_helpers import Kit, RecordingPublisher, work

MADRID = ZoneInfo("Europe/Madrid")


def add(k: Kit, **kwargs: Any) -> Any:
    options: dict[str, Any] = {"team": "T1", "channel": "C1", "user": "U1", "lang": "en", "weekday": 0,
                               "at": time(10, 0), "count": 3, "topic": None, "minutes": 60} | kwargs
    return k.schedules.add(**options)


# -- reading and computing times ------------------------------------------------------------------------


@pytest.mark.parametrize(("word", "day"), [("mon", 0), ("Monday", 0), ("lunes", 0), ("mar", 1), ("mié", 2),
                                           ("miercoles", 2), ("THU", 3), ("vie", 4), ("sáb", 5), ("sun", 6),
                                           ("domingo", 6), ("someday", None), ("10:00", None)])
def test_weekdays_in_both_languages(word: str, day: int | None) -> None:
    assert weekday_of(word) == day


@pytest.mark.parametrize(("word", "expected"), [("10:00", time(10)), ("9:30", time(9, 30)), ("18h30", time(18, 30)),
                                                ("24:00", None), ("10:60", None), ("ten", None)])
def test_clock_times(word: str, expected: time | None) -> None:
    assert clock_of(word) == expected


@pytest.mark.parametrize(("word", "expected"), [("30m", 30), ("45min", 45), ("2h", 120), ("1h30", 90), ("90", 90),
                                                ("0m", None), ("soon", None), ("", None)])
def test_durations(word: str, expected: int | None) -> None:
    assert minutes_of(word) == expected


def test_next_run_is_the_coming_weekday_at_that_wall_time() -> None:
    monday_9 = datetime(2025, 3, 3, 8, 0, tzinfo=UTC)  # 09:00 in Madrid (CET, UTC+1)
    assert next_run(0, time(10), MADRID, monday_9) == datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
    assert next_run(0, time(9), MADRID, monday_9) == datetime(2025, 3, 10, 8, 0, tzinfo=UTC)  # not again now
    assert next_run(2, time(10), UTC, monday_9) == datetime(2025, 3, 5, 10, 0, tzinfo=UTC)


def test_next_run_keeps_the_wall_time_across_clock_changes() -> None:
    before = datetime(2025, 3, 25, 12, 0, tzinfo=UTC)  # Madrid moves to CEST (UTC+2) on Sunday 30 March
    assert next_run(0, time(10), MADRID, before) == datetime(2025, 3, 31, 8, 0, tzinfo=UTC)  # 10:00 CEST
    skipped = next_run(6, time(2, 30), MADRID, before)  # 02:30 does not exist that night
    assert skipped == datetime(2025, 3, 30, 1, 30, tzinfo=UTC)  # 03:30 CEST
    autumn = next_run(0, time(10), MADRID, datetime(2025, 10, 21, 12, 0, tzinfo=UTC))
    assert autumn == datetime(2025, 10, 27, 9, 0, tzinfo=UTC)  # back to CET


def test_the_time_zone_setting_is_checked() -> None:
    assert str(load_settings(timezone="America/New_York").zone) == "America/New_York"
    assert load_settings().zone is UTC
    with pytest.raises(ValueError, match="unknown time zone"):
        load_settings(timezone="Mars/Olympus_Mons")


def test_time_zones_resolve_on_a_system_without_its_own_zone_files(tmp_path: Path) -> None:
    """A minimal image may have no /usr/share/zoneinfo: the zones come with the installed package."""
    code = ("from bot.config import load_settings; import datetime as d; "
            "z = load_settings(timezone='Europe/Madrid').zone; "
            "print(d.datetime(2026, 7, 1, 12, tzinfo=z).utcoffset())")
    env = {**os.environ, "PYTHONTZPATH": str(tmp_path)}  # an empty directory: no system zone files
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2:00:00"


# -- schedules ------------------------------------------------------------------------------------------


def test_a_schedule_runs_at_its_time_in_its_zone_once_per_week(kits: Callable[..., Kit], clock: Clock) -> None:
    k = kits(timezone="Europe/Madrid")
    schedule = add(k, at=time(11), topic="slurm", count=2, minutes=30)
    assert schedule.next_run == datetime(2025, 3, 3, 10, 0, tzinfo=UTC)  # it is Monday 09:00 UTC = 10:00 CET
    assert schedule.timezone == "Europe/Madrid" and schedule.status == "active"
    publisher = RecordingPublisher()
    assert asyncio.run(work(k, publisher).due()) == 0 and not publisher.posted  # 11:00 CET is an hour away
    clock.advance(hours=1)
    asyncio.run(work(k, publisher).due())
    [view] = publisher.posted
    assert view.scheduled and view.minutes == 30 and {q.number for q in view.questions} == {3, 4}
    assert k.schedules.of_channel(team="T1", channel="C1")[0].next_run == datetime(2025, 3, 10, 10, 0, tzinfo=UTC)
    clock.advance(minutes=30)
    asyncio.run(work(k, publisher).due())
    assert len(publisher.revealed) == 1 and len(publisher.posted) == 1


def test_two_replicas_fire_a_due_schedule_once(kits: Callable[..., Kit], clock: Clock) -> None:
    one, two = kits(owner="one"), kits(owner="two")
    add(one)
    clock.advance(hours=1, minutes=1)
    fired = [one.schedules.fire(), two.schedules.fire()]
    assert sorted(len(f) for f in fired) == [0, 1]


def test_a_run_missed_while_nothing_ran_is_posted_late_or_skipped(kits: Callable[..., Kit], clock: Clock) -> None:
    k = kits()
    add(k, at=time(9, 30), minutes=60)
    clock.advance(minutes=50)  # up again 20 minutes after 09:30: the round would still be on
    [late] = k.schedules.fire()
    publisher = RecordingPublisher()
    asyncio.run(work(k, publisher).due())
    assert [v.id for v in publisher.posted] == [late.id]
    clock.advance(hours=1)
    asyncio.run(work(k, publisher).due())
    assert len(publisher.revealed) == 1
    clock.advance(days=7, hours=1)  # down all of next Monday morning
    assert k.schedules.fire() == []
    assert asyncio.run(work(k, publisher).due()) == 0 and len(publisher.posted) == 1
    assert k.schedules.of_channel(team="T1", channel="C1")[0].next_run == datetime(2025, 3, 17, 9, 30, tzinfo=UTC)


def test_a_schedule_is_refused_for_an_unknown_topic_a_bad_size_or_too_many(kits: Callable[..., Kit]) -> None:
    k = kits()
    with pytest.raises(UnknownTopicError):
        add(k, topic="paella")
    with pytest.raises(RoundError):
        add(k, count=20)
    with pytest.raises(ValueError, match="unknown time zone"):
        add(k, timezone="Nowhere/Town")
    for day in range(7):
        add(k, weekday=day)
    add(k, weekday=0, at=time(16))
    add(k, weekday=1, at=time(16))
    add(k, weekday=2, at=time(16))
    with pytest.raises(RoundError, match="already has 10"):
        add(k, weekday=3, at=time(16))


def test_cancel_and_resume_by_the_owner_or_an_admin(kits: Callable[..., Kit], clock: Clock) -> None:
    k = kits()
    first = add(k)
    rules: dict[str, Any] = {"team": "T1", "channel": "C1", "lang": "en"}
    with pytest.raises(RoundError, match="Only whoever scheduled"):
        k.schedules.cancel(user="U2", admins=frozenset(), **rules)
    second = add(k, weekday=3, user="U2")
    with pytest.raises(RoundError, match="say which"):
        k.schedules.cancel(user="U1", admins=frozenset(), **rules)
    with pytest.raises(RoundError, match="#99"):
        k.schedules.cancel(user="U1", admins=frozenset(), schedule_id=99, **rules)
    assert k.schedules.cancel(user="U9", admins=frozenset({"U9"}), schedule_id=second.id, **rules).id == second.id
    assert [s.id for s in k.schedules.of_channel(team="T1", channel="C1")] == [first.id]
    k.rounds.store.update_schedule(first.id, clock.now, status="paused", paused_reason="not_in_channel")
    clock.advance(days=8)
    resumed = k.schedules.resume(user="U1", admins=frozenset(), **rules)
    assert resumed.status == "active" and resumed.paused_reason is None
    assert resumed.next_run == datetime(2025, 3, 17, 10, 0, tzinfo=UTC)  # the coming Monday, not a missed one
