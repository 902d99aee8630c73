"""`eksbot knowledge`: documents copied into the knowledge directory, and entries and notes kept in the database.

`import PATH…` copies Markdown documents into the knowledge directory and says what they hold. A file goes to
the top of the knowledge directory; a folder becomes a subfolder of the same name, keeping its structure. Only
Markdown (`.md`, `.mdx`) and `sources.yaml` files are copied; hidden files and folders are passed over, and a
repository's own files (README, LICENSE…), files larger than a document may be (`MAX_DOCUMENT_BYTES`), links
that lead out of the folder imported (to a credentials file, say) or anything else are listed as skipped, and
never read. Each document is read as the loader will read it there (`bot.knowledge.loader.read_document`): one
that cannot be read is skipped with the reason and not copied, and nothing is copied that would stop the
knowledge directory from loading. A file already there with other content is a conflict, left alone unless
`--force`. No model is loaded and no index built: the report ends by saying to run `eksbot index build`.

`list`, `add`, `edit`, `delete`, `restore`, `history`, `note`, `notes`, `delete-note` and `export` change or
show the entries and notes of the database (`bot.curation.Curation`), which every running replica answers
from within seconds: nothing is rebuilt here. An entry is written as a Markdown file (`read_entry_file`). A
change the core refuses (too long, a stale version, an unknown id, a note for a question there is not) is
one line on stderr and exit code 1, and nothing is written.
"""

from __future__ import annotations

import argparse
import functools
import getpass
import json
import re
import shutil
import sys
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Literal

import yaml

from bot.cli.common import settings_from_args
from bot.cli.texts import printable
from bot.config import Settings
from bot.curation.service import Curation, EntryDraft
from bot.errors import InputError, KnowledgeEditError, KnowledgeError, StaleEditError, UnknownEntryError
from bot.knowledge import KnowledgeBase
from bot.knowledge.entries import ENTRIES_FOLDER, LETTERS, with_entries
from bot.knowledge.limits import MAX_DOCUMENT_BYTES
from bot.knowledge.loader import (
    META_NAMES,
    SOURCES_FILE,
    knowledge_files,
    load_knowledge,
    read_document,
    source_urls,
)
from bot.knowledge.markdown import read_front_matter
from bot.knowledge.model import Note
from bot.lang import LANGUAGES
from bot.storage import EntryFields, EntryRecord, EntryVersion, NoteRecord, Stores, open_database
from bot.text.language import detect_language

Status = Literal["imported", "replaced", "unchanged", "conflict", "skipped"]
MARKDOWN = (".md", ".mdx")
NEXT_STEP = "a running server answers from them within seconds; otherwise run 'eksbot index build'"
NOT_MARKDOWN = "not Markdown (only .md, .mdx and sources.yaml files are imported)"
META_FILE = "a repository's own file (README, LICENSE…), not read as knowledge"
CONFLICT = "a different file is already there (left alone; --force replaces it)"
OUTSIDE_LINK = "a link that leaves the imported folder"
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
    parser = sub.add_parser("knowledge", help="add documents to the knowledge directory; add, edit and delete "
                                              "entries and notes in the database")
    actions = parser.add_subparsers(
        dest="action", required=True, metavar="ACTION",
        help="import (files); list, add, edit, delete, restore, history, note, notes, delete-note, export "
             "(entries and notes in the database)")
    imp = actions.add_parser(
        "import", help="copy Markdown files or folders into the knowledge directory and say what they hold "
                       "(no model is loaded)")
    imp.add_argument("paths", nargs="+", metavar="PATH",
                     help="a Markdown file (.md, .mdx) or a folder of them (copied as a subfolder of its name)")
    imp.add_argument("--force", action="store_true", help="replace a file already there with other content")
    imp.add_argument("--json", action="store_true", help="print one JSON object")
    imp.set_defaults(func=cmd_import)
    register_entries(actions)


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
    candidates = list(_candidates(paths, knowledge_dir))  # the files met, each with why it is left out, if it is
    with tempfile.TemporaryDirectory(prefix="eksbot-import-") as tmp:
        stage = Path(tmp)  # the knowledge directory as it would be, to read the documents as they will be read
        for path in _existing(knowledge_dir):
            _copy(path, stage / path.relative_to(knowledge_dir))
        entries: list[Entry] = []
        taken: set[Path] = set()
        for source, target, refused in candidates:
            if refused is not None:
                entries.append(Entry(source, target, "skipped", reason=refused))
                continue
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
        size = source.stat().st_size
        if size > MAX_DOCUMENT_BYTES:  # never opened, let alone staged: the loader would not read it either
            return Entry(source, target, "skipped", reason=f"larger than {MAX_DOCUMENT_BYTES / 2**20:g} MiB: split "
                                                           f"it into smaller documents ({size:,} bytes)")
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


