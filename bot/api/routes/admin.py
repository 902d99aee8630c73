"""/v1/admin: for whoever maintains the knowledge, always behind a token that acts for everyone. The knowledge
gaps; knowledge entries (texts and quiz questions) added, edited, deleted and restored while the service runs,
with their history; and maintainers' notes on quiz questions. Every replica answers from a change within
seconds (`bot.curation`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Header, HTTPException, Path, Query, Response, status
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from bot.api.deps import (
    AdminDep,
    Authorized,
    QuizServicesDep,
    ServicesDep,
    SettingsDep,
    get_settings,
    require_unscoped_token,
)
from bot.api.schemas import (
    EntriesOut,
    EntryEditIn,
    EntryHistoryOut,
    EntryIn,
    EntryOut,
    NoteIn,
    NoteOut,
    NotesOut,
    StaleEditOut,
    error_responses,
)
from bot.config import Settings
from bot.curation.service import entry_json, note_json, version_json
from bot.errors import StaleEditError, UnknownEntryError
from bot.lang import Lang


async def require_configured_tokens(settings: Annotated[Settings, Depends(get_settings)]) -> None:
    """Admin routes are never open: without EKSBOT_API_TOKENS they refuse every request."""
    if not settings.api_tokens:
        raise HTTPException(403, "the admin routes need an API token: set EKSBOT_API_TOKENS")


router = APIRouter(prefix="/v1/admin", tags=["admin"],
                   dependencies=[Depends(require_configured_tokens), Authorized, Depends(require_unscoped_token)])

ERRORS = error_responses(e403="EKSBOT_API_TOKENS is not set: admin routes are off.",
                         e422="Invalid limit or kind.")


class GapOut(BaseModel):
    kind: Literal["unanswered", "uncovered", "downvoted"] = Field(
        description="unanswered: the bot said it does not know; uncovered: a term of a partly answered question "
                    "the knowledge never mentions; downvoted: an answer got 👎.", examples=["unanswered"])
    lang: Lang = Field(examples=["en"])
    text: str = Field(description="The question (latest wording of the group), or the uncovered term.",
                      examples=["How do I run a PyTorchJob on EKS?"])
    example: str | None = Field(description="For an uncovered term: the latest question it came from.",
                                examples=[None])
    question: int | None = Field(description="The quiz question the answer cited (uncovered, downvoted).",
                                 examples=[None])
    count: int = Field(description="How many near-identical entries were counted together.", examples=[4])
    first_seen: str = Field(description="ISO 8601, UTC.", examples=["2025-03-03T09:00:00+00:00"])
    last_seen: str = Field(description="ISO 8601, UTC.", examples=["2025-03-10T17:45:12+00:00"])


class GapsOut(BaseModel):
    recording: bool = Field(description="Whether gaps are being recorded (EKSBOT_RECORD_GAPS).", examples=[True])
    retention_days: int = Field(description="Gaps not seen for this long are forgotten (EKSBOT_GAPS_RETENTION_DAYS).",
                                examples=[90])
    gaps: list[GapOut] = Field(description="The most frequent first. No user ids are ever stored.")


@router.get("/gaps", response_model=GapsOut, responses=ERRORS, summary="Knowledge gaps, most frequent first")
async def gaps(services: ServicesDep, settings: SettingsDep,
               limit: Annotated[int, Query(ge=1, le=500, description="How many groups.")] = 50,
               kind: Annotated[Literal["unanswered", "uncovered", "downvoted"] | None,
                               Query(description="Only this kind.")] = None) -> dict[str, object]:
    """Questions the bot did not answer, terms it did not cover and answers that got 👎, grouped."""
    rows = await services.run(services.gaps.listing, limit=limit, kind=kind)
    return {"recording": settings.record_gaps, "retention_days": settings.gaps_retention_days,
            "gaps": [row.to_dict() for row in rows]}


# -- knowledge entries and notes -----------------------------------------------------------------------

ENTRY_ERRORS = error_responses(
    e403="EKSBOT_API_TOKENS is not set, or the token acts for one user or team only.",
    e404="No entry with this id.",
    e422="Invalid entry: a field missing, of the wrong type, empty, too long or not valid Unicode; a line break "
         "in a title, topic or option; an unknown lang; a quiz question without four options or a right letter; a "
         "text that does not read as knowledge; an edit that would turn a text into a quiz question or back.",
)
NOTE_ERRORS = error_responses(
    e403="EKSBOT_API_TOKENS is not set, or the token acts for one user or team only.",
    e404="No note with this id.",
    e422="Invalid note: a field missing, of the wrong type, empty, too long or not valid Unicode; an unknown lang; "
         "no such question in the document.",
)
AGAIN = "The same Idempotency-Key again: the {} it saved; nothing was saved twice."
MAX_KEY = 100  # the stored request key is `by:key`, at most 128 characters

EntryId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                              description="The entry's id.", examples=["3f2b9c0e5a7d4e1f9b6c8a2d4e6f8a0b"])]
NoteId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                             description="The note's id.", examples=["a1b2c3d4e5f60718293a4b5c6d7e8f90"])]
IdempotencyKey = Annotated[str | None, Header(
    alias="Idempotency-Key", min_length=1, max_length=MAX_KEY, pattern=r"^[!-~]+$",
    description=f"Any unique string (printable ASCII, at most {MAX_KEY} characters), e.g. a UUID. Sending the same "
                "key again with the same token (a retried request) saves nothing: the answer is 200 with what the "
                "first request saved, whatever the body.",
    examples=["7d1f0c7e-5b1a-4c33-9a52-3f0f2f6b8e01"])]


@contextmanager
def _known() -> Iterator[None]:
    """An unknown entry or note id is a 404 with a reason."""
    try:
        yield
    except UnknownEntryError as exc:
        raise HTTPException(404, str(exc)) from None


def _request_key(by: str, key: str | None) -> str | None:
    """A client's Idempotency-Key, kept apart from other tokens' keys and from other surfaces'."""
    return f"{by}:{key}" if key is not None else None


