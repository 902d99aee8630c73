"""Figures computed from answered attempts: streaks of days, per-topic tallies, orderings."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

from bot.quiz.models import QuestionStat, TopicTally, accuracy

ONE_DAY = timedelta(days=1)


def streaks(days: Iterable[date], today: date) -> tuple[int, int]:
    """(current, best) runs of consecutive days; the current run may end today or yesterday."""
    ordered = sorted(set(days))
    best = run = 0
    previous: date | None = None
    for day in ordered:
        run = run + 1 if previous is not None and day - previous == ONE_DAY else 1
        best = max(best, run)
        previous = day
    present = set(ordered)
    cursor = today if today in present else today - ONE_DAY
    current = 0
    while cursor in present:
        current += 1
        cursor -= ONE_DAY
    return current, best


def tally(pairs: Iterable[tuple[str, bool]], names: list[str]) -> dict[str, TopicTally]:
    """answered / correct / accuracy for each name, in the order given; names never answered are included,
    with no accuracy (None)."""
    counts = {name: [0, 0] for name in names}
    for name, correct in pairs:
        entry = counts.setdefault(name, [0, 0])
        entry[0] += 1
        entry[1] += int(correct)
    return {
        name: TopicTally(answered=answered, correct=right,
                         accuracy=accuracy(right, answered) if answered else None)
        for name, (answered, right) in counts.items()
    }


def hardest_first(stats: list[QuestionStat]) -> list[QuestionStat]:
    """Answered questions by accuracy, lowest first (more answers first on a tie); unanswered last."""
    return sorted(stats, key=lambda s: (s.answered == 0, s.accuracy, -s.answered, s.question))
