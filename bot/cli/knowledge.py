"""`eksbot knowledge import PATH…`: copy Markdown documents into the knowledge directory and say what they hold.

A file goes to the top of the knowledge directory; a folder becomes a subfolder of the same name, keeping its
structure. Only Markdown (`.md`, `.mdx`) and `sources.yaml` files are copied; hidden files and folders are
passed over, and a repository's own files (README, LICENSE…) or anything else are listed as skipped. Each
document is read as the loader will read it there (`bot.knowledge.loader.read_document`): one that cannot be
read is skipped with the reason and not copied, and nothing is copied that would stop the knowledge directory
from loading. A file already there with other content is a conflict, left alone unless `--force`.

No model is loaded and no index built: the report ends by saying to run `eksbot index build`.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from bot.cli.common import settings_from_args
from bot.errors import InputError, KnowledgeError
from bot.knowledge.loader import (
    META_NAMES,
    SOURCES_FILE,
    knowledge_files,
    load_knowledge,
    read_document,
    source_urls,
)
from bot.knowledge.model import Note

Status = Literal["imported", "replaced", "unchanged", "conflict", "skipped"]
MARKDOWN = (".md", ".mdx")
NEXT_STEP = "a running server answers from them within seconds; otherwise run 'eksbot index build'"
NOT_MARKDOWN = "not Markdown (only .md, .mdx and sources.yaml files are imported)"
META_FILE = "a repository's own file (README, LICENSE…), not read as knowledge"
CONFLICT = "a different file is already there (left alone; --force replaces it)"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # a document's title cannot send escapes to the terminal


@dataclass(frozen=True)
class Entry:
    """One file met by an import: where it comes from, where it goes, and what became of it."""

    source: Path
    target: Path  # relative to the knowledge directory
    status: Status
    kind: Literal["quiz", "doc", "note", "sources"] | None = None  # None: not read (skipped, a conflict)
    doc_id: str | None = None
    title: str | None = None
    lang: str | None = None
    sections: int = 0  # a quiz's questions, a document's sections
    url: str | None = None
    reason: str | None = None

    @property
    def document(self) -> bool:
        """A document that is in the knowledge directory after the import (copied now or before)."""
        return self.kind in ("quiz", "doc") and self.status in ("imported", "replaced", "unchanged")

    @property
    def copied(self) -> bool:
        return self.status in ("imported", "replaced")

    def to_dict(self) -> dict[str, object]:
        return {
            "source": str(self.source), "target": self.target.as_posix(), "status": self.status,
            "kind": self.kind, "doc": self.doc_id, "title": self.title, "lang": self.lang,
            "sections": self.sections if self.document else None, "url": self.url, "reason": self.reason,
        }


@dataclass(frozen=True)
class Report:
    knowledge_dir: Path
    entries: tuple[Entry, ...]

    @property
    def documents(self) -> list[Entry]:
        return [e for e in self.entries if e.document]

    @property
    def languages(self) -> dict[str, int]:
        """Sections per language, both languages always named."""
        counts: Counter[str] = Counter({"en": 0, "es": 0})
        for entry in self.documents:
            counts[entry.lang or ""] += entry.sections
        return dict(counts)

    def count(self, status: Status) -> int:
        return sum(e.status == status for e in self.entries)

    @property
    def changed(self) -> bool:
        return any(e.copied for e in self.entries)

    @property
    def ok(self) -> bool:
        """A document was imported; or the documents are all there already (none left in conflict); or only
        `sources.yaml` files were to be imported, and were."""
        if any(e.copied and e.document for e in self.entries):
            return True
        if self.documents:
            return not self.count("conflict")
        markdown = [e for e in self.entries if e.target.suffix in MARKDOWN and e.reason != META_FILE]
        return self.changed and not markdown

    def summary(self) -> str:
        languages = ", ".join(f"{lang}: {n}" for lang, n in self.languages.items())
        documents, sections = len(self.documents), sum(e.sections for e in self.documents)
        line = (f"{documents} document{'s' * (documents != 1)}, {sections} section{'s' * (sections != 1)} "
                f"({languages}), {self.count('skipped')} skipped")
        conflicts = self.count("conflict")
        return line + (f", {conflicts} conflict{'s' * (conflicts != 1)}" if conflicts else "")

    def to_dict(self) -> dict[str, object]:
        return {
            "knowledge_dir": str(self.knowledge_dir), "files": [e.to_dict() for e in self.entries],
            "documents": len(self.documents), "sections": sum(e.sections for e in self.documents),
            "languages": self.languages, "skipped": self.count("skipped"), "conflicts": self.count("conflict"),
            "changed": self.changed, "next": NEXT_STEP if self.changed else None,
        }


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("knowledge", help="add documents to the knowledge directory")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION", help="import")
    imp = actions.add_parser(
        "import", help="copy Markdown files or folders into the knowledge directory and say what they hold "
                       "(no model is loaded)")
    imp.add_argument("paths", nargs="+", metavar="PATH",
                     help="a Markdown file (.md, .mdx) or a folder of them (copied as a subfolder of its name)")
    imp.add_argument("--force", action="store_true", help="replace a file already there with other content")
    imp.add_argument("--json", action="store_true", help="print one JSON object")
    imp.set_defaults(func=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    report = import_paths([Path(p) for p in args.paths], settings.knowledge_dir, force=args.force)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        print(f"into {report.knowledge_dir}:")
        for entry in report.entries:
            print(describe(entry))
        print(report.summary())
        print(NEXT_STEP if report.changed else "nothing changed")
    return 0 if report.ok else 1


def describe(entry: Entry) -> str:
    """One line: what became of a file, and what it holds or why it was left out."""
    if entry.status == "skipped":
        return f"skipped {entry.source}: {entry.reason}"
    target = entry.target.as_posix()
    if entry.status == "conflict":
        return f"conflict {target} (from {entry.source}): {entry.reason}"
    if entry.kind == "sources":
        return f"{entry.status} {target}: the URLs of its folder's documents"
    unit = "question" if entry.kind == "quiz" else "section"
    holds = f'"{entry.title}" ({entry.kind}, {entry.lang}, {entry.sections} {unit}{"s" * (entry.sections != 1)})'
    line = f"{entry.status} {target}: {holds}" + (f" <{entry.url}>" if entry.url else "")
    return _CONTROL.sub("", line)


# -- the import ------------------------------------------------------------------------------------------

def import_paths(paths: Sequence[Path], knowledge_dir: Path, *, force: bool = False) -> Report:
    """Copy what can be imported of `paths` into `knowledge_dir` and report on every file met."""
    if knowledge_dir.exists() and not knowledge_dir.is_dir():
        raise InputError(f"{knowledge_dir}: the knowledge directory is not a directory")
    candidates = list(_candidates(paths, knowledge_dir))
    with tempfile.TemporaryDirectory(prefix="eksbot-import-") as tmp:
        stage = Path(tmp)  # the knowledge directory as it would be, to read the documents as they will be read
        for path in _existing(knowledge_dir):
            _copy(path, stage / path.relative_to(knowledge_dir))
        entries: list[Entry] = []
        taken: set[Path] = set()
        for source, target in candidates:
            if target in taken:
                entries.append(Entry(source, target, "conflict", reason="another file of this import goes there"))
                continue
            entries.append(_place(source, target, knowledge_dir, stage, force))
            taken.add(target)
        entries = _read(entries, knowledge_dir, stage)
        entries = _check_loads(entries, knowledge_dir, stage)
    for entry in entries:
        if entry.copied:
            _copy(entry.source, knowledge_dir / entry.target)
    return Report(knowledge_dir, tuple(entries))


def _candidates(paths: Sequence[Path], knowledge_dir: Path) -> Iterator[tuple[Path, Path]]:
    """(file, its place in the knowledge directory) for every file of `paths`, hidden ones aside."""
    home = knowledge_dir.resolve()
    for path in paths:
        if not path.exists():
            raise InputError(f"{path}: no such file or folder")
        resolved = path.resolve()
        if resolved == home or home in resolved.parents:
            raise InputError(f"{path}: already in the knowledge directory {knowledge_dir}")
        if resolved in home.parents:
            raise InputError(f"{path}: holds the knowledge directory {knowledge_dir}; import its documents' "
                             "folder instead")
        if path.is_file():
            yield path, Path(resolved.name)
            continue
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            relative = file.relative_to(path)
            if not any(part.startswith(".") for part in relative.parts):
                yield file, Path(resolved.name) / relative


def _existing(knowledge_dir: Path) -> list[Path]:
    if not knowledge_dir.is_dir():
        return []
    return [*knowledge_files(knowledge_dir), *sorted(knowledge_dir.rglob(SOURCES_FILE))]


def _place(source: Path, target: Path, knowledge_dir: Path, stage: Path, force: bool) -> Entry:
    """Which kind of file it is and whether it can go in; a file that can is put in the staged directory.
    A Markdown file's kind is "doc" until it is read."""
    kind: Literal["quiz", "doc", "note", "sources"]
    if source.name == SOURCES_FILE:
        kind = "sources"
        problem = _sources_problem(source)
        if problem:
            return Entry(source, target, "skipped", reason=problem)
    elif source.suffix in MARKDOWN:
        if source.stem.split(".")[0].upper() in META_NAMES:
            return Entry(source, target, "skipped", reason=META_FILE)
        kind = "doc"
    else:
        return Entry(source, target, "skipped", reason=NOT_MARKDOWN)
    existing = knowledge_dir / target
    try:
        if existing.is_file():
            if existing.read_bytes() == source.read_bytes():
                return Entry(source, target, "unchanged", kind)
            if not force:
                return Entry(source, target, "conflict", reason=CONFLICT)
        _copy(source, stage / target)
    except OSError as exc:
        return Entry(source, target, "skipped", reason=f"cannot be read ({exc.strerror or exc.__class__.__name__})")
    return Entry(source, target, "replaced" if existing.is_file() else "imported", kind)


