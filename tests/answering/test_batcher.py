"""Questions asked together are answered together, on the model's one thread, each as if asked alone."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.answering.assistant import Answer, Assistant
from bot.answering.batcher import AnswerBatcher
from bot.answering.in_use import AssistantInUse
from bot.answering.model_thread import ModelThread
from bot.config import Settings
from bot.errors import InputError
from bot.knowledge import load_knowledge
from bot.retrieval.artifacts import load_index
from bot.services import Services
from bot.storage import open_database
from tests.conftest import KNOWLEDGE
from tests.support.fakes import FakeEmbedder

QUESTIONS = [
    "How do I request EFA devices in a pod spec?",
    "¿Qué variables de entorno necesito para que NCCL use EFA?",
    "What does slotsPerWorker mean in an MPIJob?",
    "¿Qué es el gang scheduling?",
]


@pytest.fixture
def counted(fake_index_dir: Path, fake_embedder: FakeEmbedder) -> Assistant:
    """An assistant of its own, so that the test sees every call to its embedder."""
    index = load_index(load_knowledge(KNOWLEDGE), fake_index_dir, fake_embedder, rebuild=False)
    return Assistant(index, fake_embedder, threshold=0.4)


@pytest.fixture
def model() -> Iterator[ModelThread]:
    thread = ModelThread()
    yield thread
    thread.close()


def ask_together(batcher: AnswerBatcher, questions: list[str]) -> list[Answer | BaseException]:
    async def ask() -> list[Answer | BaseException]:
        try:
            return await asyncio.gather(*(batcher.answer(q) for q in questions), return_exceptions=True)
        finally:
            await batcher.close()

    return asyncio.run(ask())


def test_questions_asked_together_share_one_model_call_on_the_model_thread(
    counted: Assistant, fake_embedder: FakeEmbedder, model: ModelThread
) -> None:
    sizes: list[int] = []
    answers = ask_together(AnswerBatcher(AssistantInUse(counted), model, on_batch=sizes.append), QUESTIONS)
    assert sizes == [len(QUESTIONS)]
    searched = [counted.retriever.analyze(*counted.prepare(q)).search_text for q in QUESTIONS]
    assert fake_embedder.calls == [searched] and fake_embedder.threads[0].startswith("model")
    assert answers == [counted.answer(q) for q in QUESTIONS]  # the same as one by one


def test_a_bad_question_is_refused_alone_and_at_once(
    counted: Assistant, fake_embedder: FakeEmbedder, model: ModelThread
) -> None:
    sizes: list[int] = []
    batcher = AnswerBatcher(AssistantInUse(counted), model, on_batch=sizes.append)
    answers = ask_together(batcher, ["   ", QUESTIONS[0], "x" * 3000, QUESTIONS[1]])
    assert isinstance(answers[0], InputError) and "empty" in str(answers[0])
    assert isinstance(answers[2], InputError) and "2000" in str(answers[2])
    assert answers[1] == counted.answer(QUESTIONS[0]) and answers[3] == counted.answer(QUESTIONS[1])
    assert sizes == [2]


def test_a_question_that_breaks_its_batch_fails_alone(
    counted: Assistant, model: ModelThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = "EFA \ud800 NCCL"  # passes the quick check, then breaks the whole call it is part of
    calls: list[int] = []
    answer_many = counted.answer_many

    def strict(questions: list[tuple[str, str | None]]) -> list[Answer]:
        calls.append(len(questions))
        if any(q == broken for q, _ in questions):
            raise InputError("not valid Unicode text")
        return answer_many(questions)

    monkeypatch.setattr(counted, "answer_many", strict)
    questions = [*QUESTIONS[:2], broken, *QUESTIONS[2:]]
    sizes: list[int] = []
    answers = ask_together(AnswerBatcher(AssistantInUse(counted), model, on_batch=sizes.append), questions)
    assert sizes == [len(questions)]
    assert isinstance(answers[2], InputError)
    assert [a for i, a in enumerate(answers) if i != 2] == [answer_many([(q, None)])[0] for q in QUESTIONS]
    assert calls == [len(questions)] + [1] * len(questions)  # the batch, then each question alone


def test_a_failed_lone_question_is_not_asked_twice(
    counted: Assistant, model: ModelThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    answer_many = counted.answer_many

    def flaky(questions: list[tuple[str, str | None]]) -> list[Answer]:
        calls.append(len(questions))
        if len(calls) == 1:
            raise RuntimeError("model crashed")
        return answer_many(questions)

    monkeypatch.setattr(counted, "answer_many", flaky)
    batcher = AnswerBatcher(AssistantInUse(counted), model)
    assert [str(a) for a in ask_together(batcher, QUESTIONS[:1])] == ["model crashed"]
    assert ask_together(batcher, QUESTIONS[2:]) == [answer_many([(q, None)])[0] for q in QUESTIONS[2:]]
    assert calls == [1, 2]


def test_model_work_asked_from_the_model_thread_runs_there_directly(model: ModelThread) -> None:
    name = model.call(lambda: model.call(lambda: threading.current_thread().name))  # no deadlock
    assert name.startswith("model")


def test_only_free_text_quiz_topics_use_the_model_and_on_its_thread(
    settings: Settings, counted: Assistant, fake_embedder: FakeEmbedder
) -> None:
    services = Services.assemble(settings, counted, open_database(settings))
    try:
        named = asyncio.run(services.run(services.quiz.next_question, "ana", topic="karpenter", lang="en"))
        assert named.topic == "Karpenter" and fake_embedder.calls == []
        asyncio.run(services.run(services.quiz.next_question, "ana", topic="offload optimizer states to CPU",
                                 lang="en"))
        assert len(fake_embedder.calls) == 1 and fake_embedder.threads[0].startswith("model")
    finally:
        services.close()
