"""`eksbot knowledge import PATH…`: Markdown documents copied into the knowledge directory, and what they hold.

A file goes to the top of the knowledge directory; a folder becomes a subfolder of the same name, keeping its
structure. Only Markdown (`.md`, `.mdx`) and `sources.yaml` files are copied; hidden files and folders are
passed over, and a repository's own files (README, LICENSE…), files larger than a document may be
(`MAX_DOCUMENT_BYTES`), links that lead out of the folder imported (to a credentials file, say) or anything else
are listed as skipped, and never read. The knowledge directory is staged in a temporary folder with the files
to import, and each document is read there as the loader will read it (`bot.knowledge.loader.read_document`):
one that cannot be read is skipped with the reason and not copied, and nothing is copied that would stop the
knowledge directory from loading. A file already there with other content is a conflict, left alone unless
`--force`. No model is loaded and no index built: the report ends by saying to run `eksbot index build`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from bot.cli.common import settings_from_args
from bot.cli.progress import shown
from bot.cli.texts import printable
from bot.errors import InputError, KnowledgeError
from bot.knowledge.limits import MAX_DOCUMENT_BYTES
from bot.knowledge.loader import (
    META_NAMES,
    SOURCES_FILE,
    knowledge_files,
    load_knowledge,
    read_document,
    source_urls,
)
from bot.knowledge.model import Note
from bot.logs import Progress, Stage

Status = Literal["imported", "replaced", "unchanged", "conflict", "skipped"]
MARKDOWN = (".md", ".mdx")
NEXT_STEP = "a running server answers from them within seconds; otherwise run 'eksbot index build'"
NOT_MARKDOWN = "not Markdown (only .md, .mdx and sources.yaml files are imported)"
META_FILE = "a repository's own file (README, LICENSE…), not read as knowledge"
CONFLICT = "a different file is already there (left alone; --force replaces it)"
OUTSIDE_LINK = "a link that leaves the imported folder"
_ONE_LINE = str.maketrans("", "", "\t\n")  # a file's line of the report is one line, whatever its title holds


@dataclass(frozen=True)
class FileReport:
    """What became of one file met by an import: where it comes from, where it goes, what it holds."""

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
class ImportReport:
    """Every file an import met, and what they add up to."""

    knowledge_dir: Path
    files: tuple[FileReport, ...]

    @property
    def documents(self) -> list[FileReport]:
        return [f for f in self.files if f.document]

    @property
    def languages(self) -> dict[str, int]:
        """Sections per language, both languages always named."""
        counts: Counter[str] = Counter({"en": 0, "es": 0})
        for file in self.documents:
            counts[file.lang or ""] += file.sections
        return dict(counts)

    def count(self, status: Status) -> int:
        return sum(f.status == status for f in self.files)

    @property
    def changed(self) -> bool:
        return any(f.copied for f in self.files)

    @property
    def ok(self) -> bool:
        """A document was imported; or the documents are all there already (none left in conflict); or only
        `sources.yaml` files were to be imported, and were."""
        if any(f.copied and f.document for f in self.files):
            return True
        if self.documents:
            return not self.count("conflict")
        markdown = [f for f in self.files if f.target.suffix in MARKDOWN and f.reason != META_FILE]
        return self.changed and not markdown

    def summary(self) -> str:
        languages = ", ".join(f"{lang}: {n}" for lang, n in self.languages.items())
        documents, sections = len(self.documents), sum(f.sections for f in self.documents)
        line = (f"{documents} document{'s' * (documents != 1)}, {sections} section{'s' * (sections != 1)} "
                f"({languages}), {self.count('skipped')} skipped")
        conflicts = self.count("conflict")
        return line + (f", {conflicts} conflict{'s' * (conflicts != 1)}" if conflicts else "")

    def to_dict(self) -> dict[str, object]:
        return {
            "knowledge_dir": str(self.knowledge_dir), "files": [f.to_dict() for f in self.files],
            "documents": len(self.documents), "sections": sum(f.sections for f in self.documents),
            "languages": self.languages, "skipped": self.count("skipped"), "conflicts": self.count("conflict"),
            "changed": self.changed, "next": NEXT_STEP if self.changed else None,
        }


def register(actions: argparse._SubParsersAction) -> None:
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
    with shown() as progress:
        report = import_paths([Path(p) for p in args.paths], settings.knowledge_dir, force=args.force,
                              progress=progress)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        print(f"into {report.knowledge_dir}:")
        for file in report.files:
            print(describe(file))
        print(report.summary())
        print(NEXT_STEP if report.changed else "nothing changed")
    return 0 if report.ok else 1


def describe(file: FileReport) -> str:
    """One line: what became of a file, and what it holds or why it was left out."""
    if file.status == "skipped":
        return f"skipped {file.source}: {file.reason}"
    target = file.target.as_posix()
    if file.status == "conflict":
        return f"conflict {target} (from {file.source}): {file.reason}"
    if file.kind == "sources":
        return f"{file.status} {target}: the URLs of its folder's documents"
    unit = "question" if file.kind == "quiz" else "section"
    holds = f'"{file.title}" ({file.kind}, {file.lang}, {file.sections} {unit}{"s" * (file.sections != 1)})'
    line = f"{file.status} {target}: {holds}" + (f" <{file.url}>" if file.url else "")
    return printable(line).translate(_ONE_LINE)


def import_paths(paths: Sequence[Path], knowledge_dir: Path, *, force: bool = False,
                 progress: Progress | None = None) -> ImportReport:
    """Copy what can be imported of `paths` into `knowledge_dir` and report on every file met; `progress` is
    told the files already there copied aside, the files met read, and the whole knowledge checked."""
    if knowledge_dir.exists() and not knowledge_dir.is_dir():
        raise InputError(f"{knowledge_dir}: the knowledge directory is not a directory")
    candidates = list(_candidates(paths, knowledge_dir))  # the files met, each with why it is left out, if it is
    with tempfile.TemporaryDirectory(prefix="eksbot-import-") as tmp:
        stage = Path(tmp)  # the knowledge directory as it would be, to read the documents as they will be read
        existing = _existing(knowledge_dir)
        staging = Stage(progress, "staging", len(existing), "files")
        for path in existing:
            _copy(path, stage / path.relative_to(knowledge_dir))
            staging.advance()
        files: list[FileReport] = []
        taken: set[Path] = set()
        for source, target, refused in candidates:
            if refused is not None:
                files.append(FileReport(source, target, "skipped", reason=refused))
                continue
            if target in taken:
                files.append(FileReport(source, target, "conflict", reason="another file of this import goes there"))
                continue
            files.append(_place(source, target, knowledge_dir, stage, force))
            taken.add(target)
        files = _read(files, knowledge_dir, stage, progress)
        checking = Stage(progress, "checking", 1, "knowledge directories")
        files = _check_loads(files, knowledge_dir, stage)
        checking.advance()
    for file in files:
        if file.copied:
            _copy(file.source, knowledge_dir / file.target)
    return ImportReport(knowledge_dir, tuple(files))


def _candidates(paths: Sequence[Path], knowledge_dir: Path) -> Iterator[tuple[Path, Path, str | None]]:
    """(file, its place in the knowledge directory, why it is refused or None) for every file of `paths`, hidden
    ones aside. A path named on the command line is taken wherever it leads: the person chose it. Inside a
    folder, a link (to a file or a folder) whose target is outside that folder is refused, named and never
    read: whoever wrote the folder chose where it leads, and it could be a secret of the person importing."""
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
            yield path, Path(resolved.name), None
            continue
        # rglob does not descend into linked folders: a file is met through a link only when the link is its own
        for file in sorted(path.rglob("*")):
            relative = file.relative_to(path)
            if any(part.startswith(".") for part in relative.parts):
                continue
            if file.is_symlink() and (leaves := _link_problem(file, resolved)):
                yield file, Path(resolved.name) / relative, leaves
            elif file.is_file():
                yield file, Path(resolved.name) / relative, None


def _link_problem(link: Path, folder: Path) -> str | None:
    """Why a link inside `folder` (resolved) is refused, or None when it leads to a place inside it."""
    try:
        target = link.resolve()
    except (OSError, RuntimeError):  # a loop of links: RuntimeError before Python 3.13
        return "a link that cannot be followed (it loops)"
    return None if target.is_relative_to(folder) else OUTSIDE_LINK


def _existing(knowledge_dir: Path) -> list[Path]:
    if not knowledge_dir.is_dir():
        return []
    return [*knowledge_files(knowledge_dir), *sorted(knowledge_dir.rglob(SOURCES_FILE))]


def _place(source: Path, target: Path, knowledge_dir: Path, stage: Path, force: bool) -> FileReport:
    """Which kind of file it is and whether it can go in; a file that can is put in the staged directory.
    A Markdown file's kind is "doc" until it is read."""
    kind: Literal["quiz", "doc", "note", "sources"]
    if source.name == SOURCES_FILE:
        kind = "sources"
        problem = _sources_problem(source)
        if problem:
            return FileReport(source, target, "skipped", reason=problem)
    elif source.suffix in MARKDOWN:
        if source.stem.split(".")[0].upper() in META_NAMES:
            return FileReport(source, target, "skipped", reason=META_FILE)
        kind = "doc"
    else:
        return FileReport(source, target, "skipped", reason=NOT_MARKDOWN)
    existing = knowledge_dir / target
    try:
        size = source.stat().st_size
        if size > MAX_DOCUMENT_BYTES:  # never opened, let alone staged: the loader would not read it either
            return FileReport(source, target, "skipped", reason=f"larger than {MAX_DOCUMENT_BYTES / 2**20:g} MiB: "
                                                                f"split it into smaller documents ({size:,} bytes)")
        if existing.is_file():
            if existing.read_bytes() == source.read_bytes():
                return FileReport(source, target, "unchanged", kind)
            if not force:
                return FileReport(source, target, "conflict", reason=CONFLICT)
        _copy(source, stage / target)
    except OSError as exc:
        reason = f"cannot be read ({exc.strerror or exc.__class__.__name__})"
        return FileReport(source, target, "skipped", reason=reason)
    return FileReport(source, target, "replaced" if existing.is_file() else "imported", kind)