def _sources_problem(path: Path) -> str | None:
    """Why a sources.yaml would stop the knowledge from loading, or None."""
    with tempfile.TemporaryDirectory(prefix="eksbot-sources-") as tmp:
        _copy(path, Path(tmp) / SOURCES_FILE)
        try:
            source_urls(Path(tmp))
        except KnowledgeError as exc:
            return _reason(exc)
    return None


def _read(entries: list[Entry], knowledge_dir: Path, stage: Path) -> list[Entry]:
    """Every Markdown file read as the loader will read it in the knowledge directory; one that cannot be read
    is skipped, and the staged directory is put back as it was."""
    try:
        urls = source_urls(stage)
    except KnowledgeError:
        urls = {}
    out: list[Entry] = []
    for entry in entries:
        if entry.kind != "doc":
            out.append(entry)
            continue
        staged = stage / entry.target
        try:
            doc = read_document(staged, stage, urls.get(staged))
        except KnowledgeError as exc:
            _unstage(entry.target, knowledge_dir, stage)
            out.append(replace(entry, status="skipped", kind=None, reason=_reason(exc)))
            continue
        if isinstance(doc, Note):
            out.append(replace(entry, kind="note", doc_id=doc.doc_id, title=f"note on {doc.doc_id} #{doc.question}",
                               lang=doc.lang, sections=0))
            continue
        out.append(replace(entry, kind=doc.kind, doc_id=doc.doc_id, title=doc.title, lang=doc.lang,
                           sections=len(doc.questions), url=doc.source_url))
    return out


