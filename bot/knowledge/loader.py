"""Load every knowledge file of a directory (and its folders) and check that the editions of a document agree.

Two kinds of files live there. The knowledge format (front matter with `kind: quiz` or `kind: doc`, or with
`id`, `lang` and `title`; see `bot.knowledge.parser`) is the team's own: an error in such a file stops the
build with its file and line (`strict`, the default). Any other Markdown file (`.md`, `.mdx`: a runbook, a
public doc page) is read as it is by `bot.knowledge.markdown`; one that cannot be read at all (binary, not
UTF-8, a broken front matter, larger than `MAX_DOCUMENT_BYTES`) is skipped, and `skipped` says which and why
(`eksbot index check` prints it). While serving (`strict=False`), a knowledge-format file with an error, an
edition that disagrees with the others and a sources file that cannot be read are skipped and named the same
way: one person's broken file never holds back the rest.

A folder may hold `sources.yaml`, mapping its files' names to the URL where readers find them (or a
`base_url` the file's path is appended to); a document's own `source_url` comes first. Only http and https
URLs are kept: a citation links to them.

Links: what is read must be inside the knowledge directory, resolved once (a directory given as a link, such
as git-sync's `root/current -> .worktrees/<sha>`, is fine). A linked file or folder whose target is outside
is refused and named in `skipped`; nothing is read from it. A linked folder is followed when its target is a
hidden folder inside the directory: git-sync's layout, `team-docs -> .worktrees/<sha>`, whose worktrees are
hidden and so not read in their own place. A linked folder to a visible folder inside is not followed: that
folder is read in its place, once. Only where a link resolves decides, never how it is written, so that a
hidden link out (`.x -> /elsewhere`) opens nothing.

Revisions: a followed link into git-sync's `.worktrees/<sha>` names the commit the folder was read from (the
last part of its target; no git command is run). `revisions` maps the folder (the one holding `.worktrees`,
such as `team-docs`) to that commit. Files are always read through the link, never through its target: a
swap is seen whole from the next look on, never half-written. `roots` names where each such folder's git-sync
root is (the folder holding `.worktrees`, where git-sync also keeps its error file: `bot.knowledge.git_sync`).
Hidden files (a name starting with a dot, such as that error file) are never read as knowledge.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from bot.errors import KnowledgeError
from bot.knowledge.limits import MAX_DOCUMENT_BYTES
from bot.knowledge.markdown import FrontMatter, parse_markdown, read_front_matter
from bot.knowledge.model import Document, Note, Question
from bot.knowledge.parser import parse_text
from bot.knowledge.safe_yaml import load_yaml
from bot.lang import LANGUAGES

log = logging.getLogger(__name__)

PATTERNS = ("*.md", "*.mdx")
SUFFIXES = (".md", ".mdx")
# A repository's own files, not documentation to answer from.
META_NAMES = frozenset({"README", "LICENSE", "CHANGELOG", "CONTRIBUTING", "SOURCES", "CODE_OF_CONDUCT", "SECURITY",
                        "NOTICE", "AUTHORS"})
SOURCES_FILE = "sources.yaml"
_FORMAT_KEYS = ("id", "lang", "title")
WEB_SCHEMES = ("http", "https")
# Reading one document should take milliseconds. Parsing cannot be interrupted, so time is bounded by size
# (`MAX_DOCUMENT_BYTES`: the parsers take time in proportion to the text); a document that still takes longer
# than this is named in the log, with how long it took, so that it can be split.
PARSE_WARN_SECONDS = 2.0
WORKTREES = ".worktrees"  # where git-sync checks out each revision, as `<root>/.worktrees/<sha>`
_COMMIT = re.compile(r"[0-9a-f]{7,64}")


@dataclass(frozen=True)
class Skipped:
    """A file of the knowledge directory that could not be read, and why (and where, when a line says)."""

    path: Path
    reason: str
    line: int | None = None  # where in the file, when the reason is about one line

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"

    @property
    def located(self) -> str:
        """The file, its line when there is one, and the reason: `path:line: reason`."""
        return f"{self.path}:{self.line}: {self.reason}" if self.line else str(self)


@dataclass(frozen=True)
class KnowledgeBase:
    """All documents, all editions; `digest` changes whenever any knowledge file does."""

    documents: tuple[Document, ...]
    digest: str
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[Note, ...] = ()  # maintainers' notes on quiz questions and sections
    # The git-sync revisions read, (folder, commit) sorted by folder (`find_knowledge`); `revision` as a dict.
    revisions: tuple[tuple[str, str], ...] = ()

    @property
    def revision(self) -> dict[str, str]:
        """Each git-sync folder read and the commit it was read from: `{"team-docs": "1a2b…"}`."""
        return dict(self.revisions)

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
        return list(dict.fromkeys(q.topic for q in self.questions(lang, kind=None)))  # each once, in order


@dataclass(frozen=True)
class Found:
    """What a knowledge directory holds: its Markdown files and sources files (each sorted), and the links
    refused because they lead out of it, and the git-sync revisions its links lead to ((folder, commit),
    sorted), and the git-sync root of each such folder ((folder, root), sorted)."""

    files: tuple[Path, ...]
    sources: tuple[Path, ...]
    refused: tuple[Skipped, ...] = ()
    revisions: tuple[tuple[str, str], ...] = ()
    roots: tuple[tuple[str, Path], ...] = ()


def find_knowledge(directory: Path) -> Found:
    """Every Markdown file and `sources.yaml` below `directory`, but hidden ones and a repository's own (README,
    LICENSE…), following links as the module's docstring says. A folder that vanishes while it is listed (a
    swap, a removal) is passed over: the next look sees what replaced it."""
    root = Path(os.path.realpath(directory))
    files: list[Path] = []
    sources: list[Path] = []
    refused: list[Skipped] = []
    revisions: dict[str, str] = {}
    roots: dict[str, Path] = {}
    if directory.is_symlink() and root.parent.name == WORKTREES and _COMMIT.fullmatch(root.name):
        revisions[root.parent.parent.name] = root.name  # the directory given as git-sync's link, `<root>/current`
        roots[root.parent.parent.name] = root.parent.parent
    followed = {root}

    def walk(folder: Path) -> None:
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = folder / entry.name
            try:
                is_dir = entry.is_dir()
                wanted = is_dir or entry.name == SOURCES_FILE or _markdown_name(entry.name)
                if not wanted:
                    continue
                target = Path(os.path.realpath(path)) if entry.is_symlink() else None
            except OSError:
                continue
            if target is not None and not target.is_relative_to(root):
                kind = "folder" if is_dir else "file"
                refused.append(Skipped(path, f"a link to a {kind} outside the knowledge folder: refused"))
                continue
            if is_dir:
                if target is not None:
                    hidden = any(part.startswith(".") for part in target.relative_to(root).parts)
                    if not hidden or target in followed:
                        continue  # read in its own place (or already followed): not twice
                    followed.add(target)
                    _note_revision(revisions, roots, path.relative_to(directory), root, target)
                walk(path)
            elif entry.name == SOURCES_FILE:
                sources.append(path)
            else:
                files.append(path)

    walk(directory)
    return Found(tuple(sorted(files)), tuple(sorted(sources)), tuple(refused), tuple(sorted(revisions.items())),
                 tuple(sorted(roots.items())))


def _note_revision(revisions: dict[str, str], roots: dict[str, Path], link: Path, root: Path, target: Path) -> None:
    """When `target` (resolved, below the knowledge directory resolved as `root`) is git-sync's
    `<sync-root>/.worktrees/<sha>`, the commit `<sha>` and the root `<sync-root>` for the folder `<sync-root>`
    (the link itself when git-sync's root is the knowledge directory)."""
    inside = target.relative_to(root)
    if len(inside.parts) < 2 or inside.parts[-2] != WORKTREES or not _COMMIT.fullmatch(inside.name):
        return
    holder = inside.parent.parent
    folder = holder.as_posix() if holder.parts else link.as_posix()
    revisions[folder] = inside.name
    roots[folder] = target.parent.parent


def _markdown_name(name: str) -> bool:
    return name.endswith(SUFFIXES) and name.split(".")[0].upper() not in META_NAMES


def knowledge_files(directory: Path) -> list[Path]:
    """Every Markdown file below `directory`, but hidden ones, a repository's own (README, LICENSE…) and links
    refused (`find_knowledge`)."""
    return list(find_knowledge(directory).files)


def knowledge_digest(directory: Path, found: Found | None = None) -> str:
    """A digest of every knowledge file's path and bytes (a file that cannot be read counts as such) and of
    the links refused (their paths only: nothing outside is read)."""
    found = found or find_knowledge(directory)
    digest = hashlib.sha256()
    for path in [*found.files, *found.sources]:
        digest.update(path.relative_to(directory).as_posix().encode())
        digest.update(b"\0")
        _hash_file(digest, path)
        digest.update(b"\0")
    for refused in found.refused:
        digest.update(refused.path.relative_to(directory).as_posix().encode())
        digest.update(b"\0refused\0")
    return digest.hexdigest()


def _hash_file(digest: hashlib._Hash, path: Path) -> None:
    """The file's bytes into `digest`, a block at a time (a large file is never held whole)."""
    try:
        with path.open("rb") as handle:
            while block := handle.read(1 << 16):
                digest.update(block)
    except OSError as exc:
        digest.update(f"\0unreadable: {exc.__class__.__name__}".encode())


# A file as last read: its size, modification time and inode (another file behind the same path, such as
# the same name in git-sync's next worktree, is read again), its source URL, and what it read as.
ReadCache = dict[Path, tuple[tuple[int, int, int, str | None], "Document | Note"]]


def load_knowledge(directory: Path, cache: ReadCache | None = None, *, strict: bool = True) -> KnowledgeBase:
    """Every knowledge file below `directory`. With `cache` (kept between calls), a file whose size and
    modification time (and inode) are unchanged is not read again.

    `strict` (the build, `eksbot index check`, a start): a knowledge-format file with an error, editions that
    disagree and a sources file that cannot be read raise KnowledgeError with the file and line. Not strict
    (while serving): each is skipped and named in `skipped` with its line, as an unreadable document is, and
    the rest is read; of two editions that disagree, the one read before (from `cache`) stays. Either way a
    directory with nothing readable raises KnowledgeError."""
    found = find_knowledge(directory)
    if not found.files and not found.refused:
        raise KnowledgeError(directory, None, "no knowledge files (*.md, *.mdx) in this directory")
    skipped: list[Skipped] = list(found.refused)
    urls = _source_urls(found, skipped=None if strict else skipped)
    documents: list[Document] = []
    kept: set[Path] = set()  # documents taken from `cache`: unchanged since they were last read
    notes: list[Note] = []
    for path in found.files:
        try:
            read, cached = _read_cached(path, directory, urls.get(path), cache)
        except UnreadableError as exc:
            skipped.append(Skipped(path, exc.reason, exc.line))
            continue
        except KnowledgeError as exc:
            if strict:
                raise
            skipped.append(Skipped(path, exc.reason, exc.line))
            continue
        if isinstance(read, Note):
            notes.append(read)
        else:
            documents.append(read)
            if cached:
                kept.add(path)
    if cache is not None:
        for gone in set(cache) - set(found.files):
            del cache[gone]  # removed since: not kept for ever
    by_id: dict[str, list[Document]] = defaultdict(list)
    for doc in documents:
        by_id[doc.doc_id].append(doc)
    if strict:
        for group in by_id.values():
            _check_editions(group)
    else:
        agreeing = {id(doc) for group in by_id.values() for doc in _agreeing(group, kept, skipped)}
        documents = [doc for doc in documents if id(doc) in agreeing]
    if not documents:
        raise KnowledgeError(directory, None, "no knowledge file could be read: " + "; ".join(map(str, skipped)))
    return KnowledgeBase(documents=tuple(documents), digest=knowledge_digest(directory, found),
                         skipped=tuple(sorted(skipped, key=lambda s: s.path)), notes=tuple(notes),
                         revisions=found.revisions)


def _read_cached(path: Path, directory: Path, source_url: str | None, cache: ReadCache | None
                 ) -> tuple[Document | Note, bool]:
    """The file as read, and whether it was taken from `cache` (read before and unchanged since)."""
    if cache is None:
        return read_document(path, directory, source_url), False
    try:
        stat = path.stat()
    except OSError as exc:  # gone since it was listed
        raise UnreadableError(path, None, f"cannot be read ({exc.strerror or exc.__class__.__name__})") from exc
    signature = (stat.st_size, stat.st_mtime_ns, stat.st_ino, source_url)
    found = cache.get(path)
    if found is not None and found[0] == signature:
        return found[1], True
    read = read_document(path, directory, source_url)
    cache[path] = (signature, read)
    return read, False


class UnreadableError(KnowledgeError):
    """A document (not in the knowledge format) that cannot be read: it is skipped, not fatal."""


def read_document(path: Path, directory: Path, source_url: str | None = None) -> Document | Note:
    """One file: in the knowledge format (errors raise KnowledgeError), a maintainers' note (front matter
    `note_for`, `question`, `lang`), or any other Markdown (errors raise UnreadableError: the file is skipped).
    A file larger than `MAX_DOCUMENT_BYTES` is not read at all (UnreadableError)."""
    raw = _read_bounded(path)
    if b"\0" in raw[:8192]:
        raise UnreadableError(path, None, "a binary file, not text")
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
    except UnicodeDecodeError as exc:
        raise UnreadableError(path, None, f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from exc
    started = time.perf_counter()
    read = _parse(text, path, directory, source_url)
    seconds = time.perf_counter() - started
    if seconds > PARSE_WARN_SECONDS:
        log.warning("%s took %.1f s to read (%d bytes): split it into smaller documents", path, seconds, len(raw))
    if isinstance(read, Document) and read.source_url is not None and not web_url(read.source_url):
        read = replace(read, source_url=source_url)  # only http(s) reaches a citation; `source_url` is checked
    return read


def _parse(text: str, path: Path, directory: Path, source_url: str | None) -> Document | Note:
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


def _read_bounded(path: Path) -> bytes:
    """The file's bytes, when it is at most `MAX_DOCUMENT_BYTES` long: its size is looked at first, and no more
    than the limit is ever read (a file still being written may have grown since)."""
    too_large = f"larger than {MAX_DOCUMENT_BYTES / 2**20:g} MiB: split it into smaller documents"
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_DOCUMENT_BYTES:
                raise UnreadableError(path, None, f"{too_large} ({size:,} bytes)")
            raw = handle.read(size + 1)  # a read allocates what it is asked for: the size, not the limit
            if len(raw) > size:  # grown since: the rest, up to the limit
                raw += handle.read(MAX_DOCUMENT_BYTES + 1 - len(raw))
    except OSError as exc:
        raise UnreadableError(path, None, f"cannot be read ({exc.strerror or exc.__class__.__name__})") from exc
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise UnreadableError(path, None, too_large)
    return raw


def web_url(url: str) -> bool:
    """Whether a citation may link to `url`: an http or https URL with a host (never `javascript:`, `data:`,
    `file:`)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    return parts.scheme.lower() in WEB_SCHEMES and bool(parts.netloc)


def _note(front: FrontMatter, relative: Path, path: Path) -> Note:
    values = front.values
    question, lang, text = values.get("question"), values.get("lang"), front.body.strip()
    if not isinstance(question, int) or isinstance(question, bool) or lang not in LANGUAGES or not text:
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
    """The URL of each file named in a `sources.yaml` of its folder (`name: url`, or `base_url` + path); a
    sources file that cannot be read raises KnowledgeError."""
    return _source_urls(find_knowledge(directory))


def _source_urls(found: Found, skipped: list[Skipped] | None = None) -> dict[Path, str]:
    """As `source_urls`; with `skipped`, a sources file that cannot be read is named there instead of raising,
    and the other files keep their URLs. A URL that is not http(s) is left out, and logged."""
    urls: dict[Path, str] = {}
    # Outer folders first, so that a folder's own sources.yaml has the last word on its files.
    for mapping in sorted(found.sources, key=lambda p: (len(p.parts), p)):
        try:
            data = _sources(mapping)
        except KnowledgeError as exc:
            if skipped is None:
                raise
            skipped.append(Skipped(mapping, exc.reason, exc.line))
            continue
        folder = mapping.parent
        base = data.get("base_url")
        if isinstance(base, str) and _kept(base, mapping, "base_url"):
            for path in found.files:
                if path.is_relative_to(folder):
                    urls[path] = base.rstrip("/") + "/" + path.relative_to(folder).with_suffix("").as_posix()
        for name, url in data.items():
            if name != "base_url" and isinstance(url, str) and _kept(url, mapping, str(name)):
                urls[folder / str(name)] = url
    return urls


def _sources(mapping: Path) -> dict[object, object]:
    """A sources file's mapping, read with YAML aliases refused."""
    try:
        raw = _read_bounded(mapping)
    except UnreadableError as exc:
        raise KnowledgeError(mapping, None, f"cannot read the sources file: {exc.reason}") from exc
    try:
        data = load_yaml(raw.decode("utf-8")) or {}
    except UnicodeDecodeError as exc:
        raise KnowledgeError(mapping, None, f"cannot read the sources file ({exc.__class__.__name__})") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or exc.__class__.__name__
        raise KnowledgeError(mapping, mark.line + 1 if mark is not None else None,
                             f"cannot read the sources file ({problem})") from exc
    if not isinstance(data, dict):
        raise KnowledgeError(mapping, 1, "a sources file maps file names to URLs")
    return data


def _kept(url: str, mapping: Path, name: str) -> bool:
    if web_url(url):
        return True
    log.warning("%s: the URL of %s is not an http(s) URL: left out", mapping, name)
    return False


def _agreeing(group: list[Document], kept: set[Path], skipped: list[Skipped]) -> list[Document]:
    """The editions of one document that agree, those read before first (a change that breaks the agreement
    is the one left out); each edition left out is named in `skipped`."""
    ordered = sorted(group, key=lambda doc: doc.path not in kept)
    accepted: list[Document] = []
    for doc in ordered:
        problem = _edition_problem(accepted, doc)
        if problem is None:
            accepted.append(doc)
        else:
            skipped.append(Skipped(doc.path, problem.reason, problem.line))
    return accepted


def _check_editions(group: list[Document]) -> None:
    """Raise KnowledgeError (file and line) at the first edition that disagrees with those before it."""
    for i, doc in enumerate(group):
        problem = _edition_problem(group[:i], doc)
        if problem is not None:
            raise problem


def _edition_problem(editions: list[Document], doc: Document) -> KnowledgeError | None:
    """Why `doc` cannot be another edition of the document `editions` are of (None when it can): a language
    it already has, another kind, other questions, answers, options or code blocks than the first edition."""
    same = next((other for other in editions if other.lang == doc.lang), None)
    if same is not None:
        return KnowledgeError(doc.path, 1, f"document {doc.doc_id!r} already has a {doc.lang!r} edition in "
                                           f"{same.path.name}")
    if not editions:
        return None
    base = editions[0]
    if doc.kind != base.kind:
        return KnowledgeError(doc.path, 1, f"kind {doc.kind!r} differs from {base.path.name} ({base.kind!r})")
    numbers = [q.number for q in base.questions]
    other_numbers = [q.number for q in doc.questions]
    if numbers != other_numbers:
        missing = sorted(set(numbers) - set(other_numbers))
        extra = sorted(set(other_numbers) - set(numbers))
        return KnowledgeError(doc.path, 1, f"questions differ from {base.path.name}: missing {missing or 'none'}, "
                                           f"extra {extra or 'none'}")
    for q, other in zip(base.questions, doc.questions, strict=True):
        if q.answer != other.answer:
            return KnowledgeError(
                doc.path, other.line, f"question {q.number} answers {other.answer!r} here but {q.answer!r} in "
                                      f"{base.path.name}",
            )
        if len(q.options) != len(other.options):
            return KnowledgeError(
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
            return KnowledgeError(
                doc.path, bad.line if bad else other.line,
                f"code blocks of question {q.number} differ from {base.path.name} (they must be identical)",
            )
    return None
