"""Knowledge added while the service runs, over HTTP: entries (texts and quiz questions) and notes through
`/v1/admin/*`, and the answers and quiz results that follow them once the knowledge is refreshed."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from bot.answering.refresh import KnowledgeRefresh
from bot.api import create_app
from bot.config import Settings
from bot.services import Services
from tests.support.api_helpers import client_for
from tests.support.cli_helpers import run
from tests.support.knowledge_helpers import ASK_RUNBOOK, ASK_SLINKY, QUIZ_ENTRY, RUNBOOK, SLINKY_NOTE

ADMIN = {"Authorization": "Bearer admin-token"}
OTHER_ADMIN = {"Authorization": "Bearer second-admin"}
BOUND = {"Authorization": "Bearer alice-token"}
TOKENS = SecretStr("admin-token,second-admin,alice-token:user=alice")

ENTRY_KEYS = {"id", "version", "kind", "title", "body", "lang", "topic", "options", "answer", "created_by",
              "created_at", "updated_by", "updated_at", "deleted"}
NOTE_KEYS = {"id", "doc", "question", "lang", "text", "created_by", "created_at"}


@dataclass
class Admin:
    """The application with admin tokens, and a refresh like each replica's (run on demand here)."""

    client: TestClient
    services: Services
    refresh: KnowledgeRefresh

    def post(self, path: str, json: object = None, headers: dict[str, str] | None = None, **kw: Any) -> Any:
        return self.client.post(path, json=json, headers={**ADMIN, **(headers or {})}, **kw)

    def get(self, path: str, **kw: Any) -> Any:
        return self.client.get(path, headers=ADMIN, **kw)

    def put(self, path: str, json: object) -> Any:
        return self.client.put(path, json=json, headers=ADMIN)

    def delete(self, path: str) -> Any:
        return self.client.delete(path, headers=ADMIN)

    def ask(self, question: str) -> dict[str, Any]:
        """The answer after looking for changes, as the refresh thread does every few seconds."""
        self.refresh.check()
        response = self.post("/v1/query", {"question": question, "lang": "en"})
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def cited(self, question: str) -> str:
        citations = self.ask(question)["citations"]
        return str(citations[0]["doc"]) if citations else ""


@pytest.fixture
def admin(settings: Settings, services: Services) -> Admin:
    client = client_for(settings, services, api_tokens_raw=TOKENS)
    served: Services = client.app.state.services  # type: ignore[attr-defined]
    refresh = KnowledgeRefresh(settings.knowledge_dir, served.in_use, extras=served.curation)
    return Admin(client, served, refresh)


def nothing_written(services: Services, revision: int) -> bool:
    entries = services.stores.entries
    return entries.revision() == revision and entries.listing(deleted=True) == [] and entries.notes() == []


def draw_question(admin: Admin, number: int, *, lang: str, topic: str) -> dict[str, Any]:
    """A prompt for quiz question `number` (the draw among a topic's questions is random: new users until it
    comes)."""
    for attempt in range(40):
        response = admin.post("/v1/quiz/next", {"user": f"player-{attempt}", "topic": topic, "lang": lang})
        assert response.status_code == 200, response.text
        if response.json()["question"] == number:
            return {"user": f"player-{attempt}", **response.json()}
    raise AssertionError(f"question {number} never drawn")


# -- entries ---------------------------------------------------------------------------------------------


