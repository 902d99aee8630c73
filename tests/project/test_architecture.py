"""The core decides, the surfaces translate, and each layer imports only the ones below it.

Pinned here: only bot/api, bot/slack and bot/cli import web or Slack code; no core module reaches a
surface; and the floors of the layer table in docs/architecture.md (read from it: the one source of truth)
hold for every pair, directly or through any chain of imports. Imports under `if TYPE_CHECKING:` are types only:
they load nothing and do not count as a layer's dependency.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pytest

from bot.config import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "bot"
SURFACES = ("api", "slack", "cli")
FORBIDDEN = frozenset({"fastapi", "starlette", "slack_bolt", "slack_sdk"})
ARCHITECTURE_DOC = PROJECT_ROOT / "docs" / "architecture.md"
CORE_PACKAGES = ("bot.text", "bot.reading", "bot.knowledge", "bot.embedding", "bot.retrieval", "bot.answering",
                 "bot.evaluation", "bot.curation",
                 "bot.quiz", "bot.rounds", "bot.storage", "bot.services", "bot.home", "bot.config", "bot.errors",
                 "bot.lang", "bot.messages", "bot.logs", "bot.metrics")
# Modules that sit loose in bot/ (everything else lives in a package named for its one job).
LOOSE_AT_MOST = 10


def floors(text: str) -> list[list[str]]:
    """The floors of the layer table in docs/architecture.md, top first, each as its modules' names
    (`answering/` is `bot.answering`, `services.py` is `bot.services`)."""
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    found: list[list[str]] = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[1].startswith("`"):
            continue
        found.append([_module_of(name.strip("`")) for name in cells[1].split()])
    return found


def floor_exceptions(text: str) -> set[tuple[str, str]]:
    """The pairs of one floor that may import each other: "`api/` → `slack/`" in the Layers section."""
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    exceptions = section.split("Exceptions on one floor:", 1)[1].split("\n\n", 1)[0]
    return {(_module_of(source), _module_of(target))
            for source, target in re.findall(r"`([\w./]+)` → `([\w./]+)`", exceptions)}


def _module_of(name: str) -> str:
    return "bot." + name.removesuffix("/").removesuffix(".py")


def forbidden_pairs() -> list[tuple[str, str]]:
    """(module, what it must never reach): every package on the same floor (but the exceptions) and every one
    on a floor above, from the table."""
    text = ARCHITECTURE_DOC.read_text(encoding="utf-8")
    table, allowed = floors(text), floor_exceptions(text)
    pairs: list[tuple[str, str]] = []
    for level, floor in enumerate(table):
        above_or_beside = [m for upper in table[:level] for m in upper] + floor
        pairs += [(lower, upper) for lower in floor for upper in above_or_beside
                  if upper != lower and (lower, upper) not in allowed]
    return pairs


FLOORS = forbidden_pairs()


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


def module_name(path: Path) -> str:
    parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def core_files() -> list[Path]:
    return sorted(
        path for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] not in SURFACES
    )


def core_modules() -> list[str]:
    """Every importable core module (migration scripts run inside Alembic only)."""
    return [module_name(path) for path in core_files() if "migrations" not in path.parts]


def _type_only(tree: ast.AST) -> set[int]:
    """Ids of the nodes under `if TYPE_CHECKING:`."""
    nodes: set[int] = set()
    for node in ast.walk(tree):
        test = getattr(node, "test", None)
        if isinstance(node, ast.If) and (
            (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
        ):
            nodes |= {id(inner) for child in node.body for inner in ast.walk(child)}
    return nodes


def _with_parents(name: str) -> list[str]:
    """Importing `bot.quiz.engine` runs `bot`, `bot.quiz` and `bot.quiz.engine`."""
    parts = name.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def _imports(tree: ast.AST, package: str) -> Iterator[tuple[ast.AST, str, list[str]]]:
    """(node, base module, the names it imports from it) for every import statement, relative ones resolved
    against `package`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name, []
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            yield node, base, [alias.name for alias in node.names]


