"""A weekly time ("mon 10:00" in a time zone): reading it in Spanish or English, and its next run.

The next run is computed on the wall clock of the schedule's zone (zoneinfo), so a round at 10:00 stays at
10:00 across daylight-saving changes; on the day clocks go forward, a time that does not exist runs an
hour later.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from bot.text.normalise import fold

WEEKDAYS: dict[str, int] = {
    **dict.fromkeys(("mon", "monday", "lun", "lunes"), 0),
    **dict.fromkeys(("tue", "tues", "tuesday", "mar", "martes"), 1),
    **dict.fromkeys(("wed", "wednesday", "mie", "miercoles"), 2),
    **dict.fromkeys(("thu", "thur", "thurs", "thursday", "jue", "jueves"), 3),
    **dict.fromkeys(("fri", "friday", "vie", "viernes"), 4),
    **dict.fromkeys(("sat", "saturday", "sab", "sabado"), 5),
    **dict.fromkeys(("sun", "sunday", "dom", "domingo"), 6),
}
_CLOCK = re.compile(r"^([01]?\d|2[0-3])[:.h]([0-5]\d)$")
_DURATION = re.compile(r"^(?:(\d{1,3})h)?(?:(\d{1,4})(?:m|min|mins|minutes|minutos)?)?$")


def weekday_of(word: str) -> int | None:
    """0 (Monday) to 6 for a day's name or its usual abbreviation, in English or Spanish."""
    return WEEKDAYS.get(fold(word).strip(".").lower())


def clock_of(word: str) -> time | None:
    """"10:00", "9:30" or "18h30" as a time of day."""
    match = _CLOCK.match(word.strip().lower())
    return time(int(match.group(1)), int(match.group(2))) if match else None


def minutes_of(word: str) -> int | None:
    """"30m", "45min", "2h", "1h30" or "90" as minutes; None when it is not a duration (or is zero)."""
    match = _DURATION.match(word.strip().lower())
    if not match or not any(match.groups()):
        return None
    total = int(match.group(1) or 0) * 60 + int(match.group(2) or 0)
    return total or None


def next_run(weekday: int, at: time, zone: tzinfo, after: datetime) -> datetime:
    """The first moment after `after` when it is `weekday` at `at` in `zone`, in UTC."""
    local = after.astimezone(zone)
    day = local.date() + timedelta(days=(weekday - local.weekday()) % 7)
    candidate = _at(day, at, zone)
    if candidate <= after:
        candidate = _at(day + timedelta(days=7), at, zone)
    return candidate


def _at(day: date, at: time, zone: tzinfo) -> datetime:
    """The wall time `at` on `day` in `zone`, in UTC (a wall time skipped by a clock change maps forward)."""
    return datetime.combine(day, at, tzinfo=zone).astimezone(UTC)
