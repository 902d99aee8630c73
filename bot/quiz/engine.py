"""`QuizEngine`: draw a question for a person, grade the answer, reschedule it, and report progress.

Options are shuffled for every attempt and the order is kept on the server: the prompt shows letters
only, and grading maps the shown letter back to the option of the knowledge. The first answer of an
attempt wins, atomically in the database, whichever process or replica receives it.

The engine draws from a fixed knowledge, or from the knowledge in use, read at each call (a server's knowledge
changes while it runs: `bot.answering.in_use.AssistantInUse.knowledge`).
"""

from __future__ import annotations

import random
import secrets
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import replace
from datetime import UTC, date, datetime

from bot.errors import (
    AttemptOwnerError,
    InvalidChoiceError,
    QuizError,
    UnknownAttemptError,
    UnknownTopicError,
)
from bot.knowledge import KnowledgeBase, Question
from bot.lang import check_lang
from bot.quiz import schedule, stats
from bot.quiz.draw import Key, draw, reason_for
from bot.quiz.explain import citation, explanation
from bot.quiz.models import (
    CONFIDENCES,
    DEFAULT_TEAM,
    DueQuestion,
    LeaderboardEntry,
    QuestionStat,
    QuizOption,
    QuizPrompt,
    QuizResult,
    TopicMatcher,
    UserStats,
    accuracy,
)
from bot.quiz.texts import say
from bot.quiz.topics import questions_on
from bot.storage import AttemptRecord, QuizStore, ReviewRecord
from bot.storage.records import Schedule

SaveGraded = Callable[[AttemptRecord, Schedule], bool]
KnowledgeInUse = Callable[[], KnowledgeBase]  # the knowledge in use now


def _utc_now() -> datetime:
    return datetime.now(UTC)


def letters(count: int) -> list[str]:
    return [chr(ord("A") + i) for i in range(count)]


class _Drawable:
    """What the engine draws from in one knowledge: every edition of every quiz question with options, and their
    keys in document order."""

    def __init__(self, knowledge: KnowledgeBase) -> None:
        self.knowledge = knowledge
        self.editions = [q for d in knowledge.documents if d.kind == "quiz" for q in d.questions if q.options]
        self.keys = sorted({(q.doc_id, q.number) for q in self.editions})