def _check_loads(entries: list[Entry], knowledge_dir: Path, stage: Path) -> list[Entry]:
    """The whole knowledge directory, with the documents imported, must still load (the editions of a
    document agree, no document id is taken twice): an imported document that stops it is skipped with the
    reason. An error in a file already there stops the import, which copies nothing."""
    while any(e.copied and e.document for e in entries):
        try:
            load_knowledge(stage)
            break
        except KnowledgeError as exc:
            relative = exc.path.relative_to(stage) if exc.path.is_relative_to(stage) else exc.path
            blamed = [i for i, e in enumerate(entries) if e.copied and stage / e.target == exc.path]
            reason = _reason(exc)
            if not blamed:  # a file already there, about a document imported now (another edition of it)
                doc_id = _doc_id(exc.path, stage)
                blamed = [i for i, e in enumerate(entries) if e.copied and doc_id and e.doc_id == doc_id]
                reason = f"the knowledge would not load with it ({relative.as_posix()}: {reason})"
            if not blamed:
                raise KnowledgeError(knowledge_dir / relative, exc.line, exc.reason) from exc
            for i in blamed:
                _unstage(entries[i].target, knowledge_dir, stage)
                entries[i] = replace(entries[i], status="skipped", kind=None, reason=reason)
    return entries


def _doc_id(path: Path, stage: Path) -> str | None:
    try:
        return read_document(path, stage).doc_id
    except (KnowledgeError, ValueError):  # not a document (the directory itself), or one that cannot be read
        return None


def _unstage(target: Path, knowledge_dir: Path, stage: Path) -> None:
    """The staged file back to what the knowledge directory holds there (or nothing)."""
    existing = knowledge_dir / target
    if existing.is_file():
        _copy(existing, stage / target)
    else:
        (stage / target).unlink(missing_ok=True)


def _reason(exc: KnowledgeError) -> str:
    return f"line {exc.line}: {exc.reason}" if exc.line else exc.reason


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
