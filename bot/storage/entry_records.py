"""Knowledge entries, their versions, notes, and the knowledge revision, as stored; and the SQL for them.

Every change to an entry or a note increments the one knowledge revision in the same transaction, so a
replica knows there is something new by reading one row. An edit names the version it was made on: when the
entry has moved on since, nothing is written (`StaleEditError`). A delete is soft and can be undone; each
change keeps the previous text in `knowledge_entry_versions`, with who made it and when.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from bot.errors import StaleEditError, UnknownEntryError
from bot.storage.tables import (
    knowledge_entries,
    knowledge_entry_versions,
    knowledge_gaps,
    knowledge_notes,
    knowledge_revision,
)


@dataclass(frozen=True)
class EntryDraft:
    """What a maintainer writes, on any surface: a title, a Markdown body, a language, an optional topic; for a
    quiz question also its four options and the right letter (the body is then its explanation). The core
    checks it (`bot.curation`) and keeps it `tidied` as each version's text. It is defined here, below the
    core, so that the record can hold the very type the surfaces fill in."""

    title: str
    body: str
    lang: str
    topic: str | None = None
    options: tuple[str, ...] = ()  # a quiz question's options, A first
    answer: str | None = None  # a quiz question's right letter

    @property
    def kind(self) -> str:
        return "quiz" if self.options else "doc"

    def tidied(self) -> EntryDraft:
        """As it is kept: no space around the texts, no blank topic, the answer's letter in upper case."""
        topic = self.topic.strip() if self.topic and self.topic.strip() else None
        return EntryDraft(title=self.title.strip(), body=self.body.strip(), lang=self.lang, topic=topic,
                          options=tuple(o.strip() for o in self.options),
                          answer=self.answer.strip().upper() if self.answer else None)




@dataclass(frozen=True)
class EntryRecord:
    """An entry as stored: its id and version, its text as last checked, who changed it and when."""

    id: str
    fields: EntryDraft
    version: int
    credit: str | None
    created_by: str
    created_at: datetime
    updated_by: str
    updated_at: datetime
    deleted_by: str | None = None
    deleted_at: datetime | None = None

    @property
    def deleted(self) -> bool:
        return self.deleted_at is not None


@dataclass(frozen=True)
class EntryVersion:
    """One change to an entry in its history, with the text it left."""

    entry_id: str
    version: int
    action: str  # "create", "edit", "delete", "restore"
    fields: EntryDraft
    changed_by: str
    changed_at: datetime


@dataclass(frozen=True)
class NoteRecord:
    id: str
    doc_id: str
    question: int
    lang: str
    text: str
    created_by: str
    created_at: datetime


def new_id() -> str:
    return uuid.uuid4().hex


def revision(conn: sa.Connection) -> int:
    return int(conn.execute(sa.select(knowledge_revision.c.revision).where(knowledge_revision.c.id == 1))
               .scalar_one_or_none() or 0)


def bump(conn: sa.Connection, now: datetime) -> None:
    """One more change to the knowledge (in the transaction that makes it)."""
    conn.execute(knowledge_revision.update().where(knowledge_revision.c.id == 1)
                 .values(revision=knowledge_revision.c.revision + 1, updated_at=now))


def _columns(fields: EntryDraft) -> dict[str, Any]:
    quiz = json.dumps({"options": list(fields.options), "answer": fields.answer}) if fields.options else None
    return {"kind": fields.kind, "title": fields.title, "body": fields.body, "lang": fields.lang,
            "topic": fields.topic, "quiz": quiz}


def _fields(row: Any) -> EntryDraft:
    quiz = json.loads(row.quiz) if row.quiz else {}
    return EntryDraft(title=row.title, body=row.body, lang=row.lang, topic=row.topic,
                      options=tuple(quiz.get("options", ())), answer=quiz.get("answer"))


def _entry(row: Any) -> EntryRecord:
    return EntryRecord(id=row.id, fields=_fields(row), version=row.version, credit=row.credit,
                       created_by=row.created_by, created_at=row.created_at, updated_by=row.updated_by,
                       updated_at=row.updated_at, deleted_by=row.deleted_by, deleted_at=row.deleted_at)


def _keep_version(conn: sa.Connection, entry_id: str, version: int, action: str, fields: EntryDraft, by: str,
                  now: datetime) -> None:
    conn.execute(knowledge_entry_versions.insert().values(
        entry_id=entry_id, version=version, action=action, changed_by=by, changed_at=now, **_columns(fields)))


def by_request(conn: sa.Connection, request_key: str) -> EntryRecord | None:
    row = conn.execute(sa.select(knowledge_entries).where(knowledge_entries.c.request_key == request_key)).first()
    return _entry(row) if row else None


def add_entry(conn: sa.Connection, fields: EntryDraft, *, by: str, now: datetime, credit: str | None = None,
              request_key: str | None = None) -> EntryRecord:
    entry_id = new_id()
    conn.execute(knowledge_entries.insert().values(
        id=entry_id, version=1, credit=credit, request_key=request_key, created_by=by, created_at=now,
        updated_by=by, updated_at=now, **_columns(fields)))
    _keep_version(conn, entry_id, 1, "create", fields, by, now)
    bump(conn, now)
    found = get_entry(conn, entry_id)
    assert found is not None
    return found