@cache
def import_graph() -> dict[str, frozenset[str]]:
    """Each bot module -> the bot modules it imports when it runs (at import or inside a function)."""
    files = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, frozenset[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skip = _type_only(tree)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node, base, names in _imports(tree, package):
            if id(node) in skip:
                continue
            targets = [base, *(f"{base}.{n}" for n in names)]
            found |= {m for target in targets for m in _with_parents(target) if m in files and m != name}
        graph[name] = frozenset(found | {m for m in _with_parents(name)[:-1] if m in files})
    return graph


def chain_to(start: str, target: str) -> list[str] | None:
    """The shortest chain of imports from `start` to `target` or a module inside it; None when there is none."""
    graph = import_graph()
    came_from: dict[str, str | None] = {start: None}
    queue = [start]
    while queue:
        current = queue.pop(0)
        if current == target or current.startswith(target + "."):
            chain = [current]
            while (previous := came_from[chain[-1]]) is not None:
                chain.append(previous)
            return chain[::-1]
        for following in sorted(graph.get(current, ())):
            if following not in came_from:
                came_from[following] = current
                queue.append(following)
    return None


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
    allowed = "import numpy\nfrom bot.answering.assistant import Answer\nfrom . import slack_sdk\nimport fastapi_like\n"
    assert forbidden_imports(allowed) == []


def test_the_graph_follows_chains_parents_and_lazy_imports_but_not_types() -> None:
    graph = import_graph()
    assert "bot.quiz.engine" in graph["bot.services"] or "bot.quiz" in graph["bot.services"]
    assert "bot.quiz" in graph["bot.quiz.models"]  # importing a module runs its package first
    assert "bot.text.tokens" in graph["bot.retrieval.artifacts"]  # imported inside a function
    assert "bot.answering.assistant" in graph["bot.cli.main"]  # in a function, next to a TYPE_CHECKING import
    assert "bot.config" not in graph["bot.embedding.backends"]  # types only
    assert chain_to("bot.services", "bot.text.tokens") is not None
    assert chain_to("bot.text.tokens", "bot.services") is None


def test_the_layer_table_is_read_whole_from_the_architecture_doc() -> None:
    text = ARCHITECTURE_DOC.read_text(encoding="utf-8")
    table = floors(text)
    assert table[0] == ["bot.api", "bot.slack", "bot.cli"] and table[-1] == ["bot.errors"]
    placed = [m for floor in table for m in floor]
    assert len(placed) == len(set(placed)), "a package sits on two floors"
    packages = {module_name(p) for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    packages |= {f"bot.{p.name}" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert set(placed) == packages, f"not on a floor: {sorted(packages - set(placed))}; " \
                                    f"no such module: {sorted(set(placed) - packages)}"
    assert floor_exceptions(text) == {("bot.api", "bot.slack"), ("bot.cli", "bot.api"), ("bot.cli", "bot.slack")}
    pairs = set(forbidden_pairs())
    assert ("bot.rounds", "bot.answering") in pairs and ("bot.rounds", "bot.curation") in pairs
    assert ("bot.slack", "bot.api") in pairs and ("bot.api", "bot.slack") not in pairs
    assert ("bot.text", "bot.knowledge") in pairs and ("bot.knowledge", "bot.text") not in pairs


def test_walk_covers_the_core() -> None:
    names = {path.relative_to(PACKAGE).as_posix() for path in core_files()}
    assert {"answering/assistant.py", "text/tokens.py", "retrieval/hybrid.py", "knowledge/parser.py",
            "quiz/engine.py", "storage/store.py", "services.py", "lang.py", "knowledge/citations.py",
            "answering/batcher.py"} <= names
    assert not any(name.split("/")[0] in SURFACES for name in names)
    modules = core_modules()
    assert set(CORE_PACKAGES) <= set(modules)
    assert not any(m.split(".")[1] in SURFACES for m in modules if "." in m)


def test_core_modules_import_no_web_or_slack_package() -> None:
    problems: list[str] = []
    for path in core_files():
        problems += forbidden_imports(path.read_text(encoding="utf-8"), str(path.relative_to(PROJECT_ROOT)))
    assert not problems, "the core must not import web or Slack packages:\n" + "\n".join(problems)


def test_no_core_module_reaches_a_surface() -> None:
    chains = [chain_to(module, f"bot.{surface}") for module in core_modules() for surface in SURFACES]
    found = [" -> ".join(chain) for chain in chains if chain]
    assert not found, "the core must not import a surface:\n" + "\n".join(found)


@pytest.mark.parametrize(("lower", "upper"), FLOORS, ids=[f"{a}-not-{b}" for a, b in FLOORS])
def test_a_layer_never_reaches_the_one_above(lower: str, upper: str) -> None:
    modules = [m for m in import_graph() if m == lower or m.startswith(lower + ".")]
    assert modules, f"no module {lower}"
    found = [" -> ".join(chain) for module in modules if (chain := chain_to(module, upper))]
    assert not found, f"{lower} must not import {upper}, even through another module:\n" + "\n".join(found)


def test_importing_the_core_loads_no_web_or_slack_package() -> None:
    """Also catches an indirect import (a core module importing a helper that imports fastapi)."""
    code = (
        "import sys\n"
        + "".join(f"import {module}\n" for module in core_modules())
        + f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FORBIDDEN)!r}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", result.stdout


def test_importing_the_quiz_and_storage_loads_no_retrieval() -> None:
    """The quiz, its storage and the team rounds serve without FAISS, the model or the answers."""
    heavy = ("faiss", "torch", "sentence_transformers", "bm25s", "bot.answering", "bot.retrieval", "bot.embedding")
    code = (
        "import sys, bot.quiz, bot.storage, bot.rounds\n"
        f"print(sorted(m for m in sys.modules if m.startswith({heavy!r})))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", result.stdout


# -- cycles ---------------------------------------------------------------------------------------

def explicit_graph() -> dict[str, frozenset[str]]:
    """Each bot module -> the bot modules its import statements name, wherever they stand (at the top, inside
    a function, or under TYPE_CHECKING), each resolved to the most specific module it names. The package a
    module sits in is not counted: Python runs it first, but no statement chose it."""
    files = {module_name(path): path for path in PACKAGE.rglob("*.py") if "migrations" not in path.parts}
    graph: dict[str, frozenset[str]] = {}
    for name, path in files.items():
        graph[name] = frozenset(_named_modules(path.read_text(encoding="utf-8"), name, path.name == "__init__.py",
                                               set(files)) - {name})
    return graph


def _named_modules(source: str, name: str, is_package: bool, known: set[str]) -> set[str]:
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for _node, base, names in _imports(ast.parse(source), package):
        for target in [f"{base}.{n}" if f"{base}.{n}" in known else base for n in names] or [base]:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target:
                found.add(target)
    return found


def cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """The groups of modules that import one another, directly or through others (Tarjan's strongly
    connected components of more than one module), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for following in sorted(graph.get(module, ())):
            if following not in index:
                visit(following)
                low[module] = min(low[module], low[following])
            elif following in on_stack:
                low[module] = min(low[module], index[following])
        if low[module] == index[module]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_the_cycle_finder_sees_lazy_and_type_only_imports() -> None:
    known = {"bot.a", "bot.b", "bot.c"}
    assert _named_modules("def f():\n    from bot.b import x\n", "bot.a", False, known) == {"bot.b"}
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bot.a import Y\n"
    assert _named_modules(typed, "bot.b", False, known) == {"bot.a"}
    graph = {"bot.a": frozenset({"bot.b"}), "bot.b": frozenset({"bot.c"}), "bot.c": frozenset({"bot.a"}),
             "bot.d": frozenset({"bot.a"})}
    assert cycles(graph) == [["bot.a", "bot.b", "bot.c"]]
    assert cycles({**graph, "bot.c": frozenset()}) == []


def test_no_import_cycles() -> None:
    graph = explicit_graph()
    found = cycles(graph)
    described = [" <-> ".join(group) + ": " + "; ".join(
        f"{m} -> {', '.join(sorted(graph[m] & set(group)))}" for m in group) for group in found]
    assert not found, "modules that import one another:\n" + "\n".join(described)


def test_errors_depend_on_nothing_and_model_identity_on_errors_only() -> None:
    graph = explicit_graph()
    assert graph["bot.errors"] == frozenset()
    assert graph["bot.embedding.model"] <= {"bot.errors"}
    backends = {m for m in graph if m.startswith("bot.embedding.") and m.endswith("_backend")}
    assert backends == {"bot.embedding.onnx_backend", "bot.embedding.torch_backend"}
    knows_backends = sorted(m for m, named in graph.items() if named & backends and m not in backends)
    assert knows_backends == ["bot.embedding.backends", "bot.embedding.export"], knows_backends
    assert "bot.embedding.torch_backend" not in graph["bot.embedding.export"]


def test_only_services_and_the_surfaces_import_curation() -> None:
    graph = explicit_graph()
    importers = sorted(m for m, named in graph.items()
                       if any(n.startswith("bot.curation") for n in named) and not m.startswith("bot.curation"))
    allowed = ("bot.services", *(f"bot.{surface}" for surface in SURFACES))
    assert importers and all(m.startswith(allowed) for m in importers), importers


def test_only_the_reading_applies_the_rules_of_how_people_write() -> None:
    """A message's words are read in bot/reading/: outside it, the rules of `bot/data/rules/<lang>.yaml` are read
    only for the knowledge's own defining sentences (`bot.answering.definitions`), never on a message."""
    graph = explicit_graph()
    importers = sorted(m for m, named in graph.items()
                       if "bot.reading.rules" in named and not m.startswith("bot.reading"))
    assert importers == ["bot.answering.definitions"], importers


def test_only_the_command_line_imports_the_evaluation_tools() -> None:
    graph = explicit_graph()
    importers = sorted(m for m, named in graph.items()
                       if any(n.startswith("bot.evaluation") for n in named) and not m.startswith("bot.evaluation"))
    assert importers and all(m.startswith("bot.cli") for m in importers), importers


def test_the_package_root_has_room_signs() -> None:
    loose = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(loose) <= LOOSE_AT_MOST, f"{len(loose)} modules loose in bot/: {loose}"
    for package in (path for path in PACKAGE.iterdir() if path.is_dir() and path.name not in ("data", "__pycache__")):
        init = package / "__init__.py"
        assert init.is_file() and ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), (
            f"{package.name}/ says what it is for in its __init__ docstring")


# -- each rule written once -------------------------------------------------------------------------------
# A rule the code applies in several places is defined by one module, which the others import: the
# control characters (`bot.text.control`), Slack's markup (`bot.reading.markup`), the default team
# (`bot.quiz.models`), the languages (`bot.lang`) and the Slack action ids (`bot.slack.action_ids`).

# Files that still write a rule of their own, each with why; none should be added.
NOT_YET_ONCE: dict[str, str] = {}


def package_sources() -> Iterator[tuple[str, str, ast.Module]]:
    """(path from the project's root, source, tree) of every module of bot/."""
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        yield path.relative_to(PROJECT_ROOT).as_posix(), source, ast.parse(source, filename=str(path))


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the nodes that are docstrings (prose, not rules)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _strings(tree: ast.AST) -> Iterator[tuple[ast.Constant, str]]:
    """Every string constant of `tree` but its docstrings, with its text."""
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node, node.value


def _written_elsewhere(owner: str, found: Callable[[str, ast.Module], list[int]]) -> list[str]:
    return [f"{path}:{line}" for path, source, tree in package_sources()
            if path != owner and path not in NOT_YET_ONCE for line in found(source, tree)]


def test_the_control_characters_are_defined_once() -> None:
    # In the source, a character class of control characters starts one of these ranges (`\x00-\x1f`).
    control_range = re.compile(r"\\x(?:00|7f|80)-")

    def found(source: str, _tree: ast.Module) -> list[int]:
        return [source.count("\n", 0, m.start()) + 1 for m in control_range.finditer(source)]

    elsewhere = _written_elsewhere("bot/text/control.py", found)
    assert not elsewhere, "control characters are bot.text.control's C0, C0_BUT_LAYOUT, C1 and CONTROL:\n" + \
        "\n".join(elsewhere)


def test_slacks_markup_is_read_by_one_set_of_patterns() -> None:
    markup = ("<@[", "<#[", "https?|mailto", "<!(", "<![^|")  # `(?<![` is a look-behind, no markup

    def found(_source: str, tree: ast.Module) -> list[int]:
        return [node.lineno for node, text in _strings(tree) if any(part in text for part in markup)]

    elsewhere = _written_elsewhere("bot/reading/markup.py", found)
    assert not elsewhere, "Slack's mentions, channels and links are bot.reading.markup's SLACK_* patterns:\n" + \
        "\n".join(elsewhere)


def test_the_default_team_is_one_constant() -> None:
    def found(_source: str, tree: ast.Module) -> list[int]:
        return [node.lineno for node, text in _strings(tree) if text == "default"]

    elsewhere = _written_elsewhere("bot/quiz/models.py", found)
    assert not elsewhere, "the team of whoever names none is bot.quiz.DEFAULT_TEAM:\n" + "\n".join(elsewhere)


def test_the_languages_are_named_once() -> None:
    def found(_source: str, tree: ast.Module) -> list[int]:
        return [node.lineno for node in ast.walk(tree)
                if isinstance(node, ast.Tuple | ast.List | ast.Set) and len(node.elts) == 2
                and {e.value for e in node.elts if isinstance(e, ast.Constant)} == {"es", "en"}]

    elsewhere = _written_elsewhere("bot/lang.py", found)
    assert not elsewhere, "the languages are bot.lang's LANGUAGES (and Lang):\n" + "\n".join(elsewhere)


def test_slack_action_ids_are_defined_once() -> None:
    from bot.slack import action_ids

    ids = {value for name, value in vars(action_ids).items() if name.endswith("_ACTION") and isinstance(value, str)}
    assert ids, "bot.slack.action_ids defines the action ids"
    # A text's key may read like an action id ("quiz_me": the button's label): a catalog's keys and what is
    # looked up in it are not action ids, nor is a block's id.
    catalogs = {"bot/slack/texts.py", "bot/slack/round_texts.py"}

    def found(_source: str, tree: ast.Module) -> list[int]:
        looked_up: set[int] = set()  # and a block's id, which may be named like the action in it
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("t", "rt"):
                looked_up |= {id(inner) for arg in node.args for inner in ast.walk(arg)}
            elif isinstance(node, ast.Dict):
                looked_up |= {id(value) for key, value in zip(node.keys, node.values, strict=True)
                              if isinstance(key, ast.Constant) and key.value == "block_id"}
        return [node.lineno for node, text in _strings(tree) if id(node) not in looked_up
                and any(text == i or f"{i}_" in text for i in ids)]

    elsewhere = [place for place in _written_elsewhere("bot/slack/action_ids.py", found)
                 if place.rsplit(":", 1)[0] not in catalogs]
    assert not elsewhere, "Slack action ids are bot.slack.action_ids's:\n" + "\n".join(elsewhere)


def test_no_surface_imports_the_database_library() -> None:
    """The surfaces reach the database through bot.storage only."""
    problems = [f"{path}:{line}: imports {module}" for path, source, _tree in package_sources()
                if path.split("/")[1] in SURFACES for line, module in imported_modules(source, path)
                if module.split(".")[0] in ("sqlalchemy", "alembic")]
    assert not problems, "\n".join(problems)
