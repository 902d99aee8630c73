"""The core decides, the surfaces translate: only bot/api, bot/slack and bot/cli import web or Slack code."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from bot.config import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "bot"
SURFACES = ("api", "slack", "cli")
FORBIDDEN = frozenset({"fastapi", "starlette", "slack_bolt", "slack_sdk"})
CORE_MODULES = ("bot.answers", "bot.chunking", "bot.evaluation", "bot.knowledge", "bot.retrieval.store",
                "bot.retrieval.hybrid", "bot.text", "bot.embeddings", "bot.config", "bot.errors")


def imported_modules(source: str, filename: str = "<source>") -> Iterator[tuple[int, str]]:
    """(line, module) for every import, including `importlib.import_module("x")` and `__import__("x")`."""
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = ""
            if isinstance(func, ast.Attribute):
                name = func.attr
            elif isinstance(func, ast.Name):
                name = func.id
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                yield node.lineno, node.args[0].value


def forbidden_imports(source: str, filename: str = "<source>") -> list[str]:
    return [
        f"{filename}:{line}: imports {module}"
        for line, module in imported_modules(source, filename)
        if module.split(".")[0] in FORBIDDEN
    ]


def core_files() -> list[Path]:
    return sorted(
        path for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] not in SURFACES
    )


def test_detector_finds_every_import_form() -> None:
    source = "\n".join([
        "import fastapi",
        "from starlette.requests import Request",
        "import slack_bolt.app as app",
        "from slack_sdk import WebClient",
        "import importlib",
        "importlib.import_module('slack_bolt.adapter')",
        "__import__('fastapi.routing')",
        "def f():",
        "    from fastapi import APIRouter",
    ])
    lines = [int(problem.split(":")[1]) for problem in forbidden_imports(source)]
    assert sorted(lines) == [1, 2, 3, 4, 6, 7, 9]
    allowed = "import numpy\nfrom bot.answers import Answer\nfrom . import slack_sdk\nimport fastapi_like\n"
    assert forbidden_imports(allowed) == []


def test_walk_covers_the_core() -> None:
    names = {path.relative_to(PACKAGE).as_posix() for path in core_files()}
    assert {"answers.py", "text.py", "retrieval/hybrid.py", "knowledge/parser.py"} <= names
    assert not any(name.split("/")[0] in SURFACES for name in names)


def test_core_modules_import_no_web_or_slack_package() -> None:
    problems: list[str] = []
    for path in core_files():
        problems += forbidden_imports(path.read_text(encoding="utf-8"), str(path.relative_to(PROJECT_ROOT)))
    assert not problems, "the core must not import web or Slack packages:\n" + "\n".join(problems)


def test_importing_the_core_loads_no_web_or_slack_package() -> None:
    """Also catches an indirect import (a core module importing a helper that imports fastapi)."""
    code = (
        "import sys\n"
        + "".join(f"import {module}\n" for module in CORE_MODULES)
        + f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FORBIDDEN)!r}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", result.stdout
