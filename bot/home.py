"""What a person's App Home shows, gathered in one call: their progress, what is due, the team's
leaderboard, and for whoever maintains the knowledge its gaps and the hardest quiz questions.

Slack renders it (`bot.slack.home_view`); nothing here knows about Slack. `Home.view` gathers it off the
event loop.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.answering.knowledge_gaps import KnowledgeGaps
from bot.lang import Lang
from bot.quiz import DueQuestion, LeaderboardEntry, QuestionStat, QuizEngine, UserStats
from bot.storage import GapRecord
from bot.storage.bookkeeping import Bookkeeping

LEADERS = 10
DUE_SHOWN = 10
GAPS_SHOWN = 15
HARDEST_SHOWN = 5


@dataclass(frozen=True)
class MaintainerView:
    gaps: list[GapRecord]  # the most frequent first
    hardest: list[QuestionStat]  # answered questions with the lowest accuracy first


@dataclass(frozen=True)
class HomeView:
    user: str
    lang: Lang
    stats: UserStats
    due: list[DueQuestion]  # the longest overdue first
    leaders: list[LeaderboardEntry]  # the team's top 10
    rank: int | None  # the person's place on the team's leaderboard (None before a first answer)
    own: LeaderboardEntry | None  # the person's line on it
    maintainer: MaintainerView | None  # only for the people in EKSBOT_ADMINS


def home_view(quiz: QuizEngine, gaps: KnowledgeGaps, *, user: str, team: str, lang: Lang,
              maintainer: bool) -> HomeView:
    standings = quiz.standings(team=team)
    rank = next((place for place, entry in enumerate(standings, start=1) if entry.user == user), None)
    extra = None
    if maintainer:
        hardest = [q for q in quiz.question_stats(lang=lang) if q.answered][:HARDEST_SHOWN]
        extra = MaintainerView(gaps=gaps.listing(limit=GAPS_SHOWN), hardest=hardest)
    return HomeView(
        user=user, lang=lang, stats=quiz.stats(user, team=team, lang=lang),
        due=quiz.due_questions(user, team=team, lang=lang)[:DUE_SHOWN], leaders=standings[:LEADERS], rank=rank,
        own=standings[rank - 1] if rank else None, maintainer=extra,
    )


class Home:
    """A person's App Home for a surface on an event loop: gathered on a thread of its own."""

    def __init__(self, quiz: QuizEngine, gaps: KnowledgeGaps, bookkeeping: Bookkeeping) -> None:
        self.quiz = quiz
        self.gaps = gaps
        self.bookkeeping = bookkeeping

    async def view(self, user: str, *, team: str, lang: Lang, maintainer: bool) -> HomeView:
        """What the person's Home shows (with the knowledge gaps and hardest questions for maintainers)."""
        if maintainer:
            await asyncio.to_thread(self.bookkeeping.settle)  # the gaps of the answers already given
        return await asyncio.to_thread(home_view, self.quiz, self.gaps, user=user, team=team, lang=lang,
                                       maintainer=maintainer)
