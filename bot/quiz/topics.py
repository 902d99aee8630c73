"""Which quiz questions a topic a person typed is about, by topic name in either language."""

from __future__ import annotations

from bot.knowledge import KnowledgeBase, Question
from bot.text.normalise import fold

MIN_CONTAINED = 4  # a topic name this long or longer also matches when the request contains it


def matches(request: str, topic: str) -> bool:
    """Accent- and case-insensitive: 'slurm' matches 'Slinky y Slurm', 'precision' 'Precisión (BF16)'."""
    wanted, name = _norm(request), _norm(topic)
    if not wanted or not name:
        return False
    return wanted in name or (len(name) >= MIN_CONTAINED and name in wanted)


def questions_on(request: str, editions: list[list[Question]]) -> list[tuple[str, int]]:
    """Keys of the questions whose topic, in any of the given editions, matches the request."""
    keys: list[tuple[str, int]] = []
    for questions in editions:
        for q in questions:
            key = (q.doc_id, q.number)
            if key not in keys and matches(request, q.topic):
                keys.append(key)
    return sorted(keys)


def names_a_topic(knowledge: KnowledgeBase, request: str) -> bool:
    """Whether the request names a quiz topic of `knowledge` (else it is matched by meaning, with the model)."""
    return any(matches(request, q.topic) for d in knowledge.documents if d.kind == "quiz" for q in d.questions)


def _norm(text: str) -> str:
    return " ".join(fold(text).replace("(", " ").replace(")", " ").split())