def _sources_problem(path: Path) -> str | None:
    """Why a sources.yaml would stop the knowledge from loading, or None."""
    with tempfile.TemporaryDirectory(prefix="eksbot-sources-") as tmp:
        _copy(path, Path(tmp) / SOURCES_FILE)
        try:
            source_urls(Path(tmp))
        except KnowledgeError as exc:
            return _reason(exc)
    return None


def _read(files: list[FileReport], knowledge_dir: Path, stage: Path,
          progress: Progress | None = None) -> list[FileReport]:
    """Every Markdown file read as the loader will read it in the knowledge directory; one that cannot be read
    is skipped, and the staged directory is put back as it was."""
    try:
        urls = source_urls(stage)
    except KnowledgeError:
        urls = {}
    out: list[FileReport] = []
    reading = Stage(progress, "reading", len(files), "files")
    for file in files:
        reading.advance()
        if file.kind != "doc":
            out.append(file)
            continue
        staged = stage / file.target
        try:
            doc = read_document(staged, stage, urls.get(staged))
        except KnowledgeError as exc:
            _unstage(file.target, knowledge_dir, stage)
            out.append(replace(file, status="skipped", kind=None, reason=_reason(exc)))
            continue
        if isinstance(doc, Note):
            out.append(replace(file, kind="note", doc_id=doc.doc_id, title=f"note on {doc.doc_id} #{doc.question}",
                               lang=doc.lang, sections=0))
            continue
        out.append(replace(file, kind=doc.kind, doc_id=doc.doc_id, title=doc.title, lang=doc.lang,
                           sections=len(doc.questions), url=doc.source_url))
    return out


def _check_loads(files: list[FileReport], knowledge_dir: Path, stage: Path) -> list[FileReport]:
    """The whole knowledge directory, with the documents imported, must still load (the editions of a
    document agree, no document id is taken twice): an imported document that stops it is skipped with the
    reason. An error in a file already there stops the import, which copies nothing."""
    while any(f.copied and f.document for f in files):
        try:
            load_knowledge(stage)
            break
        except KnowledgeError as exc:
            relative = exc.path.relative_to(stage) if exc.path.is_relative_to(stage) else exc.path
            blamed = [i for i, f in enumerate(files) if f.copied and stage / f.target == exc.path]
            reason = _reason(exc)
            if not blamed:  # a file already there, about a document imported now (another edition of it)
                doc_id = _doc_id(exc.path, stage)
                blamed = [i for i, f in enumerate(files) if f.copied and doc_id and f.doc_id == doc_id]
                reason = f"the knowledge would not load with it ({relative.as_posix()}: {reason})"
            if not blamed:
                raise KnowledgeError(knowledge_dir / relative, exc.line, exc.reason) from exc
            for i in blamed:
                _unstage(files[i].target, knowledge_dir, stage)
                files[i] = replace(files[i], status="skipped", kind=None, reason=reason)
    return files


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
