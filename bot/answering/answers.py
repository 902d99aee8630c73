"""`Answers`: what a surface that serves from an event loop (HTTP, Slack) calls to answer, with no thread to pick.

Questions asked together are answered together (`answer`, through the `AnswerBatcher`), and every model call runs
on the model's one thread. A message of a conversation (`ask`) is read with its earlier turns and with what the
conversation was about, answered, and what the answer leaves to record is written after the reply.

Answering never waits on the database: what a conversation was about is read with a deadline
(`CONTEXT_TIMEOUT`; past it the message is read alone), and its knowledge gaps and the conversation's topic are
written later on the bookkeeping threads (`bot.storage.bookkeeping`), or dropped when the database is behind.
Each message is read and answered by the assistant in use when it arrives (`AssistantInUse`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.answering.assistant import Answer
from bot.answering.batcher import AnswerBatcher
from bot.answering.claims import EventClaims
from bot.answering.conversation import CONTEXT_TIMEOUT, Conversation, ConversationMemory, Reading
from bot.answering.in_use import AssistantInUse
from bot.answering.knowledge_gaps import KnowledgeGaps
from bot.answering.model_thread import ModelThread
from bot.storage.bookkeeping import Bookkeeping


@dataclass(frozen=True)
class Asked:
    """A message answered: the answer, and how the message was read (alone, or with earlier turns)."""

    answer: Answer
    reading: Reading


class Answers:
    """Answers to questions and to the messages of conversations, for surfaces on an event loop."""

    def __init__(self, in_use: AssistantInUse, model: ModelThread, batcher: AnswerBatcher,
                 memory: ConversationMemory, gaps: KnowledgeGaps, bookkeeping: Bookkeeping,
                 claims: EventClaims) -> None:
        self.in_use = in_use
        self.model = model
        self.batcher = batcher
        self.memory = memory
        self.gaps = gaps
        self.bookkeeping = bookkeeping
        self.claims = claims

    async def answer(self, question: str, lang: str | None = None) -> Answer:
        """The assistant's answer, computed together with the questions asked meanwhile. Bad input
        (InputError) is refused at once."""
        return await self.batcher.answer(question, lang)

    async def show(self, doc_id: str, number: int, lang: str) -> Answer:
        """The answer of one quiz question or section, named (a suggestion taken): on the model's thread.
        InputError when the knowledge no longer has it."""
        return await self.model.run(self.in_use.current().answer_question, doc_id, number, lang)

    async def ask(self, question: str, lang: str | None = None, *, earlier: Sequence[str] = (),
                  conversation: str | None = None) -> Asked:
        """Answer a message of a conversation: the one call a surface makes.

        The message is read once (`bot.reading.markup.read_message`; a surface that read it first hands it on
        as read), then with the earlier turns (`earlier`, and what `conversation`, an opaque id such as a Slack
        thread's, was about), answered together with the questions asked meanwhile, and its knowledge gaps are
        recorded. After an answer, what the conversation is about is remembered. Bad input (InputError) is
        refused at once; a database failure only loses the context and the gaps."""
        assistant = self.in_use.current()
        reader = Conversation(assistant)
        turns = list(earlier)
        if conversation is not None:
            turns += await self.bookkeeping.within(CONTEXT_TIMEOUT, [], self.memory.earlier, conversation)
        if turns:
            reading = await self.model.run(reader.read, question, turns, lang)
        else:
            reading = reader.read(question, (), lang)  # validation only: no thread needed
        answer = await self.answer(reading.text, reading.language)
        fallback = reader.fallback_for(reading, answer)
        if fallback is not None:  # declined alone: the earlier turns may say what it is about
            again = await self.answer(fallback.text, fallback.language)
            answer, reading = await self.model.run(reader.settle, reading, answer, again)
        if self.gaps.shows_gap(answer):  # most answers show none: nothing to write
            self.bookkeeping.later(self.gaps.record_answer, question, answer)  # the person's words, not the reading
        if conversation is not None:
            topic = await self.model.run(reading.topic, assistant) if answer.answered else None
            self.claims.answered(conversation)
            self.bookkeeping.later(self.memory.remember, conversation, reading, topic)
        return Asked(answer, reading)
