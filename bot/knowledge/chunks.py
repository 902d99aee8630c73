"""Cut the knowledge into chunks that keep their meaning out of context.

Per question and edition: the question itself (options and answer), each explanation section (a
label such as "Ejemplo de uso:" starts a new one), each code block as a snippet, each table row.
Every chunk carries its question number, kind, language and a header naming the question.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from bot.knowledge import KnowledgeBase, Question
from bot.text.sentences import sentences
from bot.text.words import index_words

ChunkKind = Literal["question", "explanation", "code", "table_row"]


@dataclass(frozen=True)
class Chunk:
    id: int
    doc_id: str
    lang: str
    question: int
    kind: ChunkKind
    title: str
    label: str
    text: str
    source: str
    line: int
    code_lang: str | None = None
    section: str = ""  # a document section's heading path; "" for a quiz question

    @property
    def header(self) -> str:
        name = self.section or f"{self.question}. {self.title}"
        return name + (f" — {self.label}" if self.label else "")

    @property
    def indexed_text(self) -> str:
        """What is embedded and searched: the header first, so the chunk is findable on its own."""
        return f"{self.header}\n{self.text}"

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class Sentence:
    """One sentence or list item of an explanation, a candidate for the answer's excerpt."""

    doc_id: str
    lang: str
    question: int
    text: str

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def chunk_knowledge(kb: KnowledgeBase) -> tuple[list[Chunk], list[Sentence]]:
    chunks: list[Chunk] = []
    sents: list[Sentence] = []
    for doc in kb.documents:
        for question in doc.questions:
            for kind, label, text, line, code_lang in _question_pieces(question):
                chunks.append(
                    Chunk(
                        id=len(chunks), doc_id=doc.doc_id, lang=doc.lang, question=question.number, kind=kind,
                        title=question.title, label=label, text=text, source=question.source, line=line,
                        code_lang=code_lang, section=question.section,
                    )
                )
            for block in question.blocks:
                # Labels ("Ejemplo de uso:", "Key capabilities:") introduce; sentences that do ("In addition,
                # pods must request EFA devices:", "BF16 is supported on:") say something themselves.
                if block.kind in ("text", "list") and not (block.is_label and _is_label(block.text)):
                    sents.extend(
                        Sentence(doc.doc_id, doc.lang, question.number, s)
                        for s in sentences(block.text)
                        if not (s.endswith(":") and _is_label(s))
                    )
    return chunks, sents


def _is_label(text: str) -> bool:
    """A short line ending with a colon and no finite verb (`bot/data/rules/index-words.yaml`, `finite_verbs`): a
    heading for what follows, not a statement."""
    words = [w.strip(",.;:()").lower() for w in text.split()]
    return len(text) <= 60 and not any(w in index_words().finite_verbs for w in words)


def _question_pieces(q: Question) -> list[tuple[ChunkKind, str, str, int, str | None]]:
    pieces: list[tuple[ChunkKind, str, str, int, str | None]] = []
    options = "\n".join(f"{o.key}) {o.text}" for o in q.options)
    head = "\n".join(part for part in (q.topic, options, q.answer_line) if part)
    pieces.append(("question", "", head, q.line, None))

    label = ""
    prose: list[str] = []
    prose_line = q.line

    def flush() -> None:
        if prose:
            pieces.append(("explanation", label, "\n".join(prose), prose_line, None))
            prose.clear()

    for block in q.blocks:
        if block.is_label:
            flush()
            label = block.text.rstrip(":").strip()
            prose_line = block.line
            continue
        if block.kind == "code":
            pieces.append(("code", label, block.text, block.line, block.lang))
        elif block.kind == "table":
            header, *rows = block.rows
            for row in rows:
                text = "; ".join(f"{h}: {c}" for h, c in zip(header, row, strict=True))
                pieces.append(("table_row", label, text, block.line, None))
        else:
            if not prose:
                prose_line = block.line
            prose.append(block.text)
    flush()
    return pieces
