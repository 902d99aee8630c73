"""Answer concurrent questions together: one model call for everything that arrived meanwhile.

One worker takes whatever is queued (up to `max_batch`) and answers it with one `Assistant.answer_many`
call on the model's thread. A lone question is not delayed: the worker does not wait for company, it only
takes what piled up while the previous batch was being answered. When a batch fails, its questions are
answered again one by one, so that one bad question fails alone. Every surface that answers from an event
loop (HTTP, Slack) goes through here. Each batch is answered by the assistant in use when it starts
(`AssistantInUse`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from bot.answering.assistant import Answer, Assistant
from bot.answering.in_use import AssistantInUse
from bot.answering.model_thread import ModelThread


@dataclass
class _Item:
    question: str
    lang: str | None
    future: asyncio.Future[Answer]


class AnswerBatcher:
    def __init__(self, in_use: AssistantInUse, model: ModelThread, *, max_batch: int = 16,
                 on_batch: Callable[[int], None] | None = None) -> None:
        self.in_use = in_use
        self.model = model
        self.max_batch = max_batch
        self.on_batch = on_batch  # told the size of every batch (a metric)
        self._queue: asyncio.Queue[_Item] | None = None
        self._worker: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def answer(self, question: str, lang: str | None = None) -> Answer:
        """Validate and read now (InputError at once, for this question only), then answer the message as read
        with the next batch (it is not cleaned again)."""
        question = self.in_use.current().prepare(question, lang)[0]
        loop = asyncio.get_running_loop()
        if self._queue is None or self._loop is not loop or self._worker is None or self._worker.done():
            # First use, or a new event loop (test clients run one per request): start a worker here.
            self._loop = loop
            self._queue = asyncio.Queue()
            self._worker = loop.create_task(self._run(self._queue), name="answer-batcher")
        future: asyncio.Future[Answer] = loop.create_future()
        await self._queue.put(_Item(question, lang, future))
        return await future

    async def close(self) -> None:
        """Stop the worker of the running event loop (a later question starts a new one)."""
        if self._worker is not None and self._loop is asyncio.get_running_loop():
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None
            self._queue = None

    async def _run(self, queue: asyncio.Queue[_Item]) -> None:
        while True:
            batch = [await queue.get()]
            while len(batch) < self.max_batch and not queue.empty():
                batch.append(queue.get_nowait())
            batch = [item for item in batch if not item.future.cancelled()]
            if not batch:
                continue
            if self.on_batch is not None:
                self.on_batch(len(batch))
            assistant = self.in_use.current()
            try:
                answers = await self.model.run(assistant.answer_many, [(i.question, i.lang) for i in batch])
            except Exception as exc:  # noqa: BLE001 - one question may have broken the batch: find out which
                if len(batch) == 1:
                    _settle(batch[0], error=exc)
                else:
                    await self._answer_alone(assistant, batch)
                continue
            for item, answer in zip(batch, answers, strict=True):
                _settle(item, answer=answer)

    async def _answer_alone(self, assistant: Assistant, batch: list[_Item]) -> None:
        """Answer each question by itself: each gets its own answer or its own error."""
        for item in batch:
            if item.future.done():
                continue
            try:
                (answer,) = await self.model.run(assistant.answer_many, [(item.question, item.lang)])
            except Exception as exc:  # noqa: BLE001 - handed to the one request it belongs to
                _settle(item, error=exc)
            else:
                _settle(item, answer=answer)


def _settle(item: _Item, *, answer: Answer | None = None, error: BaseException | None = None) -> None:
    """Give a waiting request its answer or its error (unless it went away meanwhile)."""
    if item.future.done():
        return
    if error is not None:
        item.future.set_exception(error)
    else:
        assert answer is not None
        item.future.set_result(answer)
