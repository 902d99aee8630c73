"""A question that names a quiz question is answered with that question, its right option and explanation."""

from __future__ import annotations

import pytest

from bot.answering.assistant import Assistant


@pytest.mark.parametrize(("question", "number"), [
    ("explícame la pregunta 11 del cuestionario", 11),
    ("what's the correct option for question 3 of the quiz?", 3),
    ("¿cuál es la respuesta correcta de la pregunta 13?", 13),
    ("why is B right in q4 of the quiz?", 4),
])
def test_a_numbered_reference_answers_that_question_with_its_right_option(
        fake_assistant: Assistant, question: str, number: int) -> None:
    answer = fake_assistant.answer(question)
    assert answer.answered and answer.ranked[0] == number and answer.confidence == 1.0
    quiz_question = fake_assistant.knowledge.question(fake_assistant.knowledge.documents[0].doc_id, number,
                                                      answer.language)
    assert answer.answer_line == quiz_question.answer_line
    assert quiz_question.answer_line in answer.text
    assert [c.question for c in answer.citations] == [number] and not answer.uncovered


@pytest.mark.parametrize(("question", "number"), [
    ("the quiz question about MPIJob slots, why is C right?", 13),
    ("I got the MPIJob one wrong on the quiz, why is it not C?", 13),  # named by its subject alone
    ("explícame la de Volcano", 9),  # "Volcano": an ordinary word in general language, one question's subject
    ("I picked C for Q13, is that wrong?", 13),  # a bare "Q13" beside a word of taking the quiz
])
def test_a_reference_by_subject_answers_the_question_that_uses_its_words(fake_assistant: Assistant, question: str,
                                                                         number: int) -> None:
    answer = fake_assistant.answer(question)
    assert answer.answered and answer.ranked[0] == number and answer.confidence == 1.0


def test_a_number_the_quiz_does_not_have_is_read_as_any_question(fake_assistant: Assistant) -> None:
    answer = fake_assistant.answer("what's the right option for question 42 of the quiz?")
    assert answer.confidence < 1.0


def test_an_instance_type_is_no_reference(fake_assistant: Assistant) -> None:
    assert fake_assistant.referred("¿precio de un p5 por hora?", "es") == (frozenset(), "¿precio de un p5 por hora?")


@pytest.mark.parametrize(("question", "number", "term"), [
    ("En la pregunta 9 el ejemplo usa 'apiVersion: batch.volcano.sh/v1alpha1'. ¿Cómo defino una Queue de Volcano "
     "con capacidad limitada?", 9, "Queue"),
    ("Option A of question 15 is consolidationPolicy: WhenEmpty. What does WhenEmptyOrUnderutilized do?", 15,
     "WhenEmptyOrUnderutilized"),
])
def test_a_reference_does_not_make_what_the_question_never_explains_covered(
        fake_assistant: Assistant, question: str, number: int, term: str) -> None:
    """Naming a question frames the message: the answer is that question's, opening with what it does not cover."""
    answer = fake_assistant.answer(question)
    assert answer.answered and answer.ranked[0] == number
    assert term in answer.uncovered and answer.caveat is not None and term in answer.caveat
