"""Answer concurrent questions together: one model call for everything that arrived meanwhile.

One worker takes whatever is queued (up to `max_batch`), encodes it in one call on the model's own
thread and answers each question. A lone request is not delayed: the worker does not wait for company, it
only takes what piled up while the previous batch was being encoded.
"""

from __future__ import annotations

import asyncio
import contextlib
from concurrent.futures import Executor
from dataclasses import dataclass

from bot.answers import Answer, Assistant
from bot.lang import Lang


@dataclass
class _Item:
    text: str
    lang: Lang
    future: asyncio.Future[Answer]


class AnswerBatcher:
    def __init__(self, assistant: Assistant, executor: Executor, max_batch: int = 16,
                 on_batch: object | None = None) -> None:
        self.assistant = assistant
        self.executor = executor
        self.max_batch = max_batch
        self.on_batch = on_batch
        self._queue: asyncio.Queue[_Item] | None = None
        self._worker: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def answer(self, question: str, lang: str | None = None) -> Answer:
        """Validate now (InputError at once), then answer as part of the next batch."""
        text, language = self.assistant.prepare(question, lang)
        loop = asyncio.get_running_loop()
        if self._queue is None or self._loop is not loop or self._worker is None or self._worker.done():
            # First use, or a new event loop (test clients run one per request): start a worker here.
            self._loop = loop
            self._queue = asyncio.Queue()
            self._worker = loop.create_task(self._run(self._queue), name="answer-batcher")
        future: asyncio.Future[Answer] = loop.create_future()
        await self._queue.put(_Item(text, language, future))
        return await future

    async def close(self) -> None:
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
            if callable(self.on_batch):
                self.on_batch(len(batch))
            try:
                answers = await asyncio.get_running_loop().run_in_executor(self.executor, self._answer_batch, batch)
            except Exception as exc:  # noqa: BLE001 - handed to every waiting request
                for item in batch:
                    if not item.future.done():
                        item.future.set_exception(exc)
                continue
            for item, answer in zip(batch, answers, strict=True):
                if not item.future.done():
                    item.future.set_result(answer)

    def _answer_batch(self, batch: list[_Item]) -> list[Answer]:
        vectors = self.assistant.embedder.encode([item.text for item in batch])
        return [
            self.assistant.answer_prepared(item.text, item.lang, vector)
            for item, vector in zip(batch, vectors, strict=True)
        ]
