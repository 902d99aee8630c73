"""`Rounds`: a team round's life, kept in the database so that any process (and any replica) can take
the next step, on time, after a restart.

    pending ──post──▶ open ──time is up, or /quiz round end──▶ closed (revealed)
       └──────────────┴── the channel is gone or the bot left ──▶ failed (its schedule paused)

A round is one channel message with N questions. Each person's answer to each question is graded once
(whichever process receives the click, however often), kept as an attempt of the quiz (so it counts in
their stats and review schedule) next to the round's own row of answers, all in one transaction that
also checks the round is still open. The steps that talk to Slack (post, show the answered count,
reveal) are claimed with a lease first (`claim`), so exactly one process takes each.
"""

from __future__ import annotations

import hashlib
import os
import random
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from bot.errors import RoundClosedError, RoundError
from bot.knowledge import Question
from bot.lang import check_lang
from bot.quiz import QuizEngine, QuizOption, QuizResult
from bot.quiz.engine import letters
from bot.rounds import choose, reveal
from bot.rounds.models import QuestionView, Reveal, RoundView
from bot.rounds.texts import say
from bot.storage import AttemptRecord, Claim, RoundQuestion, RoundRecord, RoundStore
from bot.storage.records import Schedule

DEFAULT_QUESTIONS = 3
MAX_QUESTIONS = 10  # a round's message stays well inside Slack's 50 blocks
DEFAULT_MINUTES = 60
MAX_MINUTES = 24 * 60
LEASE = timedelta(minutes=2)  # longer than any Slack call with its retries
COUNT_EVERY = timedelta(seconds=5)  # the answered count is shown at most this often (chat.update is Tier 3)
# A click on a round's message while the process that posted it has not yet recorded it open (the message is
# in the channel a moment before the round is "open" in the database) waits this long for it.
OPENING_WAIT = 3.0