def test_an_entry_is_saved_listed_and_answered_from(admin: Admin) -> None:
    before = admin.ask(ASK_RUNBOOK)
    assert not any(c["doc"].startswith("entries/") for c in before["citations"])
    response = admin.post("/v1/admin/entries", RUNBOOK)
    assert response.status_code == 201, response.text
    entry = response.json()
    assert set(entry) == ENTRY_KEYS
    assert response.headers["location"] == f"/v1/admin/entries/{entry['id']}"
    assert (entry["version"], entry["kind"], entry["options"], entry["answer"], entry["deleted"]) == (
        1, "doc", [], None, False)
    assert {k: entry[k] for k in RUNBOOK} == RUNBOOK
    assert entry["created_by"] == entry["updated_by"] and entry["created_by"].startswith("token:")
    assert "admin-token" not in str(entry)
    assert admin.get(f"/v1/admin/entries/{entry['id']}").json() == entry
    assert admin.get("/v1/admin/entries").json() == {"entries": [entry]}

    answer = admin.ask(ASK_RUNBOOK)
    top = answer["citations"][0]
    assert answer["answered"] is True and "64" in answer["text"]
    assert (top["doc"], top["source"], top["title"]) == (f"entries/{entry['id']}", f"entries/{entry['id']}.md",
                                                          RUNBOOK["title"])
    assert "kubectl describe resourcequota" in top["snippet"] and top["notes"] == []


def test_an_edit_keeps_the_history_and_a_stale_edit_changes_nothing(admin: Admin) -> None:
    entry = admin.post("/v1/admin/entries", RUNBOOK).json()
    edited = admin.put(f"/v1/admin/entries/{entry['id']}", {**RUNBOOK, "body": RUNBOOK["body"].replace("64", "96"),
                                                              "version": 1})
    assert edited.status_code == 200, edited.text
    assert edited.json()["version"] == 2 and "96" in edited.json()["body"]
    assert edited.json()["created_at"] == entry["created_at"]

    # Another admin read version 1 before that edit: nothing of theirs is saved.
    stale = admin.put(f"/v1/admin/entries/{entry['id']}", {**RUNBOOK, "title": "Stale title", "version": 1})
    assert stale.status_code == 409
    assert stale.json()["current_version"] == 2 and "version 2" in stale.json()["error"]
    assert admin.get(f"/v1/admin/entries/{entry['id']}").json() == edited.json()
    assert "96" in admin.ask(ASK_RUNBOOK)["text"]

    history = admin.get(f"/v1/admin/entries/{entry['id']}/history").json()
    assert history["id"] == entry["id"]
    assert [(v["version"], v["action"]) for v in history["versions"]] == [(1, "create"), (2, "edit")]
    assert all(v["changed_by"] == entry["created_by"] for v in history["versions"])
    assert "64" in history["versions"][0]["body"] and "96" in history["versions"][1]["body"]
    assert history["versions"][1]["changed_at"] == edited.json()["updated_at"]


def test_a_deleted_entry_stops_being_cited_and_a_restore_undoes_it(admin: Admin) -> None:
    entry = admin.post("/v1/admin/entries", RUNBOOK).json()
    doc = f"entries/{entry['id']}"
    assert admin.cited(ASK_RUNBOOK) == doc
    deleted = admin.delete(f"/v1/admin/entries/{entry['id']}")
    assert deleted.status_code == 204 and deleted.content == b""
    answer = admin.ask(ASK_RUNBOOK)
    assert doc not in [c["doc"] for c in answer["citations"]] and "research-train" not in answer["text"]
    assert admin.get("/v1/admin/entries").json() == {"entries": []}
    [listed] = admin.get("/v1/admin/entries", params={"deleted": "true"}).json()["entries"]
    assert (listed["id"], listed["deleted"], listed["version"]) == (entry["id"], True, 2)
    assert admin.get(f"/v1/admin/entries/{entry['id']}").json()["deleted"] is True
    assert admin.delete(f"/v1/admin/entries/{entry['id']}").status_code == 204  # already deleted: no change

    restored = admin.post(f"/v1/admin/entries/{entry['id']}/restore")
    assert restored.status_code == 200 and restored.json()["deleted"] is False and restored.json()["version"] == 3
    assert admin.cited(ASK_RUNBOOK) == doc
    actions = [v["action"] for v in admin.get(f"/v1/admin/entries/{entry['id']}/history").json()["versions"]]
    assert actions == ["create", "delete", "restore"]


