"""Which question comes next for a person: the one due for review, else a new one, else the soonest due."""

from __future__ import annotations

import random
from datetime import datetime

from bot.quiz.models import Reason

Key = tuple[str, int]  # (doc_id, question number)


def draw(candidates: list[Key], due: dict[Key, datetime], now: datetime,
         rng: random.Random) -> tuple[Key, Reason]:
    """`due` maps each question the person has answered to when it should come back."""
    if not candidates:
        raise ValueError("no questions to draw from")
    overdue = [k for k in candidates if k in due and due[k] <= now]
    if overdue:
        return min(overdue, key=lambda k: (due[k], k)), "due"
    unseen = [k for k in candidates if k not in due]
    if unseen:
        return rng.choice(unseen), "new"
    return min(candidates, key=lambda k: (due[k], k)), "review"


def reason_for(key: Key, due: dict[Key, datetime], now: datetime) -> Reason:
    """Why a question asked for by name is being asked, in the same terms as `draw`."""
    if key not in due:
        return "new"
    return "due" if due[key] <= now else "review"
