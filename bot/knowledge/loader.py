"""Load every knowledge file of a directory (and its folders) and check that the editions of a document agree.

Two kinds of files live there. The knowledge format (front matter with `kind: quiz` or `kind: doc`, or with
`id`, `lang` and `title`; see `bot.knowledge.parser`) is the team's own: an error in such a file stops the
build with its file and line. Any other Markdown file (`.md`, `.mdx`: a runbook, a public doc page) is read
as it is by `bot.knowledge.markdown`; one that cannot be read at all (binary, not UTF-8, a broken front
matter) is skipped, and `skipped` says which and why (`eksbot index check` prints it).

A folder may hold `sources.yaml`, mapping its files' names to the URL where readers find them (or a
`base_url` the file's path is appended to); a document's own `source_url` comes first.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import yaml

from bot.errors import KnowledgeError
from bot.knowledge.markdown import FrontMatter, parse_markdown, read_front_matter
from bot.knowledge.model import Document, Note, Question
from bot.knowledge.parser import parse_text

PATTERNS = ("*.md", "*.mdx")
# A repository's own files, not documentation to answer from.
META_NAMES = frozenset({"README", "LICENSE", "CHANGELOG", "CONTRIBUTING", "SOURCES", "CODE_OF_CONDUCT", "SECURITY",
                        "NOTICE", "AUTHORS"})
SOURCES_FILE = "sources.yaml"
_FORMAT_KEYS = ("id", "lang", "title")


@dataclass(frozen=True)
class Skipped:
    """A file of the knowledge directory that could not be read, and why."""

    path: Path
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


@dataclass(frozen=True)
class KnowledgeBase:
    """All documents, all editions; `digest` changes whenever any knowledge file does."""

    documents: tuple[Document, ...]
    digest: str
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[Note, ...] = ()  # maintainers' notes on quiz questions and sections

    def notes_on(self, doc_id: str, number: int, lang: str) -> list[str]:
        """The notes on a question or section for a reader of `lang`: those in that language, else the others."""
        found = [n for n in self.notes if n.doc_id == doc_id and n.question == number]
        own = [n.text for n in found if n.lang == lang]
        return own or [n.text for n in found]

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
    """Every Markdown file below `directory`, but hidden ones and a repository's own (README, LICENSE…)."""
    found = {p for pattern in PATTERNS for p in directory.rglob(pattern)}
    return sorted(
        p for p in found
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(directory).parts)
        and p.stem.split(".")[0].upper() not in META_NAMES
    )