# -- entries and notes in the database -------------------------------------------------------------------

LIVE = "a running server answers from it within seconds"
ENTRY_KEYS = ("title", "lang", "topic", "options", "answer")
_TITLE_HEADING = re.compile(r"#[ \t]++(.*)")  # `# Title`, not `## Section`; the closing `#`s are cut in code
# How the HTTP API records a change made with an API token (`bot.api.deps.token_label`: "token:9f86d081"). A
# name given on the command line never reads so: it would pass for a change made with that token.
_TOKEN_LABEL = re.compile(r"token\s*+:", re.IGNORECASE)
_FENCE_LINE = re.compile(r"^\s*(```+|~~~+)")
_LETTERED = re.compile(r"^([A-D])\)\s+")  # an option written as `A) text`
Command = Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class EntryFile:
    """What an entry's Markdown file says (None: it does not say)."""

    title: str
    body: str
    lang: str | None = None
    topic: str | None = None
    options: tuple[str, ...] = ()
    answer: str | None = None


def register_entries(actions: argparse._SubParsersAction) -> None:
    who = argparse.ArgumentParser(add_help=False)
    who.add_argument("--by", help="who makes the change, as the history keeps it (default: your login name)")

    ls = actions.add_parser("list", help="the entries in the database: id, kind, version, language, title, who "
                                         "changed them last and when")
    ls.add_argument("--deleted", action="store_true", help="the deleted entries too")
    ls.add_argument("--json", action="store_true", help="one JSON object per line")
    ls.set_defaults(func=_refusals(cmd_list))

    add = actions.add_parser("add", parents=[who], help="add an entry (or a quiz question) from a Markdown file")
    add.add_argument("file", metavar="FILE", help="Markdown; its front matter may give title, lang, topic, and for "
                                                  "a quiz question options (4) and answer (a letter); without a "
                                                  "title, its first '# heading' is the title")
    add.add_argument("--lang", choices=LANGUAGES,
                     help="its language (default: the front matter's, else the language it is written in)")
    add.add_argument("--topic", help="its topic (default: the front matter's)")
    add.set_defaults(func=_refusals(cmd_add))

    edit = actions.add_parser("edit", parents=[who], help="replace an entry's text with a Markdown file")
    edit.add_argument("id", metavar="ID", help="the entry's id (eksbot knowledge list)")
    edit.add_argument("file", metavar="FILE", help="Markdown, as for add")
    edit.add_argument("--version", type=int, help="the version the file was written from: refused if someone "
                                                   "changed the entry since (default: its current version)")
    edit.add_argument("--lang", choices=LANGUAGES, help="its language (default: the front matter's, else as it is)")
    edit.add_argument("--topic", help="its topic (default: the front matter's, else as it is; '' for none)")
    edit.set_defaults(func=_refusals(cmd_edit))

    for name, command, what in (("delete", cmd_delete, "delete an entry (restore undoes it)"),
                                ("restore", cmd_restore, "bring back a deleted entry")):
        action = actions.add_parser(name, parents=[who], help=what)
        action.add_argument("id", metavar="ID", help="the entry's id")
        action.set_defaults(func=_refusals(command))

    history = actions.add_parser("history", help="every version of an entry: who changed what, and when")
    history.add_argument("id", metavar="ID", help="the entry's id")
    history.add_argument("--show", type=int, metavar="N",
                         help="print version N as a file that edit takes (to undo an edit)")
    history.set_defaults(func=_refusals(cmd_history))

    note = actions.add_parser("note", parents=[who], help="attach a maintainers' note to a quiz question (or a "
                                                          "document's section), shown with answers citing it")
    note.add_argument("question", metavar="QUESTION", type=int, help="the question's (or section's) number")
    note.add_argument("text", metavar="TEXT", nargs="+", help="the note (quotes optional)")
    note.add_argument("--lang", choices=LANGUAGES, help="its language (default: EKSBOT_DEFAULT_LANG, else the "
                                                        "locale's)")
    note.add_argument("--doc", help="the document's id (default: the quiz)")
    note.set_defaults(func=_refusals(cmd_note))

    notes = actions.add_parser("notes", help="the maintainers' notes in the database")
    notes.add_argument("--json", action="store_true", help="one JSON object per line")
    notes.set_defaults(func=_refusals(cmd_notes))

    delete_note = actions.add_parser("delete-note", parents=[who], help="delete a maintainers' note")
    delete_note.add_argument("id", metavar="ID", help="the note's id (eksbot knowledge notes)")
    delete_note.set_defaults(func=_refusals(cmd_delete_note))

    export = actions.add_parser("export", help="write the entries and notes as knowledge files under DIR/entries")
    export.add_argument("dir", metavar="DIR", help="where to write (not the knowledge directory)")
    export.set_defaults(func=_refusals(cmd_export))


