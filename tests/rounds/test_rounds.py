"""Team rounds in the core, on SQLite and on the real PostgreSQL, with a clock the tests move: choosing the
questions, answering once, ending, the reveal, and who takes each step."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any, TypeVar

import pytest

from bot.errors import QuizError, RoundClosedError, RoundError, UnknownTopicError
from bot.rounds.choose import choose
from bot.rounds.lifecycle import COUNT_EVERY, LEASE
from bot.storage import Score
from tests.support.quiz_helpers import DOC, Clock, knowledge
from tests.support.round_helpers import Kit, RecordingPublisher, letter_for, work

T = TypeVar("T")
ALL = [(DOC, n) for n in range(1, 16)]


def start(k: Kit, **kwargs: Any) -> Any:
    options = {"team": "T1", "channel": "C1", "user": "U1", "lang": "en"} | kwargs
    return k.rounds.start(**options)


def post(k: Kit, record: Any, publisher: RecordingPublisher | None = None) -> Any:
    return asyncio.run(work(k, publisher or RecordingPublisher()).post(record))


# -- choosing -------------------------------------------------------------------------------------------


def test_choose_mixes_unseen_and_often_missed_and_skips_the_previous_round() -> None:
    scores = {(DOC, 1): Score(10, 1), (DOC, 2): Score(4, 3), (DOC, 3): Score(5, 5), (DOC, 4): Score(8, 2),
              (DOC, 5): Score(3, 0)}
    asked = {(DOC, 6)}  # asked in a round nobody answered: seen
    picked = choose(ALL, count=4, scores=scores, asked=asked, previous={(DOC, 5)}, rng=random.Random(1))
    unseen = {(DOC, n) for n in range(7, 16)}
    assert len(picked) == len(set(picked)) == 4
    assert len(set(picked) & unseen) == 2  # half new
    assert set(picked) - unseen == {(DOC, 1), (DOC, 4)}  # then the worst: 10 % and 25 % (5 was last round's)
    assert (DOC, 5) not in picked


def test_choose_fills_from_the_other_kind_and_never_repeats_the_previous_round() -> None:
    everything_seen = {k: Score(2, 2) for k in ALL} | {(DOC, 9): Score(2, 1)}
    picked = choose(ALL, count=3, scores=everything_seen, asked=set(), previous=set(), rng=random.Random(2))
    assert (DOC, 9) in picked and len(picked) == 3
    nothing_seen = choose(ALL, count=5, scores={}, asked=set(), previous=set(), rng=random.Random(3))
    assert len(set(nothing_seen)) == 5
    pool = [(DOC, 3), (DOC, 4)]
    assert choose(pool, count=3, scores={}, asked=set(), previous={(DOC, 3)}, rng=random.Random(4)) == [(DOC, 4)]
    assert choose(pool, count=3, scores={}, asked=set(), previous=set(pool), rng=random.Random(4)) == []


def test_a_round_never_asks_the_previous_rounds_questions(kits: Callable[..., Kit], clock: Clock) -> None:
    k = kits()
    previous: set[tuple[str, int]] = set()
    for _ in range(4):
        record = post(k, start(k, count=5))
        keys = {(q.doc_id, q.question) for q in record.questions}
        assert len(keys) == 5 and not keys & previous
        previous = keys
        k.rounds.end(team="T1", channel="C1", user="U1", admins=frozenset(), lang="en")
        clock.advance(seconds=1)
        asyncio.run(work(k, RecordingPublisher()).due())


def test_a_topic_with_every_question_in_the_previous_round_has_none_left(kits: Callable[..., Kit]) -> None:
    k = kits()
    record = post(k, start(k, count=5, topic="slurm"))
    assert {q.question for q in record.questions} == {3, 4}  # the topic's two questions
    k.rounds.end(team="T1", channel="C1", user="U1", admins=frozenset(), lang="en")
    asyncio.run(work(k, RecordingPublisher()).due())
    with pytest.raises(RoundError, match="No questions left"):
        start(k, topic="slurm")
    with pytest.raises(UnknownTopicError):
        start(k, topic="paella")


def test_size_and_duration_are_checked_and_one_round_runs_per_channel(kits: Callable[..., Kit]) -> None:
    k = kits()
    for bad in ({"count": 0}, {"count": 11}, {"minutes": 0}, {"minutes": 24 * 60 + 1}):
        with pytest.raises(RoundError):
            start(k, **bad)
    start(k)
    with pytest.raises(RoundError, match="already running"):
        start(k, user="U2")
    assert start(k, channel="C2").channel == "C2"


# -- answering ------------------------------------------------------------------------------------------


def test_each_answer_is_graded_once_and_counts_in_stats_and_reviews(kits: Callable[..., Kit]) -> None:
    k = kits()
    record = post(k, start(k, count=2))
    right = k.rounds.answer(round_id=record.id, position=0, user="U2", letter=letter_for(record, 0))
    assert right.correct and not right.already_answered and right.next_review is not None
    again = k.rounds.answer(round_id=record.id, position=0, user="U2", letter=letter_for(record, 0, right=False))
    assert again.already_answered and again.correct and again.choice == letter_for(record, 0)
    wrong = k.rounds.answer(round_id=record.id, position=1, user="U2", letter=letter_for(record, 1, right=False))
    assert not wrong.correct
    stats = k.rounds.quiz.stats("U2", team="T1")
    assert (stats.answered, stats.correct) == (2, 1)
    reviews = k.store.reviews("T1", "U2")
    assert {key[1] for key in reviews} == {q.question for q in record.questions}
    assert k.rounds.store.people(record.id) == 1
    with pytest.raises(QuizError):  # not a letter of the question
        k.rounds.answer(round_id=record.id, position=0, user="U3", letter="Z")
    with pytest.raises(RoundError):
        k.rounds.answer(round_id=record.id, position=7, user="U3", letter="A")


def test_fifty_people_clicking_at_once_are_each_graded_once(kits: Callable[..., Kit]) -> None:
    k = kits()
    record = post(k, start(k, count=1))
    users = [f"U{i:03d}" for i in range(25)]
    barrier = threading.Barrier(50)

    def click(user: str) -> str:
        barrier.wait(30)
        result = k.rounds.answer(round_id=record.id, position=0, user=user, letter=letter_for(record, 0))
        return "already" if result.already_answered else "graded"

    with ThreadPoolExecutor(50) as pool:  # each person clicks twice, at the same moment
        outcomes = list(pool.map(click, users + users))
    assert outcomes.count("graded") == 25 and outcomes.count("already") == 25
    assert k.rounds.store.people(record.id) == 25
    assert len(k.store.answered_attempts(team="T1")) == 25


def test_a_click_while_the_posted_round_is_being_recorded_open_counts(kits: Callable[..., Kit]) -> None:
    k = kits()
    record = start(k, count=1)  # its message is in the channel; the process that posted it records it next
    threading.Timer(0.3, k.rounds.opened, (record, "1700000000.000100")).start()
    result = k.rounds.answer(round_id=record.id, position=0, user="U2", letter=letter_for(record, 0))
    assert result.correct and not result.already_answered
    assert k.rounds.store.people(record.id) == 1


def test_a_click_on_a_round_never_recorded_open_is_told_it_is_over(
        kits: Callable[..., Kit], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.rounds.lifecycle.OPENING_WAIT", 0.2)
    k = kits()
    record = start(k, count=1)
    with pytest.raises(RoundClosedError, match="over"):
        k.rounds.answer(round_id=record.id, position=0, user="U2", letter=letter_for(record, 0))
    assert k.store.answered_attempts(team="T1") == []


def test_after_the_end_a_click_does_not_count(kits: Callable[..., Kit], clock: Clock) -> None:
    k = kits()
    record = post(k, start(k, minutes=30))
    clock.advance(minutes=30)
    with pytest.raises(RoundClosedError, match="over"):
        k.rounds.answer(round_id=record.id, position=0, user="U2", letter="A")
    assert k.store.answered_attempts(team="T1") == []


def test_only_the_starter_or_an_admin_ends_a_round(kits: Callable[..., Kit], clock: Clock) -> None:
    k = kits()
    with pytest.raises(RoundError, match="no round"):
        k.rounds.end(team="T1", channel="C1", user="U1", admins=frozenset(), lang="en")
    record = post(k, start(k))
    with pytest.raises(RoundError, match="Only whoever started"):
        k.rounds.end(team="T1", channel="C1", user="U2", admins=frozenset({"U9"}), lang="en")
    ended = k.rounds.end(team="T1", channel="C1", user="U9", admins=frozenset({"U9"}), lang="en")
    assert ended.id == record.id and ended.ended_by == "U9"
    with pytest.raises(RoundClosedError):
        k.rounds.answer(round_id=record.id, position=0, user="U2", letter="A")


# -- the reveal -----------------------------------------------------------------------------------------


def test_the_reveal_tells_answers_distributions_explanations_and_the_leaderboard(
    kits: Callable[..., Kit], clock: Clock
) -> None:
    k = kits()
    publisher = RecordingPublisher()
    record = post(k, start(k, count=2), publisher)
    plan = {"U1": (True, True), "U2": (True, False), "U3": (False, False), "U4": (True, True)}
    for user, rights in plan.items():
        for position, right in enumerate(rights):
            k.rounds.answer(round_id=record.id, position=position, user=user,
                            letter=letter_for(record, position, right=right))
            clock.advance(seconds=10)
    clock.advance(minutes=60)
    assert asyncio.run(work(k, publisher).due()) == 1
    [reveal] = publisher.revealed
    assert reveal.people == 4 and reveal.ended_by is None
    assert [(s.user, s.correct, s.answered) for s in reveal.standings] == [
        ("U1", 2, 2), ("U4", 2, 2), ("U2", 1, 2), ("U3", 0, 2)]  # U1 finished first
    for position, shown in enumerate(reveal.questions):
        question = knowledge().question(DOC, shown.number, "en")
        assert shown.answer_letter == letter_for(record, position)
        assert shown.answer_text == question.correct_option.text  # type: ignore[union-attr]
        counts = {o.letter: o.count for o in shown.options}
        assert sum(counts.values()) == shown.answered == 4
        assert counts[shown.answer_letter] == shown.right == (3 if position == 0 else 2)
        assert shown.sentence and shown.sentence.split()[0] in question.blocks[0].text + " ".join(
            b.text for b in question.blocks)
        assert shown.citation.question == shown.number and shown.citation.source
    assert publisher.shown[-1].closed  # the round's message lost its buttons first
    assert k.rounds.store.get(record.id).status == "closed"  # type: ignore[union-attr]
    assert asyncio.run(work(k, publisher).due()) == 0 and len(publisher.revealed) == 1


# -- who takes each step --------------------------------------------------------------------------------


def test_each_step_is_claimed_by_one_process_and_a_lost_lease_is_taken_over(
    kits: Callable[..., Kit], clock: Clock
) -> None:
    one, two = kits(owner="one"), kits(owner="two")
    record = start(one)  # leased to "one", which then dies before posting
    assert two.rounds.claim() == []
    clock.advance(seconds=LEASE.total_seconds() + 1)
    [claim] = two.rounds.claim()
    assert claim.kind == "post" and claim.round.lease_owner == "two"
    assert one.rounds.claim() == []
    publisher = RecordingPublisher()
    asyncio.run(work(two, publisher).take(claim))
    assert len(publisher.posted) == 1
    clock.advance(minutes=60)
    claims = [one.rounds.claim(), two.rounds.claim()]
    assert sorted(len(c) for c in claims) == [0, 1] and [c for c in claims if c][0][0].kind == "reveal"
    assert record.id == claim.round.id


def test_a_round_whose_post_reached_the_channel_unrecorded_is_found_not_posted_again(
    kits: Callable[..., Kit], clock: Clock
) -> None:
    one, two = kits(owner="one"), kits(owner="two")
    publisher = RecordingPublisher(lose_next=True)  # Slack takes the message; its answer never comes back
    record, outcome = asyncio.run(work(one, publisher).start(team="T1", channel="C1", user="U1", lang="en",
                                                             count=2, topic=None, minutes=30))
    assert outcome == "retry" and publisher.looked == []  # a round's first try has nothing to look for
    clock.advance(seconds=1)
    [claim] = two.rounds.claim()
    assert asyncio.run(work(two, publisher).take(claim)) == "done"
    assert len(publisher.posted) == 1 and publisher.looked == [record.id]
    opened = two.rounds.store.get(record.id)
    assert opened is not None and opened.status == "open" and opened.message_ts == "1700000000.000001"
    assert opened.ends_at == publisher.posted[0].ends_at.replace(microsecond=0)  # the end its message shows


def test_the_answered_count_is_shown_at_most_every_few_seconds(kits: Callable[..., Kit], clock: Clock) -> None:
    k = kits()
    publisher = RecordingPublisher()
    record = post(k, start(k), publisher)
    assert k.rounds.claim() == []  # nobody answered: nothing to show
    k.rounds.answer(round_id=record.id, position=0, user="U1", letter="A")
    asyncio.run(work(k, publisher).due())
    assert [v.people for v in publisher.shown] == [1]
    for user in ("U2", "U3"):
        k.rounds.answer(round_id=record.id, position=0, user=user, letter="A")
    assert asyncio.run(work(k, publisher).due()) == 0  # too soon
    clock.advance(seconds=COUNT_EVERY.total_seconds())
    asyncio.run(work(k, publisher).due())
    assert [v.people for v in publisher.shown] == [1, 3]
    clock.advance(seconds=COUNT_EVERY.total_seconds())
    assert asyncio.run(work(k, publisher).due()) == 0  # no change, nothing to show


# -- retention ------------------------------------------------------------------------------------------


def test_rounds_that_ended_long_ago_are_forgotten_and_their_answers_still_count(
    kits: Callable[..., Kit], clock: Clock
) -> None:
    k = kits()
    publisher = RecordingPublisher()
    old = post(k, start(k, count=1, minutes=30), publisher)
    k.rounds.answer(round_id=old.id, position=0, user="U2", letter=letter_for(old, 0))
    clock.advance(minutes=30)
    assert asyncio.run(work(k, publisher).due()) == 1  # revealed and closed
    clock.advance(days=100)
    recent = post(k, start(k, count=1, minutes=30), publisher)
    k.rounds.answer(round_id=recent.id, position=0, user="U2", letter=letter_for(recent, 0, right=False))
    clock.advance(minutes=30)
    assert asyncio.run(work(k, publisher).due()) == 1
    live = post(k, start(k, count=1, minutes=60, channel="C2"), publisher)

    assert k.rounds.store.prune(clock.now - timedelta(days=90)) == 1
    assert k.rounds.store.get(old.id) is None and k.rounds.store.answers(old.id) == []
    assert k.rounds.store.get(recent.id) is not None and len(k.rounds.store.answers(recent.id)) == 1
    assert k.rounds.store.get(live.id) is not None  # never a round still running, however old
    stats = k.rounds.quiz.stats("U2", team="T1")
    assert (stats.answered, stats.correct) == (2, 1)  # the forgotten round's answer still counts
    assert k.rounds.store.prune(clock.now - timedelta(days=90)) == 0


def test_a_rounds_attempt_ids_cannot_be_worked_out_from_the_round_id(kits: Callable[..., Kit]) -> None:
    """Every button of a round carries its id: the attempts of its answers are keyed with a secret too."""
    import hashlib

    from bot.rounds.lifecycle import attempt_id

    k = kits()
    record = post(k, start(k, count=1))
    loaded = k.rounds.store.get(record.id)
    assert loaded is not None and loaded.secret == record.secret and len(record.secret) == 32
    result = k.rounds.answer(round_id=record.id, position=0, user="U2", letter=letter_for(record, 0))
    guessed = "r" + hashlib.sha256(f"{record.id}:0:U2".encode()).hexdigest()[:31]
    assert result.attempt_id == attempt_id(loaded, 0, "U2") != guessed
    again = k.rounds.answer(round_id=record.id, position=0, user="U2", letter=letter_for(record, 0, right=False))
    assert again.already_answered and again.attempt_id == result.attempt_id  # the same id for every click


@pytest.mark.parametrize("position", [True, False, 1.0, "0", None])
def test_a_forged_position_is_refused(kits: Callable[..., Kit], position: object) -> None:
    k = kits()
    record = post(k, start(k, count=2))
    with pytest.raises(RoundError):
        k.rounds.answer(round_id=record.id, position=position, user="U2", letter="A")  # type: ignore[arg-type]
    assert k.rounds.store.people(record.id) == 0


def test_a_question_of_an_open_round_is_not_served_alone_in_its_channel(kits: Callable[..., Kit]) -> None:
    """`/quiz N` during a round would show N's answer before the reveal: in that channel it is withheld."""
    k = kits()
    record = post(k, start(k, count=2))
    withheld = k.rounds.open_questions("T1", "C1")
    assert withheld == {(q.doc_id, q.question) for q in record.questions}
    number = record.questions[0].question
    with pytest.raises(QuizError, match="revealed when the round ends"):
        k.rounds.quiz.next_question("U5", team="T1", question=number, withheld=withheld, lang="en")
    drawn = {(p.doc_id, p.question) for p in (
        k.rounds.quiz.next_question(f"U{i}", team="T1", withheld=withheld, lang="en") for i in range(30))}
    assert drawn and not drawn & withheld
    assert k.rounds.open_questions("T1", "C2") == frozenset()  # another channel: nothing withheld