@router.post("/entries", response_model=EntryOut, status_code=status.HTTP_201_CREATED, summary="Add an entry",
             responses={**ENTRY_ERRORS, 200: {"model": EntryOut, "description": AGAIN.format("entry")}})
async def add_entry(body: EntryIn, response: Response, services: QuizServicesDep, by: AdminDep,
                    idempotency_key: IdempotencyKey = None) -> dict[str, object]:
    """Save a text or a quiz question: every replica answers from it (or draws it) within seconds."""
    record, created = await services.run(services.curation.add, body.draft(), by=by,
                                         request_key=_request_key(by, idempotency_key))
    if not created:
        response.status_code = status.HTTP_200_OK
    response.headers["Location"] = f"{router.prefix}/entries/{record.id}"
    return entry_json(record)


@router.get("/entries", response_model=EntriesOut, responses=ENTRY_ERRORS, summary="List the entries")
async def list_entries(services: QuizServicesDep, deleted: Annotated[bool, Query(
        description="Also list deleted entries.")] = False) -> dict[str, object]:
    records = await services.run(services.curation.listing, deleted=deleted)
    return {"entries": [entry_json(record) for record in records]}


@router.get("/entries/{entry_id}", response_model=EntryOut, responses=ENTRY_ERRORS, summary="One entry")
async def get_entry(entry_id: EntryId, services: QuizServicesDep) -> dict[str, object]:
    """The entry as it is now, deleted or not: its `version` is what an edit sends back."""
    record = await services.run(services.curation.get, entry_id)
    if record is None:
        raise HTTPException(404, f"no knowledge entry {entry_id!r}")
    return entry_json(record)


@router.get("/entries/{entry_id}/history", response_model=EntryHistoryOut, responses=ENTRY_ERRORS,
            summary="An entry's versions")
async def entry_history(entry_id: EntryId, services: QuizServicesDep) -> dict[str, object]:
    """Every change to the entry, oldest first: who, when, what (create, edit, delete, restore) and its text."""
    with _known():
        versions = await services.run(services.curation.history, entry_id)
    return {"id": entry_id, "versions": [version_json(v) for v in versions]}


@router.put("/entries/{entry_id}", response_model=EntryOut, summary="Edit an entry",
            responses={**ENTRY_ERRORS, 409: {"model": StaleEditOut, "description": "Someone changed the entry since "
                                             "`version`: nothing was saved; `current_version` is where it is now."}})
async def edit_entry(entry_id: EntryId, body: EntryEditIn, services: QuizServicesDep,
                     by: AdminDep) -> dict[str, object] | JSONResponse:
    """Replace the entry's text, if it is still at `version` (else 409 and nothing saved)."""
    try:
        with _known():
            record = await services.run(services.curation.edit, entry_id, body.draft(), version=body.version, by=by)
    except StaleEditError as exc:
        return JSONResponse({"error": str(exc), "current_version": exc.current}, status_code=409)
    return entry_json(record)


@router.delete("/entries/{entry_id}", status_code=status.HTTP_204_NO_CONTENT, response_class=Response,
               responses=ENTRY_ERRORS, summary="Delete an entry")
async def delete_entry(entry_id: EntryId, services: QuizServicesDep, by: AdminDep) -> Response:
    """Stop answering from the entry (and drawing it) on every replica; it is kept, and a restore undoes this."""
    with _known():
        await services.run(services.curation.delete, entry_id, by=by)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/entries/{entry_id}/restore", response_model=EntryOut, responses=ENTRY_ERRORS,
             summary="Undo a delete")
async def restore_entry(entry_id: EntryId, services: QuizServicesDep, by: AdminDep) -> dict[str, object]:
    """Answer from a deleted entry again (nothing changes for one that is not deleted)."""
    with _known():
        record = await services.run(services.curation.restore, entry_id, by=by)
    return entry_json(record)


@router.post("/notes", response_model=NoteOut, status_code=status.HTTP_201_CREATED, summary="Add a note",
             responses={**NOTE_ERRORS, 200: {"model": NoteOut, "description": AGAIN.format("note")}})
async def add_note(body: NoteIn, response: Response, services: QuizServicesDep, by: AdminDep,
                   idempotency_key: IdempotencyKey = None) -> dict[str, object]:
    """Attach a note to a quiz question: answers and quiz results citing it show it within seconds."""
    record, created = await services.run(services.curation.add_note, question=body.question, lang=body.lang,
                                         text=body.text, by=by, doc=body.doc,
                                         request_key=_request_key(by, idempotency_key))
    if not created:
        response.status_code = status.HTTP_200_OK
    return note_json(record)


@router.get("/notes", response_model=NotesOut, responses=NOTE_ERRORS, summary="List the notes")
async def list_notes(services: QuizServicesDep) -> dict[str, object]:
    records = await services.run(services.curation.notes)
    return {"notes": [note_json(record) for record in records]}


@router.delete("/notes/{note_id}", status_code=status.HTTP_204_NO_CONTENT, response_class=Response,
               responses=NOTE_ERRORS, summary="Delete a note")
async def delete_note(note_id: NoteId, services: QuizServicesDep, by: AdminDep) -> Response:
    """Answers and quiz results stop showing the note within seconds."""
    with _known():
        await services.run(services.curation.delete_note, note_id, by=by)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
