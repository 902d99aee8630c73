"""The quiz: questions drawn per person on a spaced-review schedule, graded, and tallied."""

from bot.quiz.engine import QuizEngine, already_answered_text
from bot.quiz.models import (
    DEFAULT_TEAM,
    DueQuestion,
    LeaderboardEntry,
    QuestionStat,
    QuizOption,
    QuizPrompt,
    QuizResult,
    TopicMatcher,
    TopicTally,
    UserStats,
)

__all__ = [
    "DEFAULT_TEAM", "DueQuestion", "LeaderboardEntry", "QuestionStat", "QuizEngine", "QuizOption", "QuizPrompt",
    "QuizResult", "TopicMatcher", "TopicTally", "UserStats", "already_answered_text",
]
