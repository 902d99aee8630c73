"""git-sync's error file: found in each git-sync folder's root, never read as knowledge, read only when it
changed, and what it says cut to one safe line (no credentials, nothing unprintable, capped)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bot.knowledge import load_knowledge
from bot.knowledge.git_sync import ERROR_FILE, OK, READ_MOST, SHOWN_MOST, UNREADABLE, look, message
from bot.knowledge.loader import find_knowledge
from tests.support.git_sync import commit, fail, heal, init_repo, sync

RUNBOOK = "# Runbook\n\n## Restarts\n\nRestart the quarblefitz daemon with systemctl.\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "repo")


def test_each_git_sync_folder_names_its_root_and_the_error_file_is_never_knowledge(tmp_path: Path,
                                                                                     repo: Path) -> None:
    knowledge = tmp_path / "knowledge"
    (knowledge / "team-docs").mkdir(parents=True)
    (knowledge / "runbook.md").write_text(RUNBOOK, encoding="utf-8")
    sha = commit(repo, "gpu.md", RUNBOOK)
    sync(repo, knowledge / "team-docs", "current", sha)
    (knowledge / "team-docs" / ERROR_FILE).write_text("# Not knowledge\n\n## Oops\n\nfatal: unreachable\n")
    (knowledge / "team-docs" / ".git-sync-error.md").write_text("# Not knowledge\n\n## Oops\n\nfatal\n")
    found = find_knowledge(knowledge)
    assert found.roots == (("team-docs", knowledge / "team-docs"),)
    assert all(path.name.endswith(".md") and not path.name.startswith(".") for path in found.files)
    kb = load_knowledge(knowledge)
    assert not any("unreachable" in doc.title or "Oops" in doc.title for doc in kb.documents)

    root = tmp_path / "git"  # the knowledge directory given as git-sync's link: its root is the link's folder
    root.mkdir()
    sync(repo, root, "current", sha)
    assert find_knowledge(root / "current").roots == (("git", root),)
    assert find_knowledge(tmp_path / "knowledge" / "runbook.md").roots == ()


def test_the_error_file_says_failing_since_its_first_sight_and_is_read_only_when_it_changed(tmp_path: Path) -> None:
    assert look(tmp_path) is OK and OK.ok
    fail(tmp_path, "Run(git fetch): exit status 128")
    first = look(tmp_path)
    assert not first.ok and first.error == "error syncing repo, will retry: Run(git fetch): exit status 128"
    assert first.failing_since == first.last_failure == (tmp_path / ERROR_FILE).stat().st_mtime
    assert look(tmp_path, first) is first  # unchanged: not read again
    fail(tmp_path, "Run(git fetch): timed out")
    later = (tmp_path / ERROR_FILE).stat().st_mtime + 30
    os.utime(tmp_path / ERROR_FILE, (later, later))
    second = look(tmp_path, first)
    assert second.failing_since == first.failing_since and second.last_failure == later
    assert second.error is not None and second.error.endswith("timed out")
    heal(tmp_path)
    assert look(tmp_path, second) is OK
    assert look(tmp_path / "gone", second) is OK  # no root, no error file


@pytest.mark.parametrize(("raw", "said"), [
    (json.dumps({"Msg": "error syncing repo, will retry",
                 "Err": "Run(git ls-remote -q https://eksbot:ghp_abc123@git.example.com/r.git): exit status 128"}),
     "error syncing repo, will retry: Run(git ls-remote -q https://git.example.com/r.git): exit status 128"),
    (json.dumps({"Msg": "", "Err": "fatal: could not read Username\nfor 'https://git.example.com'"}),
     "fatal: could not read Username"),
    (json.dumps({"Msg": "too many failures, aborting", "Err": 7}), "too many failures, aborting"),
    (json.dumps("ssh://git:hunter2@git.example.com:22/r.git: connection refused"),
     "ssh://git.example.com:22/r.git: connection refused"),
    ("\n\n  not JSON: https://token@git.example.com/r.git\tdown  \nsecond line",
     "not JSON: https://git.example.com/r.git down"),
    ('{"Msg": "x", "Err": "https://user:pa%40ss@host/r', '{"Msg": "x", "Err": "https://host/r'),
    ("\x1b[31mred\x07\x00", "[31mred"),
    ("", UNREADABLE),
    ("\n \n", UNREADABLE),
    (json.dumps({"Msg": None, "Err": None}), '{"Msg": null, "Err": null}'),
])
def test_the_message_is_one_safe_line(raw: str, said: str) -> None:
    assert message(raw.encode()) == said


def test_the_message_is_capped_and_a_cut_file_loses_its_last_word() -> None:
    long = message(("word " * 1000).encode())
    assert len(long) == SHOWN_MOST and long.endswith("…")
    cut = b"fatal: https://eksbot:ghp_s3cret"  # the file went on past what was read: the URL's rest unseen
    assert message(cut, cut=True) == "fatal:"
    assert message(b"x" * READ_MOST, cut=True) == UNREADABLE
