"""A citation: the knowledge an answer or a quiz result comes from (question, excerpt, snippet, source).

It sits below both the answers and the quiz, so the quiz needs nothing of retrieval.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from urllib.parse import urlsplit

SNIPPET_LINES = 16  # a longer snippet is cut (at a block's end) with a note of what is left
SNIPPET_CHARS = 1500  # and so is one with more characters, inside a line when a single line is longer
CUT = "…"  # ends a snippet that was cut, where no note of what is left can follow it
_NOT_IN_A_URL = frozenset('<>"`')  # what ends or breaks out of a link in HTML or Markdown


@dataclass(frozen=True)
class Part:
    """A part of a quote that shows several code blocks: a text and the code block it leads into (or None)."""

    text: str
    snippet: str | None = None
    snippet_lang: str | None = None


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
    # Sections of the same part of the page, weighed about as close, quoted with this one under their own headings:
    # a rule stated in a section and its details in a subsection, or two subsections of one section.
    beside: tuple[Citation, ...] = ()
    # A quote of several code blocks, in the section's order, each with the text that leads into it (`excerpt` and
    # `snippet` hold the same, the texts together and the blocks together); () when it shows one block or none.
    parts: tuple[Part, ...] = ()

    def __post_init__(self) -> None:
        # The URL comes from whoever wrote the knowledge (front matter, sources.yaml): every surface shows it
        # or links to it, so anything but a plain http(s) URL is dropped here, once for all of them.
        object.__setattr__(self, "url", web_url(self.url))

    def to_dict(self) -> dict[str, object]:
        """The public shape (HTTP, `eksbot ask --json`): the snippet bounded, ending with a line "…" when cut."""
        return {
            "question": self.question, "title": self.title, "excerpt": self.excerpt,
            "snippet": bounded_snippet(self.snippet) if self.snippet else self.snippet,
            "source": self.source, "score": self.score, "doc": self.doc_id, "section": self.section,
            "url": self.url, "notes": list(self.notes), "beside": [c.to_dict() for c in self.beside],
            "parts": [{"text": p.text, "snippet": bounded_snippet(p.snippet) if p.snippet else None}
                      for p in self.parts],
        }


def web_url(url: str | None) -> str | None:
    """`url` when it is a plain http or https URL with a host, else None: no other scheme (`javascript:`,
    `data:`, `file:`), and no whitespace, control, invisible formatting (bidi overrides) or characters that end
    a link (`<`, `>`, `"`, a backquote)."""
    if not url or any(c in _NOT_IN_A_URL or unicodedata.category(c)[0] in "CZ" for c in url):
        return None
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    return url if parts.scheme.lower() in ("http", "https") and host else None


def cut_snippet(code: str, max_lines: int = SNIPPET_LINES, max_chars: int = SNIPPET_CHARS) -> tuple[str, int]:
    """`code` cut as `cut_code` cuts it; a first line longer than `max_chars` (minified code, a long key) is
    cut inside and ends with "…". Returns the kept text and how many lines are left out."""
    kept, left = cut_code(code, max_lines, max_chars)
    if len(kept) > max_chars:
        kept = kept[: max_chars - len(CUT)].rstrip() + CUT
    return kept, left


def bounded_snippet(code: str) -> str:
    """`code` within SNIPPET_LINES lines and SNIPPET_CHARS characters, where the reader is told nothing else:
    a line "…" after the kept lines says that more of it is in the source."""
    kept, left = cut_snippet(code, max_lines=SNIPPET_LINES, max_chars=SNIPPET_CHARS - len(CUT) - 1)
    return f"{kept}\n{CUT}" if left else kept


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
