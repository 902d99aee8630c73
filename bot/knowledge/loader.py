"""Load every knowledge file of a directory and check that the editions of a document agree."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from bot.errors import KnowledgeError
from bot.knowledge.model import Document, Question
from bot.knowledge.parser import parse_file

PATTERN = "*.md"
IGNORED = {"README.md"}


@dataclass(frozen=True)
class KnowledgeBase:
    """All documents, all editions; `digest` changes whenever any knowledge file does."""

    documents: tuple[Document, ...]
    digest: str

    def editions(self, doc_id: str) -> dict[str, Document]:
        return {d.lang: d for d in self.documents if d.doc_id == doc_id}

    def question(self, doc_id: str, number: int, lang: str) -> Question:
        """The question in `lang`, or in any edition there is when that language has none."""
        editions = self.editions(doc_id)
        for doc in [editions.get(lang), *editions.values()]:
            if doc is not None and (q := doc.question(number)) is not None:
                return q
        raise KeyError((doc_id, number))

    def questions(self, lang: str, kind: str | None = "quiz") -> list[Question]:
        """One edition of every question (in `lang` where there is one), in document order."""
        seen: dict[tuple[str, int], Question] = {}
        for doc in self.documents:
            if kind is not None and doc.kind != kind:
                continue
            for q in doc.questions:
                key = (q.doc_id, q.number)
                if key not in seen or q.lang == lang:
                    seen[key] = q
        return sorted(seen.values(), key=lambda q: (q.doc_id, q.number))

    def topics(self, lang: str) -> list[str]:
        out: list[str] = []
        for q in self.questions(lang, kind=None):
            if q.topic not in out:
                out.append(q.topic)
        return out


def knowledge_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.glob(PATTERN) if p.name not in IGNORED and p.is_file())


def knowledge_digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in knowledge_files(directory):
        digest.update(path.name.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def load_knowledge(directory: Path) -> KnowledgeBase:
    files = knowledge_files(directory)
    if not files:
        raise KnowledgeError(directory, None, "no knowledge files (*.md) in this directory")
    documents = [parse_file(path) for path in files]
    by_id: dict[str, list[Document]] = defaultdict(list)
    for doc in documents:
        by_id[doc.doc_id].append(doc)
    for group in by_id.values():
        _check_editions(group)
    return KnowledgeBase(documents=tuple(documents), digest=knowledge_digest(directory))


def _check_editions(group: list[Document]) -> None:
    langs: dict[str, Document] = {}
    for doc in group:
        if doc.lang in langs:
            raise KnowledgeError(
                doc.path, 1,
                f"document {doc.doc_id!r} already has a {doc.lang!r} edition in {langs[doc.lang].path.name}",
            )
        langs[doc.lang] = doc
    base, *others = group
    for doc in others:
        if doc.kind != base.kind:
            raise KnowledgeError(doc.path, 1, f"kind {doc.kind!r} differs from {base.path.name} ({base.kind!r})")
        numbers = [q.number for q in base.questions]
        other_numbers = [q.number for q in doc.questions]
        if numbers != other_numbers:
            missing = sorted(set(numbers) - set(other_numbers))
            extra = sorted(set(other_numbers) - set(numbers))
            raise KnowledgeError(
                doc.path, 1,
                f"questions differ from {base.path.name}: missing {missing or 'none'}, extra {extra or 'none'}",
            )
        for q, other in zip(base.questions, doc.questions, strict=True):
            if q.answer != other.answer:
                raise KnowledgeError(
                    doc.path, other.line,
                    f"question {q.number} answers {other.answer!r} here but {q.answer!r} in {base.path.name}",
                )
            if len(q.options) != len(other.options):
                raise KnowledgeError(
                    doc.path, other.line, f"question {q.number} has {len(other.options)} options here, "
                    f"{len(q.options)} in {base.path.name}",
                )
            codes = [b.text for b in q.code_blocks]
            other_codes = [b.text for b in other.code_blocks]
            if codes != other_codes:
                bad = next(
                    (b for b, c in zip(other.code_blocks, codes, strict=False) if b.text != c),
                    other.code_blocks[-1] if other.code_blocks else None,
                )
                raise KnowledgeError(
                    doc.path, bad.line if bad else other.line,
                    f"code blocks of question {q.number} differ from {base.path.name} (they must be identical)",
                )
