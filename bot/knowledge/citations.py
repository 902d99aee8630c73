"""A citation: the knowledge an answer or a quiz result comes from (question, excerpt, snippet, source).

It sits below both the answers and the quiz, so the quiz needs nothing of retrieval.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SNIPPET_LINES = 16  # a longer snippet is cut (at a block's end) with a note of what is left


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
    section: str = ""  # a document section's heading path ("Trainium on EKS › Device plugin"); "" in a quiz
    url: str | None = None  # where readers find the source, when it says
    lang: str = field(default="", compare=False)  # the language the cited text is written in
    notes: tuple[str, ...] = ()  # maintainers' notes on the cited question or section, in the reader's language

    def to_dict(self) -> dict[str, object]:
        return {
            "question": self.question, "title": self.title, "excerpt": self.excerpt, "snippet": self.snippet,
            "source": self.source, "score": self.score, "doc": self.doc_id, "section": self.section,
            "url": self.url, "notes": list(self.notes),
        }


def cut_code(code: str, max_lines: int = SNIPPET_LINES, max_chars: int | None = None) -> tuple[str, int]:
    """`code` cut at a sensible line: at most `max_lines` lines (and `max_chars` characters), ending
    where a block ends (before a blank line, a line that goes back out, or a new list item or comment)
    when one is in the second half; never inside a line. Returns the kept text and how many lines are left out."""
    lines = code.rstrip("\n").split("\n")
    limit = len(lines) if len(lines) <= max_lines else max_lines
    if max_chars is not None:
        size = 0
        for i, line in enumerate(lines[:limit]):
            size += len(line) + 1
            if size > max_chars:
                limit = max(1, i)
                break
    if limit >= len(lines):
        return "\n".join(lines), 0
    for end in range(limit, max(1, limit // 2), -1):
        if _starts_a_block(lines[end - 1], lines[end]):
            limit = end
            break
    kept = lines[:limit]
    while kept and not kept[-1].strip():
        kept.pop()
    return "\n".join(kept), len(lines) - len(kept)


_BLOCK_STARTS = ("- ", "#", "//", "}", "]", "def ", "class ")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _starts_a_block(previous: str, line: str) -> bool:
    if not line.strip() or _indent(line) < _indent(previous):
        return True
    return _indent(line) == _indent(previous) and line.lstrip().startswith(_BLOCK_STARTS)
