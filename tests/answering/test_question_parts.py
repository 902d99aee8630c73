"""A message that asks several questions one after another, declined as a whole, is answered from the question the
knowledge answers, opening with the ones it does not ("The knowledge base does not answer “…”. On EFA and NCCL
networking: …"), where before the other question's words pulled the whole message under the bar. Fake embedder,
and the fake's answerability model, which reads only words."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.answering.assistant import Assistant
from bot.reading.questions import MOST_PARTS, question_parts
from bot.slack.blocks import answer_message

COVERED = "Which env var enables EFA for NCCL?"
OFF_TOPIC = "how do we book meeting rooms in the Madrid office?"
TWO_QUESTIONS = f"{COVERED} And {OFF_TOPIC}"


@pytest.mark.parametrize(("message", "parts"), [
    (TWO_QUESTIONS, [COVERED, OFF_TOPIC]),
    ("Dos cosas: ¿qué variable activa EFA en NCCL? y ¿cómo fijo la zona de los nodos?",
     ["Dos cosas: ¿qué variable activa EFA en NCCL?", "¿cómo fijo la zona de los nodos?"]),
    # What follows the last question without a question mark is said of it, not asked.
    ("¿Qué riesgo hay si los nodos quedan en dos zonas? Es para el informe de riesgos.",
     ["¿Qué riesgo hay si los nodos quedan en dos zonas? Es para el informe de riesgos."]),
    # A question that points back at the one before is asked of it.
    ("Why does the example mount an emptyDir on /tmp/ray? Can I remove it?",
     ["Why does the example mount an emptyDir on /tmp/ray? Can I remove it?"]),
    ("Does EFA work on p5? or not?", ["Does EFA work on p5? or not?"]),
    ("What is EFA?", ["What is EFA?"]),
    # A question joined on inside a sentence is one of its own, though it points back to what the first names.
    ("What does slurmdbd do in Slinky, and how should we back up its MariaDB with AWS Backup?",
     ["What does slurmdbd do in Slinky,", "how should we back up its MariaDB with AWS Backup?"]),
    ("¿Para qué sirve BioNeMo y qué licencia de NVIDIA AI Enterprise necesito para usarlo?",
     ["¿Para qué sirve BioNeMo", "qué licencia de NVIDIA AI Enterprise necesito para usarlo?"]),
    ("Checkpoint every 500 steps, ok. But when a node dies, how does the job resume from the last one?",
     ["Checkpoint every 500 steps, ok.", "when a node dies, how does the job resume from the last one?"]),
    # Not two things asked in one question, nor a question of things joined by "and".
    ("¿Cuántas réplicas y qué tamaño de instancia hacen falta para un 70B?",
     ["¿Cuántas réplicas y qué tamaño de instancia hacen falta para un 70B?"]),
    ("which storage for checkpoints and datasets?", ["which storage for checkpoints and datasets?"]),
])
def test_a_message_is_read_as_the_questions_it_asks_one_after_another(message: str, parts: list[str]) -> None:
    assert question_parts(message) == parts


def test_a_message_of_many_questions_is_read_whole() -> None:
    """Each part costs a pass of the model: a wall of question marks costs one, like any message."""
    asked = [f"what does setting number {i} of the cluster do?" for i in range(MOST_PARTS + 1)]
    assert len(question_parts(" ".join(asked[:MOST_PARTS]))) == MOST_PARTS
    assert question_parts(" ".join(asked)) == [" ".join(asked)]


def test_a_declined_message_of_two_questions_is_answered_from_the_one_the_knowledge_answers(
    fake_assistant: Assistant,
) -> None:
    whole = fake_assistant.retrieve_many([(TWO_QUESTIONS, "en")])[0]
    assert not fake_assistant.judge.judge(whole).answerable  # the other question's words pull it under the bar

    answer = fake_assistant.answer(TWO_QUESTIONS)
    assert answer.answered and answer.citations[0].question == 5  # EFA and NCCL
    assert answer.uncovered == [OFF_TOPIC]
    assert answer.caveat and answer.text.startswith(answer.caveat) and f"\u201c{OFF_TOPIC}\u201d" in answer.caveat
    assert answer.confidence == fake_assistant.answer(COVERED).confidence


def test_a_question_joined_on_in_the_same_sentence_is_named_as_not_answered(fake_assistant: Assistant) -> None:
    """"Which env var enables EFA for NCCL, and how do we book…?" is answered as the first question, opening with
    the second, where the whole sentence was declined."""
    message = f"{COVERED[:-1]}, and {OFF_TOPIC}"
    assert not fake_assistant.judge.judge(fake_assistant.retrieve_many([(message, "en")])[0]).answerable
    answer = fake_assistant.answer(message)
    assert answer.answered and answer.citations[0].question == 5
    assert answer.uncovered == [OFF_TOPIC]


def test_a_part_answers_only_on_stronger_evidence_than_a_whole_message_needs(fake_assistant: Assistant) -> None:
    part = fake_assistant.answer(COVERED).confidence
    stricter = replace(fake_assistant.judge.model, second_look=min(1.0, part + 0.001))
    assistant = Assistant(fake_assistant.index, fake_assistant.embedder, model=stricter)
    assert not assistant.answer(TWO_QUESTIONS).answered


def test_a_later_question_does_not_answer_alone(fake_assistant: Assistant) -> None:
    """It leans on what the first names: read alone, it is a question about anything."""
    assert fake_assistant.answer(COVERED).answered
    message = f"How do we book meeting rooms in the Madrid office? And {COVERED[0].lower()}{COVERED[1:]}"
    assert len(question_parts(message)) == 2
    assert not fake_assistant.answer(message).answered


def test_a_message_whose_questions_are_each_answered_alone_but_not_together_stays_declined(
    fake_assistant: Assistant,
) -> None:
    """Nothing it asks is outside the knowledge: what they ask together is what pulled it under the bar."""
    message = f"{COVERED} And how does ZeRO-3 offload parameters?"
    assert len(question_parts(message)) == 2
    whole = fake_assistant.answer(message).confidence
    assert all(fake_assistant.answer(part).confidence > whole for part in question_parts(message))
    model = replace(fake_assistant.judge.model, threshold=min(1.0, whole + 0.001))
    assistant = Assistant(fake_assistant.index, fake_assistant.embedder, model=model)
    assert all(assistant.answer(part).answered for part in question_parts(message))
    assert not assistant.answer(message).answered


def test_a_message_whose_questions_the_knowledge_answers_none_of_is_declined(fake_assistant: Assistant) -> None:
    answer = fake_assistant.answer(f"Who approves travel to the Madrid office? And {OFF_TOPIC}")
    assert not answer.answered and not answer.citations


def test_the_question_named_back_is_escaped_in_slack(fake_assistant: Assistant) -> None:
    answer = fake_assistant.answer(f"{COVERED} And can team <team> & co book meeting rooms in the Madrid office?")
    assert answer.answered and answer.caveat and "<team> & co" in answer.caveat
    shown = str(answer_message(answer)["blocks"])
    assert "<team>" not in shown and "&lt;team&gt; &amp; co" in shown
