"""When a question comes back: one FSRS card per person and question.

How an answer is rated: right and sure = Easy, right without saying = Good, right but guessed = Hard,
wrong = Again. Wrong answers come back within minutes, sure ones after days.
"""

from __future__ import annotations

from datetime import datetime

from fsrs import Card, Rating, Scheduler

# No fuzzing: the same answers at the same times give the same schedule, on every replica.
_SCHEDULER = Scheduler(enable_fuzzing=False)


def rating(correct: bool, confidence: str | None) -> Rating:
    if not correct:
        return Rating.Again
    if confidence == "sure":
        return Rating.Easy
    if confidence == "guessed":
        return Rating.Hard
    return Rating.Good


def new_card(question: int, now: datetime) -> Card:
    return Card(card_id=question, due=now)


def review(card_json: str | None, question: int, correct: bool, confidence: str | None,
           now: datetime) -> Card:
    """The card after this answer (a new card when the question was never answered)."""
    card = Card.from_json(card_json) if card_json else new_card(question, now)
    updated, _log = _SCHEDULER.review_card(card, rating(correct, confidence), now)
    return updated
