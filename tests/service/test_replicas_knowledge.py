"""Knowledge added over HTTP while real `eksbot serve` processes run: two replicas on one PostgreSQL database
(and one on SQLite) answer from an entry saved on either within seconds, show a note, stop citing a deleted
entry and draw a quiz question added as an entry. The seconds measured are printed (`pytest -s`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import KNOWLEDGE
from tests.support.api_helpers import wait_ready
from tests.support.knowledge_helpers import ASK_RUNBOOK, ASK_SLINKY, QUIZ_ENTRY, RUNBOOK, SLINKY_NOTE
from tests.support.server_process import start_server, stop_server

pytestmark = pytest.mark.slow

ADMIN = {"Authorization": "Bearer admin-token"}
REFRESH_SECONDS = 1
WITHIN = 10.0  # seconds from a change saved to every replica answering from it


def citations(base: str, question: str) -> list[dict[str, Any]]:
    response = httpx.post(f"{base}/v1/query", json={"question": question, "lang": "en"}, headers=ADMIN, timeout=30)
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["citations"]
    return found


def first_doc(base: str, question: str) -> str:
    found = citations(base, question)
    return str(found[0]["doc"]) if found else ""


def seconds_until(checks: dict[str, Callable[[], bool]], started: float, what: str) -> dict[str, float]:
    """Poll every check until each has held once; the seconds from `started` to each (fails after WITHIN)."""
    seen: dict[str, float] = {}
    while len(seen) < len(checks):
        for name, check in checks.items():
            if name not in seen and check():
                seen[name] = time.monotonic() - started
        assert time.monotonic() - started < WITHIN, f"{what}: only {seen} within {WITHIN} s"
        time.sleep(0.05)
    return seen


def knowledge_follows(one: str, two: str, label: str) -> None:
    """The whole flow on replicas `one` and `two` (the same one twice with one replica)."""
    replicas = {"A": one, "B": two}

    # An entry saved on A: how long until B, and A, answer from it.
    started = time.monotonic()  # the request's own time counts too
    saved = httpx.post(f"{one}/v1/admin/entries", json=RUNBOOK, headers=ADMIN, timeout=30)
    assert saved.status_code == 201, saved.text
    doc = f"entries/{saved.json()['id']}"

    def cites_entry(base: str) -> Callable[[], bool]:
        return lambda: first_doc(base, ASK_RUNBOOK) == doc

    entry = seconds_until({name: cites_entry(base) for name, base in replicas.items()}, started, "entry answered")

    # A note on question 4 added via A shows on B's answers citing question 4.
    started = time.monotonic()
    noted = httpx.post(f"{one}/v1/admin/notes", json={"question": 4, "lang": "en", "text": SLINKY_NOTE},
                       headers=ADMIN, timeout=30)
    assert noted.status_code == 201, noted.text

    def note_on_b() -> bool:
        top = citations(two, ASK_SLINKY)[0]
        return top["question"] == 4 and top["notes"] == [SLINKY_NOTE]

    note = seconds_until({"B": note_on_b}, started, "note shown")

    # The entry deleted via B: A stops citing it.
    started = time.monotonic()
    deleted = httpx.delete(f"{two}/v1/admin/entries/{saved.json()['id']}", headers=ADMIN, timeout=30)
    assert deleted.status_code == 204, deleted.text
    gone = seconds_until({"A": lambda: doc not in [c["doc"] for c in citations(one, ASK_RUNBOOK)]}, started,
                         "deleted entry no longer cited")

    # A quiz question added as an entry via A is drawn on B for its topic, and graded there.
    started = time.monotonic()
    quiz = httpx.post(f"{one}/v1/admin/entries", json=QUIZ_ENTRY, headers=ADMIN, timeout=30)
    assert quiz.status_code == 201, quiz.text
    drawn: list[dict[str, Any]] = []

    def drawn_on_b() -> bool:
        response = httpx.post(f"{two}/v1/quiz/next", json={"user": "bea", "topic": QUIZ_ENTRY["topic"], "lang": "en"},
                              headers=ADMIN, timeout=30)
        if response.status_code == 200 and response.json()["prompt"] == QUIZ_ENTRY["title"]:
            drawn.append(response.json())
        return bool(drawn)

    asked = seconds_until({"B": drawn_on_b}, started, "quiz question drawn")
    letter = next(o["key"] for o in drawn[0]["options"] if o["text"] == "NodeSet")
    graded = httpx.post(f"{two}/v1/quiz/answer", json={"user": "bea", "attempt_id": drawn[0]["attempt_id"],
                                                       "choice": letter}, headers=ADMIN, timeout=30).json()
    assert graded["correct"] is True and graded["citation"]["doc"] == f"entries/{quiz.json()['id']}"

    if one == two:
        figures = (f"{label}, refresh every {REFRESH_SECONDS} s: entry answered after {entry['A']:.2f} s; note "
                   f"shown after {note['B']:.2f} s; deleted entry no longer cited after {gone['A']:.2f} s; quiz "
                   f"question drawn after {asked['B']:.2f} s")
    else:
        figures = (f"{label}, refresh every {REFRESH_SECONDS} s: entry saved on A answered by B after "
                   f"{entry['B']:.2f} s and by A after {entry['A']:.2f} s; note added on A shown by B after "
                   f"{note['B']:.2f} s; entry deleted on B no longer cited by A after {gone['A']:.2f} s; quiz "
                   f"question added on A drawn on B after {asked['B']:.2f} s")
    print(f"\n{figures}")
    worst = max(*entry.values(), *note.values(), *gone.values(), *asked.values())
    assert worst < WITHIN, figures


def _env(tmp_path: Path, index_dir: Path, database_url: str) -> dict[str, str]:
    return {"DATABASE_URL": database_url, "EKSBOT_INDEX_DIR": str(index_dir), "EKSBOT_KNOWLEDGE_DIR": str(KNOWLEDGE),
            "EKSBOT_AUTO_REBUILD": "false", "EKSBOT_DATA_DIR": str(tmp_path / "data"),
            "EKSBOT_KNOWLEDGE_REFRESH_SECONDS": str(REFRESH_SECONDS), "EKSBOT_API_TOKENS": "admin-token"}


@pytest.mark.postgres
def test_two_replicas_on_postgresql_answer_from_knowledge_added_on_either(
    tmp_path: Path, index_dir: Path, postgres_url: str
) -> None:
    env = _env(tmp_path, index_dir, postgres_url)
    servers = [start_server(env, tmp_path / f"replica-{name}.log") for name in ("a", "b")]
    try:
        for base, _ in servers:
            wait_ready(base, timeout=120, database=True)
        (one, _), (two, _) = servers
        knowledge_follows(one, two, "PostgreSQL, two replicas")
    finally:
        for _, process in servers:
            stop_server(process)


def test_one_replica_on_sqlite_answers_from_knowledge_added_while_it_runs(
    tmp_path: Path, index_dir: Path, sqlite_url: str
) -> None:
    env = _env(tmp_path, index_dir, sqlite_url)
    base, process = start_server(env, tmp_path / "replica.log")
    try:
        wait_ready(base, timeout=120, database=True)
        knowledge_follows(base, base, "SQLite, one replica")
    finally:
        stop_server(process)