def _refusals(command: Command) -> Command:
    """A change refused as asked (bad input, a stale version, an unknown id) is one line and exit code 1."""
    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except _BadArgument:
            raise  # bad input: `eksbot` says so in one line, with exit code 2
        except (InputError, KnowledgeEditError) as exc:
            print(f"eksbot: {exc}", file=sys.stderr)
            return 1
    return run


@contextmanager
def _curation(args: argparse.Namespace) -> Iterator[tuple[Settings, Curation]]:
    """The settings and the curation of the database they name. The knowledge (what a note may be attached to:
    the files with the entries) is read only when asked, once."""
    settings = settings_from_args(args)
    database = open_database(settings)
    try:
        @functools.cache
        def knowledge() -> KnowledgeBase:
            _, entries, notes = curation.snapshot()
            return with_entries(load_knowledge(settings.knowledge_dir), entries, notes)

        curation = Curation(Stores(database).entries, knowledge)
        yield settings, curation
    finally:
        database.close()


class _BadArgument(InputError):
    """An argument refused as it is given, before anything is opened: exit code 2, like any bad input."""


def _by(args: argparse.Namespace) -> str:
    if args.by is not None:
        if not args.by.strip():
            raise InputError("--by is empty: say who makes the change")
        if _TOKEN_LABEL.match(unicodedata.normalize("NFKC", printable(args.by)).strip()):
            raise _BadArgument("--by cannot name an API token (token:…): that is how the HTTP API records the "
                               "changes made with one; say who you are")
        return str(args.by).strip()
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        raise InputError("your login name cannot be read: say who makes the change with --by") from None


def _entry(curation: Curation, entry_id: str) -> EntryRecord:
    record = curation.get(entry_id)
    if record is None:
        raise UnknownEntryError(f"no knowledge entry {entry_id!r}")
    return record


def cmd_list(args: argparse.Namespace) -> int:
    with _curation(args) as (_, curation):
        records = curation.listing(deleted=args.deleted)
    if args.json:
        for record in records:
            print(json.dumps(entry_dict(record), ensure_ascii=False))
        return 0
    if not records:
        print("no entries" if args.deleted else "no entries (--deleted lists the deleted ones too)")
        return 0
    header = ["ID", "KIND", "VERSION", "LANG", "UPDATED", *(["DELETED"] if args.deleted else []), "TITLE"]
    rows = [[r.id, r.fields.kind, str(r.version), r.fields.lang, f"{r.updated_by} {_when(r.updated_at)}",
             *([f"{r.deleted_by} {_when(r.deleted_at)}" if r.deleted else ""] if args.deleted else []),
             r.fields.title] for r in records]
    for line in _columns([header, *rows]):
        print(printable(line))
    deleted = sum(r.deleted for r in records)
    print(_count(len(records), "entry", "entries") + (f", {deleted} deleted" if args.deleted else ""))
    return 0


