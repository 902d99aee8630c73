"""git-sync's layout built from a local Git repository: each revision a worktree `<root>/.worktrees/<sha>`, and a
link in `<root>` swapped to it in one step; and its error file, written when a sync fails."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from bot.knowledge.git_sync import ERROR_FILE


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", "-c", "user.name=Docs", "-c", "user.email=docs@example.com",
                           "-c", "init.defaultBranch=main", *args], cwd=cwd, check=True, capture_output=True,
                          text=True)
    return done.stdout.strip()


def init_repo(repo: Path) -> Path:
    repo.mkdir(parents=True)
    git("init", "-q", cwd=repo)
    return repo


def commit(repo: Path, name: str, text: str) -> str:
    (repo / name).write_text(text, encoding="utf-8")
    git("add", name, cwd=repo)
    git("commit", "-q", "-m", f"{name}", cwd=repo)
    return git("rev-parse", "HEAD", cwd=repo)


def sync(repo: Path, root: Path, link: str, sha: str) -> None:
    """What git-sync does for a new commit: a worktree in `root/.worktrees/<sha>`, then the relative link
    `root/<link>` swapped to it in one step (a new link renamed over the old one)."""
    git("worktree", "add", "-q", "--detach", str(root / ".worktrees" / sha), sha, cwd=repo)
    fresh = root / f".{link}.new"
    fresh.symlink_to(Path(".worktrees") / sha)
    os.replace(fresh, root / link)


def drop(repo: Path, root: Path, sha: str) -> None:
    """What git-sync does with a revision once it is no longer linked: its worktree removed."""
    git("worktree", "remove", "--force", str(root / ".worktrees" / sha), cwd=repo)


def fail(root: Path, err: str, msg: str = "error syncing repo, will retry", at: float | None = None) -> None:
    """What git-sync (`--error-file`) does when a sync fails: the error as JSON, written aside then renamed to
    `root/<ERROR_FILE>` (again at each failed attempt). `at`: the time the attempt is written at (its file's
    modification time), set before the rename, so that no reader sees the new error with another time."""
    payload = {"Msg": msg, "Err": err, "Args": {"failCount": 1}}
    aside = root / "tmp-err-1"
    aside.write_text(json.dumps(payload), encoding="utf-8")
    if at is not None:
        os.utime(aside, (at, at))
    os.replace(aside, root / ERROR_FILE)


def heal(root: Path) -> None:
    """What git-sync does after a sync that works: its error file deleted."""
    (root / ERROR_FILE).unlink(missing_ok=True)
