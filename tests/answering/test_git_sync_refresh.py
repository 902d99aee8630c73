"""Docs synced by git-sync while the service runs: a pushed commit, swapped in by its link, is answered from
within seconds and the removed text no longer; the revision served is in the knowledge, /readyz, /metrics and
the log; a swap is one change even when the files' sizes and times look the same. While git-sync cannot reach
the repository (its error file), the revision served keeps answering and /readyz, /metrics and the log say so,
without credentials; whatever the error file holds, the refresh goes on."""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from bot.answering.assistant import Assistant
from bot.answering.in_use import AssistantInUse
from bot.answering.refresh import KnowledgeRefresh
from bot.api import create_app
from bot.config import Settings, load_settings
from bot.knowledge.git_sync import ERROR_FILE, SHOWN_MOST, UNREADABLE
from bot.services import Services
from tests.support.fakes import FakeEmbedder, lexical_model
from tests.support.git_sync import commit, drop, fail, heal, init_repo, sync

QUESTION = "When does the ML platform team hold its office hours?"
DOC = """---
title: ML platform team
---

Who we are and how to reach us.

## Office hours

The ML platform team holds office hours every Thursday at 15:00 in the Ganymede room.
"""
MOVED = DOC.replace("Thursday at 15:00 in the Ganymede room", "Saturday at 10:00 in the Callisto room")


@pytest.fixture
def live(knowledge_copy: Path, fake_index_dir: Path) -> Assistant:
    settings = load_settings(knowledge_dir=knowledge_copy, index_dir=fake_index_dir, auto_rebuild=False)
    return Assistant.from_settings(settings, embedder=FakeEmbedder(), model=lexical_model())


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "repo")


@pytest.fixture
def root(knowledge_copy: Path) -> Path:
    """git-sync's root as the chart mounts it: the folder `team-docs` of the knowledge directory."""
    root = knowledge_copy / "team-docs"
    root.mkdir()
    return root


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} not within {seconds:g} s"
        time.sleep(0.05)


def test_a_swap_with_the_same_sizes_and_times_is_still_a_change(live: Assistant, knowledge_copy: Path,
                                                                  repo: Path, root: Path) -> None:
    refresh = KnowledgeRefresh(knowledge_copy, AssistantInUse(live))
    first = commit(repo, "team.md", DOC)
    sync(repo, root, "current", first)
    fresh = refresh.check()
    assert fresh is not None and fresh.knowledge.revision == {"team-docs": first}
    assert "Ganymede" in fresh.answer(QUESTION, "en").text
    old = (root / "current" / "team.md").stat()

    second = commit(repo, "team.md", MOVED)
    assert len(MOVED) == len(DOC)
    sync(repo, root, "current", second)
    os.utime(root / "current" / "team.md", ns=(old.st_atime_ns, old.st_mtime_ns))  # same size, same time
    newer = refresh.check()
    assert newer is not None and newer.knowledge.revision == {"team-docs": second}
    text = newer.answer(QUESTION, "en").text
    assert "Callisto" in text and "Ganymede" not in text
    assert refresh.status.revision == {"team-docs": second}


def answered(client: TestClient) -> str:
    """What the server answers to the question only the synced doc answers ("" while it cannot answer)."""
    body = client.post("/v1/query", json={"question": QUESTION, "lang": "en"})
    return body.text if body.status_code == 200 else ""


@pytest.fixture
def served(knowledge_copy: Path, settings: Settings, live: Assistant) -> Iterator[tuple[Services, TestClient]]:
    """A server as it starts, watching the knowledge directory every 0.1 s."""
    watching = settings.model_copy(update={"knowledge_dir": knowledge_copy, "knowledge_refresh_seconds": 0.1})
    services = Services.starting(watching, live)
    yield services, TestClient(create_app(watching, services=services))
    services.close()


