"""The quiz engine on a real store (SQLite file and the real PostgreSQL), with a clock the tests move."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest

from bot.errors import (
    AttemptOwnerError,
    InputError,
    InvalidChoiceError,
    UnknownAttemptError,
    UnknownTopicError,
)
from bot.quiz import QuizEngine, QuizResult, TopicMatcher
from bot.storage import Database, QuizStore
from tests.support.quiz_helpers import (
    DOC,
    Clock,
    FakeTopics,
    answer_worker,
    knowledge,
    race,
    right_letter,
    wrong_letter,
)

ALL = list(range(1, 16))
Make = Callable[..., QuizEngine]


@pytest.fixture
def stores() -> Iterator[list[Database]]:
    opened: list[Database] = []
    yield opened
    for store in opened:
        store.close()


def _maker(url: str, clock: Clock, stores: list[Database]) -> Make:
    def make(*, topics: TopicMatcher | None = None, seed: int = 7) -> QuizEngine:
        store = Database(url)
        store.upgrade()
        stores.append(store)
        return QuizEngine(knowledge(), QuizStore(store), topics=topics, clock=clock, rng=random.Random(seed))

    return make


@pytest.fixture
def make(db_url: str, clock: Clock, stores: list[Database]) -> Make:
    """Engines on SQLite and on PostgreSQL (the test runs once for each)."""
    return _maker(db_url, clock, stores)


@pytest.fixture
def make_sqlite(sqlite_url: str, clock: Clock, stores: list[Database]) -> Make:
    return _maker(sqlite_url, clock, stores)


def answer_right(engine: QuizEngine, user: str, *, confidence: str | None = None,
                 **ask: object) -> QuizResult:
    prompt = engine.next_question(user, **ask)  # type: ignore[arg-type]
    return engine.answer(user, prompt.attempt_id, right_letter(prompt), confidence=confidence)


def answer_wrong(engine: QuizEngine, user: str, **ask: object) -> QuizResult:
    prompt = engine.next_question(user, **ask)  # type: ignore[arg-type]
    return engine.answer(user, prompt.attempt_id, wrong_letter(prompt))


# -- prompts and grading -------------------------------------------------------------------------

def test_a_prompt_shows_the_question_and_options_but_not_the_answer(make_sqlite: Make) -> None:
    engine = make_sqlite()
    prompt = engine.next_question("ana", question=5, lang="es")
    q = knowledge().question(DOC, 5, "es")
    assert prompt.prompt == q.title and prompt.topic == q.topic and prompt.lang == "es"
    assert [o.key for o in prompt.options] == ["A", "B", "C", "D"]
    assert sorted(o.text for o in prompt.options) == sorted(o.text for o in q.options)
    body = prompt.to_dict()
    assert set(body) == {"attempt_id", "question", "prompt", "options"}
    assert all(set(option) == {"key", "text"} for option in body["options"])  # type: ignore[attr-defined]
    assert body["question"] == 5 and body["attempt_id"] == prompt.attempt_id
    assert len(prompt.attempt_id) >= 16 and prompt.attempt_id != engine.next_question("ana").attempt_id


def test_the_correct_option_moves_between_letters(make_sqlite: Make) -> None:
    engine = make_sqlite(seed=3)
    letters = set()
    orders = set()
    for _ in range(30):
        prompt = engine.next_question("ana", question=1)
        letters.add(right_letter(prompt))
        orders.add(tuple(o.text for o in prompt.options))
    assert len(letters) >= 3  # not always B, the knowledge's letter
    assert len(orders) >= 5


def test_grading_follows_the_option_shown_not_the_letter_in_the_knowledge(make: Make) -> None:
    engine = make(seed=1)
    q = knowledge().question(DOC, 1, "en")  # the knowledge's answer: B) Tensor parallelism
    results = []
    for _ in range(6):
        prompt = engine.next_question("ana", question=1)
        shown = right_letter(prompt)
        result = engine.answer("ana", prompt.attempt_id, shown.lower())  # lower case is fine
        assert result.correct and result.choice == shown and result.correct_choice == shown
        assert result.correct_text == "Tensor parallelism"
        results.append(result)
        prompt = engine.next_question("ana", question=1)
        wrong = wrong_letter(prompt)
        result = engine.answer("ana", prompt.attempt_id, wrong)
        assert not result.correct and result.choice == wrong
        assert result.correct_choice == right_letter(prompt) and result.correct_text == q.answer_line[3:]
    # Answering B every time would not have been always right: the letter moves.
    assert {r.correct_choice for r in results} != {"B"}


def test_the_result_explains_and_cites_the_question(make_sqlite: Make) -> None:
    engine = make_sqlite()
    prompt = engine.next_question("ana", question=2)
    result = engine.answer("ana", prompt.attempt_id, right_letter(prompt))
    assert result.explanation.startswith("For models exceeding 100 billion parameters")
    assert "Tensor parallelism (TP)" in result.explanation
    assert "TP=8" not in result.explanation and "```" not in result.explanation  # code: in the snippet
    assert "Example configuration" not in result.explanation  # the label of the code goes with it
    cite = result.citation
    assert (cite.question, cite.source, cite.score) == (2, "eks-training-quiz.en.md", 1.0)
    assert cite.title == prompt.prompt
    assert cite.excerpt == result.explanation.split("\n\n")[0]
    assert cite.snippet is not None and cite.snippet.startswith("TP=8")
    body = result.to_dict()
    assert {"correct", "correct_choice", "explanation", "citation"} <= set(body)
    assert body["citation"] == cite.to_dict() and body["correct"] is True


def test_tables_read_as_lines_in_the_language_of_the_attempt(make_sqlite: Make) -> None:
    engine = make_sqlite()
    prompt = engine.next_question("ana", question=1, lang="es")
    result = engine.answer("ana", prompt.attempt_id, wrong_letter(prompt))
    assert "|" not in result.explanation
    lines = result.explanation.splitlines()
    row = next(line for line in lines if line.startswith("- Paralelismo de tensores"))
    assert "Capas individuales" in row and "Comunicación dentro de la capa" in row
    assert result.citation.source == "eks-training-quiz.es.md"
    assert result.citation.snippet is None
    assert result.correct_text == "Paralelismo de tensores"


def test_choices_and_confidence_are_checked(make_sqlite: Make) -> None:
    engine = make_sqlite()
    prompt = engine.next_question("ana", lang="es")
    for bad in ("E", "Z", "", "AB", "1"):
        with pytest.raises(InvalidChoiceError, match="A, B, C, D"):
            engine.answer("ana", prompt.attempt_id, bad)
    with pytest.raises(InvalidChoiceError, match="sure"):
        engine.answer("ana", prompt.attempt_id, "A", confidence="maybe")
    with pytest.raises(UnknownAttemptError):
        engine.answer("ana", "no-such-attempt", "A")
    with pytest.raises(AttemptOwnerError):
        engine.answer("bob", prompt.attempt_id, "A")
    with pytest.raises(InputError):
        engine.next_question("ana", lang="fr")
    # None of the refusals used up the attempt.
    assert engine.answer("ana", prompt.attempt_id, right_letter(prompt)).correct
    assert engine.stats("ana").answered == 1


def test_a_result_carries_the_language_and_title_of_its_attempt(make_sqlite: Make) -> None:
    engine = make_sqlite()
    prompt = engine.next_question("ana", question=5, lang="es")
    result = engine.answer("ana", prompt.attempt_id, right_letter(prompt))
    assert (result.lang, result.title) == ("es", prompt.prompt)
    assert result.title == knowledge().question(DOC, 5, "es").title


def test_only_its_owner_reads_a_result_again_and_only_once_graded(make_sqlite: Make) -> None:
    engine = make_sqlite()
    prompt = engine.next_question("ana", question=5, lang="es")
    with pytest.raises(UnknownAttemptError, match="aún no tiene respuesta"):
        engine.result("ana", prompt.attempt_id)
    first = engine.answer("ana", prompt.attempt_id, wrong_letter(prompt))
    again = engine.result("ana", prompt.attempt_id)
    assert again.already_answered and not again.correct
    assert (again.choice, again.lang, again.title, again.next_review) == (
        first.choice, "es", first.title, first.next_review)
    with pytest.raises(AttemptOwnerError):
        engine.result("bob", prompt.attempt_id)
    with pytest.raises(UnknownAttemptError):
        engine.result("ana", "no-such-attempt")
    assert engine.stats("ana").answered == 1  # reading changed nothing


# -- first answer wins -----------------------------------------------------------------------------

def test_a_second_answer_returns_the_first_and_changes_nothing(make: Make, clock: Clock) -> None:
    engine = make()
    prompt = engine.next_question("ana", question=4)
    first = engine.answer("ana", prompt.attempt_id, wrong_letter(prompt))
    before = engine.stats("ana")
    due_before = engine.store.review("default", "ana", DOC, 4)
    clock.advance(seconds=30)  # a retry a little later (not yet due again)
    again = engine.answer("ana", prompt.attempt_id, right_letter(prompt), confidence="sure")
    assert again.already_answered and not again.correct
    assert (again.choice, again.correct_choice, again.explanation) == (
        first.choice, first.correct_choice, first.explanation)
    assert again.next_review == first.next_review
    assert engine.stats("ana") == before
    assert engine.store.review("default", "ana", DOC, 4) == due_before
    # The same through another engine on the same database (another process or replica).
    assert make().answer("ana", prompt.attempt_id, first.choice).already_answered
    assert engine.stats("ana").answered == 1


def test_two_processes_answering_the_same_attempts_count_once(make: Make, db_url: str) -> None:
    engine = make()
    prompts = [engine.next_question("ana", question=n) for n in (1, 2, 3, 4, 5, 6)]
    # One process answers right, the other wrong: what is stored must be the answer that won.
    right = [(p.attempt_id, right_letter(p)) for p in prompts]
    wrong = [(p.attempt_id, wrong_letter(p)) for p in prompts]
    results = race(answer_worker, [(db_url, "ana", right), (db_url, "ana", wrong)], rounds=len(prompts))
    won_right = 0
    for (attempt_id, good), _ in zip(right, wrong, strict=True):
        outcomes = sorted(outcome for aid, outcome in results if aid == attempt_id)
        assert [kind for kind, _letter in outcomes] == ["already", "graded"]
        winner = outcomes[1][1]
        won_right += winner == good
        again = engine.answer("ana", attempt_id, "A")
        assert again.already_answered and again.choice == winner
    stats = engine.stats("ana")
    assert (stats.answered, stats.correct) == (6, won_right)
    assert sum(s.answered for s in engine.question_stats()) == 6


# -- what comes next -------------------------------------------------------------------------------

def test_new_questions_come_before_reviews(make: Make, clock: Clock) -> None:
    engine = make()
    seen: list[int] = []
    for _ in ALL:
        prompt = engine.next_question("ana")
        assert prompt.reason == "new" and prompt.question not in seen
        engine.answer("ana", prompt.attempt_id, right_letter(prompt), confidence="sure")
        seen.append(prompt.question)
        clock.advance(minutes=1)
    assert sorted(seen) == ALL
    prompt = engine.next_question("ana")
    assert prompt.reason == "review" and prompt.question == seen[0]  # all answered: the one due soonest


def test_a_due_question_comes_first(make: Make, clock: Clock) -> None:
    engine = make()
    missed = answer_wrong(engine, "ana")
    answer_right(engine, "ana", confidence="sure")
    assert engine.next_question("ana").reason == "new"  # the missed one is not due yet
    clock.advance(minutes=2)
    prompt = engine.next_question("ana")
    assert (prompt.question, prompt.reason) == (missed.question, "due")
    assert (prompt.pool, prompt.due) == (len(ALL), 1)  # drawn from all the questions; it is the one due
    assert engine.stats("ana").due == 1
    engine.answer("ana", prompt.attempt_id, right_letter(prompt), confidence="sure")
    assert engine.stats("ana").due == 0
    assert engine.next_question("ana").reason == "new"


def test_wrong_answers_come_back_sooner_than_right_ones(make: Make, clock: Clock) -> None:
    engine = make()
    due = {}
    for user, how in [("w", "wrong"), ("g", "guessed"), ("r", None), ("s", "sure")]:
        prompt = engine.next_question(user, question=9)
        if how == "wrong":
            result = engine.answer(user, prompt.attempt_id, wrong_letter(prompt))
        else:
            result = engine.answer(user, prompt.attempt_id, right_letter(prompt), confidence=how)
        assert result.next_review is not None
        due[how] = result.next_review
    assert clock.now < due["wrong"] < due["guessed"] < due[None] < due["sure"]
    assert due["sure"] - clock.now >= timedelta(days=1)


def test_asking_for_a_question_by_number(make_sqlite: Make, clock: Clock) -> None:
    engine = make_sqlite()
    missed = answer_wrong(engine, "ana", question=3)
    clock.advance(minutes=5)
    prompt = engine.next_question("ana", question=7)  # even with question 3 due
    assert (prompt.question, prompt.reason) == (7, "new")
    assert engine.next_question("ana", question=missed.question).reason == "due"
    with pytest.raises(UnknownTopicError) as raised:
        engine.next_question("ana", question=99, lang="es")
    assert "99" in str(raised.value) and "Karpenter" in raised.value.topics


# -- topics ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("topic", "lang", "expected"),
    [
        ("Slinky and Slurm", "en", {3, 4}),
        ("slurm", "es", {3, 4}),
        ("KARPENTER", "en", {15}),
        ("precision mixta", "es", {10}),  # no accent typed
        ("almacenamiento", "en", {8}),  # a Spanish topic name while quizzing in English
        ("parallelism", "es", {1, 2}),  # an English one while quizzing in Spanish
        ("  deepspeed zero  ", "en", {12}),
    ],
)
def test_a_topic_name_narrows_the_questions(make_sqlite: Make, topic: str, lang: str,
                                            expected: set[int]) -> None:
    matcher = FakeTopics()
    engine = make_sqlite(topics=matcher)
    drawn = set()
    for _ in range(len(expected) + 2):
        prompt = engine.next_question("ana", topic=topic, lang=lang)
        assert (prompt.lang, prompt.pool) == (lang, len(expected))
        engine.answer("ana", prompt.attempt_id, right_letter(prompt))
        drawn.add(prompt.question)
    assert drawn == expected
    assert matcher.calls == []  # names are matched without retrieval


def test_other_topics_go_through_the_topic_matcher(make_sqlite: Make) -> None:
    matcher = FakeTopics({"offloading to the CPU": [(DOC, 12)], "paella": [("cookbook", 1)]})
    engine = make_sqlite(topics=matcher)
    assert engine.next_question("ana", topic="offloading to the CPU", lang="es").question == 12
    assert matcher.calls == [("offloading to the CPU", "es")]
    with pytest.raises(UnknownTopicError) as raised:
        engine.next_question("ana", topic="paella", lang="es")  # a key outside the quiz counts for nothing
    assert raised.value.topics == engine.topics("es")
    assert "No tengo preguntas sobre «paella»" in str(raised.value)


def test_an_unknown_topic_lists_the_topics_in_the_language_asked(make_sqlite: Make) -> None:
    engine = make_sqlite()
    with pytest.raises(UnknownTopicError) as raised:
        engine.next_question("ana", topic="kubeflow pipelines", lang="en")
    assert raised.value.topics == engine.topics("en")
    assert "Slinky and Slurm" in raised.value.topics and "Storage (FSx for Lustre)" in str(raised.value)
    assert engine.topics("es")[0] == "Paralelismo distribuido" and len(engine.topics("es")) == 13


# -- progress --------------------------------------------------------------------------------------

def test_stats_count_answers_per_topic_in_the_language_asked(make: Make) -> None:
    engine = make()
    answer_right(engine, "ana", question=3)
    answer_wrong(engine, "ana", question=4)
    answer_right(engine, "ana", question=15, lang="es")
    answer_right(engine, "bob", question=3)
    answer_right(engine, "ana", question=1, team="other")
    stats = engine.stats("ana", lang="es")
    assert (stats.user, stats.answered, stats.correct) == ("ana", 3, 2)
    assert stats.accuracy == pytest.approx(2 / 3, abs=1e-3)
    assert stats.per_topic["Slinky y Slurm"] == {"answered": 2, "correct": 1, "accuracy": 0.5}
    assert stats.per_topic["Karpenter"]["correct"] == 1
    # That answer was in another team: never attempted here, so no accuracy rather than 0 %.
    assert stats.per_topic["Paralelismo distribuido"] == {"answered": 0, "correct": 0, "accuracy": None}
    assert "Slinky and Slurm" in engine.stats("ana", lang="en").per_topic
    body = stats.to_dict()
    assert body["answered"] == 3 and body["per_topic"]["Slinky y Slurm"]["answered"] == 2  # type: ignore[index]
    assert body["lang"] == "es"
    empty = engine.stats("nobody")
    assert (empty.answered, empty.accuracy, empty.current_streak, empty.due) == (0, None, 0, 0)
    assert {values["accuracy"] for values in empty.per_topic.values()} == {None}


def test_stats_name_topics_in_the_language_played_unless_asked(make_sqlite: Make, clock: Clock) -> None:
    engine = make_sqlite()
    assert engine.stats("ana", default_lang="es").lang == "es"  # nothing played yet: the default
    answer_right(engine, "ana", question=3, lang="es")
    clock.advance(minutes=1)
    answer_right(engine, "ana", question=15, lang="en")
    played = engine.stats("ana", default_lang="es")
    assert played.lang == "en" and "Slinky and Slurm" in played.per_topic  # the latest answer's language
    asked = engine.stats("ana", lang="es", default_lang="en")
    assert asked.lang == "es" and asked.per_topic["Slinky y Slurm"]["answered"] == 1


def test_streaks_count_days_with_a_right_answer(make_sqlite: Make, clock: Clock) -> None:
    engine = make_sqlite()
    for _day in range(3):  # three days in a row with a right answer
        answer_right(engine, "ana")
        clock.advance(days=1)
    answer_wrong(engine, "ana")  # day 4: only a wrong answer
    clock.advance(days=1)
    answer_right(engine, "ana")  # day 5
    stats = engine.stats("ana")
    assert (stats.current_streak, stats.best_streak) == (1, 3)
    clock.advance(days=1)  # day 6, nothing yet: yesterday still counts
    assert engine.stats("ana").current_streak == 1
    answer_right(engine, "ana")
    assert engine.stats("ana").current_streak == 2
    clock.advance(days=2)
    assert (engine.stats("ana").current_streak, engine.stats("ana").best_streak) == (0, 3)


def test_the_leaderboard_ranks_a_team_by_right_answers_then_accuracy(make: Make) -> None:
    engine = make()
    for _ in range(3):
        answer_right(engine, "ana")
    answer_wrong(engine, "ana")
    for _ in range(3):
        answer_right(engine, "bob")
    answer_right(engine, "cy")
    for _ in range(5):
        answer_right(engine, "dee", team="elsewhere")
    board = engine.leaderboard()
    assert [e.user for e in board] == ["bob", "ana", "cy"]
    assert (board[1].answered, board[1].correct, board[1].accuracy) == (4, 3, 0.75)
    assert board[0].best_streak == 1
    assert [e.user for e in engine.leaderboard(limit=2)] == ["bob", "ana"]
    assert [e.user for e in engine.leaderboard(team="elsewhere")] == ["dee"]
    assert board[0].to_dict() == {
        "user": "bob", "answered": 3, "correct": 3, "accuracy": 1.0, "best_streak": 1,
    }


def test_standings_give_everyones_place_beyond_the_top(make: Make) -> None:
    engine = make()
    for user, right in (("ana", 2), ("bob", 3), ("cy", 1)):
        for _ in range(right):
            answer_right(engine, user)
    assert [e.user for e in engine.standings()] == ["bob", "ana", "cy"]
    assert [e.user for e in engine.leaderboard(limit=1)] == ["bob"]  # the top of the same order


def test_due_questions_are_those_to_review_now_the_longest_overdue_first(make: Make, clock: Clock) -> None:
    engine = make()
    answer_wrong(engine, "ana", question=6)
    clock.advance(minutes=5)
    answer_wrong(engine, "ana", question=9)
    assert [d.question for d in engine.due_questions("ana", lang="en")] == [6]  # 9 comes back in a minute
    clock.advance(hours=1)
    due = engine.due_questions("ana", lang="en")
    assert [d.question for d in due] == [6, 9] and due[0].due < due[1].due
    assert due[0].title == knowledge().question(DOC, 6, "en").title
    assert engine.stats("ana").due == 2 and engine.due_questions("bob") == []


def test_question_stats_put_the_hardest_first(make: Make) -> None:
    engine = make()
    for user in ("ana", "bob"):
        answer_wrong(engine, user, question=6)
        answer_right(engine, user, question=7)
    answer_right(engine, "ana", question=8)
    answer_wrong(engine, "bob", question=8)
    answer_wrong(engine, "cy", question=9, team="elsewhere")
    stats = engine.question_stats(team="default", lang="es")
    assert [s.question for s in stats[:3]] == [6, 8, 7]
    assert (stats[0].answered, stats[0].correct, stats[0].accuracy) == (2, 0, 0.0)
    assert stats[1].accuracy == 0.5 and stats[0].title == knowledge().question(DOC, 6, "es").title
    assert len(stats) == 15 and all(s.answered == 0 for s in stats[3:])
    everywhere = engine.question_stats()
    assert everywhere[0].question in (6, 9) and {s.question for s in everywhere[:3]} == {6, 9, 8}


def test_progress_survives_closing_and_reopening_the_store(make: Make, clock: Clock) -> None:
    engine = make()
    answer_right(engine, "ana", question=1)
    answer_wrong(engine, "ana", question=2)
    pending = engine.next_question("ana", question=5)
    before = engine.stats("ana")
    engine.store.database.close()
    reopened = make()
    assert reopened.stats("ana") == before
    assert reopened.answer("ana", pending.attempt_id, right_letter(pending)).correct
    clock.advance(minutes=2)
    assert reopened.next_question("ana").question == 2  # the schedule survived too


def test_another_teams_attempt_is_unknown_to_a_team(make: Make) -> None:
    engine = make()
    prompt = engine.next_question("ana", team="T-B", question=4, lang="en")
    with pytest.raises(UnknownAttemptError):
        engine.answer("ana", prompt.attempt_id, right_letter(prompt), team="T-A")
    with pytest.raises(UnknownAttemptError):
        engine.result("ana", prompt.attempt_id, team="T-A")
    assert engine.stats("ana", team="T-B").answered == 0  # nothing graded
    assert engine.answer("ana", prompt.attempt_id, right_letter(prompt), team="T-B").correct
