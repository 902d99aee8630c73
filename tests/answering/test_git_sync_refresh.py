"""Docs synced by git-sync while the service runs: a pushed commit, swapped in by its link, is answered from
within seconds and the removed text no longer; the revision served is in the knowledge, /readyz, /metrics and
the log; a swap is one change even when the files' sizes and times look the same."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from bot.answering.assistant import Assistant
from bot.answering.in_use import AssistantInUse
from bot.answering.refresh import KnowledgeRefresh
from bot.api import create_app
from bot.config import Settings, load_settings
from bot.services import Services
from tests.support.fakes import FakeEmbedder, lexical_model
from tests.support.git_sync import commit, drop, init_repo, sync

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

    def answer() -> str:
        body = client.post("/v1/query", json={"question": QUESTION, "lang": "en"})
        return body.text if body.status_code == 200 else ""

    first = commit(repo, "team.md", DOC)
    sync(repo, root, "current", first)
    wait_for(lambda: "Ganymede" in answer(), "the first revision answered from")
    assert services.assistant.knowledge.revision == {"team-docs": first}
    assert client.get("/readyz").json() == {"status": "ok", "reason": None, "knowledge_revision": {"team-docs": first}}
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
    assert "eksbot_knowledge_revision_info{" not in client.get("/metrics").text