def test_a_pushed_commit_is_served_after_the_swap_and_says_its_revision(
    served: tuple[Services, TestClient], repo: Path, root: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    services, client = served
    caplog.set_level(logging.INFO, logger="bot.answering.refresh")

    answer = partial(answered, client)

    first = commit(repo, "team.md", DOC)
    sync(repo, root, "current", first)
    wait_for(lambda: "Ganymede" in answer(), "the first revision answered from")
    assert services.assistant.knowledge.revision == {"team-docs": first}
    assert client.get("/readyz").json() == {
        "status": "ok", "reason": None, "knowledge_revision": {"team-docs": first},
        "knowledge_sync": {"team-docs": {"ok": True, "failing_since": None, "last_failure": None, "error": None}}}
    assert f'eksbot_knowledge_revision_info{{folder="team-docs",revision="{first}"}} 1.0' in client.get("/metrics").text

    second = commit(repo, "team.md", MOVED)
    sync(repo, root, "current", second)
    drop(repo, root, first)  # git-sync removes the revision no longer linked
    wait_for(lambda: "Callisto" in answer(), "the pushed commit answered from")
    assert "Ganymede" not in answer()
    assert client.get("/readyz").json()["knowledge_revision"] == {"team-docs": second}
    metrics = client.get("/metrics").text
    assert f'eksbot_knowledge_revision_info{{folder="team-docs",revision="{second}"}} 1.0' in metrics
    assert first not in metrics  # only the revision served: one series a folder
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("serving knowledge revision")]
    assert said == [f"serving knowledge revision team-docs@{first[:12]}",
                    f"serving knowledge revision team-docs@{second[:12]}"]


def test_readyz_names_no_revision_without_git_sync(served: tuple[Services, TestClient]) -> None:
    _, client = served
    assert client.get("/readyz").json() == {"status": "ok", "reason": None}
    metrics = client.get("/metrics").text
    assert "eksbot_knowledge_revision_info{" not in metrics and "eksbot_knowledge_sync_failing{" not in metrics


TOKEN = "ghp_s3cretT0ken"
UNREACHABLE = (f"Run(git fetch https://eksbot:{TOKEN}@git.example.com/platform/runbooks.git main): exit status 128"
               "\nfatal: unable to access 'https://git.example.com/platform/runbooks.git/': Could not resolve host")


def test_a_repository_that_cannot_be_reached_is_said_and_the_revision_served_still_answers(
    served: tuple[Services, TestClient], repo: Path, root: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    _, client = served
    caplog.set_level(logging.INFO, logger="bot.answering.refresh")

    answer = partial(answered, client)

    def sync_state() -> dict[str, object]:
        ready = client.get("/readyz")
        assert ready.status_code == 200  # the replica answers: it stays in the load balancer
        state: dict[str, object] = ready.json().get("knowledge_sync", {}).get("team-docs", {})
        return state

    def metric(name: str) -> float:
        found = re.search(rf'^{name}{{folder="team-docs"}} (\S+)$', client.get("/metrics").text, re.M)
        assert found, name
        return float(found.group(1))

    first = commit(repo, "team.md", DOC)
    sync(repo, root, "current", first)
    wait_for(lambda: "Ganymede" in answer(), "the first revision answered from")
    assert metric("eksbot_knowledge_sync_failing") == 0 and metric("eksbot_knowledge_sync_failing_seconds") == 0

    fail(root, UNREACHABLE)
    since = (root / ERROR_FILE).stat().st_mtime
    wait_for(lambda: sync_state().get("ok") is False, "the failing sync said")
    body = client.get("/readyz").json()
    assert body["status"] == "ok" and body["knowledge_revision"] == {"team-docs": first}
    state = body["knowledge_sync"]["team-docs"]
    assert state["error"] == ("error syncing repo, will retry: Run(git fetch "
                              "https://git.example.com/platform/runbooks.git main): exit status 128")
    assert state["failing_since"] == state["last_failure"] == time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                             time.gmtime(int(since)))
    assert TOKEN not in client.get("/readyz").text and TOKEN not in client.get("/metrics").text
    assert "Ganymede" in answer()  # the last good revision keeps answering
    assert metric("eksbot_knowledge_sync_failing") == 1
    assert 0 <= metric("eksbot_knowledge_sync_failing_seconds") < 60

    fail(root, "Run(git fetch): exit status 128: timed out", at=since + 60)  # the next attempt, a minute later
    wait_for(lambda: sync_state().get("error") == "error syncing repo, will retry: Run(git fetch): exit status 128: "
             "timed out", "the next failure said")
    state = sync_state()
    assert state["failing_since"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(since)))
    assert state["last_failure"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(since + 60)))

    heal(root)
    wait_for(lambda: sync_state().get("ok") is True, "the healed sync said")
    assert sync_state() == {"ok": True, "failing_since": None, "last_failure": None, "error": None}
    assert metric("eksbot_knowledge_sync_failing") == 0 and metric("eksbot_knowledge_sync_failing_seconds") == 0
    said = [(r.levelname, r.getMessage()) for r in caplog.records if "git-sync" in r.getMessage()]
    assert said == [
        ("WARNING", "git-sync cannot sync team-docs: error syncing repo, will retry: Run(git fetch "
                    f"https://git.example.com/platform/runbooks.git main): exit status 128 (still serving "
                    f"team-docs@{first[:12]})"),
        ("INFO", "git-sync syncs team-docs again")]
    assert all(TOKEN not in r.getMessage() for r in caplog.records)


