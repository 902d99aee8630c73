"""A document written only in Spanish, read in English too.

The embedding model is English, and an English question shares few words with Spanish text. A question in
Spanish is already read in English as well (`bot.reading.terms`, with the glossary); this is the same for
the knowledge's side: each chunk of a document that has no English edition gets the English equivalents of
its words (`Glossary.reading`), embedded with it and searched with English BM25. Knowledge with both editions
(the quiz) is read as written.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.knowledge.chunks import Chunk
from bot.reading.lexicon import Glossary


def english_readings(chunks: Sequence[Chunk], glossary: Glossary) -> dict[int, str]:
    """Chunk id -> the English reading of each Spanish chunk whose question or section has no English
    edition (chunks with nothing to read in English are left out)."""
    english = {(c.doc_id, c.question) for c in chunks if c.lang == "en"}
    out: dict[int, str] = {}
    for chunk in chunks:
        if chunk.lang == "es" and (chunk.doc_id, chunk.question) not in english and chunk.kind != "code":
            reading = glossary.reading(chunk.indexed_text)
            if reading:
                out[chunk.id] = reading
    return out


def embedded_text(chunk: Chunk, readings: dict[int, str]) -> str:
    """What is embedded for a chunk: its text, and its English reading where it has one."""
    reading = readings.get(chunk.id)
    return f"{chunk.indexed_text}\n{reading}" if reading else chunk.indexed_text