def knowledge_digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in [*knowledge_files(directory), *sorted(directory.rglob(SOURCES_FILE))]:
        digest.update(path.relative_to(directory).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


# A file as last read: its size and modification time, its source URL, and what it read as.
ReadCache = dict[Path, tuple[tuple[int, int, str | None], "Document | Note"]]


def load_knowledge(directory: Path, cache: ReadCache | None = None) -> KnowledgeBase:
    """Every knowledge file below `directory`. With `cache` (kept between calls), a file whose size and
    modification time are unchanged is not read again."""
    files = knowledge_files(directory)
    if not files:
        raise KnowledgeError(directory, None, "no knowledge files (*.md, *.mdx) in this directory")
    urls = source_urls(directory)
    documents: list[Document] = []
    notes: list[Note] = []
    skipped: list[Skipped] = []
    for path in files:
        try:
            read = _read_cached(path, directory, urls.get(path), cache)
        except UnreadableError as exc:
            skipped.append(Skipped(path, exc.reason))
            continue
        if isinstance(read, Note):
            notes.append(read)
        else:
            documents.append(read)
    if not documents:
        raise KnowledgeError(directory, None, "no knowledge file could be read: " + "; ".join(map(str, skipped)))
    by_id: dict[str, list[Document]] = defaultdict(list)
    for doc in documents:
        by_id[doc.doc_id].append(doc)
    for group in by_id.values():
        _check_editions(group)
    return KnowledgeBase(documents=tuple(documents), digest=knowledge_digest(directory), skipped=tuple(skipped),
                         notes=tuple(notes))


def _read_cached(path: Path, directory: Path, source_url: str | None, cache: ReadCache | None) -> Document | Note:
    if cache is None:
        return read_document(path, directory, source_url)
    stat = path.stat()
    signature = (stat.st_size, stat.st_mtime_ns, source_url)
    found = cache.get(path)
    if found is not None and found[0] == signature:
        return found[1]
    read = read_document(path, directory, source_url)
    cache[path] = (signature, read)
    return read


class UnreadableError(KnowledgeError):
    """A document (not in the knowledge format) that cannot be read: it is skipped, not fatal."""


def read_document(path: Path, directory: Path, source_url: str | None = None) -> Document | Note:
    """One file: in the knowledge format (errors raise KnowledgeError), a maintainers' note (front matter
    `note_for`, `question`, `lang`), or any other Markdown (errors raise UnreadableError: the file is skipped)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UnreadableError(path, None, f"cannot be read ({exc.strerror or exc.__class__.__name__})") from exc
    if b"\0" in raw[:8192]:
        raise UnreadableError(path, None, "a binary file, not text")
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
    except UnicodeDecodeError as exc:
        raise UnreadableError(path, None, f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from exc
    if _knowledge_format(text):
        return parse_text(text, path)
    relative = path.relative_to(directory)
    try:
        front = read_front_matter(text, path)
        if "note_for" in front.values:
            return _note(front, relative, path)
        return parse_markdown(text, path, doc_id=relative.with_suffix("").as_posix(), source=relative.as_posix(),
                              source_url=source_url, front=front)
    except KnowledgeError as exc:
        raise UnreadableError(path, exc.line, exc.reason) from exc


def _note(front: FrontMatter, relative: Path, path: Path) -> Note:
    values = front.values
    question, lang, text = values.get("question"), values.get("lang"), front.body.strip()
    if not isinstance(question, int) or isinstance(question, bool) or lang not in ("es", "en") or not text:
        raise KnowledgeError(path, 1, "a note needs note_for, a question number, lang (es or en) and a text")
    return Note(id=relative.with_suffix("").as_posix(), doc_id=str(values["note_for"]), question=question,
                lang=str(lang), text=text)


def _knowledge_format(text: str) -> bool:
    """The team's own format: YAML front matter with `kind: quiz|doc`, or with `id`, `lang` and `title`. Read
    line by line, so that a broken header of such a file is still recognised (and its error reported)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return False
    keys: set[str] = set()
    for line in lines[1:]:
        if line.strip() in ("---", "..."):
            break
        key, colon, value = line.partition(":")
        if colon and not line.startswith((" ", "\t")):
            keys.add(key.strip())
            if key.strip() == "kind" and value.strip().strip("'\"") in ("quiz", "doc"):
                return True
    return all(k in keys for k in _FORMAT_KEYS)


def source_urls(directory: Path) -> dict[Path, str]:
    """The URL of each file named in a `sources.yaml` of its folder (`name: url`, or `base_url` + path)."""
    urls: dict[Path, str] = {}
    # Outer folders first, so that a folder's own sources.yaml has the last word on its files.
    for mapping in sorted(directory.rglob(SOURCES_FILE), key=lambda p: (len(p.parts), p)):
        try:
            data = yaml.safe_load(mapping.read_text(encoding="utf-8")) or {}
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise KnowledgeError(mapping, None, f"cannot read the sources file ({exc.__class__.__name__})") from exc
        if not isinstance(data, dict):
            raise KnowledgeError(mapping, 1, "a sources file maps file names to URLs")
        folder = mapping.parent
        base = data.get("base_url")
        if isinstance(base, str):
            for path in folder.rglob("*"):
                if path.suffix in (".md", ".mdx"):
                    urls[path] = base.rstrip("/") + "/" + path.relative_to(folder).with_suffix("").as_posix()
        for name, url in data.items():
            if name != "base_url" and isinstance(url, str):
                urls[folder / str(name)] = url
    return urls


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
