"""The end of a round, computed from its answers: each question's answer and distribution, the first
sentence of its explanation, and the round's leaderboard."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from bot.knowledge import Question
from bot.quiz.engine import letters
from bot.quiz.explain import citation, explanation
from bot.rounds.models import OptionCount, QuestionReveal, Reveal, RoundView, Standing
from bot.storage import RoundAnswerRecord, RoundQuestion
from bot.text.normalise import fold
from bot.text.sentences import sentences

SENTENCE_CHARS = 400


def key_sentence(question: Question) -> str:
    """The explanation's first sentence. One that only introduces a list or a table ("…serve different
    purposes:") goes on with the item naming the correct answer, else with the first item."""
    found = sentences(explanation(question))
    if not found:
        return ""
    first = found[0]
    if first.endswith(":") and len(found) > 1:
        right = fold(question.correct_option.text) if question.correct_option else ""
        naming = [s.rstrip(":") for s in found[1:] if right and right in fold(s)]
        items = [s for s in found[1:] if not s.endswith(":")]
        following = (naming or items or [""])[0]
        first = f"{first} {following}".strip()
    return first if len(first) <= SENTENCE_CHARS else first[: SENTENCE_CHARS - 1].rstrip() + "…"


def reveal(view: RoundView, asked: list[tuple[RoundQuestion, Question]], answers: list[RoundAnswerRecord], *,
           ended_by: str | None) -> Reveal:
    """`asked`: the round's questions with their knowledge (in the round's language), in order."""
    questions: list[QuestionReveal] = []
    for position, (shown, question) in enumerate(asked):
        mine = [a for a in answers if a.position == position]
        counts = Counter(a.choice for a in mine)
        text = {o.key: o.text for o in question.options}
        options = [
            OptionCount(letter, text.get(key, key), counts.get(key, 0), key == question.answer)
            for letter, key in zip(letters(len(shown.option_order)), shown.option_order, strict=True)
        ]
        right = next(o for o in options if o.correct)
        questions.append(QuestionReveal(
            position=position, number=question.number, title=question.title, answer_letter=right.letter,
            answer_text=right.text, options=options, answered=len(mine), right=sum(1 for a in mine if a.correct),
            sentence=key_sentence(question), citation=citation(question),
        ))
    return Reveal(round=view, questions=questions, standings=standings(answers), people=len({a.user for a in answers}),
                  ended_by=ended_by)


def standings(answers: list[RoundAnswerRecord]) -> list[Standing]:
    """Everyone who answered, most correct first; on a tie, whoever gave their last answer earlier."""
    correct: Counter[str] = Counter()
    answered: Counter[str] = Counter()
    last: dict[str, datetime] = {}
    for a in answers:
        answered[a.user] += 1
        correct[a.user] += int(a.correct)
        last[a.user] = max(last.get(a.user, a.answered_at), a.answered_at)
    order = sorted(answered, key=lambda user: (-correct[user], last[user], user))
    return [Standing(user, correct[user], answered[user]) for user in order]
