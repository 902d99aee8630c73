"""Links in the knowledge directory: one that leads out of it is refused and named, and nothing is read from
it; git-sync's layouts (a folder linked to a worktree in a hidden folder beside it, the directory itself given
as such a link) are read, also after the link is swapped to a new commit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.knowledge import knowledge_digest, load_knowledge
from bot.knowledge.loader import knowledge_files
from tests.support.git_sync import commit, git, init_repo, sync

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


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The team's docs repository."""
    return init_repo(tmp_path / "repo")


def test_a_folder_linked_to_a_git_sync_worktree_is_read_and_follows_the_swap(knowledge: Path, repo: Path) -> None:
    first = commit(repo, "gpu.md", RUNBOOK.replace("quarblefitz", "first-commit"))
    sync(repo, knowledge, "team-docs", first)
    assert os.readlink(knowledge / "team-docs") == f".worktrees/{first}"
    kb = load_knowledge(knowledge)
    assert [d.doc_id for d in kb.documents] == ["runbook", "team-docs/gpu"] and not kb.skipped
    assert kb.revision == {"team-docs": first}  # the commit read, from the link's target: no git command
    assert "first-commit" in texts(knowledge)

    second = commit(repo, "gpu.md", RUNBOOK.replace("quarblefitz", "second-commit"))
    sync(repo, knowledge, "team-docs", second)
    git("worktree", "remove", "--force", str(knowledge / ".worktrees" / first), cwd=repo)
    found = texts(knowledge)
    assert "second-commit" in found and "first-commit" not in found
    kb = load_knowledge(knowledge)
    assert [d.doc_id for d in kb.documents] == ["runbook", "team-docs/gpu"] and kb.revision == {"team-docs": second}


def test_the_knowledge_directory_given_as_git_syncs_link_is_read(tmp_path: Path, repo: Path) -> None:
    """EKSBOT_KNOWLEDGE_DIR=<root>/current, git-sync's link to `<root>/.worktrees/<sha>`: the directory is
    resolved once, and every file below it is inside."""
    sha = commit(repo, "eks-training-quiz.en.md", QUIZ.read_text(encoding="utf-8"))
    root = tmp_path / "git"
    root.mkdir()
    sync(repo, root, "current", sha)
    kb = load_knowledge(root / "current")
    assert [d.doc_id for d in kb.documents] == ["eks-training-quiz"] and not kb.skipped
    assert kb.revision == {"git": sha}


def test_git_syncs_root_mounted_as_a_folder_names_that_folder_and_its_commit(knowledge: Path, repo: Path) -> None:
    """The chart's layout: git-sync's root is the folder `team-docs`, read through its link `current`. A link
    into a hidden folder that is not a git-sync worktree names no revision."""
    sha = commit(repo, "gpu.md", RUNBOOK)
    root = knowledge / "team-docs"
    root.mkdir()
    sync(repo, root, "current", sha)
    (knowledge / ".drafts").mkdir()
    (knowledge / ".drafts" / "draft.md").write_text(RUNBOOK.replace("quarblefitz", "draft"), encoding="utf-8")
    (knowledge / "drafts").symlink_to(".drafts")
    kb = load_knowledge(knowledge)
    assert [d.doc_id for d in kb.documents] == ["drafts/draft", "runbook", "team-docs/current/gpu"]
    assert kb.revision == {"team-docs": sha} and kb.revisions == (("team-docs", sha),)