class QuizEngine:
    def __init__(self, knowledge: KnowledgeBase | KnowledgeInUse, store: QuizStore, *,
                 topics: TopicMatcher | None = None, clock: Callable[[], datetime] = _utc_now,
                 rng: random.Random | None = None) -> None:
        """`knowledge`: what to draw from, or where to read the knowledge in use at each call."""
        self.store = store
        self.topic_matcher = topics
        self.clock = clock
        self.rng = rng or random.Random()
        if isinstance(knowledge, KnowledgeBase):
            fixed = knowledge
            self._in_use: KnowledgeInUse = lambda: fixed
        else:
            self._in_use = knowledge
        self._drawn = _Drawable(self._in_use())

    def _drawable(self) -> _Drawable:
        """What to draw from in the knowledge in use (made again when it changed)."""
        knowledge = self._in_use()
        drawn = self._drawn
        if drawn.knowledge is not knowledge:
            drawn = self._drawn = _Drawable(knowledge)
        return drawn

    @property
    def knowledge(self) -> KnowledgeBase:
        """The knowledge in use."""
        return self._drawable().knowledge

    @property
    def _editions(self) -> list[Question]:
        return self._drawable().editions

    @property
    def _keys(self) -> list[Key]:
        return self._drawable().keys

    # -- asking and grading ------------------------------------------------------------------------

    def next_question(self, user: str, *, team: str = DEFAULT_TEAM, topic: str | None = None, lang: str = "en",
                      question: int | None = None, withheld: Collection[Key] = ()) -> QuizPrompt:
        """The question due for review first, else one never answered, else the one due soonest.

        `topic` narrows the draw (a topic name, or what `topics.match_topic` finds); `question` asks
        that question number whatever its schedule. `withheld` questions are not served (those of a team
        round still open where the person asks: served alone, they would give its answers away before the
        reveal); asked by number, one of them is refused with a QuizError. The prompt tells how many
        questions it was drawn from and how many of those are due for review.
        """
        language = check_lang(lang)
        if not self._keys:
            raise UnknownTopicError(say(language, "no_questions"), [])
        now = self._now()
        due = {key: review.due for key, review in self.store.reviews(team, user).items()}
        if question is not None:
            candidates = self._keys
            key = self._numbered(question, language)
            if key in withheld:
                raise QuizError(say(language, "in_open_round", number=question))
            reason = reason_for(key, due, now)
        else:
            candidates = self._on_topic(topic, language) if topic and topic.strip() else self._keys
            kept = [k for k in candidates if k not in withheld]
            if not kept:
                raise QuizError(say(language, "in_open_round", number=candidates[0][1]))
            candidates = kept
            key, reason = draw(candidates, due, now, self.rng)
        q = self.knowledge.question(key[0], key[1], language)
        order = [o.key for o in q.options]
        self.rng.shuffle(order)
        record = AttemptRecord(
            id=secrets.token_urlsafe(16), team=team, user=user, doc_id=q.doc_id, question=q.number, lang=language,
            option_order=tuple(order), created_at=now,
        )
        self.store.create_attempt(record)
        text = {o.key: o.text for o in q.options}
        shown = [QuizOption(letter, text[k]) for letter, k in zip(letters(len(order)), order, strict=True)]
        return QuizPrompt(
            attempt_id=record.id, doc_id=q.doc_id, question=q.number, lang=language, prompt=q.title,
            topic=q.topic, options=shown, reason=reason, pool=len(candidates),
            due=sum(1 for k in candidates if k in due and due[k] <= now),
        )

    def answer(self, user: str, attempt_id: str, choice: str, *, confidence: str | None = None,
               team: str | None = None) -> QuizResult:
        """Grade `choice`, a letter as shown; a second answer changes nothing and returns the first result, with
        `already_answered` set. With `team`, an attempt of another team is unknown (as one that does not exist)."""
        record = self._own_attempt(user, attempt_id, team)
        return self.grade(record, choice, confidence=confidence, save=self._finish)

    def grade(self, record: AttemptRecord, choice: str, *, save: SaveGraded,
              confidence: str | None = None) -> QuizResult:
        """Grade `choice` (a letter as shown) of an attempt, and keep it with its question's new schedule.

        `save(graded, schedule)` stores the graded attempt and the review `schedule` returns, in one
        transaction, and returns False when the attempt was graded before: then the first result comes back,
        with `already_answered` set. A team round saves its answers this way, next to its own rows."""
        lang = record.lang
        question = self._question_of(record)
        shown = letters(len(record.option_order))
        letter = choice.strip().rstrip(").").strip().upper()
        if letter not in shown:
            raise InvalidChoiceError(say(lang, "invalid_choice", choice=choice, letters=", ".join(shown)))
        if confidence is not None and confidence not in CONFIDENCES:
            raise InvalidChoiceError(say(lang, "invalid_confidence", confidence=confidence))
        if record.answered_at is not None:
            return self._earlier_result(record, question)

        chosen = record.option_order[shown.index(letter)]
        correct = chosen == question.answer
        now = self._now()
        graded = replace(record, answered_at=now, choice=chosen, correct=correct, confidence=confidence)
        rescheduled: list[ReviewRecord] = []

        def reschedule(current: ReviewRecord | None) -> ReviewRecord:
            card = schedule.review(
                current.card if current else None, record.question, correct, confidence, now
            )
            rescheduled.append(ReviewRecord(
                team=record.team, user=record.user, doc_id=record.doc_id, question=record.question,
                card=card.to_json(), due=card.due,
            ))
            return rescheduled[-1]

        if not save(graded, reschedule):
            first = self.store.get_attempt(record.id)
            assert first is not None
            return self._earlier_result(first, question)
        return self._result(record, question, chosen, already=False, next_review=rescheduled[-1].due)

    def result(self, user: str, attempt_id: str, *, team: str | None = None) -> QuizResult:
        """The result of one of `user`'s answered attempts, as graded (to show or share it again)."""
        record = self._own_attempt(user, attempt_id, team)
        if record.choice is None:
            raise UnknownAttemptError(say(record.lang, "not_answered"))
        return self._earlier_result(record, self._question_of(record))

    # -- progress ----------------------------------------------------------------------------------

    def stats(self, user: str, *, team: str = DEFAULT_TEAM, lang: str | None = None,
              default_lang: str = "en") -> UserStats:
        """A person's progress, with topics named in `lang`; without it, in the language of their latest
        answer, or `default_lang` before any."""
        now = self._now()
        attempts = self.store.answered_attempts(team=team, user=user)
        lang = check_lang(lang if lang is not None else attempts[-1].lang if attempts else default_lang)
        right = sum(1 for a in attempts if a.correct)
        current, best = stats.streaks(_days(a.answered_at for a in attempts if a.correct), now.date())
        known = set(self._keys)
        due = sum(1 for key, r in self.store.reviews(team, user).items() if key in known and r.due <= now)
        per_topic = stats.tally(
            ((self.knowledge.question(a.doc_id, a.question, lang).topic, bool(a.correct))
             for a in attempts if (a.doc_id, a.question) in known),
            self.topics(lang),
        )
        return UserStats(
            user=user, answered=len(attempts), correct=right,
            accuracy=accuracy(right, len(attempts)) if attempts else None,
            current_streak=current, best_streak=best, due=due, per_topic=per_topic, lang=lang,
        )

    def leaderboard(self, *, team: str = DEFAULT_TEAM, limit: int = 10) -> list[LeaderboardEntry]:
        """People of a team by correct answers, then accuracy."""
        return self.standings(team=team)[:max(limit, 0)]

    def standings(self, *, team: str = DEFAULT_TEAM) -> list[LeaderboardEntry]:
        """Everyone of a team who has answered, in leaderboard order (a person's rank is their place)."""
        days: dict[str, list[datetime | None]] = defaultdict(list)
        for a in self.store.answered_attempts(team=team, correct_only=True):
            days[a.user].append(a.answered_at)
        today = self._now().date()
        entries = [
            LeaderboardEntry(
                user=user, answered=s.answered, correct=s.correct, accuracy=accuracy(s.correct, s.answered),
                best_streak=stats.streaks(_days(days[user]), today)[1],
            )
            for user, s in self.store.user_scores(team).items()
        ]
        entries.sort(key=lambda e: (-e.correct, -e.accuracy, -e.answered, e.user))
        return entries

    def due_questions(self, user: str, *, team: str = DEFAULT_TEAM, lang: str = "en") -> list[DueQuestion]:
        """The questions whose review is due now, the longest overdue first."""
        lang = check_lang(lang)
        now = self._now()
        known = set(self._keys)
        due = sorted((r.due, key) for key, r in self.store.reviews(team, user).items() if key in known and r.due <= now)
        out: list[DueQuestion] = []
        for when, (doc_id, number) in due:
            q = self.knowledge.question(doc_id, number, lang)
            out.append(DueQuestion(question=number, title=q.title, topic=q.topic, due=when))
        return out

    def question_stats(self, *, team: str | None = None, lang: str = "en") -> list[QuestionStat]:
        """Every quiz question: how often it was answered right (in a team, or anywhere), hardest first."""
        lang = check_lang(lang)
        scores = self.store.question_scores(team)
        out: list[QuestionStat] = []
        for key in self._keys:
            q = self.knowledge.question(key[0], key[1], lang)
            score = scores.get(key)
            answered, right = (score.answered, score.correct) if score else (0, 0)
            out.append(QuestionStat(q.number, q.title, answered, right, accuracy(right, answered)))
        return stats.hardest_first(out)

    def topics(self, lang: str) -> list[str]:
        """The quiz's topic names in `lang`, in document order."""
        out: list[str] = []
        for doc_id, number in self._keys:
            topic = self.knowledge.question(doc_id, number, lang).topic
            if topic not in out:
                out.append(topic)
        return out

    @property
    def keys(self) -> list[Key]:
        """Every quiz question with options, as (doc_id, number), in document order."""
        return list(self._keys)

    def questions_on(self, topic: str, lang: str) -> list[Key]:
        """The questions a topic is about (a topic name, or free text through the topic matcher);
        UnknownTopicError lists the topics when none is."""
        return self._on_topic(topic, check_lang(lang))

    # -- pieces ------------------------------------------------------------------------------------

    def _finish(self, graded: AttemptRecord, schedule: Schedule) -> bool:
        assert graded.choice is not None and graded.correct is not None and graded.answered_at is not None
        return self.store.finish_attempt(
            graded.id, choice=graded.choice, correct=graded.correct, confidence=graded.confidence,
            answered_at=graded.answered_at, schedule=schedule,
        )

    def _now(self) -> datetime:
        now = self.clock()
        return now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)

    def _on_topic(self, topic: str, lang: str) -> list[Key]:
        keys = questions_on(topic, [self._editions])
        if not keys and self.topic_matcher is not None:
            known = set(self._keys)
            for key in self.topic_matcher.match_topic(topic, lang):
                key = (key[0], int(key[1]))
                if key in known and key not in keys:
                    keys.append(key)
        if not keys:
            names = self.topics(lang)
            message = say(lang, "unknown_topic", topic=topic.strip(), topics=", ".join(names))
            raise UnknownTopicError(message, names)
        return keys

    def _numbered(self, number: int, lang: str) -> Key:
        key = next((k for k in self._keys if k[1] == number), None)
        if key is None:
            names = self.topics(lang)
            message = say(lang, "unknown_question", number=number, topics=", ".join(names))
            raise UnknownTopicError(message, names)
        return key

    def _own_attempt(self, user: str, attempt_id: str, team: str | None = None) -> AttemptRecord:
        record = self.store.get_attempt(attempt_id)
        if record is None or (team is not None and record.team != team):
            raise UnknownAttemptError(say("en", "unknown_attempt"))
        if record.user != user:
            raise AttemptOwnerError(say(record.lang, "not_your_attempt"))
        return record

    def _question_of(self, record: AttemptRecord) -> Question:
        """The attempt's question, as long as the knowledge still has it with the same options."""
        try:
            question = self.knowledge.question(record.doc_id, record.question, record.lang)
        except KeyError:
            question = None
        if question is None or sorted(o.key for o in question.options) != sorted(record.option_order):
            raise UnknownAttemptError(say(record.lang, "unknown_attempt"))
        return question

    def _earlier_result(self, record: AttemptRecord, question: Question) -> QuizResult:
        assert record.choice is not None
        review = self.store.review(record.team, record.user, record.doc_id, record.question)
        return self._result(record, question, record.choice, already=True,
                            next_review=review.due if review else None)

    def _result(self, record: AttemptRecord, question: Question, chosen: str, *, already: bool,
                next_review: datetime | None) -> QuizResult:
        shown = letters(len(record.option_order))
        right = question.correct_option
        assert right is not None
        notes = tuple(self.knowledge.notes_on(record.doc_id, record.question, record.lang))
        return QuizResult(
            attempt_id=record.id, question=record.question, lang=record.lang, title=question.title,
            correct=chosen == right.key,
            choice=shown[record.option_order.index(chosen)],
            correct_choice=shown[record.option_order.index(right.key)], correct_text=right.text,
            explanation=explanation(question), citation=replace(citation(question), notes=notes),
            already_answered=already, next_review=next_review, notes=notes,
        )


def already_answered_text(result: QuizResult) -> str:
    """What to tell whoever answers an attempt a second time: the first answer counts."""
    return say(result.lang, "already_answered", choice=result.choice)


def _days(moments: Iterable[datetime | None]) -> list[date]:
    return [m.date() for m in moments if m is not None]
