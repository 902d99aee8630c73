"""`eksbot knowledge list|add|edit|delete|restore|history|note|notes|delete-note|export`: the entries and notes
of the database.

Each command changes or shows them through `bot.curation.Curation`, which every running replica answers from
within seconds: nothing is rebuilt here. An entry is written as a Markdown file (`entry_files`). A change the
core refuses (too long, a stale version, an unknown id, a note for a question there is not) is one line on
stderr and exit code 1, and nothing is written. `list --json` and `notes --json` print the HTTP API's entry
and note objects (`bot.curation.service.entry_json`, `note_json`), one a line, with what the terminal must not
get escaped (`json_line`).
"""

from __future__ import annotations

import argparse
import functools
import getpass
import re
import sys
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from bot.cli.common import services_from_args
from bot.cli.knowledge.entry_files import entry_file_text, read_entry_file
from bot.cli.knowledge.tables import columns, count, describe_entry, when
from bot.cli.texts import json_line, printable
from bot.config import Settings
from bot.curation.service import Curation, EntryDraft, entry_json, note_json
from bot.errors import InputError, KnowledgeEditError, StaleEditError, UnknownEntryError
from bot.knowledge.entries import ENTRIES_FOLDER
from bot.lang import LANGUAGES
from bot.storage import EntryRecord, EntryVersion
from bot.text.language import detect_language

LIVE = "a running server answers from it within seconds"
# How the HTTP API records a change made with an API token (`bot.api.deps.token_label`: "token:9f86d081"). A
# name given on the command line never reads so: it would pass for a change made with that token.
_TOKEN_LABEL = re.compile(r"token\s*+:", re.IGNORECASE)
Command = Callable[[argparse.Namespace], int]


def register(actions: argparse._SubParsersAction) -> None:
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
    with services_from_args(args) as services:
        yield services.settings, services.curation


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
            print(json_line(entry_json(record)))
        return 0
    if not records:
        print("no entries" if args.deleted else "no entries (--deleted lists the deleted ones too)")
        return 0
    header = ["ID", "KIND", "VERSION", "LANG", "UPDATED", *(["DELETED"] if args.deleted else []), "TITLE"]
    rows = [[r.id, r.fields.kind, str(r.version), r.fields.lang, f"{r.updated_by} {when(r.updated_at)}",
             *([f"{r.deleted_by} {when(r.deleted_at)}" if r.deleted else ""] if args.deleted else []),
             r.fields.title] for r in records]
    for line in columns([header, *rows]):
        print(printable(line))
    deleted = sum(r.deleted for r in records)
    print(count(len(records), "entry", "entries") + (f", {deleted} deleted" if args.deleted else ""))
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    path = Path(args.file)
    written = read_entry_file(path)
    by = _by(args)
    lang = args.lang or written.lang or detect_language(f"{written.title}\n{written.body}")
    draft = replace(written, lang=lang, topic=args.topic if args.topic is not None else written.topic)
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
        draft = replace(written, lang=args.lang or written.lang or before.lang, topic=topic)
        if bool(draft.options) != bool(before.options):
            raise InputError(f"{path}: entry {current.id} is a quiz question, and the file gives no options and "
                             "answer" if before.options else
                             f"{path}: entry {current.id} is a text, and the file gives options: add a quiz "
                             "question as a new entry")
        version = current.version if args.version is None else args.version
        if version == current.version and draft.tidied() == before:
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
            print(f"entry {current.id} is already deleted ({current.deleted_by} {when(current.deleted_at)})")
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
    previous: EntryDraft | None = None
    for version in versions:
        rows.append([f"v{version.version}", version.action, version.changed_by, when(version.changed_at),
                     _what_changed(version, previous)])
        previous = version.fields
    for line in columns(rows):
        print(printable(line))
    print(f"'eksbot knowledge history {current.id} --show N' prints version N as a file that "
          "'eksbot knowledge edit' takes (to undo an edit)")
    return 0


def _what_changed(version: EntryVersion, previous: EntryDraft | None) -> str:
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
            print(json_line(note_json(record)))
        return 0
    if not records:
        print("no notes")
        return 0
    rows = [["ID", "ON", "LANG", "ADDED", "TEXT"]]
    rows += [[r.id, f"{r.doc_id} #{r.question}", r.lang, f"{r.created_by} {when(r.created_at)}",
              " ".join(r.text.split())] for r in records]
    for line in columns(rows):
        print(printable(line))
    print(count(len(records), "note", "notes"))
    return 0


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
    print(f"wrote {count(len(written), 'file', 'files')} to {folder}: {count(entries, 'entry', 'entries')}, "
          f"{count(len(written) - entries, 'note', 'notes')}")
    others = before - set(written)
    if others:
        print(f"{count(len(others), 'other file', 'other files')} in {folder} {'is' if len(others) == 1 else 'are'} "
              "not from this export (entries or notes deleted since an earlier one?)")
    print("a knowledge directory with these files and the knowledge files answers as the server does "
          "('eksbot index build')")
    return 0
