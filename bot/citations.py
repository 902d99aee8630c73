"""A citation: the knowledge an answer or a quiz result comes from (question, excerpt, snippet, source).

It sits below both the answers and the quiz, so the quiz needs nothing of retrieval.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Citation:
    question: int
    title: str
    excerpt: str
    snippet: str | None
    source: str
    score: float
    snippet_lang: str | None = field(default=None, compare=False)
    topic: str = field(default="", compare=False)
    doc_id: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, object]:
        return {
            "question": self.question, "title": self.title, "excerpt": self.excerpt, "snippet": self.snippet,
            "source": self.source, "score": self.score,
        }
