"""What the quiz engine hands to the surfaces (Slack, HTTP, terminal): plain, frozen values."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol, TypedDict

from bot.knowledge.citations import Citation
from bot.lang import Lang

DEFAULT_TEAM = "default"  # the team of a person, request or command that names none
Reason = Literal["due", "new", "review"]
CONFIDENCES = ("sure", "guessed")


class TopicMatcher(Protocol):
    """Finds the questions a free-text topic is about (retrieval), when no topic name matches."""

    def match_topic(self, topic: str, lang: str) -> list[tuple[str, int]]: ...


@dataclass(frozen=True)
class QuizOption:
    key: str  # the letter shown in this attempt, not the knowledge's letter
    text: str


@dataclass(frozen=True)
class QuizPrompt:
    """A question put to one person; nothing in it tells the answer."""

    attempt_id: str
    doc_id: str
    question: int
    lang: Lang
    prompt: str
    topic: str
    options: list[QuizOption]
    reason: Reason  # "due": scheduled review, "new": never answered, "review": the one due soonest
    pool: int = 0  # how many questions it was drawn from: the topic's, or all
    due: int = 0  # how many of those are due for review now (this one included)

    def to_dict(self) -> dict[str, object]:
        return {
            "attempt_id": self.attempt_id, "question": self.question, "prompt": self.prompt,
            "options": [{"key": o.key, "text": o.text} for o in self.options],
        }


@dataclass(frozen=True)
class QuizResult:
    attempt_id: str
    question: int
    lang: Lang  # of the attempt: what the result is shown in
    title: str  # the question's title, in that language
    correct: bool
    choice: str  # the letter chosen, as shown
    correct_choice: str  # the right letter, as shown in this attempt
    correct_text: str
    explanation: str
    citation: Citation
    already_answered: bool = False
    next_review: datetime | None = None
    notes: tuple[str, ...] = ()  # maintainers' notes on the question, in the attempt's language where they have it

    def to_dict(self) -> dict[str, object]:
        return {
            "correct": self.correct, "correct_choice": self.correct_choice, "explanation": self.explanation,
            "citation": self.citation.to_dict(), "already_answered": self.already_answered,
            "notes": list(self.notes),
        }


class TopicTally(TypedDict):
    answered: int
    correct: int
    accuracy: float | None  # None: never attempted


@dataclass(frozen=True)
class UserStats:
    user: str
    answered: int
    correct: int
    accuracy: float | None  # None before any answer (as each topic's)
    current_streak: int  # consecutive UTC days with a correct answer, up to today or yesterday
    best_streak: int
    due: int  # questions whose review is due now
    per_topic: dict[str, TopicTally] = field(default_factory=dict)  # every topic, named in `lang`
    lang: Lang = "en"

    def to_dict(self) -> dict[str, object]:
        return {
            "user": self.user, "answered": self.answered, "correct": self.correct, "accuracy": self.accuracy,
            "current_streak": self.current_streak, "best_streak": self.best_streak, "due": self.due,
            "per_topic": {topic: dict(values) for topic, values in self.per_topic.items()}, "lang": self.lang,
        }


@dataclass(frozen=True)
class LeaderboardEntry:
    user: str
    answered: int
    correct: int
    accuracy: float
    best_streak: int

    def to_dict(self) -> dict[str, object]:
        return {
            "user": self.user, "answered": self.answered, "correct": self.correct, "accuracy": self.accuracy,
            "best_streak": self.best_streak,
        }


@dataclass(frozen=True)
class DueQuestion:
    """A question due for review for one person."""

    question: int
    title: str
    topic: str
    due: datetime


@dataclass(frozen=True)
class QuestionStat:
    question: int
    title: str
    answered: int
    correct: int
    accuracy: float

    def to_dict(self) -> dict[str, object]:
        return {
            "question": self.question, "title": self.title, "answered": self.answered,
            "correct": self.correct, "accuracy": self.accuracy,
        }


def accuracy(correct: int, answered: int) -> float:
    return round(correct / answered, 4) if answered else 0.0