def process_id() -> str:
    """Who holds a lease: this host and process (no personal data)."""
    return f"{socket.gethostname()[:64]}:{os.getpid()}:{secrets.token_hex(3)}"


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Rounds:
    def __init__(self, quiz: QuizEngine, store: RoundStore, *, clock: Callable[[], datetime] = _utc_now,
                 rng: random.Random | None = None, owner: str | None = None) -> None:
        self.quiz = quiz
        self.store = store
        self.clock = clock
        self.rng = rng or random.Random()
        self.owner = owner or process_id()

    # -- starting ----------------------------------------------------------------------------------

    def start(self, *, team: str, channel: str, user: str, lang: str, count: int = DEFAULT_QUESTIONS,
              topic: str | None = None, minutes: int = DEFAULT_MINUTES) -> RoundRecord:
        """A new round in the channel, its questions chosen, leased to this process to post it now.

        RoundError when the size or duration is out of range, a round is already running there, or no
        question is left; UnknownTopicError (with the topics) for a topic the quiz does not have."""
        language = check_lang(lang)
        check_size(count, minutes, language)
        now = self.now()
        draft = RoundRecord(
            id=secrets.token_urlsafe(12), team=team, channel=channel, started_by=user, schedule_id=None,
            lang=language, topic=topic or None, size=count, minutes=minutes, questions=(), status="pending",
            created_at=now, post_at=now, lease_owner=self.owner, lease_until=now + LEASE,
        )
        if self.store.live(team, channel) is not None:
            raise RoundError(say(language, "busy"))
        record = replace(draft, questions=self._questions(draft))
        if not self.store.create(record):
            raise RoundError(say(language, "busy"))
        return record

    def prepare(self, record: RoundRecord) -> RoundRecord:
        """A claimed round with its questions (a scheduled round chooses them when it is posted)."""
        if record.questions:
            return record
        chosen = replace(record, questions=self._questions(record))
        self.store.set_questions(record.id, self.owner, chosen.questions)
        return chosen

    def opened(self, record: RoundRecord, message_ts: str, ends_at: datetime | None = None) -> RoundRecord:
        """The round's message is in the channel: it is open until `ends_at` (the time its message shows;
        by default its minutes from now)."""
        now = self.now()
        ends_at = ends_at or now + timedelta(minutes=record.minutes)
        self.store.mark_open(record.id, self.owner, message_ts=message_ts, opened_at=now, ends_at=ends_at)
        return replace(record, status="open", message_ts=message_ts, opened_at=now, ends_at=ends_at,
                       lease_owner=None, lease_until=None)

    # -- answering ---------------------------------------------------------------------------------

    def answer(self, *, round_id: str, position: int, user: str, letter: str,
               lang: str | None = None) -> QuizResult:
        """Grade a person's click on a round's question, once: a second click changes nothing and returns
        the first result (`already_answered`), a click after the end RoundClosedError. The result is in `lang` (the
        person's language), else in the round's."""
        record = self._posted(round_id)
        language = check_lang(lang or (record.lang if record else "en"))
        if record is None or type(position) is not int or not 0 <= position < len(record.questions):
            raise RoundError(say(language, "unknown_round"))  # (a bool is no position)
        now = self.now()
        if record.status != "open" or record.ends_at is None or record.ends_at <= now:
            raise RoundClosedError(say(language, "round_over"))
        shown = record.questions[position]
        attempt = AttemptRecord(
            id=attempt_id(record, position, user), team=record.team, user=user, doc_id=shown.doc_id,
            question=shown.question, lang=language, option_order=shown.option_order, created_at=now,
        )

        def save(graded: AttemptRecord, schedule: Schedule) -> bool:
            assert graded.answered_at is not None
            outcome = self.store.record_answer(round_id, position, graded, schedule, graded.answered_at)
            if outcome == "closed":
                raise RoundClosedError(say(language, "round_over"))
            return outcome == "graded"

        return self.quiz.grade(attempt, letter, save=save)

    def _posted(self, round_id: str) -> RoundRecord | None:
        """The round a click is on. A click comes from the round's message, so a round still pending with its
        questions has been posted and is being recorded open: it is waited for (`OPENING_WAIT`), and the
        person's answer counts instead of being told the round is over."""
        record = self.store.get(round_id)
        deadline = time.monotonic() + OPENING_WAIT
        while record is not None and record.status == "pending" and record.questions and time.monotonic() < deadline:
            time.sleep(0.05)
            record = self.store.get(round_id)
        return record

    # -- ending ------------------------------------------------------------------------------------

    def open_questions(self, team: str, channel: str) -> frozenset[tuple[str, int]]:
        """The questions of the round open in a channel (none when there is none): not to be served alone
        there until the reveal."""
        live = self.store.live(team, channel)
        if live is None or live.status != "open":
            return frozenset()
        return frozenset((q.doc_id, q.question) for q in live.questions)

    def end(self, *, team: str, channel: str, user: str, admins: frozenset[str], lang: str) -> RoundRecord:
        """End the channel's open round now (whoever started it, or an admin): it is due for its reveal."""
        language = check_lang(lang)
        live = self.store.live(team, channel)
        if live is None or live.status != "open":
            raise RoundError(say(language, "no_round"))
        if user != live.started_by and user not in admins:
            raise RoundError(say(language, "not_yours"))
        if not self.store.end_early(live.id, now=self.now(), by=user):
            raise RoundClosedError(say(language, "round_over"))
        return replace(live, ends_at=self.now(), ended_by=user, end_reason="ended")

    def closed(self, record: RoundRecord) -> bool:
        """The reveal is in the channel: the round is over."""
        return self.store.finish(record.id, self.owner, status="closed", reason="time", now=self.now())

    def failed(self, record: RoundRecord, reason: str, *, pause: bool) -> bool:
        """The round ends without a reveal; with `pause`, so does its schedule until it is resumed.
        True when the round had a schedule that is now paused."""
        self.store.finish(record.id, self.owner, status="failed", reason=reason, now=self.now())
        if not pause or record.schedule_id is None:
            return False
        return self.store.update_schedule(record.schedule_id, self.now(), status="paused", paused_reason=reason)

    def release(self, record: RoundRecord, *, show_again: bool = False) -> None:
        self.store.release(record.id, self.owner, show_again=show_again)

    def claim(self, *, only: str | None = None) -> list[Claim]:
        """Lease the rounds with a step due now (post, show the count, reveal), for this process."""
        return self.store.claim(now=self.now(), owner=self.owner, lease=LEASE, count_every=COUNT_EVERY, only=only)

    def too_late(self, record: RoundRecord) -> bool:
        """A pending round that could not be posted within its own duration is not worth posting."""
        return record.post_at + timedelta(minutes=record.minutes) <= self.now()

    # -- what the surfaces show --------------------------------------------------------------------

    def view(self, record: RoundRecord, *, people: int | None = None, closed: bool = False) -> RoundView:
        questions = [
            QuestionView(position=i, number=q.number, title=q.title, topic=q.topic, options=[
                QuizOption(letter, text) for letter, text in zip(
                    letters(len(shown.option_order)), _texts(q, shown.option_order), strict=True)
            ])
            for i, (shown, q) in enumerate(self._asked(record))
        ]
        return RoundView(
            id=record.id, team=record.team, channel=record.channel, lang=record.lang,
            started_by=record.started_by, scheduled=record.schedule_id is not None, message_ts=record.message_ts,
            ends_at=record.ends_at or self.now() + timedelta(minutes=record.minutes), minutes=record.minutes,
            people=self.store.people(record.id) if people is None else people, closed=closed,
            questions=questions,
        )

    def reveal(self, record: RoundRecord) -> Reveal:
        answers = self.store.answers(record.id)
        view = self.view(record, people=len({a.user for a in answers}), closed=True)
        ended_by = record.ended_by if record.end_reason == "ended" else None
        return reveal.reveal(view, self._asked(record), answers, ended_by=ended_by)

    def now(self) -> datetime:
        now = self.clock()
        return now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)

    # -- pieces ------------------------------------------------------------------------------------

    def _questions(self, record: RoundRecord) -> tuple[RoundQuestion, ...]:
        """The round's questions (see `choose`), each with its options in one shuffled order for everyone."""
        pool = self.quiz.questions_on(record.topic, record.lang) if record.topic else self.quiz.keys
        opened = self.store.opened(record.team, record.channel)
        previous = {(q.doc_id, q.question) for q in opened[0].questions} if opened else set()
        asked = {(q.doc_id, q.question) for r in opened for q in r.questions}
        keys = choose.choose(pool, count=record.size, scores=self.quiz.store.question_scores(record.team),
                             asked=asked, previous=previous, rng=self.rng)
        if not keys:
            raise RoundError(say(record.lang, "no_questions_left"))
        out = []
        for doc_id, number in keys:
            order = [o.key for o in self.quiz.knowledge.question(doc_id, number, record.lang).options]
            self.rng.shuffle(order)
            out.append(RoundQuestion(doc_id, number, tuple(order)))
        return tuple(out)

    def _asked(self, record: RoundRecord) -> list[tuple[RoundQuestion, Question]]:
        return [(q, self.quiz.knowledge.question(q.doc_id, q.question, record.lang)) for q in record.questions]


def check_size(count: int, minutes: int, lang: str) -> None:
    if not 1 <= count <= MAX_QUESTIONS:
        raise RoundError(say(lang, "bad_size", max=MAX_QUESTIONS))
    if not 1 <= minutes <= MAX_MINUTES:
        raise RoundError(say(lang, "bad_minutes", max=MAX_MINUTES // 60))


def attempt_id(record: RoundRecord, position: int, user: str) -> str:
    """The quiz attempt of one person's answer to one question of a round: the same id for every click, and
    one nobody can work out from the round's id (it is keyed with the round's secret)."""
    key = f"{record.secret}:{record.id}:{position}:{user}" if record.secret else f"{record.id}:{position}:{user}"
    return "r" + hashlib.sha256(key.encode()).hexdigest()[:31]


def _texts(question: Question, order: tuple[str, ...]) -> list[str]:
    text = {o.key: o.text for o in question.options}
    return [text.get(key, key) for key in order]

