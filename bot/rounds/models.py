"""What the team rounds hand to the surfaces: plain, frozen values."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.knowledge.citations import Citation
from bot.lang import Lang
from bot.quiz import QuizOption


@dataclass(frozen=True)
class QuestionView:
    """A question of a round as everyone sees it; nothing in it tells the answer."""

    position: int  # 0-based place in the round
    number: int  # the quiz question's number
    title: str
    topic: str
    options: list[QuizOption]


@dataclass(frozen=True)
class RoundView:
    """A round's channel message: its questions and how many people have answered."""

    id: str
    team: str
    channel: str
    lang: Lang
    started_by: str
    scheduled: bool
    message_ts: str | None
    ends_at: datetime  # when it ends, or ended (a round not posted yet: its minutes from now)
    minutes: int
    people: int
    closed: bool
    questions: list[QuestionView]


@dataclass(frozen=True)
class Posted:
    """A round's message found already in its channel (an earlier try posted it but did not record it)."""

    ts: str  # its id (Slack's ts)
    ends_at: datetime | None  # the end it shows, when the message says


@dataclass(frozen=True)
class OptionCount:
    letter: str
    text: str
    count: int
    correct: bool


@dataclass(frozen=True)
class QuestionReveal:
    position: int
    number: int
    title: str
    answer_letter: str
    answer_text: str
    options: list[OptionCount]  # how the team answered, per option, in the order shown
    answered: int
    right: int
    sentence: str  # the explanation's first sentence
    citation: Citation


@dataclass(frozen=True)
class Standing:
    user: str
    correct: int
    answered: int


@dataclass(frozen=True)
class Reveal:
    """The end of a round: each question's answer and distribution, and the round's leaderboard."""

    round: RoundView
    questions: list[QuestionReveal]
    standings: list[Standing]  # best first: most correct, then who finished earlier
    people: int
    ended_by: str | None  # who ended it early with /quiz round end, if anyone
