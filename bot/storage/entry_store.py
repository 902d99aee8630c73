"""`EntryStore`: knowledge entries and notes added while the service runs (the SQL is in `entry_records`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import sqlalchemy as sa

from bot.errors import StorageIntegrityError
from bot.storage import entry_records as sql
from bot.storage.database import ConcernStore
from bot.storage.entry_records import EntryDraft, EntryRecord, EntryVersion, NoteRecord

T = TypeVar("T")


class EntryStore(ConcernStore):
    def revision(self) -> int:
        """The knowledge revision: it grows with every change to an entry or a note."""
        with self.database.reading() as conn:
            return sql.revision(conn)

    def add(self, fields: EntryDraft, *, by: str, credit: str | None = None,
            request_key: str | None = None) -> tuple[EntryRecord, bool]:
        """Save a new entry; with `request_key` (a form submitted twice, a retried request) the entry saved the
        first time comes back instead. Returns (the entry, whether it was created now)."""
        return self._once(request_key, sql.by_request, lambda conn: sql.add_entry(
            conn, fields, by=by, now=self.database.clock(), credit=credit, request_key=request_key))

    def _once(self, request_key: str | None, earlier: Callable[[sa.Connection, str], T | None],
              write: Callable[[sa.Connection], T]) -> tuple[T, bool]:
        """`write` once per `request_key`: (what the first request saved, False) when it was saved before,
        also by another replica at the same moment; else (what `write` saved, True)."""
        if request_key is not None:
            with self.database.reading() as conn:
                if (found := earlier(conn, request_key)) is not None:
                    return found, False
        try:
            with self.database.writing() as conn:
                return write(conn), True
        except StorageIntegrityError:
            if request_key is None:
                raise
            with self.database.reading() as conn:  # the same request, saved meanwhile by another replica
                found = earlier(conn, request_key)
            if found is None:
                raise
            return found, False

    def get(self, entry_id: str) -> EntryRecord | None:
        with self.database.reading() as conn:
            return sql.get_entry(conn, entry_id)

    def edit(self, entry_id: str, fields: EntryDraft, *, version: int, by: str) -> EntryRecord:
        with self.database.writing() as conn:
            return sql.edit_entry(conn, entry_id, fields, version=version, by=by, now=self.database.clock())

    def delete(self, entry_id: str, *, by: str) -> EntryRecord:
        with self.database.writing() as conn:
            return sql.set_deleted(conn, entry_id, deleted=True, by=by, now=self.database.clock())

    def restore(self, entry_id: str, *, by: str) -> EntryRecord:
        with self.database.writing() as conn:
            return sql.set_deleted(conn, entry_id, deleted=False, by=by, now=self.database.clock())

    def listing(self, *, deleted: bool = False) -> list[EntryRecord]:
        with self.database.reading() as conn:
            return sql.list_entries(conn, deleted=deleted)

    def history(self, entry_id: str) -> list[EntryVersion]:
        with self.database.reading() as conn:
            return sql.entry_versions(conn, entry_id)

    def add_note(self, *, doc_id: str, question: int, lang: str, text: str, by: str,
                 request_key: str | None = None) -> tuple[NoteRecord, bool]:
        return self._once(request_key, sql.note_by_request, lambda conn: sql.add_note(
            conn, doc_id=doc_id, question=question, lang=lang, text=text, by=by, now=self.database.clock(),
            request_key=request_key))

    def delete_note(self, note_id: str, *, by: str) -> None:
        with self.database.writing() as conn:
            sql.delete_note(conn, note_id, by=by, now=self.database.clock())

    def notes(self) -> list[NoteRecord]:
        with self.database.reading() as conn:
            return sql.list_notes(conn)

    def snapshot(self) -> tuple[int, list[EntryRecord], list[NoteRecord]]:
        """The revision with the live entries and notes it is made of, read together."""
        with self.database.reading() as conn:
            return sql.revision(conn), sql.list_entries(conn), sql.list_notes(conn)

    def answer_gap(self, gap_id: int, entry_id: str) -> bool:
        with self.database.writing() as conn:
            return sql.answer_gap(conn, gap_id, entry_id)
