"""Follow-up questions: which messages are read with the earlier turns of their conversation, and how.

The readings depend only on the words (not on the embedding model), so the fast tier checks them over the
fake embedder; the answers they lead to on the real model are pinned in `test_followup_quality.py`.
"""

from __future__ import annotations

import pytest

from bot.answering.assistant import Assistant
from bot.answering.conversation import CONTEXT_TURNS, Conversation
from bot.errors import InputError
from bot.evaluation.conversations import read_conversations
from tests.conftest import FOLLOWUPS

EFA = "¿Qué variables de entorno necesito para que NCCL use EFA?"
ZERO = "Which DeepSpeed ZeRO stage offloads optimizer states and parameters to CPU?"


@pytest.fixture
def conversation(fake_assistant: Assistant) -> Conversation:
    return Conversation(fake_assistant)


def test_an_elliptic_follow_up_is_read_with_what_the_thread_was_about(conversation: Conversation) -> None:
    reading = conversation.read("what about stage 2?", [ZERO])
    assert reading.followup and reading.text.startswith("what about stage 2?")
    assert {"DeepSpeed", "ZeRO"} <= set(reading.carried)
    assert reading.language == "en"


def test_a_follow_up_naming_its_own_subject_keeps_only_what_was_asked(conversation: Conversation) -> None:
    reading = conversation.read("¿y en Trainium?", [EFA])
    assert reading.followup and reading.language == "es"
    assert "variables" in reading.carried and "entorno" in reading.carried
    assert not {"NCCL", "EFA"} & set(reading.carried)  # the earlier subject is replaced, not added


def test_a_subject_the_knowledge_explains_with_the_new_one_is_kept(conversation: Conversation) -> None:
    reading = conversation.read("and on Trainium?", ["Which hardware supports BF16?"])
    assert reading.followup and "BF16" in reading.carried  # BF16 on Trainium, not "which hardware supports"


def test_a_follow_up_that_points_back_carries_the_subject(conversation: Conversation) -> None:
    reading = conversation.read("how many GPUs does it need?", ["What is BioNeMo used for on EKS?"])
    assert reading.followup and "BioNeMo" in reading.carried


@pytest.mark.parametrize("question", [
    "Which Karpenter requirement keeps GPU nodes in a single Availability Zone?",
    "¿Qué controla el campo slotsPerWorker de un MPIJob?",
])
def test_a_self_contained_question_is_read_alone(conversation: Conversation, question: str) -> None:
    reading = conversation.read(question, [EFA])
    assert not reading.followup and reading.text == question and reading.carried == ()


@pytest.mark.parametrize("question", [
    "and what's the best recipe for paella?", "¿y qué tiempo hará mañana en Madrid?", "how do I cook rice?",
    "what about configuring Jenkins pipelines?",
])
def test_a_message_about_something_the_knowledge_never_mentions_is_read_alone(
    conversation: Conversation, fake_assistant: Assistant, question: str
) -> None:
    reading = conversation.read(question, [EFA])
    assert not reading.followup and reading.text == question
    assert not fake_assistant.answer(reading.text, reading.language).answered


def test_without_earlier_turns_a_message_is_read_alone(conversation: Conversation) -> None:
    assert conversation.read("what about stage 2?", []).reason == "no-context"
    assert conversation.read("what about stage 2?", ["   ", "<@U123>"]).reason == "no-context"


def test_only_the_latest_turns_count(conversation: Conversation) -> None:
    earlier = [ZERO, *["How do I make NCCL use EFA?"] * CONTEXT_TURNS]
    assert "DeepSpeed" not in conversation.read("what about stage 2?", earlier).carried


def test_a_bad_message_is_refused_as_any_question(conversation: Conversation) -> None:
    with pytest.raises(InputError):
        conversation.read("   ", [ZERO])
    with pytest.raises(InputError):
        conversation.read("x" * 5000, [ZERO])


def test_the_topic_of_a_reading_is_short_and_made_of_its_content_words(
    conversation: Conversation, fake_assistant: Assistant
) -> None:
    topic = conversation.read("what about stage 2?", [ZERO]).topic(fake_assistant)
    assert "ZeRO" in topic and "what" not in topic.split() and len(topic) <= 300


def test_the_evaluation_set_is_read_as_labelled(conversation: Conversation) -> None:
    """How each kind of conversation is read, whatever the model: elliptic ones as follow-ups (but those
    that name their own subject and ask their own question: "and what Kubernetes resource runs
    slurmctld?"), the others alone."""
    conversations = read_conversations(FOLLOWUPS)
    assert {q.lang for _, q in conversations} == {"es", "en"}
    readings: dict[str, list[bool]] = {}
    for turns, query in conversations:
        readings.setdefault(query.group, []).append(conversation.read(turns[-1], turns[:-1]).followup)
    assert set(readings) == {"elliptic", "self-contained", "off-topic"}
    share = {kind: sum(flags) / len(flags) for kind, flags in readings.items()}
    assert share["elliptic"] >= 0.85, share
    assert share["self-contained"] <= 0.1 and share["off-topic"] <= 0.1, share


def test_an_english_follow_up_to_a_spanish_turn_carries_its_words_in_english(
    conversation: Conversation, fake_assistant: Assistant
) -> None:
    """Read in English, "entorno" is a word the knowledge never uses: the follow-up would open with "the
    knowledge base says nothing about…" and record that as a gap. Carried in English, it is answered."""
    reading = conversation.read("and what about it?", ["¿Qué variables de entorno necesito para que NCCL use EFA?"])
    assert reading.followup and reading.language == "en"
    assert "environment" in reading.carried and "entorno" not in reading.carried
    answer = fake_assistant.answer(reading.text, reading.language)
    assert answer.answered and answer.uncovered == [] and answer.citations[0].question == 5
