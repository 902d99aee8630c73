"""The explanation and citation shown after an answer, taken from the question's own prose."""

from __future__ import annotations

from bot.knowledge import Block, Question
from bot.knowledge.citations import Citation


def explanation(question: Question) -> str:
    """The explanation as readable text: paragraphs and lists as written, tables as lines, no code.

    A label that only introduced a code block ("Example configuration:") goes with the code.
    """
    parts: list[str] = []
    blocks = question.blocks
    for i, block in enumerate(blocks):
        if block.kind == "code":
            continue
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        if block.is_label and (following is None or following.kind == "code"):
            continue
        parts.append(table_text(block) if block.kind == "table" else block.text)
    return "\n\n".join(parts)


def table_text(block: Block) -> str:
    """One line per row, each cell named by its column: "- Data parallelism — What is distributed: ..."."""
    rows = block.rows
    if len(rows) < 2 or len(rows[0]) < 2:
        return "\n".join(" | ".join(row) for row in rows)
    header, *body = rows
    lines = []
    for row in body:
        cells = "; ".join(f"{name}: {cell}" for name, cell in zip(header[1:], row[1:], strict=False) if cell)
        lines.append(f"- {row[0]} — {cells}" if cells else f"- {row[0]}")
    return "\n".join(lines)


def citation(question: Question) -> Citation:
    first_text = next((b.text for b in question.blocks if b.kind == "text"), "")
    code = question.code_blocks[0] if question.code_blocks else None
    return Citation(
        question=question.number, title=question.title, excerpt=first_text,
        snippet=code.text if code else None, source=question.source, score=1.0,
        snippet_lang=code.lang if code else None, topic=question.topic, doc_id=question.doc_id,
    )
