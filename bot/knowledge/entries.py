"""Knowledge written while the service runs: entries (a text, or a quiz question) and maintainers' notes.

An entry is the same thing as a knowledge file: `to_markdown` writes it in the format a file in the knowledge
directory has (a document with front matter, or a one-question quiz), and `entry_document` reads that text
with the same readers as files. So an entry answers exactly as the file `eksbot knowledge export` writes for
it would, and exporting then building from the files gives the same answers.

A note is attached to a quiz question or a document's section, in a language; an answer citing it, and the
quiz's explanation of it, show the note in the reader's language when there is one (else in another). A
note never changes what it is attached to.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bot.errors import InputError
from bot.knowledge.loader import KnowledgeBase
from bot.knowledge.markdown import parse_markdown
from bot.knowledge.model import Document, Note
from bot.knowledge.parser import parse_text
from bot.lang import LANGUAGES

ENTRIES_FOLDER = "entries"  # where exported entries go, and what their ids and sources start with
MAX_TITLE = 200
MAX_BODY = 20_000
MAX_TOPIC = 100
MAX_NOTE = 2_000
LETTERS = "ABCD"
_LABELS = {"es": ("Tema", "Respuesta", "Explicación"), "en": ("Topic", "Answer", "Explanation")}


@dataclass(frozen=True)
class Entry:
    """An entry as the knowledge reads it: its id and its text as kept (`bot.storage.EntryRecord` is how it is
    stored; `entry_document` reads it as the `Document` its knowledge file would be)."""

    id: str
    title: str
    body: str
    lang: str
    topic: str | None = None
    options: tuple[str, ...] = ()
    answer: str | None = None

    @property
    def doc_id(self) -> str:
        return f"{ENTRIES_FOLDER}/{self.id}"

    @property
    def file_name(self) -> str:
        return f"{ENTRIES_FOLDER}/{self.id}.md"


def check_entry(title: str, body: str, lang: str, topic: str | None = None, options: Iterable[str] = (),
                answer: str | None = None) -> None:
    """Raise InputError (with what to change) unless these make an entry."""
    _check_text("title", title, MAX_TITLE, one_line=True)
    _check_text("body", body, MAX_BODY)
    if lang not in LANGUAGES:
        raise InputError(f"lang must be one of {', '.join(LANGUAGES)}, not {lang!r}")
    if topic is not None and topic.strip():
        _check_text("topic", topic, MAX_TOPIC, one_line=True)
    options = list(options)
    if options or answer is not None:
        if len(options) != len(LETTERS):
            raise InputError(f"a quiz question has {len(LETTERS)} options, not {len(options)}")
        for letter, option in zip(LETTERS, options, strict=True):
            _check_text(f"option {letter}", option, MAX_TITLE, one_line=True)
        if answer not in tuple(LETTERS):
            raise InputError(f"the answer must be one of {', '.join(LETTERS)}, not {answer!r}")


def check_note(text: str) -> None:
    _check_text("note", text, MAX_NOTE)


def _check_text(name: str, value: object, limit: int, *, one_line: bool = False) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{name} is empty")
    if len(value) > limit:
        raise InputError(f"{name} has {len(value)} characters; the most is {limit}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"{name} is not valid Unicode (a lone surrogate at character {exc.start})") from exc
    if "\x00" in value:
        raise InputError(f"{name} holds a NUL character")
    if one_line and len(lines := value.strip().splitlines()) > 1:
        # Any line break, not only \n: a CR, NEL, U+2028 or a form feed ends the line of a heading the entry is
        # written as, and of a terminal or a chat client that shows it.
        brk = value.strip()[len(lines[0])]
        raise InputError(f"{name} must be one line (it holds a line break, U+{ord(brk):04X})")


def to_markdown(entry: Entry) -> str:
    """The entry as a knowledge file (what `eksbot knowledge export` writes)."""
    if entry.options:
        topic_label, answer_label, explanation_label = _LABELS[entry.lang]
        options = "\n".join(f"- {letter}) {option.strip()}" for letter, option in zip(LETTERS, entry.options,
                                                                                    strict=True))
        topic = (entry.topic or entry.title).strip()
        return (f"---\nid: {_quoted(entry.doc_id)}\ntitle: {_quoted(entry.title.strip())}\nlang: {entry.lang}\n"
                f"kind: quiz\n---\n\n## 1. {entry.title.strip()}\n{topic_label}: {topic}\n"
                f"{options}\n{answer_label}: {entry.answer}\n{explanation_label}: {entry.body.strip()}\n")
    topic = f"topic: {_quoted(entry.topic.strip())}\n" if entry.topic and entry.topic.strip() else ""
    return f"---\ntitle: {_quoted(entry.title.strip())}\nlang: {entry.lang}\n{topic}---\n\n{entry.body.strip()}\n"


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def entry_document(entry: Entry) -> Document:
    """The entry read as its knowledge file would be read."""
    text = to_markdown(entry)
    path = Path(entry.file_name)
    if entry.options:
        return parse_text(text, path)
    return parse_markdown(text, path, doc_id=entry.doc_id, source=entry.file_name)


def with_entries(knowledge: KnowledgeBase, entries: Iterable[Entry], notes: Iterable[Note] = ()) -> KnowledgeBase:
    """The files' knowledge with the entries and notes kept in the database, as one (its digest names all): the
    knowledge a server answers from. The one place the two are put together, for the refresh while serving
    (`bot.answering.refresh`) and for every command (`bot.services.CommandServices.knowledge`)."""
    entries, notes = list(entries), list(notes)
    if not entries and not notes:
        return knowledge
    digest = hashlib.sha256(knowledge.digest.encode())
    for entry in entries:
        digest.update(b"\0entry\0" + entry.id.encode() + b"\0" + to_markdown(entry).encode())
    for note in notes:
        digest.update(b"\0note\0" + "\0".join((note.id, note.doc_id, str(note.question), note.lang, note.text))
                      .encode())
    return KnowledgeBase(documents=(*knowledge.documents, *(entry_document(e) for e in entries)),
                         digest=digest.hexdigest(), skipped=knowledge.skipped, notes=(*knowledge.notes, *notes),
                         revisions=knowledge.revisions)


def note_markdown(note: Note) -> str:
    """A note as a knowledge file (what `eksbot knowledge export` writes): it is read back as a note."""
    return (f"---\nnote_for: {_quoted(note.doc_id)}\nquestion: {note.question}\nlang: {note.lang}\n---\n\n"
            f"{note.text.strip()}\n")