def entry_dict(record: EntryRecord) -> dict[str, object]:
    fields = record.fields
    return {
        "id": record.id, "doc": f"{ENTRIES_FOLDER}/{record.id}", "kind": fields.kind, "version": record.version,
        "lang": fields.lang, "title": fields.title, "topic": fields.topic, "credit": record.credit,
        "created_by": record.created_by, "created_at": record.created_at.isoformat(),
        "updated_by": record.updated_by, "updated_at": record.updated_at.isoformat(), "deleted": record.deleted,
        "deleted_by": record.deleted_by, "deleted_at": record.deleted_at.isoformat() if record.deleted_at else None,
    }


def cmd_add(args: argparse.Namespace) -> int:
    path = Path(args.file)
    written = read_entry_file(path)
    by = _by(args)
    lang = args.lang or written.lang or detect_language(f"{written.title}\n{written.body}")
    topic = args.topic if args.topic is not None else written.topic
    draft = EntryDraft(title=written.title, body=written.body, lang=lang, topic=topic, options=written.options,
                       answer=written.answer)
    with _curation(args) as (_, curation):
        try:
            record, _ = curation.add(draft, by=by)
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from exc
    print(f"added entry {record.id}: {describe_entry(record)}")
    print(LIVE)
    return 0


def cmd_edit(args: argparse.Namespace) -> int:
    path = Path(args.file)
    written = read_entry_file(path)
    by = _by(args)
    if args.version is not None and args.version < 1:
        raise InputError("--version must be at least 1")
    with _curation(args) as (_, curation):
        current = _entry(curation, args.id)
        before = current.fields
        topic = args.topic if args.topic is not None else written.topic if written.topic is not None else before.topic
        draft = EntryDraft(title=written.title, body=written.body, lang=args.lang or written.lang or before.lang,
                           topic=topic, options=written.options, answer=written.answer)
        if bool(draft.options) != bool(before.options):
            raise InputError(f"{path}: entry {current.id} is a quiz question, and the file gives no options and "
                             "answer" if before.options else
                             f"{path}: entry {current.id} is a text, and the file gives options: add a quiz "
                             "question as a new entry")
        version = current.version if args.version is None else args.version
        if version == current.version and draft.fields() == before:
            print(f"entry {current.id} unchanged: the file says what version {current.version} says")
            return 0
        try:
            record = curation.edit(current.id, draft, version=version, by=by)
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from exc
        except StaleEditError as exc:
            raise StaleEditError(f"{exc} ('eksbot knowledge history {current.id}' shows what changed)",
                                 exc.current) from exc
    print(f"edited entry {record.id}: {describe_entry(record)}")
    print(LIVE if not record.deleted else f"it is deleted: 'eksbot knowledge restore {record.id}' brings it back")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    by = _by(args)
    with _curation(args) as (_, curation):
        current = _entry(curation, args.id)
        if current.deleted:
            print(f"entry {current.id} is already deleted ({current.deleted_by} {_when(current.deleted_at)})")
            return 0
        record = curation.delete(current.id, by=by)
    print(f"deleted entry {record.id}: {describe_entry(record)}")
    print(f"a running server stops answering from it within seconds; 'eksbot knowledge restore {record.id}' "
          "undoes it")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    by = _by(args)
    with _curation(args) as (_, curation):
        current = _entry(curation, args.id)
        if not current.deleted:
            print(f"entry {current.id} is not deleted: nothing to restore")
            return 0
        record = curation.restore(current.id, by=by)
    print(f"restored entry {record.id}: {describe_entry(record)}")
    print(LIVE)
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    with _curation(args) as (_, curation):
        versions = curation.history(args.id)
        current = _entry(curation, args.id)
    if args.show is not None:
        chosen = next((v for v in versions if v.version == args.show), None)
        if chosen is None:
            raise InputError(f"entry {current.id} has no version {args.show} (it has 1 to {current.version})")
        print(printable(entry_file_text(chosen.fields)), end="")
        return 0
    print(printable(f"entry {current.id}: {describe_entry(current)}"))
    rows: list[list[str]] = []
    previous: EntryFields | None = None
    for version in versions:
        rows.append([f"v{version.version}", version.action, version.changed_by, _when(version.changed_at),
                     _what_changed(version, previous)])
        previous = version.fields
    for line in _columns(rows):
        print(printable(line))
    print(f"'eksbot knowledge history {current.id} --show N' prints version N as a file that "
          "'eksbot knowledge edit' takes (to undo an edit)")
    return 0


