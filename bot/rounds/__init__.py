"""Team rounds: N quiz questions in one channel message, answered by everyone, revealed at the end; on
demand or on a weekly schedule. Slack-free: a surface shows them through a `Publisher`."""

from bot.rounds.lifecycle import Rounds
from bot.rounds.models import OptionCount, Posted, QuestionReveal, QuestionView, Reveal, RoundView, Standing
from bot.rounds.runner import Offload, Publisher, RoundRunner, RoundWork
from bot.rounds.schedules import Schedules

__all__ = [
    "Offload", "OptionCount", "Posted", "Publisher", "QuestionReveal", "QuestionView", "Reveal", "RoundRunner",
    "RoundView", "RoundWork", "Rounds", "Schedules", "Standing",
]