def hostile(root: Path, kind: str, outside: Path) -> None:
    """An error file git-sync would never write."""
    path = root / ERROR_FILE
    if kind == "huge":
        path.write_bytes(b"x" * (8 << 20) + f" https://eksbot:{TOKEN}@git.example.com".encode())
    elif kind == "long line":
        path.write_text("y" * 5000 + f" https://eksbot:{TOKEN}@git.example.com", encoding="utf-8")
    elif kind == "cut URL":
        path.write_bytes(b"z" * (64 * 1024 - 20) + f" https://eksbot:{TOKEN}@git.example.com".encode())
    elif kind == "binary":
        path.write_bytes(bytes(range(256)) * 64)
    elif kind == "invalid JSON":
        path.write_text(f'{{"Msg": "error syncing repo", "Err": "https://eksbot:{TOKEN}@git.example.com/x',
                        encoding="utf-8")
    elif kind == "JSON of another shape":
        path.write_text('[{"Msg": 1}, null, "deep"' + ", [" * 50_000, encoding="utf-8")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "link out":
        secret = outside / "secret.txt"
        secret.write_text(f"TOPSECRET https://eksbot:{TOKEN}@git.example.com", encoding="utf-8")
        path.symlink_to(secret)
    elif kind == "dangling link":
        path.symlink_to(outside / "nowhere")
    elif kind == "folder":
        path.mkdir()
    elif kind == "pipe":
        os.mkfifo(path)
    else:
        raise AssertionError(kind)


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        path.rmdir()
    else:
        path.unlink()


HOSTILE = ["huge", "long line", "cut URL", "binary", "invalid JSON", "JSON of another shape", "empty", "link out",
           "dangling link", "folder", "pipe"]


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_error_file_never_breaks_the_refresh_nor_leaks(live: Assistant, knowledge_copy: Path, repo: Path,
                                                                   root: Path, tmp_path: Path, kind: str) -> None:
    refresh = KnowledgeRefresh(knowledge_copy, AssistantInUse(live))
    first = commit(repo, "team.md", DOC)
    sync(repo, root, "current", first)
    outside = tmp_path / "outside"
    outside.mkdir()
    hostile(root, kind, outside)
    assert refresh.check() is not None  # the first revision taken in, the error file whatever it is

    state = refresh.status.sync["team-docs"]
    assert not state.ok and state.error
    assert len(state.error) <= SHOWN_MOST and state.error.isprintable()
    assert TOKEN not in state.error and "TOPSECRET" not in state.error and "eksbot:" not in state.error
    if kind in ("link out", "dangling link", "folder", "pipe", "empty", "binary"):
        assert state.error == UNREADABLE or kind == "binary"

    second = commit(repo, "team.md", MOVED)  # the next revision still comes in
    sync(repo, root, "current", second)
    fresh = refresh.check()
    assert fresh is not None and "Callisto" in fresh.answer(QUESTION, "en").text
    assert refresh.status.revision == {"team-docs": second} and not refresh.status.sync["team-docs"].ok

    remove(root / ERROR_FILE)
    refresh.check()
    assert refresh.status.sync["team-docs"].ok
