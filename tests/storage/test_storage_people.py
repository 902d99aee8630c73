"""Each person's language and each conversation's topic, as stored (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

from bot.answering.conversation import MEMORY, ConversationMemory, Reading
from bot.storage import Stores
from tests.support.quiz_helpers import Clock


def test_a_persons_language_is_stored_per_workspace_and_can_change(store: Stores) -> None:
    people = store.people
    assert people.language_of("T1", "U1") is None
    people.set_language("T1", "U1", "en")
    people.set_language("T1", "U1", "en")  # the same choice twice changes nothing
    assert people.language_of("T1", "U1") == "en"
    people.set_language("T1", "U1", "es")
    assert people.language_of("T1", "U1") == "es"
    assert people.language_of("T2", "U1") is None and people.language_of("T1", "U2") is None


def test_a_conversations_topic_is_remembered_for_a_while(store: Stores, clock: Clock) -> None:
    memory = ConversationMemory(store.topics, clock=clock)
    assert memory.earlier("C1:1.0") == []
    reading = Reading("what about stage 2? DeepSpeed ZeRO", "en", followup=True)
    memory.remember("C1:1.0", reading, "stage 2 DeepSpeed ZeRO")
    memory.remember("C1:2.0", reading, "EFA NCCL")
    assert memory.earlier("C1:1.0") == ["stage 2 DeepSpeed ZeRO"]
    clock.advance(days=MEMORY.days - 1)
    memory.remember("C1:2.0", reading, "EFA NCCL environment variables")  # answered again: kept longer
    clock.advance(days=2)
    assert memory.earlier("C1:1.0") == []  # forgotten after MEMORY, even before pruning
    assert memory.earlier("C1:2.0") == ["EFA NCCL environment variables"]
    assert memory.prune() == 1
    assert store.topics.get("C1:1.0", since=clock.now - timedelta(days=365)) is None