def get_entry(conn: sa.Connection, entry_id: str) -> EntryRecord | None:
    row = conn.execute(sa.select(knowledge_entries).where(knowledge_entries.c.id == entry_id)).first()
    return _entry(row) if row else None


def _existing(conn: sa.Connection, entry_id: str) -> EntryRecord:
    found = get_entry(conn, entry_id)
    if found is None:
        raise UnknownEntryError(f"no knowledge entry {entry_id!r}")
    return found


def edit_entry(conn: sa.Connection, entry_id: str, fields: EntryDraft, *, version: int, by: str,
               now: datetime) -> EntryRecord:
    """Write `fields` over the entry if it is still at `version` (else StaleEditError, nothing written)."""
    current = _existing(conn, entry_id)
    table = knowledge_entries
    changed = conn.execute(
        table.update().where(table.c.id == entry_id, table.c.version == version)
        .values(version=version + 1, updated_by=by, updated_at=now, **_columns(fields))
    ).rowcount
    if changed != 1:
        raise StaleEditError(f"entry {entry_id} is at version {current.version}, not {version}: someone changed "
                             "it first; read it again", current.version)
    _keep_version(conn, entry_id, version + 1, "edit", fields, by, now)
    bump(conn, now)
    return _existing(conn, entry_id)


def set_deleted(conn: sa.Connection, entry_id: str, *, deleted: bool, by: str, now: datetime) -> EntryRecord:
    """Delete an entry (softly) or undo that; a no-op when it already is as asked."""
    current = _existing(conn, entry_id)
    if current.deleted == deleted:
        return current
    table = knowledge_entries
    conn.execute(table.update().where(table.c.id == entry_id).values(
        version=current.version + 1, updated_by=by, updated_at=now,
        deleted_by=by if deleted else None, deleted_at=now if deleted else None))
    _keep_version(conn, entry_id, current.version + 1, "delete" if deleted else "restore", current.fields, by, now)
    bump(conn, now)
    return _existing(conn, entry_id)


def list_entries(conn: sa.Connection, *, deleted: bool = False) -> list[EntryRecord]:
    table = knowledge_entries
    query = sa.select(table).order_by(table.c.created_at, table.c.id)
    if not deleted:
        query = query.where(table.c.deleted_at.is_(None))
    return [_entry(row) for row in conn.execute(query)]


def entry_versions(conn: sa.Connection, entry_id: str) -> list[EntryVersion]:
    _existing(conn, entry_id)
    table = knowledge_entry_versions
    rows = conn.execute(sa.select(table).where(table.c.entry_id == entry_id).order_by(table.c.version))
    return [EntryVersion(entry_id=row.entry_id, version=row.version, action=row.action, fields=_fields(row),
                         changed_by=row.changed_by, changed_at=row.changed_at) for row in rows]


def _note(row: Any) -> NoteRecord:
    return NoteRecord(id=row.id, doc_id=row.doc_id, question=row.question, lang=row.lang, text=row.text,
                      created_by=row.created_by, created_at=row.created_at)


def add_note(conn: sa.Connection, *, doc_id: str, question: int, lang: str, text: str, by: str, now: datetime,
             request_key: str | None = None) -> NoteRecord:
    note_id = new_id()
    conn.execute(knowledge_notes.insert().values(
        id=note_id, doc_id=doc_id, question=question, lang=lang, text=text, request_key=request_key,
        created_by=by, created_at=now))
    bump(conn, now)
    row = conn.execute(sa.select(knowledge_notes).where(knowledge_notes.c.id == note_id)).one()
    return _note(row)


def note_by_request(conn: sa.Connection, request_key: str) -> NoteRecord | None:
    row = conn.execute(sa.select(knowledge_notes).where(knowledge_notes.c.request_key == request_key)).first()
    return _note(row) if row else None


def delete_note(conn: sa.Connection, note_id: str, *, by: str, now: datetime) -> None:
    table = knowledge_notes
    found = conn.execute(sa.select(table.c.deleted_at).where(table.c.id == note_id)).first()
    if found is None:
        raise UnknownEntryError(f"no note {note_id!r}")
    if found.deleted_at is None:
        conn.execute(table.update().where(table.c.id == note_id).values(deleted_by=by, deleted_at=now))
        bump(conn, now)


def list_notes(conn: sa.Connection) -> list[NoteRecord]:
    table = knowledge_notes
    rows = conn.execute(sa.select(table).where(table.c.deleted_at.is_(None)).order_by(table.c.created_at, table.c.id))
    return [_note(row) for row in rows]


def answer_gap(conn: sa.Connection, gap_id: int, entry_id: str) -> bool:
    """Mark a knowledge gap answered by an entry; False when there is no such gap."""
    return conn.execute(knowledge_gaps.update().where(knowledge_gaps.c.id == gap_id)
                        .values(answered_by=entry_id)).rowcount == 1
