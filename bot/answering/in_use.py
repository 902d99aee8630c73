"""`AssistantInUse`: the assistant the service answers with, the one way a new one (changed knowledge) reaches
everything that uses it.

Every user reads it when its work starts (`current`, or `knowledge` for what the quiz and the maintainers' changes
need): the answers and their batches, the reading of a conversation, the quiz's draw and topics, the App Home,
curation. The knowledge's refresh puts a new assistant in its place (`swap`); work that already read the old
one finishes on it, and the old one goes once nothing holds it. Whoever must act on a new assistant (warming it,
the metrics) is told (`on_swap`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from bot.answering.assistant import Assistant
from bot.answering.model_thread import ModelThread
from bot.knowledge import KnowledgeBase


class AssistantInUse:
    """Holds the assistant in use; `swap` replaces it for the work that starts afterwards."""

    def __init__(self, assistant: Assistant) -> None:
        self._assistant = assistant
        self._listeners: list[Callable[[Assistant], None]] = []
        self._lock = threading.Lock()

    def current(self) -> Assistant:
        return self._assistant

    def knowledge(self) -> KnowledgeBase:
        """The knowledge in use (what the quiz draws from and a note may be attached to)."""
        return self._assistant.knowledge

    def swap(self, assistant: Assistant) -> None:
        """Answer from now on with `assistant`; work already started finishes on the assistant it read."""
        with self._lock:
            self._assistant = assistant
            listeners = list(self._listeners)
        for listener in listeners:
            listener(assistant)

    def on_swap(self, listener: Callable[[Assistant], None]) -> None:
        """Tell `listener` of every new assistant, after it is in use."""
        with self._lock:
            self._listeners.append(listener)


class TopicsInUse:
    """The assistant in use's topic matching, which encodes the topic, on the model's thread: what the quiz
    engine asks when a typed topic names no quiz topic."""

    def __init__(self, in_use: AssistantInUse, model: ModelThread) -> None:
        self.in_use = in_use
        self.model = model

    def match_topic(self, topic: str, lang: str) -> list[tuple[str, int]]:
        return self.model.call(self.in_use.current().match_topic, topic, lang)
