"""Chunks keep their meaning out of context: each names its question, kind and language."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.knowledge import KnowledgeBase, Question, load_knowledge
from bot.knowledge.chunks import Chunk, Sentence, chunk_knowledge
from bot.text.normalise import fold
from tests.conftest import KNOWLEDGE

KINDS = {"question", "explanation", "code", "table_row"}
Chunked = tuple[list[Chunk], list[Sentence]]


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(KNOWLEDGE)


@pytest.fixture(scope="module")
def chunked(kb: KnowledgeBase) -> Chunked:
    return chunk_knowledge(kb)


def questions(kb: KnowledgeBase) -> list[Question]:
    return [q for doc in kb.documents for q in doc.questions]


def chunks_of(chunks: list[Chunk], q: Question, kind: str | None = None) -> list[Chunk]:
    return [
        c for c in chunks
        if (c.doc_id, c.question, c.lang) == (q.doc_id, q.number, q.lang) and (kind is None or c.kind == kind)
    ]


def test_every_chunk_is_labelled(kb: KnowledgeBase, chunked: Chunked) -> None:
    chunks, _ = chunked
    assert chunks
    for position, chunk in enumerate(chunks):
        assert chunk.id == position
        assert chunk.kind in KINDS
        assert chunk.lang in {"es", "en"}
        assert chunk.text.strip(), chunk
        q = kb.editions(chunk.doc_id)[chunk.lang].question(chunk.question)
        assert q is not None, chunk
        assert q.title in chunk.header
        assert chunk.header.startswith(f"{q.number}. ")
        assert chunk.indexed_text.startswith(chunk.header)
        assert chunk.source == f"eks-training-quiz.{chunk.lang}.md"
        assert chunk.line >= q.line


def test_every_question_and_edition_is_covered(kb: KnowledgeBase, chunked: Chunked) -> None:
    chunks, _ = chunked
    for q in questions(kb):
        own = chunks_of(chunks, q)
        kinds = Counter(c.kind for c in own)
        assert kinds["question"] == 1, f"question {q.number} ({q.lang})"
        assert kinds["explanation"] >= 1, f"question {q.number} ({q.lang})"
        head = chunks_of(chunks, q, "question")[0]
        assert q.answer_line in head.text
        for option in q.options:
            assert option.text in head.text


def test_each_code_block_is_its_own_chunk(kb: KnowledgeBase, chunked: Chunked) -> None:
    chunks, _ = chunked
    for q in questions(kb):
        code = chunks_of(chunks, q, "code")
        assert [(c.text, c.code_lang) for c in code] == [(b.text, b.lang) for b in q.code_blocks], (
            f"question {q.number} ({q.lang})"
        )
        assert all(c.code_lang for c in code)
    prose = [c for c in chunks if c.kind != "code"]
    assert all(c.code_lang is None for c in prose)


def test_table_rows_carry_header_names(kb: KnowledgeBase, chunked: Chunked) -> None:
    chunks, _ = chunked
    tables = 0
    for q in questions(kb):
        rows = chunks_of(chunks, q, "table_row")
        expected = [(b.rows[0], row) for b in q.blocks if b.kind == "table" for row in b.rows[1:]]
        tables += len(expected)
        assert len(rows) == len(expected), f"question {q.number} ({q.lang})"
        for chunk, (header, row) in zip(rows, expected, strict=True):
            for name, cell in zip(header, row, strict=True):
                assert name in chunk.text and cell in chunk.text, chunk.text
                assert chunk.text.index(name) < chunk.text.index(cell, chunk.text.index(name))
    assert tables > 0


def test_table_row_of_the_parallelism_comparison(chunked: Chunked) -> None:
    chunks, _ = chunked
    rows = [c for c in chunks if c.question == 1 and c.lang == "es" and c.kind == "table_row"]
    tensor = [c for c in rows if "Paralelismo de tensores" in c.text]
    assert len(tensor) == 1
    assert "Qué se distribuye" in tensor[0].text and "Capas individuales" in tensor[0].text


def test_a_label_names_the_section_that_follows(chunked: Chunked) -> None:
    """'Ejemplo de uso:' introduces the code of question 7: the code chunk says so in its header."""
    chunks, _ = chunked
    code = [c for c in chunks if c.question == 7 and c.lang == "es" and c.kind == "code"]
    assert len(code) == 1
    assert "Ejemplo de uso" in code[0].header
    assert "NeuronTrainer" in code[0].text


def test_a_line_ending_with_a_colon_is_a_sentence_when_it_states_something(chunked: Chunked) -> None:
    """"In addition, pods must request EFA devices:" answers "how do I request EFA devices?"; "Usage example:"
    and "Key capabilities:" only introduce what follows."""
    _, sentences = chunked
    texts = {(s.lang, s.text) for s in sentences}
    assert ("en", "In addition, pods must request EFA devices:") in texts
    assert ("es", "Además, los pods deben solicitar dispositivos EFA:") in texts
    assert ("en", "BF16 is supported on:") in texts
    for label in ("Usage example:", "Key capabilities:", "Ejemplo de uso:", "Trade-offs:"):
        assert all(text != label for _, text in texts), label


def test_sentences_exist_for_every_question(kb: KnowledgeBase, chunked: Chunked) -> None:
    _, sentences = chunked
    for q in questions(kb):
        own = [s for s in sentences if (s.doc_id, s.question, s.lang) == (q.doc_id, q.number, q.lang)]
        assert own, f"question {q.number} ({q.lang}) has no sentences"
        prose = fold(" ".join(" ".join(b.text.split()) for b in q.blocks if b.kind in ("text", "list")))
        for s in own:
            assert s.text.strip()
            assert fold(" ".join(s.text.split())) in prose, s.text


def test_sentences_split_prose(chunked: Chunked) -> None:
    _, sentences = chunked
    first = [s.text for s in sentences if s.question == 1 and s.lang == "es"]
    assert any(s.startswith("El paralelismo de tensores divide capas individuales") for s in first)
    assert any(s.startswith("Cada GPU contiene una parte de los pesos") for s in first)
    assert not any("divide capas individuales" in s and "Cada GPU contiene" in s for s in first)
