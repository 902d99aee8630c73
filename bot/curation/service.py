"""`Curation`: the one way to add, edit, delete and restore entries and to attach notes, for every surface.

Each change is checked first (limits, valid Unicode, the text reads as knowledge, the question a note is for
exists) and fails with InputError before anything is written; an edit names the version it was made on
(`StaleEditError` when someone changed the entry first); a form submitted twice or a retried request (the
same `request_key`) changes nothing twice. Each change is logged with who made it and the id, never the text.
Replicas learn of changes through the knowledge revision (`revision`, `snapshot`: see
`bot.answering.refresh`), so the service answers from an entry within seconds on every replica.

An entry has one type at each boundary: `EntryDraft`, what a maintainer writes (every surface parses its input
into one; the record keeps it, checked and tidied); `EntryRecord`, what is stored; and `Entry`, what the
knowledge reads (`bot.knowledge.entries`, which makes it a `Document`). `entry_json`, `version_json` and
`note_json` are the one JSON shape of each, over HTTP and on the command line alike.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from bot.errors import InputError, KnowledgeError
from bot.knowledge import KnowledgeBase
from bot.knowledge.entries import (
    ENTRIES_FOLDER,
    Entry,
    check_entry,
    check_note,
    entry_document,
    note_markdown,
    to_markdown,
)
from bot.knowledge.model import Note
from bot.lang import LANGUAGES
from bot.storage import EntryRecord, EntryStore, EntryVersion, NoteRecord
from bot.storage.entry_records import EntryDraft

__all__ = ["Curation", "EntryDraft", "entry_json", "entry_of", "note_json", "note_of", "version_json"]

log = logging.getLogger(__name__)


class Curation:
    def __init__(self, store: EntryStore, knowledge: Callable[[], KnowledgeBase]) -> None:
        self.store = store
        self.knowledge = knowledge  # the knowledge in use: what a note may be attached to

    # -- entries ---------------------------------------------------------------------------------------

    def add(self, draft: EntryDraft, *, by: str, credit: str | None = None, request_key: str | None = None,
            gap: int | None = None) -> tuple[EntryRecord, bool]:
        """Save a new entry (and mark knowledge gap `gap` answered by it); (the entry, whether it is new)."""
        tidy = self._checked(draft)
        record, created = self.store.add(tidy, by=by, credit=credit, request_key=request_key)
        if gap is not None:
            self.store.answer_gap(gap, record.id)
        if created:
            log.info("knowledge entry added", extra={"entry": record.id, "by": by, "kind": tidy.kind})
        return record, created

    def edit(self, entry_id: str, draft: EntryDraft, *, version: int, by: str) -> EntryRecord:
        """Replace the entry's fields, if it is still at `version`. A text stays a text and a quiz question a
        quiz question: what was answered from it, the attempts and reviews of a question, hold to its kind."""
        tidy = self._checked(draft, entry_id)
        current = self.store.get(entry_id)
        if current is not None and current.fields.kind != tidy.kind:
            raise InputError(f"entry {entry_id} is a text: add a quiz question as a new entry"
                             if current.fields.kind == "doc" else
                             f"entry {entry_id} is a quiz question: an edit keeps its four options and answer")
        record = self.store.edit(entry_id, tidy, version=version, by=by)
        log.info("knowledge entry edited", extra={"entry": entry_id, "by": by, "version": record.version})
        return record

    def delete(self, entry_id: str, *, by: str) -> EntryRecord:
        record = self.store.delete(entry_id, by=by)
        log.info("knowledge entry deleted", extra={"entry": entry_id, "by": by})
        return record

    def restore(self, entry_id: str, *, by: str) -> EntryRecord:
        record = self.store.restore(entry_id, by=by)
        log.info("knowledge entry restored", extra={"entry": entry_id, "by": by})
        return record

    def get(self, entry_id: str) -> EntryRecord | None:
        return self.store.get(entry_id)

    def listing(self, *, deleted: bool = False) -> list[EntryRecord]:
        return self.store.listing(deleted=deleted)

    def history(self, entry_id: str) -> list[EntryVersion]:
        return self.store.history(entry_id)

    # -- notes -----------------------------------------------------------------------------------------

    def add_note(self, *, question: int, lang: str, text: str, by: str, doc: str | None = None,
                 request_key: str | None = None) -> tuple[NoteRecord, bool]:
        """Attach a note to quiz question `question` (of the quiz, or of document `doc`: a section's number)."""
        check_note(text)
        if lang not in LANGUAGES:
            raise InputError(f"lang must be one of {', '.join(LANGUAGES)}, not {lang!r}")
        if isinstance(question, bool) or not isinstance(question, int):
            raise InputError("question must be a number")
        knowledge = self.knowledge()
        doc_id = doc or self.default_doc(knowledge)
        try:
            knowledge.question(doc_id, question, lang)
        except KeyError:
            raise InputError(f"there is no question {question} in {doc_id!r}") from None
        record, created = self.store.add_note(doc_id=doc_id, question=question, lang=lang, text=text.strip(), by=by,
                                              request_key=request_key)
        if created:
            log.info("knowledge note added", extra={"note": record.id, "by": by, "question": question})
        return record, created

    def delete_note(self, note_id: str, *, by: str) -> None:
        self.store.delete_note(note_id, by=by)
        log.info("knowledge note deleted", extra={"note": note_id, "by": by})

    def notes(self) -> list[NoteRecord]:
        return self.store.notes()

    @staticmethod
    def default_doc(knowledge: KnowledgeBase) -> str:
        """The quiz a note is for when none is named: the quiz of the knowledge files."""
        quizzes = [d.doc_id for d in knowledge.documents if d.kind == "quiz"
                   and not d.doc_id.startswith(f"{ENTRIES_FOLDER}/")]
        if not quizzes:
            raise InputError("the knowledge has no quiz: name the document the note is for")
        return quizzes[0]

    # -- what the knowledge reads ------------------------------------------------------------------------

    def revision(self) -> int:
        return self.store.revision()

    def snapshot(self) -> tuple[int, list[Entry], list[Note]]:
        """The revision, and the live entries and notes as the knowledge reads them."""
        revision, entries, notes = self.store.snapshot()
        return revision, [entry_of(e) for e in entries], [note_of(n) for n in notes]

    def export(self, directory: Path) -> list[Path]:
        """Write every live entry and note as a knowledge file under `directory` (`entries/ID.md`,
        `entries/notes/ID.md`): a knowledge directory with them answers as the entries do."""
        _, entries, notes = self.snapshot()
        written: list[Path] = []
        for entry in entries:
            written.append(_write(directory / entry.file_name, to_markdown(entry)))
        for note in notes:
            written.append(_write(directory / ENTRIES_FOLDER / "notes" / f"{note.id}.md", note_markdown(note)))
        return written

    @staticmethod
    def _checked(draft: EntryDraft, entry_id: str = "new") -> EntryDraft:
        """The draft as it is kept, once it is known to make an entry that reads as knowledge."""
        tidy = draft.tidied()
        check_entry(tidy.title, tidy.body, tidy.lang, tidy.topic, tidy.options, tidy.answer)
        try:
            entry_document(_entry(entry_id, tidy))
        except KnowledgeError as exc:
            raise InputError(f"the entry does not read as knowledge: {exc.reason}") from exc
        return tidy


def _entry(entry_id: str, draft: EntryDraft) -> Entry:
    return Entry(id=entry_id, title=draft.title, body=draft.body, lang=draft.lang, topic=draft.topic,
                 options=draft.options, answer=draft.answer)


def entry_of(record: EntryRecord) -> Entry:
    return _entry(record.id, record.fields)


def note_of(record: NoteRecord) -> Note:
    return Note(id=record.id, doc_id=record.doc_id, question=record.question, lang=record.lang, text=record.text)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# -- the JSON shapes ------------------------------------------------------------------------------------------
# One shape of an entry, a version and a note for every surface: the HTTP API's bodies (`bot.api.schemas`
# documents them field by field) and the command line's --json lines are these, key for key.

def _text_json(draft: EntryDraft) -> dict[str, object]:
    return {"kind": draft.kind, "title": draft.title, "body": draft.body, "lang": draft.lang, "topic": draft.topic,
            "options": list(draft.options), "answer": draft.answer}


def entry_json(record: EntryRecord) -> dict[str, object]:
    """An entry as it is now: its id, version and text, who added it and last changed it, whether deleted."""
    return {"id": record.id, "version": record.version, **_text_json(record.fields),
            "created_by": record.created_by, "created_at": record.created_at.isoformat(),
            "updated_by": record.updated_by, "updated_at": record.updated_at.isoformat(), "deleted": record.deleted}


def version_json(version: EntryVersion) -> dict[str, object]:
    """One version of an entry's history: the change, who made it and when, and the text it left."""
    return {"version": version.version, "action": version.action, "changed_by": version.changed_by,
            "changed_at": version.changed_at.isoformat(), **_text_json(version.fields)}


def note_json(record: NoteRecord) -> dict[str, object]:
    return {"id": record.id, "doc": record.doc_id, "question": record.question, "lang": record.lang,
            "text": record.text, "created_by": record.created_by, "created_at": record.created_at.isoformat()}