def _what_changed(version: EntryVersion, previous: EntryFields | None) -> str:
    fields = version.fields
    if version.action == "create" or previous is None:
        return f'"{fields.title}" ({fields.kind}, {fields.lang})'
    if version.action != "edit":
        return ""
    changed = [name for name in ("title", "body", "lang", "topic", "options", "answer")
               if getattr(fields, name) != getattr(previous, name)]
    return "changed: " + ", ".join(changed) if changed else "no change"


def cmd_note(args: argparse.Namespace) -> int:
    text = " ".join(args.text)
    by = _by(args)
    with _curation(args) as (settings, curation):
        record, _ = curation.add_note(question=args.question, lang=args.lang or settings.default_lang, text=text,
                                      by=by, doc=args.doc)
        question = curation.knowledge().question(record.doc_id, record.question, record.lang)
    print(printable(f'added note {record.id} ({record.lang}) on {record.doc_id} #{record.question}: '
                    f'"{question.section or question.title}"'))
    print(f"{LIVE}, with every answer and quiz result citing it")
    return 0


def cmd_notes(args: argparse.Namespace) -> int:
    with _curation(args) as (_, curation):
        records = curation.notes()
    if args.json:
        for record in records:
            print(json.dumps(note_dict(record), ensure_ascii=False))
        return 0
    if not records:
        print("no notes")
        return 0
    rows = [["ID", "ON", "LANG", "ADDED", "TEXT"]]
    rows += [[r.id, f"{r.doc_id} #{r.question}", r.lang, f"{r.created_by} {_when(r.created_at)}",
              " ".join(r.text.split())] for r in records]
    for line in _columns(rows):
        print(printable(line))
    print(_count(len(records), "note", "notes"))
    return 0


def note_dict(record: NoteRecord) -> dict[str, object]:
    return {"id": record.id, "doc": record.doc_id, "question": record.question, "lang": record.lang,
            "text": record.text, "created_by": record.created_by, "created_at": record.created_at.isoformat()}


def cmd_delete_note(args: argparse.Namespace) -> int:
    by = _by(args)
    with _curation(args) as (_, curation):
        curation.delete_note(args.id, by=by)
    print(f"deleted note {args.id}")
    print("a running server stops showing it within seconds")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    directory = Path(args.dir)
    if directory.exists() and not directory.is_dir():
        raise InputError(f"{directory}: not a directory")
    with _curation(args) as (settings, curation):
        folder = directory / ENTRIES_FOLDER
        home, target = settings.knowledge_dir.resolve(), folder.resolve()
        if target == home or home in target.parents:
            raise InputError(f"{directory}: in the knowledge directory {settings.knowledge_dir}, where a server would "
                             "read each entry twice (from the files and from the database); export elsewhere")
        before = set(folder.rglob("*.md")) if folder.is_dir() else set()
        try:
            written = curation.export(directory)
        except OSError as exc:
            raise InputError(f"{directory}: cannot be written ({exc.strerror or exc.__class__.__name__})") from exc
    if not written:
        print("nothing to export: the database has no entries or notes")
        return 0
    entries = sum(p.parent == folder for p in written)
    print(f"wrote {_count(len(written), 'file', 'files')} to {folder}: {_count(entries, 'entry', 'entries')}, "
          f"{_count(len(written) - entries, 'note', 'notes')}")
    others = before - set(written)
    if others:
        print(f"{_count(len(others), 'other file', 'other files')} in {folder} {'is' if len(others) == 1 else 'are'} "
              "not from this export (entries or notes deleted since an earlier one?)")
    print("a knowledge directory with these files and the knowledge files answers as the server does "
          "('eksbot index build')")
    return 0


# -- an entry's file ------------------------------------------------------------------------------------------

