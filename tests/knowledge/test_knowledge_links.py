"""Links in the knowledge directory: one that leads out of it is refused and named, and nothing is read from
it; git-sync's layouts (a folder linked to a worktree in a hidden folder beside it, the directory itself given
as such a link) are read, also after the link is swapped to a new commit."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bot.knowledge import knowledge_digest, load_knowledge
from bot.knowledge.loader import knowledge_files

QUIZ = Path(__file__).parent.parent.parent / "knowledge" / "eks-training-quiz.en.md"
RUNBOOK = "# Runbook\n\n## Restarts\n\nRestart the quarblefitz daemon with systemctl.\n"
SECRET = "# Credentials\n\n## Keys\n\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"


@pytest.fixture
def knowledge(tmp_path: Path) -> Path:
    directory = tmp_path / "knowledge"
    directory.mkdir()
    (directory / "runbook.md").write_text(RUNBOOK, encoding="utf-8")
    return directory


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the knowledge directory, holding what must never be answered from."""
    folder = tmp_path / "home"
    folder.mkdir()
    (folder / "credentials.md").write_text(SECRET, encoding="utf-8")
    return folder


def texts(directory: Path) -> str:
    kb = load_knowledge(directory)
    return "\n".join(b.text for d in kb.documents for q in d.questions for b in q.blocks)


def test_a_link_to_a_file_outside_is_refused_and_named(knowledge: Path, outside: Path) -> None:
    link = knowledge / "keys.md"
    link.symlink_to(outside / "credentials.md")
    kb = load_knowledge(knowledge, strict=False)
    assert [d.doc_id for d in kb.documents] == ["runbook"]
    (skipped,) = kb.skipped
    assert skipped.path == link and "outside the knowledge folder" in skipped.reason
    assert "wJalrXUtnFEMI" not in texts(knowledge)
    assert knowledge_files(knowledge) == [knowledge / "runbook.md"]
    before = knowledge_digest(knowledge)
    (outside / "credentials.md").write_text(SECRET + "\nmore\n", encoding="utf-8")
    assert knowledge_digest(knowledge) == before  # not even read for the digest


def test_a_relative_link_out_and_a_hidden_link_out_are_refused(knowledge: Path, outside: Path) -> None:
    (knowledge / "up.md").symlink_to(Path("..") / "home" / "credentials.md")
    (knowledge / ".stash").symlink_to(outside)  # hidden: not read in its place…
    (knowledge / "team").symlink_to(".stash")  # …and a link to it still resolves outside
    (knowledge / "home").symlink_to(outside)
    kb = load_knowledge(knowledge, strict=False)
    assert [d.doc_id for d in kb.documents] == ["runbook"]
    assert sorted(s.path.name for s in kb.skipped) == ["home", "team", "up.md"]
    assert all("outside the knowledge folder" in s.reason for s in kb.skipped)
    assert "wJalrXUtnFEMI" not in texts(knowledge)


def test_a_link_to_a_folder_inside_is_read_once_in_its_place(knowledge: Path) -> None:
    (knowledge / "team").mkdir()
    (knowledge / "team" / "notes.md").write_text(RUNBOOK.replace("Runbook", "Team notes"), encoding="utf-8")
    (knowledge / "again").symlink_to("team")
    (knowledge / "loop").symlink_to(".")
    assert [d.doc_id for d in load_knowledge(knowledge).documents] == ["runbook", "team/notes"]


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", "-c", "user.name=Docs", "-c", "user.email=docs@example.com",
                           "-c", "init.defaultBranch=main", *args], cwd=cwd, check=True, capture_output=True,
                          text=True)
    return done.stdout.strip()


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


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The team's docs repository."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    return repo


def test_a_folder_linked_to_a_git_sync_worktree_is_read_and_follows_the_swap(knowledge: Path, repo: Path) -> None:
    first = commit(repo, "gpu.md", RUNBOOK.replace("quarblefitz", "first-commit"))
    sync(repo, knowledge, "team-docs", first)
    assert os.readlink(knowledge / "team-docs") == f".worktrees/{first}"
    kb = load_knowledge(knowledge)
    assert [d.doc_id for d in kb.documents] == ["runbook", "team-docs/gpu"] and not kb.skipped
    assert "first-commit" in texts(knowledge)

    second = commit(repo, "gpu.md", RUNBOOK.replace("quarblefitz", "second-commit"))
    sync(repo, knowledge, "team-docs", second)
    git("worktree", "remove", "--force", str(knowledge / ".worktrees" / first), cwd=repo)
    found = texts(knowledge)
    assert "second-commit" in found and "first-commit" not in found
    assert [d.doc_id for d in load_knowledge(knowledge).documents] == ["runbook", "team-docs/gpu"]


def test_the_knowledge_directory_given_as_git_syncs_link_is_read(tmp_path: Path, repo: Path) -> None:
    """EKSBOT_KNOWLEDGE_DIR=<root>/current, git-sync's link to `<root>/.worktrees/<sha>`: the directory is
    resolved once, and every file below it is inside."""
    sha = commit(repo, "eks-training-quiz.en.md", QUIZ.read_text(encoding="utf-8"))
    root = tmp_path / "git"
    root.mkdir()
    sync(repo, root, "current", sha)
    kb = load_knowledge(root / "current")
    assert [d.doc_id for d in kb.documents] == ["eks-training-quiz"] and not kb.skipped
