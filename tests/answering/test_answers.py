"""The answer object every surface renders: its shape, its language, and what input it accepts."""

from __future__ import annotations

import pytest

from bot.answering.assistant import Answer, Assistant
from bot.errors import InputError
from tests.conftest import KNOWLEDGE
from tests.support.shapes import CITATION_KEYS

pytestmark = pytest.mark.slow

ANSWER_KEYS = {"answered", "language", "text", "citations", "confidence", "uncovered", "suggestion"}
EFA_ES = "¿Qué variables de entorno necesito para que NCCL use EFA?"
EFA_EN = "Which environment variables make NCCL use EFA?"


def check_shape(answer: Answer) -> None:
    data = answer.to_dict()
    assert set(data) == ANSWER_KEYS
    assert isinstance(data["answered"], bool)
    assert data["language"] in {"es", "en"}
    assert isinstance(data["text"], str) and data["text"].strip()
    assert isinstance(data["citations"], list)
    assert isinstance(data["confidence"], float) and 0.0 <= data["confidence"] <= 1.0
    assert isinstance(data["uncovered"], list) and all(isinstance(t, str) and t for t in data["uncovered"])
    for citation in data["citations"]:
        assert set(citation) == CITATION_KEYS
        assert isinstance(citation["question"], int) and not isinstance(citation["question"], bool)
        assert isinstance(citation["title"], str) and citation["title"]
        assert isinstance(citation["excerpt"], str)
        assert citation["snippet"] is None or isinstance(citation["snippet"], str)
        assert isinstance(citation["source"], str) and (KNOWLEDGE / citation["source"]).is_file()
        assert citation["doc"] == "eks-training-quiz" and citation["section"] == "" and citation["url"] is None
        assert citation["notes"] == []
        assert isinstance(citation["score"], float)


def test_answered_shape(assistant: Assistant) -> None:
    answer = assistant.answer(EFA_ES)
    check_shape(answer)
    assert answer.answered and answer.citations
    top = answer.citations[0]
    assert top.excerpt and top.excerpt in answer.text
    assert answer.answer_line == "B) FI_PROVIDER=efa"
    assert answer.answer_line in answer.text


def test_a_question_judged_likelier_to_answer_than_the_closest_answers_first(assistant: Assistant) -> None:
    # Closest is the tensor-parallelism question (which parallelism splits a layer), judged barely answering;
    # the one ranked second, the strategy for a very large model, answers it, and the closest is cited after it.
    answer = assistant.answer("¿Qué paralelismo uso para un modelo muy grande?")
    assert answer.answered and [c.question for c in answer.citations][:2] == [2, 1], answer.to_dict()
    assert answer.confidence is not None and answer.confidence > 0.5


def test_not_answered_shape(assistant: Assistant) -> None:
    answer = assistant.answer("How do I bake sourdough bread?")
    check_shape(answer)
    assert not answer.answered
    assert answer.topics == assistant.topics("en")


@pytest.mark.parametrize(
    "question",
    [
        "How do I save memory when training a large model?",
        "¿Qué paralelismo uso para un modelo muy grande?",
        "checkpoints",
    ],
)
def test_citations_best_first(assistant: Assistant, question: str) -> None:
    answer = assistant.answer(question)
    scores = [c.score for c in answer.citations]
    # The first is the answer: the closest question, or one ranked just below it that the model judges likelier
    # to answer (`Judge.second_look`); the others follow it, closest first.
    assert scores[1:] == sorted(scores[1:], reverse=True)
    numbers = [c.question for c in answer.citations]
    assert len(numbers) == len(set(numbers)), "a question is cited once"
    if answer.answered:
        assert numbers[0] == answer.ranked[0]
        assert numbers == answer.ranked[: len(numbers)]


@pytest.mark.parametrize(("question", "lang"), [(EFA_EN, "es"), (EFA_ES, "en")])
def test_forced_language_changes_the_answer_language(assistant: Assistant, question: str, lang: str) -> None:
    detected = assistant.answer(question)
    forced = assistant.answer(question, lang)
    assert detected.language != lang
    assert forced.language == lang
    assert forced.answered
    top = forced.citations[0]
    assert top.question == 5
    assert top.title == assistant.knowledge.question("eks-training-quiz", 5, lang).title
    assert top.source == f"eks-training-quiz.{lang}.md"
    assert top.title in forced.text
    assert detected.citations[0].title not in forced.text


@pytest.mark.parametrize("question", ["", "   ", "\n\t  \n", "<@U123ABC>", "<!channel> \x00\x07"])
def test_empty_question_is_refused(assistant: Assistant, question: str) -> None:
    with pytest.raises(InputError):
        assistant.answer(question)


def test_too_long_question_is_refused(assistant: Assistant) -> None:
    with pytest.raises(InputError) as info:
        assistant.answer("¿Qué es EFA? " + "x" * assistant.max_chars)
    assert str(assistant.max_chars) in str(info.value)


def test_question_at_the_length_limit_is_accepted(assistant: Assistant) -> None:
    question = "What is EFA?"
    answer = assistant.answer(question + " " * (assistant.max_chars - len(question)))
    check_shape(answer)


@pytest.mark.parametrize("lang", ["fr", "ES", "", "english"])
def test_unknown_language_is_refused(assistant: Assistant, lang: str) -> None:
    with pytest.raises(InputError) as info:
        assistant.answer("What is EFA?", lang)
    assert repr(lang) in str(info.value)


def test_slack_markup_emoji_and_control_characters_are_accepted(assistant: Assistant) -> None:
    noisy = f"<@U123ABC> <!here> {EFA_ES} :rocket: 🚀\x00\x07 <https://example.com|ver doc>"
    answer = assistant.answer(noisy)
    check_shape(answer)
    assert answer.answered
    assert answer.language == "es"
    assert answer.citations[0].question == 5


def test_answer_many_equals_answer_one_by_one(assistant: Assistant) -> None:
    questions: list[tuple[str, str | None]] = [
        (EFA_ES, None),
        ("How does gang scheduling work in Volcano?", None),
        ("¿Cuál es la receta de la paella?", None),
        ("What is BF16 good for?", "es"),
    ]
    together = assistant.answer_many(questions)
    alone = [assistant.answer(q, lang) for q, lang in questions]
    assert len(together) == len(alone) == len(questions)
    for batched, single in zip(together, alone, strict=True):
        assert batched.answered == single.answered
        assert batched.language == single.language
        assert batched.text == single.text
        assert len(batched.citations) == len(single.citations)
        for cb, cs in zip(batched.citations, single.citations, strict=True):
            assert (cb.question, cb.title, cb.excerpt, cb.snippet, cb.source) == (
                cs.question, cs.title, cs.excerpt, cs.snippet, cs.source
            )
            assert cb.score == pytest.approx(cs.score, abs=1e-3)


def test_answer_many_refuses_the_batch_with_a_bad_question(assistant: Assistant) -> None:
    with pytest.raises(InputError):
        assistant.answer_many([(EFA_ES, None), ("   ", None)])


def test_confidence_is_the_decision(assistant: Assistant) -> None:
    """Answered questions have a confidence at or above the threshold, unanswered ones below it."""
    for question in [EFA_ES, EFA_EN, "How do I bake sourdough bread?", "What is AWS?",
                     "What's the difference between MPIJob and PyTorchJob?"]:
        answer = assistant.answer(question)
        assert answer.answered == (answer.confidence >= assistant.threshold), question
