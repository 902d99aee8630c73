"""The fake-embedder assistant over the repository's knowledge and a few more documents a test writes: a
front matter's URL, a long code block, a document deep in folders. Only the new documents are embedded."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bot.answering.assistant import Assistant
from bot.knowledge import load_knowledge

OFFICE_HOURS = "When does the ML platform team hold its office hours?"


def team_doc(*, front: str = "", code: str | None = None) -> str:
    """A document that answers OFFICE_HOURS, with `front` added to its front matter and `code` as its snippet."""
    block = f"\n```bash\n{code}\n```\n" if code is not None else ""
    return (f"---\ntitle: ML platform team\n{front}---\n\nWho we are and how to reach us.\n\n## Office hours\n\n"
            f"The ML platform team holds office hours every Thursday at 15:00 in the Ganymede room.\n{block}")


def with_documents(assistant: Assistant, knowledge_copy: Path, files: dict[str, str]) -> Assistant:
    """`assistant` over `knowledge_copy` with `files` (path under it: text) written there."""
    for name, text in files.items():
        path = knowledge_copy / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return assistant.with_knowledge(load_knowledge(knowledge_copy))


def beside_the_quiz(assistant: Assistant, directory: Path, files: dict[str, str]) -> Assistant:
    """`assistant` over a copy of the repository's knowledge in `directory` (its "knowledge" folder) with `files`
    written beside the quiz."""
    from tests.conftest import KNOWLEDGE

    knowledge = directory / "knowledge"
    shutil.copytree(KNOWLEDGE, knowledge)
    return with_documents(assistant, knowledge, files)


def services_like(services: Any, assistant: Assistant) -> Any:
    """What `client_for` and `bot_server` take from the services: `assistant` and the same database."""
    return SimpleNamespace(assistant=assistant, stores=services.stores)