def test_a_quiz_question_added_as_an_entry_is_drawn_and_graded(admin: Admin) -> None:
    entry = admin.post("/v1/admin/entries", QUIZ_ENTRY).json()
    assert (entry["kind"], entry["options"], entry["answer"]) == ("quiz", QUIZ_ENTRY["options"], "B")
    admin.refresh.check()
    prompt = admin.post("/v1/quiz/next", {"user": "bea", "topic": QUIZ_ENTRY["topic"], "lang": "en"}).json()
    assert prompt["prompt"] == QUIZ_ENTRY["title"]
    assert sorted(o["text"] for o in prompt["options"]) == sorted(QUIZ_ENTRY["options"])
    letter = next(o["key"] for o in prompt["options"] if o["text"] == "NodeSet")
    result = admin.post("/v1/quiz/answer", {"user": "bea", "attempt_id": prompt["attempt_id"], "choice": letter})
    assert result.status_code == 200, result.text
    assert result.json()["correct"] is True and "slinky.slurm.net" in result.json()["explanation"]
    assert result.json()["citation"]["doc"] == f"entries/{entry['id']}"


def test_the_same_idempotency_key_saves_one_entry_and_one_note(admin: Admin, services: Services) -> None:
    first = admin.post("/v1/admin/entries", RUNBOOK, headers={"Idempotency-Key": "form-1"})
    again = admin.post("/v1/admin/entries", {**RUNBOOK, "title": "Sent twice"}, headers={"Idempotency-Key": "form-1"})
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert len(services.stores.entries.listing()) == 1
    # Keys are the client's: another token's same key is another request.
    other = admin.client.post("/v1/admin/entries", json=RUNBOOK, headers={**OTHER_ADMIN, "Idempotency-Key": "form-1"})
    assert other.status_code == 201 and other.json()["id"] != first.json()["id"]
    assert other.json()["created_by"] != first.json()["created_by"]

    note = {"question": 4, "lang": "en", "text": SLINKY_NOTE}
    one = admin.post("/v1/admin/notes", note, headers={"Idempotency-Key": "note-1"})
    two = admin.post("/v1/admin/notes", note, headers={"Idempotency-Key": "note-1"})
    assert (one.status_code, two.status_code) == (201, 200) and one.json() == two.json()
    assert len(services.stores.entries.notes()) == 1


