"""What the knowledge is made of: documents, questions, options and blocks of content."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

BlockKind = Literal["text", "list", "table", "code"]


@dataclass(frozen=True)
class Block:
    """A paragraph, a list, a table or a fenced code block, with the line it starts on."""

    kind: BlockKind
    text: str
    line: int
    lang: str | None = None
    rows: tuple[tuple[str, ...], ...] = ()

    @property
    def is_label(self) -> bool:
        """A one-line paragraph ending with a colon introduces what follows ("Ejemplo de uso:")."""
        return self.kind == "text" and "\n" not in self.text and self.text.rstrip().endswith(":")


@dataclass(frozen=True)
class Option:
    key: str
    text: str


@dataclass(frozen=True)
class Question:
    """One numbered question of a quiz, or one numbered section of another document."""

    doc_id: str
    lang: str
    number: int
    title: str
    topic: str
    options: tuple[Option, ...]
    answer: str | None
    blocks: tuple[Block, ...]
    source: str
    line: int
    path: tuple[str, ...] = ()  # a document section's heading path (the document's title first); () in a quiz

    @property
    def section(self) -> str:
        """The heading path as shown in a citation: "Trainium on EKS › AWS Neuron Device Plugin"."""
        return " › ".join(self.path)

    @property
    def correct_option(self) -> Option | None:
        return next((o for o in self.options if o.key == self.answer), None)

    @property
    def answer_line(self) -> str:
        option = self.correct_option
        return f"{option.key}) {option.text}" if option else ""

    @property
    def code_blocks(self) -> tuple[Block, ...]:
        return tuple(b for b in self.blocks if b.kind == "code")


@dataclass(frozen=True)
class Note:
    """A maintainers' note on a quiz question or a document's section (`number`), in one language."""

    id: str
    doc_id: str
    question: int
    lang: str
    text: str


@dataclass(frozen=True)
class Document:
    path: Path
    doc_id: str
    lang: str
    kind: Literal["quiz", "doc"]
    title: str
    source: str
    intro: tuple[Block, ...]
    questions: tuple[Question, ...]
    sections: tuple[tuple[str, tuple[Block, ...]], ...] = field(default=())
    source_url: str | None = None  # where readers find the document (a citation links to it)

    def question(self, number: int) -> Question | None:
        return next((q for q in self.questions if q.number == number), None)