def read_entry_file(path: Path) -> EntryFile:
    """An entry from a Markdown file: front matter (optional) with title, lang, topic, and for a quiz question
    options (a list of 4) and answer (a letter); the body is the text (a quiz question's explanation). Without
    a title, the first `# heading` is the title and leaves the body. InputError (naming the file) when it
    cannot be read so."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc.__class__.__name__})") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from exc
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    try:
        front = read_front_matter(text, path)
    except KnowledgeError as exc:
        raise InputError(str(exc)) from exc
    values = front.values
    if "kind" in values or "id" in values:
        raise InputError(f"{path}: a file in the knowledge format (it has id or kind), not an entry's file: "
                         "'eksbot knowledge history ID --show N' prints an entry as a file to edit")
    unknown = sorted(str(key) for key in values if key not in ENTRY_KEYS)
    if unknown:
        raise InputError(f"{path}: unknown front matter key {unknown[0]!r} (an entry's are {', '.join(ENTRY_KEYS)})")
    title = _scalar(values, "title", path)
    body = front.body
    if title is None:
        title, body = _heading_title(body)
        if title is None:
            raise InputError(f"{path}: no title: give one in the front matter (title: …) or as a first '# heading'")
    raw_options = values.get("options")
    if raw_options is not None and not isinstance(raw_options, list):
        raise InputError(f"{path}: options must be a list of the 4 options, A first")
    options = tuple(_option(value, i) for i, value in enumerate(raw_options or ()))
    return EntryFile(title=title, body=body, lang=_scalar(values, "lang", path), topic=_scalar(values, "topic", path),
                     options=options, answer=_scalar(values, "answer", path))


def _scalar(values: dict[str, object], key: str, path: Path) -> str | None:
    value = values.get(key)
    if value is None:
        return None
    if isinstance(value, (list, dict)):
        raise InputError(f"{path}: {key} must be text, not a {'list' if isinstance(value, list) else 'mapping'}")
    return str(value).strip()


def _option(value: object, index: int) -> str:
    """An option's text; `B) text` in second place is `text`."""
    text = str(value).strip()
    lettered = _LETTERED.match(text)
    return text[lettered.end():] if lettered and index < len(LETTERS) and lettered.group(1) == LETTERS[index] else text


def _heading_title(body: str) -> tuple[str | None, str]:
    """The first `# heading` outside code (None: there is none) and the body without it."""
    lines = body.split("\n")
    fence: str | None = None
    for i, line in enumerate(lines):
        opened = _FENCE_LINE.match(line)
        if opened:
            marker = opened.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
            continue
        if fence is None and (title := _title_heading(line)):
            return title, "\n".join(lines[:i] + lines[i + 1:])
    return None, body


def _title_heading(line: str) -> str | None:
    """The text of a `# Title` line without its closing `#`s (`# Title ##`), or None. Cut with string methods:
    a lazy pattern before an optional closing sequence takes time in the square of a run of spaces."""
    heading = _TITLE_HEADING.match(line)
    if heading is None:
        return None
    text = heading.group(1).rstrip(" \t")
    unclosed = text.rstrip("#")
    if unclosed != text and unclosed.endswith((" ", "\t")):
        text = unclosed  # `Title ##`: the `#`s close the heading when spaces stand before them
    return text.strip() or None


def entry_file_text(fields: EntryFields) -> str:
    """An entry as the file `add` and `edit` read (`history --show`): read back, it gives the same fields."""
    front: dict[str, object] = {"title": fields.title, "lang": fields.lang}
    if fields.topic:
        front["topic"] = fields.topic
    if fields.options:
        front["options"] = [f"{letter}) {option}" for letter, option in zip(LETTERS, fields.options, strict=False)]
        front["answer"] = fields.answer
    header = yaml.safe_dump(front, allow_unicode=True, sort_keys=False, width=1_000_000)
    return f"---\n{header}---\n\n{fields.body}\n"


def describe_entry(record: EntryRecord) -> str:
    """`"Title" (doc, en, topic Quotas), version 2`; a quiz question names its answer; a deleted entry says so."""
    fields = record.fields
    about = [fields.kind, fields.lang]
    if fields.topic:
        about.append(f"topic {fields.topic}")
    if fields.options:
        about.append(f"answer {fields.answer}")
    deleted = ", deleted" if record.deleted else ""
    return printable(f'"{fields.title}" ({", ".join(about)}), version {record.version}{deleted}')


def _columns(rows: list[list[str]]) -> list[str]:
    """Rows as aligned columns (the last one as long as it is)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]]).rstrip()
            for row in rows]


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment else ""


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