def test_the_command_line_prints_the_entries_and_notes_the_api_serves(
    admin: Admin, settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One JSON shape: `eksbot knowledge list --json` and `notes --json` print, for the same database, the
    objects `GET /v1/admin/entries` and `/v1/admin/notes` answer, key for key and in the same order."""
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("EKSBOT_KNOWLEDGE_DIR", str(settings.knowledge_dir))
    text = admin.post("/v1/admin/entries", RUNBOOK).json()
    admin.post("/v1/admin/entries", QUIZ_ENTRY)
    admin.put(f"/v1/admin/entries/{text['id']}", {**RUNBOOK, "topic": "GPU quotas", "version": 1})
    admin.delete(f"/v1/admin/entries/{text['id']}")
    admin.post("/v1/admin/notes", {"question": 4, "lang": "en", "text": SLINKY_NOTE})

    for argv, path, key in ((["list", "--deleted", "--json"], "/v1/admin/entries?deleted=true", "entries"),
                            (["notes", "--json"], "/v1/admin/notes", "notes")):
        served = admin.get(path).json()[key]
        code, out, err = run(["knowledge", *argv], capsys)
        assert (code, err) == (0, ""), err
        printed = [json.loads(line) for line in out.splitlines()]
        assert printed == served and len(served) == (2 if key == "entries" else 1)
        assert [list(row) for row in printed] == [list(row) for row in served]
    assert set(printed[0]) == NOTE_KEYS and set(served[0]) == NOTE_KEYS


# -- notes -----------------------------------------------------------------------------------------------


def test_a_note_shows_in_answers_and_quiz_results_citing_its_question(admin: Admin) -> None:
    response = admin.post("/v1/admin/notes", {"question": 4, "lang": "en", "text": SLINKY_NOTE})
    assert response.status_code == 201, response.text
    note = response.json()
    assert set(note) == NOTE_KEYS
    assert (note["doc"], note["question"], note["lang"], note["text"]) == ("eks-training-quiz", 4, "en", SLINKY_NOTE)
    assert admin.get("/v1/admin/notes").json() == {"notes": [note]}

    answer = admin.ask(ASK_SLINKY)
    assert answer["answered"] is True and answer["citations"][0]["question"] == 4
    assert answer["citations"][0]["notes"] == [SLINKY_NOTE]
    assert SLINKY_NOTE in answer["text"]

    prompt = draw_question(admin, 4, lang="en", topic="Slinky and Slurm")
    result = admin.post("/v1/quiz/answer", {"user": prompt["user"], "attempt_id": prompt["attempt_id"],
                                            "choice": "A"})
    assert result.status_code == 200, result.text
    assert result.json()["notes"] == [SLINKY_NOTE] and result.json()["citation"]["notes"] == [SLINKY_NOTE]

    assert admin.delete(f"/v1/admin/notes/{note['id']}").status_code == 204
    assert admin.get("/v1/admin/notes").json() == {"notes": []}
    assert admin.ask(ASK_SLINKY)["citations"][0]["notes"] == []


def test_a_note_in_the_readers_language_wins(admin: Admin) -> None:
    spanish = "Las versiones actuales de Slinky usan NodeSet y Cluster."
    admin.post("/v1/admin/notes", {"question": 4, "lang": "es", "text": spanish})
    admin.post("/v1/admin/notes", {"question": 4, "lang": "en", "text": SLINKY_NOTE, "doc": "eks-training-quiz"})
    admin.refresh.check()
    prompt = draw_question(admin, 4, lang="es", topic="Slinky and Slurm")
    result = admin.post("/v1/quiz/answer", {"user": prompt["user"], "attempt_id": prompt["attempt_id"],
                                            "choice": "B"}).json()
    assert result["notes"] == [spanish]
    assert admin.ask(ASK_SLINKY)["citations"][0]["notes"] == [SLINKY_NOTE]


# -- refused ---------------------------------------------------------------------------------------------

ROUTES = [
    ("post", "/v1/admin/entries", RUNBOOK),
    ("get", "/v1/admin/entries", None),
    ("get", "/v1/admin/entries/abc", None),
    ("get", "/v1/admin/entries/abc/history", None),
    ("put", "/v1/admin/entries/abc", {**RUNBOOK, "version": 1}),
    ("delete", "/v1/admin/entries/abc", None),
    ("post", "/v1/admin/entries/abc/restore", None),
    ("post", "/v1/admin/notes", {"question": 4, "lang": "en", "text": SLINKY_NOTE}),
    ("get", "/v1/admin/notes", None),
    ("delete", "/v1/admin/notes/abc", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_a_token_bound_to_a_user_or_none_configured_is_refused(
    settings: Settings, services: Services, admin: Admin, method: str, path: str, body: object
) -> None:
    revision = services.stores.entries.revision()
    bound = admin.client.request(method, path, json=body, headers=BOUND)
    assert bound.status_code == 403 and "acts for one user or team" in bound.json()["error"]
    assert admin.client.request(method, path, json=body).status_code == 401
    assert admin.client.request(method, path, json=body, headers={"Authorization": "Bearer nope"}).status_code == 401
    open_api = client_for(settings, services)
    refused = open_api.request(method, path, json=body, headers=ADMIN)
    assert refused.status_code == 403 and "EKSBOT_API_TOKENS" in refused.json()["error"]
    assert nothing_written(services, revision)


@pytest.mark.parametrize(("body", "reason"), [
    ({**RUNBOOK, "body": "x" * 20_001}, "'body': String should have at most 20000 characters"),
    ({**RUNBOOK, "title": "x" * 201}, "'title': String should have at most 200 characters"),
    ({**RUNBOOK, "title": "   "}, "title is empty"),
    ({**RUNBOOK, "title": "two\nlines"}, "title must be one line"),
    ({**RUNBOOK, "body": "NUL \x00 here"}, "body holds a NUL character"),
    ({**RUNBOOK, "title": 5}, "'title': Input should be a valid string"),
    ({**RUNBOOK, "lang": "fr"}, "'lang': Input should be 'es' or 'en'"),
    ({**RUNBOOK, "options": "abc"}, "'options': Input should be a valid list"),
    ({**RUNBOOK, "options": [1, 2, 3, 4], "answer": "A"}, "'options.0': Input should be a valid string"),
    ({**RUNBOOK, "options": ["a", "b", "c"], "answer": "A"}, "a quiz question has 4 options, not 3"),
    ({**RUNBOOK, "options": ["a", "b", "c", "d"]}, "the answer must be one of A, B, C, D"),
    ({**QUIZ_ENTRY, "answer": "E"}, "'answer': Input should be 'A', 'B', 'C' or 'D'"),
    ({**RUNBOOK, "answer": "A"}, "a quiz question has 4 options, not 0"),
    ({**QUIZ_ENTRY, "body": "Intro.\n\n## 2. Another question\n\nbody"}, "does not read as knowledge"),
    ({"body": "x", "lang": "en"}, "'title' is required"),
    ({**RUNBOOK, "version": 1}, "unknown field 'version'"),
    ([RUNBOOK], "Input should be a valid dictionary"),
])
def test_a_bad_entry_is_refused_with_a_reason_and_nothing_is_written(
    admin: Admin, services: Services, body: object, reason: str
) -> None:
    revision = services.stores.entries.revision()
    response = admin.post("/v1/admin/entries", body)
    assert response.status_code == 422, response.text
    assert reason in response.json()["error"]
    assert nothing_written(services, revision)


NOT_UNICODE = "Input should be a valid string, unable to parse raw data as a unicode string"


@pytest.mark.parametrize(("content", "status", "reason"), [
    (b'{"title": "T", "body": "lone \\ud800 surrogate", "lang": "en"}', 422, f"'body': {NOT_UNICODE}"),
    (b'{"title": "T \\udfff", "body": "text", "lang": "en"}', 422, f"'title': {NOT_UNICODE}"),
    (b'{"title": "T", "body": "unclosed', 422, "invalid JSON body"),
    (b'{"title": "T", "body": "' + b"x" * 70_000 + b'", "lang": "en"}', 413, "request body over 65536 bytes"),
])
def test_raw_bodies_that_are_not_valid_unicode_json_or_too_large_are_refused(
    admin: Admin, services: Services, content: bytes, status: int, reason: str
) -> None:
    revision = services.stores.entries.revision()
    response = admin.post("/v1/admin/entries", content=content, headers={"content-type": "application/json"})
    assert response.status_code == status, response.text
    assert reason in response.json()["error"]
    assert nothing_written(services, revision)


@pytest.mark.parametrize(("body", "reason"), [
    ({"question": 99, "lang": "en", "text": "x"}, "there is no question 99 in 'eks-training-quiz'"),
    ({"question": 1, "doc": "nope", "lang": "en", "text": "x"}, "there is no question 1 in 'nope'"),
    ({"question": 0, "lang": "en", "text": "x"}, "'question': Input should be greater than or equal to 1"),
    ({"question": "4", "lang": "en", "text": "x"}, "'question': Input should be a valid integer"),
    ({"question": True, "lang": "en", "text": "x"}, "'question': Input should be a valid integer"),
    ({"question": 4, "lang": "de", "text": "x"}, "'lang': Input should be 'es' or 'en'"),
    ({"question": 4, "lang": "en", "text": "x" * 2001}, "'text': String should have at most 2000 characters"),
    ({"question": 4, "lang": "en", "text": " \n "}, "note is empty"),
    ({"question": 4, "lang": "en"}, "'text' is required"),
])
def test_a_bad_note_is_refused_with_a_reason_and_nothing_is_written(
    admin: Admin, services: Services, body: object, reason: str
) -> None:
    revision = services.stores.entries.revision()
    response = admin.post("/v1/admin/notes", body)
    assert response.status_code == 422, response.text
    assert reason in response.json()["error"]
    assert nothing_written(services, revision)


def test_a_note_with_a_lone_surrogate_is_refused(admin: Admin, services: Services) -> None:
    revision = services.stores.entries.revision()
    response = admin.post("/v1/admin/notes", content=b'{"question": 4, "lang": "en", "text": "a \\ud800 b"}',
                          headers={"content-type": "application/json"})
    assert response.status_code == 422 and f"'text': {NOT_UNICODE}" in response.json()["error"]
    assert nothing_written(services, revision)


@pytest.mark.parametrize(("method", "path", "body"), [
    ("get", "/v1/admin/entries/0123456789abcdef", None),
    ("get", "/v1/admin/entries/0123456789abcdef/history", None),
    ("put", "/v1/admin/entries/0123456789abcdef", {**RUNBOOK, "version": 1}),
    ("delete", "/v1/admin/entries/0123456789abcdef", None),
    ("post", "/v1/admin/entries/0123456789abcdef/restore", None),
    ("delete", "/v1/admin/notes/0123456789abcdef", None),
])
def test_an_unknown_id_is_404_with_a_reason(admin: Admin, services: Services, method: str, path: str,
                                            body: object) -> None:
    revision = services.stores.entries.revision()
    response = admin.client.request(method, path, json=body, headers=ADMIN)
    assert response.status_code == 404 and "0123456789abcdef" in response.json()["error"]
    assert nothing_written(services, revision)


@pytest.mark.parametrize(("body", "reason"), [
    ({**RUNBOOK}, "'version' is required"),
    ({**RUNBOOK, "version": "1"}, "'version': Input should be a valid integer"),
    ({**RUNBOOK, "version": 0}, "'version': Input should be greater than or equal to 1"),
    ({**RUNBOOK, "version": 1, "body": "x" * 20_001}, "'body': String should have at most 20000 characters"),
])
def test_a_bad_edit_is_refused_and_the_entry_is_unchanged(admin: Admin, body: object, reason: str) -> None:
    entry = admin.post("/v1/admin/entries", RUNBOOK).json()
    response = admin.put(f"/v1/admin/entries/{entry['id']}", body)
    assert response.status_code == 422 and reason in response.json()["error"]
    assert admin.get(f"/v1/admin/entries/{entry['id']}").json() == entry


def test_an_edit_that_changes_the_kind_is_refused_with_the_reason(admin: Admin) -> None:
    text = admin.post("/v1/admin/entries", RUNBOOK).json()
    quiz = admin.post("/v1/admin/entries", QUIZ_ENTRY).json()
    response = admin.put(f"/v1/admin/entries/{text['id']}", {**QUIZ_ENTRY, "version": 1})
    assert response.status_code == 422
    assert response.json() == {"error": f"entry {text['id']} is a text: add a quiz question as a new entry"}
    response = admin.put(f"/v1/admin/entries/{quiz['id']}", {**RUNBOOK, "version": 1})
    assert response.status_code == 422
    assert response.json() == {"error": f"entry {quiz['id']} is a quiz question: an edit keeps its four options "
                                        "and answer"}
    assert [admin.get(f"/v1/admin/entries/{e['id']}").json() for e in (text, quiz)] == [text, quiz]
    assert admin.put(f"/v1/admin/entries/{quiz['id']}", {**QUIZ_ENTRY, "answer": "C", "version": 1}).status_code == 200


@pytest.mark.parametrize("brk", ["\r", "\x0b", "\x0c", "\x85", "\u2028", "\u2029"])
def test_a_line_break_in_a_title_topic_or_option_is_refused(admin: Admin, services: Services, brk: str) -> None:
    entry = admin.post("/v1/admin/entries", RUNBOOK).json()
    revision = services.stores.entries.revision()
    code = f"U+{ord(brk):04X}"
    for field, body in [("title", {**RUNBOOK, "title": f"GPU quota{brk}## Injected heading"}),
                        ("topic", {**RUNBOOK, "topic": f"Quotas{brk}Other"}),
                        ("option B", {**QUIZ_ENTRY, "options": ["SlurmNodeSet", f"Node{brk}Set", "ComputeSet",
                                                                "NodeGroup"]})]:
        response = admin.post("/v1/admin/entries", body)
        assert response.status_code == 422
        assert response.json() == {"error": f"{field} must be one line (it holds a line break, {code})"}
        if field != "option B":
            edited = admin.put(f"/v1/admin/entries/{entry['id']}", {**body, "version": 1})
            assert (edited.status_code, edited.json()["error"]) == (422, response.json()["error"])
    assert services.stores.entries.revision() == revision
    assert admin.get("/v1/admin/entries").json() == {"entries": [entry]}


@pytest.mark.parametrize(("headers", "reason"), [
    ({"Idempotency-Key": "k" * 101}, "String should have at most 100 characters"),
    ({"Idempotency-Key": "two words"}, "String should match pattern"),
])
def test_a_bad_idempotency_key_is_refused(admin: Admin, services: Services, headers: dict[str, str],
                                          reason: str) -> None:
    revision = services.stores.entries.revision()
    response = admin.post("/v1/admin/entries", RUNBOOK, headers=headers)
    assert response.status_code == 422 and reason in response.json()["error"]
    assert "Idempotency-Key" in response.json()["error"]
    assert nothing_written(services, revision)


def test_a_malformed_id_is_422(admin: Admin) -> None:
    response = admin.get("/v1/admin/entries/not.an.id")
    assert response.status_code == 422 and "entry_id" in response.json()["error"]


# -- documentation ---------------------------------------------------------------------------------------

NEW_ROUTES = {
    ("/v1/admin/entries", "post"), ("/v1/admin/entries", "get"), ("/v1/admin/entries/{entry_id}", "get"),
    ("/v1/admin/entries/{entry_id}", "put"), ("/v1/admin/entries/{entry_id}", "delete"),
    ("/v1/admin/entries/{entry_id}/history", "get"), ("/v1/admin/entries/{entry_id}/restore", "post"),
    ("/v1/admin/notes", "post"), ("/v1/admin/notes", "get"), ("/v1/admin/notes/{note_id}", "delete"),
}


def _schema(document: dict[str, Any], ref_or_schema: dict[str, Any]) -> dict[str, Any]:
    ref = ref_or_schema.get("$ref")
    if ref is None:
        return ref_or_schema
    found: dict[str, Any] = document["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    return found


def test_the_openapi_document_lists_every_new_route_with_examples(admin: Admin) -> None:
    document = admin.client.get("/openapi.json").json()
    listed = {(path, method) for path, item in document["paths"].items() for method in item}
    assert listed >= NEW_ROUTES
    for path, method in NEW_ROUTES:
        operation = document["paths"][path][method]
        assert operation["summary"] and operation["tags"] == ["admin"]
        codes = set(operation["responses"])
        assert {"401", "403", "422"} <= codes, (path, method, codes)
        shown = [_schema(document, operation["requestBody"]["content"]["application/json"]["schema"])] \
            if "requestBody" in operation else []
        for code in ("200", "201"):
            content = operation["responses"].get(code, {}).get("content", {}).get("application/json")
            if content:
                shown.append(_schema(document, content["schema"]))
        if method == "delete":
            assert "204" in codes and "404" in codes
        else:
            assert shown, (path, method)
        for schema in shown:
            for name, field in schema["properties"].items():
                if field.get("type") == "array" and "$ref" in field.get("items", {}):
                    continue  # a list of documented objects
                assert "examples" in field, (schema["title"], name)
        for parameter in operation.get("parameters", []):
            assert parameter.get("description"), (path, method, parameter["name"])
    schemas = document["components"]["schemas"]
    for request in ("EntryIn", "EntryEditIn", "NoteIn"):
        assert schemas[request]["examples"], request
    assert "409" in document["paths"]["/v1/admin/entries/{entry_id}"]["put"]["responses"]
    assert "current_version" in schemas["StaleEditOut"]["properties"]
    idempotency = [p for p in document["paths"]["/v1/admin/entries"]["post"]["parameters"]
                   if p["name"] == "Idempotency-Key"]
    assert idempotency and idempotency[0]["in"] == "header"
    for model in ("CitationOut", "QuizResultOut"):
        assert "notes" in schemas[model]["required"] and schemas[model]["properties"]["notes"]["examples"]


# -- the refresh thread, for real (one replica on SQLite) -----------------------------------------------


@pytest.fixture
def serving(settings: Settings, fake_assistant: Any) -> Iterator[tuple[TestClient, Services]]:
    """The services as `eksbot serve` starts them (database opened in the background, the knowledge refresh
    thread every 0.2 s), over the fake-embedder assistant and SQLite."""
    live = settings.model_copy(update={"knowledge_refresh_seconds": 0.2, "api_tokens_raw": TOKENS})
    services = Services.starting(live, fake_assistant)
    try:
        deadline = time.monotonic() + 30
        while not services.database.ready:
            assert time.monotonic() < deadline, "the database did not open"
            time.sleep(0.05)
        yield TestClient(create_app(live, services=services)), services
    finally:
        services.close()


def _until(check: Any, timeout: float = 10.0) -> float:
    """Seconds until `check()` is true (fails after `timeout`)."""
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < timeout, f"not within {timeout} s"
        time.sleep(0.05)
    return time.monotonic() - started


def test_one_replica_on_sqlite_answers_from_a_change_within_seconds(serving: tuple[TestClient, Services]) -> None:
    client, _ = serving

    def cites(question: str) -> list[dict[str, Any]]:
        response = client.post("/v1/query", json={"question": question, "lang": "en"}, headers=ADMIN)
        assert response.status_code == 200
        citations: list[dict[str, Any]] = response.json()["citations"]
        return citations

    entry = client.post("/v1/admin/entries", json=RUNBOOK, headers=ADMIN).json()
    doc = f"entries/{entry['id']}"
    saved = _until(lambda: [c["doc"] for c in cites(ASK_RUNBOOK)][:1] == [doc])
    client.post("/v1/admin/notes", json={"question": 4, "lang": "en", "text": SLINKY_NOTE}, headers=ADMIN)
    noted = _until(lambda: cites(ASK_SLINKY)[0]["notes"] == [SLINKY_NOTE])
    assert client.delete(f"/v1/admin/entries/{entry['id']}", headers=ADMIN).status_code == 204
    gone = _until(lambda: doc not in [c["doc"] for c in cites(ASK_RUNBOOK)])
    quiz = client.post("/v1/admin/entries", json=QUIZ_ENTRY, headers=ADMIN).json()

    def drawn() -> bool:
        response = client.post("/v1/quiz/next", json={"user": "bea", "topic": QUIZ_ENTRY["topic"], "lang": "en"},
                               headers=ADMIN)
        return response.status_code == 200 and response.json()["prompt"] == QUIZ_ENTRY["title"]

    asked = _until(drawn)
    print(f"\nSQLite, one replica (refresh every 0.2 s): entry answered after {saved:.2f} s, note after "
          f"{noted:.2f} s, delete after {gone:.2f} s, quiz question drawn after {asked:.2f} s")
    assert max(saved, noted, gone, asked) < 10, (saved, noted, gone, asked)
    assert quiz["kind"] == "quiz"
